package server

import (
	"context"
	"net/http"
	"sync"

	"github.com/apisem/apisem/negotiation"
)

// AddWarning adds a warning to the response of the request ctx belongs
// to, as Kubernetes' warning.AddWarning does: the client gets it as a
// `Warning: 299 - "text"` header (kubectl prints it, client-go hands it
// to its WarningHandler) whatever the response turns out to be, an error
// included. Warnings are deduplicated and held to Kubernetes' limits
// (negotiation.WriteWarnings). Admission hooks, and the Resource hooks
// that get the request's context, call it; outside a request it does
// nothing.
func AddWarning(ctx context.Context, text string) {
	if w, ok := ctx.Value(warningsKey{}).(*warnings); ok {
		w.add(text)
	}
}

type warningsKey struct{}

// warnings are the warnings of one response, kept in its headers as they
// come, as Kubernetes' recorder does.
type warnings struct {
	mu    sync.Mutex // hooks may warn from goroutines of their own
	h     http.Header
	texts []string
}

// withWarningsOf returns r with the warnings recorder of its response w
// in its context.
func withWarningsOf(w http.ResponseWriter, r *http.Request) *http.Request {
	ctx := r.Context()
	if _, ok := ctx.Value(warningsKey{}).(*warnings); ok {
		return r
	}
	if rq, ok := ctx.(*request); ok {
		rq.warn.h, rq.warnOn = w.Header(), true
		return r
	}
	return r.WithContext(&warningsContext{Context: ctx, w: warnings{h: w.Header()}})
}

// warningsContext is a context with a warnings recorder: one allocation
// for both.
type warningsContext struct {
	context.Context
	w warnings
}

func (c *warningsContext) Value(key any) any {
	if key == (warningsKey{}) {
		return &c.w
	}
	return c.Context.Value(key)
}

func (w *warnings) add(texts ...string) {
	if len(texts) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.texts = append(w.texts, texts...)
	// The limits apply to the whole set: write it again.
	w.h.Del("Warning")
	negotiation.WriteWarnings(w.h, w.texts)
}

// addWarnings adds texts to the response of ctx's request, as AddWarning.
func addWarnings(ctx context.Context, texts []string) {
	if w, ok := ctx.Value(warningsKey{}).(*warnings); ok {
		w.add(texts...)
	}
}
