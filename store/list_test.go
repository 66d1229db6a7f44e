package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apisem/apisem/paging"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// history6 builds revisions 1-6:
//
//	1 create a   2 create b   3 create c   4 update a   5 delete b   6 create d
//
// so the collection is {a@1 b@2 c@3} at revision 3 and {a@4 c@3 d@6} at 6.
func history6(t *testing.T) *fixture {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	for _, n := range []string{"a", "b", "c"} {
		f.create(t, newWidget("ns", n))
	}
	a := f.get(t, "ns", "a")
	a.Spec = map[string]string{"v": "2"}
	if _, err := f.r.Update(ctx, a, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.r.Delete(ctx, "ns", "b", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.create(t, newWidget("ns", "d"))
	return f
}

func listed(p *Page[*widget]) string {
	var parts []string
	for i := 0; i < p.Len(); i++ {
		w := p.At(i)
		parts = append(parts, w.Name+"@"+w.ResourceVersion)
	}
	s := strings.Join(parts, " ")
	if p.Continue() != "" {
		s += " +"
	}
	if n, ok := p.RemainingItemCount(); ok {
		s += fmt.Sprintf(" (%d more)", n)
	}
	return fmt.Sprintf("rv=%s [%s]", p.ResourceVersion(), s)
}

func TestListSelectors(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	for i := range 9 {
		w := newWidget(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("w%d", i))
		w.Labels = map[string]string{"tier": []string{"web", "db", "cache"}[i%3], "i": fmt.Sprint(i)}
		w.Spec = map[string]string{"color": []string{"red", "blue"}[i%2]}
		f.create(t, w)
	}
	list := func(ns, labels, fields string, limit int64, cont string) (*Page[*widget], error) {
		fs, err := f.r.ParseFieldSelector(fields)
		if err != nil {
			return nil, err
		}
		read := rv.Read{Semantics: rv.MostRecent, Limit: limit}
		if cont != "" {
			read = rv.Read{Semantics: rv.ContinueExact, Continue: cont, Limit: limit}
		}
		return f.r.List(ctx, ns, ListOptions{Read: read, Labels: mustLabels(t, labels), Fields: fs})
	}
	names := func(p *Page[*widget]) string {
		var s []string
		for _, w := range p.Items() {
			s = append(s, w.Name)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct{ ns, labels, fields, want string }{
		{"", "tier=web", "", "w0,w3,w6"},
		{"", "tier in (db,cache),i>4", "", "w7,w5,w8"},
		{"", "", "spec.color=red", "w0,w6,w4,w2,w8"},
		{"", "tier!=web", "spec.color=blue", "w1,w7,w5"},
		{"", "", "metadata.namespace=ns1", "w1,w4,w7"},
		{"", "", "metadata.namespace=ns1,metadata.name!=w4", "w1,w7"},
		{"ns2", "", "metadata.name=w5", "w5"},
		{"ns2", "", "metadata.namespace=ns1", ""},
	} {
		p, err := list(tt.ns, tt.labels, tt.fields, 0, "")
		if err != nil {
			t.Fatalf("list %q %q: %v", tt.labels, tt.fields, err)
		}
		if got := names(p); got != tt.want {
			t.Errorf("list ns=%q labels=%q fields=%q = %s; want %s", tt.ns, tt.labels, tt.fields, got, tt.want)
		}
		if _, ok := p.RemainingItemCount(); ok {
			t.Errorf("remainingItemCount set on a full list")
		}
	}
	// A selector hides remainingItemCount; a full page with more objects
	// after it carries a token even if none of them match, and the next
	// page is then empty without one (Kubernetes' cache behaves so).
	p, err := list("", "tier=web", "", 2, "")
	if err != nil || names(p) != "w0,w3" || p.Continue() == "" {
		t.Fatalf("page 1 = %s %v", names(p), err)
	}
	if _, ok := p.RemainingItemCount(); ok {
		t.Errorf("remainingItemCount set with a label selector")
	}
	p, err = list("", "tier=web", "", 2, p.Continue())
	if err != nil || names(p) != "w6" || p.Continue() != "" {
		t.Fatalf("page 2 = %s %q %v", names(p), p.Continue(), err)
	}
	p, err = list("", "tier=web", "", 3, "")
	if err != nil || names(p) != "w0,w3,w6" || p.Continue() == "" {
		t.Fatalf("full page = %s %q %v", names(p), p.Continue(), err)
	}
	p, err = list("", "tier=web", "", 3, p.Continue())
	if err != nil || p.Len() != 0 || p.Continue() != "" {
		t.Fatalf("page after the full page = %s %q %v", names(p), p.Continue(), err)
	}

	_, err = list("", "", "spec.size=1", 0, "")
	wantStatus(t, "unknown field", err, 400, status.ReasonBadRequest,
		`"spec.size" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.color"`)
	plain := f.s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "plain"}, Namespaced: true})
	_, err = plain.List(ctx, "", ListOptions{Fields: mustFields(t, "status.phase=Running")})
	wantStatus(t, "default text", err, 400, status.ReasonBadRequest,
		`"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"`)
	custom := f.s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "custom"},
		UnknownField: func(l string) string { return "field label not supported: " + l }})
	_, err = custom.List(ctx, "", ListOptions{Fields: mustFields(t, "x=1")})
	wantStatus(t, "custom text", err, 400, status.ReasonBadRequest, "field label not supported: x")
}

// expiredContinue is Kubernetes' message for an expired continue token.
const expiredContinue = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

// TestListMaxAge pages a list two minutes a page under a five-minute
// paging.Codec.MaxAge: every token carries the first page's issue time, so
// the fourth page, six minutes in, is the 410 Expired although its token
// is two minutes old. The inconsistent token of the 410 starts a new list
// as far as MaxAge is concerned, and expires the same way.
func TestListMaxAge(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: epoch}
	codec := &paging.Codec{MaxAge: 5 * time.Minute, Now: clock.Now}
	f := newFixture(t, Options[*widget]{Now: clock.Now, HistoryWindow: -1, Paging: codec})
	for i := range 10 {
		f.create(t, newWidget("ns", fmt.Sprintf("w%d", i)))
	}
	steps := []struct {
		name    string
		want    string // the page listed, or "410"
		advance time.Duration
	}{
		{"first page", "w0", 2 * time.Minute},
		{"2 min", "w1", 2 * time.Minute},
		{"4 min", "w2", 2 * time.Minute},
		{"6 min", "410", 0},
		{"inconsistent, 6 min", "w3", 2 * time.Minute},
		{"8 min", "w4", 2 * time.Minute},
		{"10 min", "w5", 2 * time.Minute},
		{"12 min", "410", 0},
	}
	read := rv.Read{Semantics: rv.MostRecent, Limit: 1}
	for _, st := range steps {
		p, err := f.r.List(ctx, "ns", ListOptions{Read: read})
		if st.want == "410" {
			se := wantStatus(t, st.name, err, 410, status.ReasonExpired, expiredContinue)
			read = rv.Read{Semantics: rv.ContinueExact, Continue: se.Status.Metadata.Continue, Limit: 1}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if items := p.Items(); len(items) != 1 || items[0].Name != st.want || p.Continue() == "" {
			t.Fatalf("%s: listed %s, want %s and a continue token", st.name, listed(p), st.want)
		}
		read = rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: 1}
		clock.Advance(st.advance)
	}
}

func TestListBadContinue(t *testing.T) {
	f := history6(t)
	_, err := f.r.List(context.Background(), "ns", ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: "%%%"}})
	if !status.IsBadRequest(err) || !strings.HasPrefix(err.Error(), "invalid continue token: ") {
		t.Errorf("err = %v", err)
	}
	// A signed codec rejects a token the store did not issue.
	signed := newFixture(t, Options[*widget]{Paging: &paging.Codec{Keys: [][]byte{[]byte("k")}}})
	forged := (&paging.Codec{}).Encode(paging.Token{Version: 1, Start: "a\x00"})
	if _, err := signed.r.List(context.Background(), "ns", ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: forged}}); !status.IsBadRequest(err) {
		t.Errorf("forged token: %v", err)
	}
}

// TestFutureRevision checks the 504 "Too large resource version" after
// the wait, and that a write arriving in time ends the wait. synctest's
// fake clock makes the 3 s wait instant.
func TestFutureRevision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		f := newFixture(t, Options[*widget]{Now: time.Now})
		f.create(t, newWidget("ns", "a"))
		start := time.Now()
		for _, read := range []rv.Read{
			{Semantics: rv.NotOlderThan, Version: 5},
			{Semantics: rv.Exact, Version: 5},
		} {
			_, err := f.r.List(ctx, "ns", ListOptions{Read: read})
			se := wantStatus(t, "list", err, 504, status.ReasonTimeout, "Timeout: Too large resource version: 5, current: 1")
			if !status.IsTooLargeResourceVersion(se) || se.RetryAfterSeconds() != 1 {
				t.Errorf("not a too-large-resource-version 504 with retry 1: %+v", se.Status)
			}
			_, err = f.r.Get(ctx, "ns", "a", read)
			wantStatus(t, "get", err, 504, status.ReasonTimeout, "Timeout: Too large resource version: 5, current: 1")
		}
		if waited := time.Since(start); waited != 4*3*time.Second {
			t.Errorf("waited %v; want 3 s per read", waited)
		}

		// A write that reaches the revision during the wait ends it.
		done := make(chan error)
		go func() {
			_, err := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.NotOlderThan, Version: 2})
			done <- err
		}()
		time.Sleep(time.Second)
		synctest.Wait()
		f.create(t, newWidget("ns", "b"))
		if err := <-done; err != nil {
			t.Errorf("read after the write arrived: %v", err)
		}

		// Without a wait the answer is immediate; a cancelled context ends
		// the wait with its error.
		nowait := newFixture(t, Options[*widget]{FutureWait: -1})
		if _, err := nowait.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.NotOlderThan, Version: 1}); !status.IsTooLargeResourceVersion(err) {
			t.Errorf("no-wait store: %v", err)
		}
		cctx, cancel := context.WithCancel(ctx)
		go func() { time.Sleep(time.Second); cancel() }()
		if _, err := f.r.Get(cctx, "ns", "a", rv.Read{Semantics: rv.NotOlderThan, Version: 9}); err != context.Canceled {
			t.Errorf("cancelled wait: %v", err)
		}
	})
}
