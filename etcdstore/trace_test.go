package etcdstore

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/tracing"
)

// spans is a tracing.Tracer that keeps what it was given.
type spans struct {
	mu  sync.Mutex
	all []*recSpan
}

type recSpan struct {
	name   string
	kind   tracing.Kind
	parent string // the parent's name
	mu     sync.Mutex
	attrs  map[string]string
	ended  bool
	err    error
	events []string
}

type recKey struct{}

func (t *spans) Start(ctx context.Context, name string, kind tracing.Kind, attrs ...slog.Attr) (context.Context, tracing.Span) {
	s := &recSpan{name: name, kind: kind, attrs: map[string]string{}}
	if p, ok := ctx.Value(recKey{}).(*recSpan); ok {
		s.parent = p.name
	}
	s.SetAttributes(attrs...)
	t.mu.Lock()
	t.all = append(t.all, s)
	t.mu.Unlock()
	return context.WithValue(ctx, recKey{}, s), s
}

func (s *recSpan) SetAttributes(attrs ...slog.Attr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range attrs {
		s.attrs[a.Key] = a.Value.String()
	}
}
func (s *recSpan) AddEvent(name string, attrs ...slog.Attr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range attrs {
		name += " " + a.String()
	}
	s.events = append(s.events, name)
}
func (s *recSpan) End(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended, s.err = true, err
}

// under returns the ended spans whose parent is named parent, as
// "name key status", and forgets them.
func (t *spans) under(parent string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	t.all = slices.DeleteFunc(t.all, func(s *recSpan) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.parent != parent || !s.ended {
			return false
		}
		line := s.name + " " + s.attrs["key"]
		if c := s.attrs["rpc.response.status_code"]; c != "" {
			line += " " + c
		}
		if s.err != nil {
			line += " failed"
		}
		if len(s.events) > 0 {
			line += " " + strings.Join(s.events, ", ")
		}
		out = append(out, line)
		return true
	})
	return out
}

func TestTracing(t *testing.T) {
	_, c := newEtcd(t)
	tr := &spans{}
	r := newResource(t, c, Options[*widget]{Tracer: tr})
	ctx, req := tr.Start(context.Background(), "request", tracing.Server)
	defer req.End(nil)
	const key = "/registry/example.com/widgets/ns/a"
	for _, tt := range []struct {
		name string
		do   func() error
		want []string
	}{
		{"create", func() error { _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); return err },
			[]string{"Create etcd3 " + key + " Encode succeeded len=130, Txn call succeeded"}},
		{"create again fails", func() error {
			if _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); !status.IsAlreadyExists(err) {
				return err
			}
			return nil
		},
			[]string{"Create etcd3 " + key + " failed Encode succeeded len=130, Txn call succeeded"}},
		{"a consistent get reads its key (and waits for the replica to have it)", func() error { _, err := r.Get(ctx, "ns", "a", latest); return err },
			[]string{"etcdserverpb.KV/Range " + key + " OK"}},
		{"update", func() error {
			_, err := r.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{}, func(w *widget) (*widget, error) { w.Labels = map[string]string{"x": "y"}; return w, nil })
			return err
		}, []string{"GuaranteedUpdate etcd3 " + key + " Encode succeeded len=149, Transaction committed"}},
		{"a consistent list asks etcd its revision", func() error {
			_, err := r.List(ctx, "ns", store.ListOptions{Read: latest})
			return err
		}, []string{"etcdserverpb.KV/Range /registry/compact_rev_key OK"}},
	} {
		if err := tt.do(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := tr.under("request"); !slices.Equal(got, tt.want) {
			t.Errorf("%s: spans under the request %q; want %q", tt.name, got, tt.want)
		}
	}
	// The etcd calls of the writes are children of their storage spans.
	if got, want := tr.under("Create etcd3"), []string{
		"etcdserverpb.KV/Txn " + key + " OK", "etcdserverpb.KV/Txn " + key + " OK",
	}; !slices.Equal(got, want) {
		t.Errorf("etcd calls under Create etcd3: %q; want %q", got, want)
	}
	// An update starts from the replica's object: one transaction.
	if got, want := tr.under("GuaranteedUpdate etcd3"), []string{
		"etcdserverpb.KV/Txn " + key + " OK",
	}; !slices.Equal(got, want) {
		t.Errorf("etcd calls under GuaranteedUpdate etcd3: %q; want %q", got, want)
	}
	// The replica's own calls begin traces of their own: its list, and
	// its watch, whose span lasts as long as the watch.
	r.Close()
	got := tr.under("")
	for _, want := range []string{"etcdserverpb.KV/Range /registry/example.com/widgets/ OK", "etcdserverpb.Watch/Watch /registry/"} {
		if !slices.ContainsFunc(got, func(s string) bool { return len(s) >= len(want) && s[:len(want)] == want }) {
			t.Errorf("the replica's spans %q; want one %q", got, want)
		}
	}
}
