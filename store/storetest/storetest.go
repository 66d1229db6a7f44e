package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Widget is the object the checks store: metadata plus a map and a
// slice that the checks change.
type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]string `json:"spec,omitempty"`
	Items           []string          `json:"items,omitempty"`
}

// DeepCopy returns a copy of w that shares nothing with it.
func (w *Widget) DeepCopy() *Widget {
	if w == nil {
		return nil
	}
	out := &Widget{TypeMeta: w.TypeMeta}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = maps.Clone(w.Spec)
	out.Items = slices.Clone(w.Items)
	return out
}

// NewWidget returns a widget named name in namespace ns.
func NewWidget(ns, name string) *Widget {
	return &Widget{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}}
}

// Resource is the resource the checks store: namespaced
// widgets.example.com, kind Widget, with the field spec.color.
func Resource() store.ResourceOptions[*Widget] {
	return store.ResourceOptions[*Widget]{
		GroupResource: status.GroupResource{Group: "example.com", Resource: "widgets"},
		Kind:          "Widget",
		Namespaced:    true,
		Fields: map[string]func(*Widget) string{
			"spec.color": func(w *Widget) string { return w.Spec["color"] },
		},
	}
}

// Harness is a backend under test.
type Harness struct {
	// Backend is an empty backend of Resource, which writes go through
	// and reads are made of.
	Backend store.Backend[*Widget]
	// Compact compacts the backend's history at rev: once it returns,
	// reads older than rev answer 410 Gone.
	Compact func(rev rv.Version)
	// Short makes the long checks (paged snapshots, isolation under
	// concurrent writes) write a quarter as much, for a backend whose
	// writes are network round trips, such as one on etcd. The checks
	// are the same.
	Short bool
}

// n is count, or a quarter of it for a Short harness.
func (h Harness) n(count int) int {
	if h.Short {
		return max(1, count/4)
	}
	return count
}

// CheckBackend runs every check, each as a subtest on a harness of its
// own from newHarness.
func CheckBackend(t *testing.T, newHarness func(t *testing.T) Harness) {
	for _, c := range []struct {
		name  string
		check func(*testing.T, func(*testing.T) Harness)
	}{
		{"ListSemanticsTable", checkListSemanticsTable},
		{"ListPagingToTheEnd", checkListPagingToTheEnd},
		{"ListCompacted", checkListCompacted},
		{"GetSemantics", checkGet},
		{"PagedListIsOneSnapshot", checkPagedListIsOneSnapshot},
		{"PagedListConcurrentWriters", checkPagedListConcurrentWriters},
		{"Isolation", checkIsolation},
		{"DeletionFinalizers", checkDeletionFinalizers},
		{"GracefulDeletionMarksFirst", checkGracefulDeletionMarksFirst},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, newHarness) })
	}
}

var latest = rv.Read{Semantics: rv.MostRecent}

func create(t testing.TB, b store.Backend[*Widget], w *Widget) *Widget {
	t.Helper()
	out, err := b.Create(context.Background(), w, store.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(%s/%s): %v", w.Namespace, w.Name, err)
	}
	return out
}

func get(t testing.TB, b store.Backend[*Widget], ns, name string) *Widget {
	t.Helper()
	out, err := b.Get(context.Background(), ns, name, latest)
	if err != nil {
		t.Fatalf("Get(%s/%s): %v", ns, name, err)
	}
	return out
}

// version is an object's resourceVersion as a revision.
func version(t testing.TB, w *Widget) rv.Version {
	t.Helper()
	v, err := rv.Parse(w.ResourceVersion)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", w.ResourceVersion, err)
	}
	return v
}

// now is the backend's current revision, as a consistent list reads it.
func now(t testing.TB, b store.Backend[*Widget]) rv.Version {
	t.Helper()
	p, err := b.List(context.Background(), "ns", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return p.ResourceVersion()
}

// listed describes a page: "rv=R [name@version ... +] (n more)", with
// the revisions of names renamed by revs (so that an expectation can be
// written before the revisions are known).
func listed(p *store.Page[*Widget], revs map[rv.Version]string) string {
	if p == nil {
		return "no page"
	}
	name := func(v string) string {
		n, err := strconv.ParseUint(v, 10, 64)
		if s, ok := revs[rv.Version(n)]; ok && err == nil {
			return s
		}
		return v
	}
	var parts []string
	for i := 0; i < p.Len(); i++ {
		w := p.At(i)
		parts = append(parts, w.Name+"@"+name(w.ResourceVersion))
	}
	s := strings.Join(parts, " ")
	if p.Continue() != "" {
		s += " +"
	}
	if n, ok := p.RemainingItemCount(); ok {
		s += fmt.Sprintf(" (%d more)", n)
	}
	return fmt.Sprintf("rv=%s [%s]", name(p.ResourceVersion().String()), s)
}

// wantStatus checks that err is a *status.Error with the code, reason and
// exact message.
func wantStatus(t testing.TB, what string, err error, code int, reason status.Reason, msg string) *status.Error {
	t.Helper()
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s: err = %v (%T); want a *status.Error %d %s %q", what, err, err, code, reason, msg)
	}
	if se.Code() != code || se.Status.Reason != reason || se.Error() != msg {
		t.Fatalf("%s: got %d %q %q\nwant %d %q %q", what, se.Code(), se.Status.Reason, se.Error(), code, reason, msg)
	}
	return se
}

// checkDeletionFinalizers: a deletion's propagation policy puts or takes
// away the collector's finalizers; the update that removes the last
// finalizer deletes the object and returns it as written.
func checkDeletionFinalizers(t *testing.T, newHarness func(*testing.T) Harness) {
	b := newHarness(t).Backend
	ctx := context.Background()
	w := NewWidget("ns", "held")
	w.Finalizers = []string{"example.com/f"}
	create(t, b, w)
	for _, tt := range []struct {
		p    store.Propagation
		want string
	}{
		{store.PropagationForeground, "example.com/f,foregroundDeletion"},
		{store.PropagationOrphan, "example.com/f,orphan"},
		{"", "example.com/f,orphan"},
		{store.PropagationBackground, "example.com/f"},
	} {
		out, deleted, err := b.Delete(ctx, "ns", "held", store.DeleteOptions{Propagation: tt.p})
		if err != nil || deleted || out.DeletionTimestamp == nil || strings.Join(out.Finalizers, ",") != tt.want {
			t.Fatalf("Delete with %q = %v %v %+v; want marked with %s", tt.p, deleted, err, out.ObjectMeta, tt.want)
		}
	}
	cur := get(t, b, "ns", "held")
	out, err := b.GuaranteedUpdate(ctx, "ns", "held", store.UpdateOptions{}, func(w *Widget) (*Widget, error) {
		w.Finalizers = nil
		return w, nil
	})
	if err != nil || out.Finalizers != nil || out.ResourceVersion != cur.ResourceVersion {
		t.Errorf("update removing the last finalizer = %+v, %v; want the object written, at %s", out.ObjectMeta, err, cur.ResourceVersion)
	}
	if _, err := b.Get(ctx, "ns", "held", latest); !status.IsNotFound(err) {
		t.Errorf("Get after the last finalizer went: %v", err)
	}
	// Background on an object held by the collector's finalizer alone
	// deletes it.
	w = NewWidget("ns", "orphaned")
	create(t, b, w)
	if _, deleted, err := b.Delete(ctx, "ns", "orphaned", store.DeleteOptions{Propagation: store.PropagationOrphan}); err != nil || deleted {
		t.Fatalf("Delete with Orphan = %v, %v; want marked", deleted, err)
	}
	if _, deleted, err := b.Delete(ctx, "ns", "orphaned", store.DeleteOptions{Propagation: store.PropagationBackground}); err != nil || !deleted {
		t.Errorf("Delete with Background of an object held by orphan = %v, %v; want deleted", deleted, err)
	}
}

// checkGracefulDeletionMarksFirst: a graceful deletion that deletes at
// once writes the mark first (deletionTimestamp, deletionGracePeriodSeconds
// 0, generation one more), as Kubernetes does, so that watchers see
// MODIFIED before DELETED; the revision after the object's is the mark.
func checkGracefulDeletionMarksFirst(t *testing.T, newHarness func(*testing.T) Harness) {
	b := newHarness(t).Backend
	ctx := context.Background()
	w := NewWidget("ns", "a")
	w.Generation = 1
	created := create(t, b, w)
	if _, deleted, err := b.Delete(ctx, "ns", "a", store.DeleteOptions{Graceful: true}); err != nil || !deleted {
		t.Fatalf("graceful Delete of period 0 = %v, %v; want deleted", deleted, err)
	}
	mark, err := b.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: version(t, created) + 1})
	if err != nil || mark.DeletionTimestamp == nil || mark.DeletionGracePeriodSeconds == nil || *mark.DeletionGracePeriodSeconds != 0 ||
		mark.Generation != 2 {
		t.Errorf("the revision after the object's = %+v, %v; want it marked with period 0, generation 2", mark, err)
	}
	if _, err := b.Get(ctx, "ns", "a", latest); !status.IsNotFound(err) {
		t.Errorf("Get after the deletion: %v", err)
	}
}
