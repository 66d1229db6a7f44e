package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
)

func TestCreateGeneratedFields(t *testing.T) {
	f := newFixture(t, Options[*widget]{})
	in := newWidget("ns", "a")
	in.SelfLink = "/apis/x"
	in.UID = "client-uid"
	dt := meta.NewTime(epoch)
	grace := int64(30)
	in.DeletionTimestamp, in.DeletionGracePeriodSeconds = &dt, &grace
	out := f.create(t, in)
	if out.ResourceVersion != "1" || f.s.Revision() != 1 {
		t.Errorf("resourceVersion = %q, revision %d; want 1", out.ResourceVersion, f.s.Revision())
	}
	if len(out.UID) != 36 || out.UID[14] != '4' || out.UID == "client-uid" {
		t.Errorf("uid = %q; want a generated version-4 UUID", out.UID)
	}
	if !out.CreationTimestamp.Equal(epoch) {
		t.Errorf("creationTimestamp = %v; want %v (whole seconds)", out.CreationTimestamp, epoch)
	}
	if out.SelfLink != "" || out.DeletionTimestamp != nil || out.DeletionGracePeriodSeconds != nil {
		t.Errorf("create kept selfLink/deletion fields: %s", mustJSON(out))
	}
	want := `{"metadata":{"name":"a","namespace":"ns","uid":"` + out.UID + `","resourceVersion":"1","creationTimestamp":"2026-07-24T10:00:00Z"}}`
	if got := mustJSON(out); got != want {
		t.Errorf("JSON = %s\nwant   %s", got, want)
	}
	if got := mustJSON(f.get(t, "ns", "a")); got != want {
		t.Errorf("Get JSON = %s\nwant       %s", got, want)
	}
}

func TestCreateErrors(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	f.create(t, newWidget("ns", "a"))
	term := newWidget("ns", "term")
	term.Finalizers = []string{"example.com/hold"}
	f.create(t, term)
	if _, _, err := f.r.Delete(ctx, "ns", "term", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	withRV := newWidget("ns", "b")
	withRV.ResourceVersion = "7"
	for _, tt := range []struct {
		name   string
		obj    *widget
		code   int
		reason status.Reason
		msg    string
	}{
		{"exists", newWidget("ns", "a"), 409, status.ReasonAlreadyExists, `widgets.example.com "a" already exists`},
		{"terminating", newWidget("ns", "term"), 409, status.ReasonAlreadyExists, `object is being deleted: widgets.example.com "term" already exists`},
		{"resourceVersion set", withRV, 500, status.ReasonUnknown, "resourceVersion should not be set on objects to be created"},
		{"no name", newWidget("ns", ""), 422, status.ReasonInvalid, `Widget.example.com "" is invalid: metadata.name: Required value: name or generateName is required`},
		{"no namespace", newWidget("", "c"), 400, status.ReasonBadRequest, "Namespace parameter required."},
		{"slash in name", newWidget("ns", "a/b"), 400, status.ReasonBadRequest, `Name parameter invalid: "a/b": may not contain '/'`},
		{"dot-dot name", newWidget("ns", ".."), 400, status.ReasonBadRequest, `Name parameter invalid: "..": may not be '..'`},
		{"percent namespace", newWidget("n%s", "c"), 400, status.ReasonBadRequest, `Namespace parameter invalid: "n%s": may not contain '%'`},
		{"NUL in name", newWidget("ns", "a\x00"), 400, status.ReasonBadRequest, `Name parameter invalid: "a\x00": may not contain NUL`},
		{"invalid UTF-8 and slash", newWidget("ns", "\xff/"), 400, status.ReasonBadRequest, `Name parameter invalid: "\xff/": may not contain '/';must be valid UTF-8`},
	} {
		rev := f.s.Revision()
		_, err := f.r.Create(ctx, tt.obj, CreateOptions{})
		se := wantStatus(t, tt.name, err, tt.code, tt.reason, tt.msg)
		if tt.reason == status.ReasonAlreadyExists && (se.Status.Details == nil || se.Status.Details.Name != tt.obj.Name ||
			se.Status.Details.Kind != "widgets" || se.Status.Details.Group != "example.com") {
			t.Errorf("%s: details = %+v", tt.name, se.Status.Details)
		}
		if f.s.Revision() != rev {
			t.Errorf("%s: a failed create consumed a revision", tt.name)
		}
	}
	_, err := f.r.Create(ctx, withRV, CreateOptions{})
	if !errors.Is(err, ErrResourceVersionSetOnCreate) {
		t.Errorf("err = %v; want it to wrap ErrResourceVersionSetOnCreate", err)
	}
}

func TestCreateClusterScoped(t *testing.T) {
	s := New(Options[*widget]{})
	ns := s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "namespaces"}, Kind: "Namespace"})
	out, err := ns.Create(context.Background(), newWidget("ignored", "default"), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Namespace != "" {
		t.Errorf("namespace = %q; want it cleared for a cluster-scoped resource", out.Namespace)
	}
	if k := ns.Key("x", "default"); k != "namespaces/default" {
		t.Errorf("Key = %q", k)
	}
	if _, err := ns.Get(context.Background(), "", "default", rv.Read{Semantics: rv.MostRecent}); err != nil {
		t.Errorf("Get: %v", err)
	}
}

// sameBytes is a Rand that always yields the same byte, so generated names
// always collide.
type sameBytes struct{ reads int }

func (r *sameBytes) Read(p []byte) (int, error) {
	r.reads++
	for i := range p {
		p[i] = 7
	}
	return len(p), nil
}

func TestCreateGenerateName(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	long := strings.Repeat("p", 70)
	out, err := f.r.Create(ctx, &widget{ObjectMeta: meta.ObjectMeta{Namespace: "ns", GenerateName: long}}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Name) != 63 || out.Name[:58] != long[:58] || out.GenerateName != long {
		t.Errorf("name = %q; want the prefix cut to 58 bytes plus 5 characters", out.Name)
	}
	for _, c := range out.Name[58:] {
		if !strings.ContainsRune(nameAlphabet, c) {
			t.Errorf("generated character %q is not in %q", c, nameAlphabet)
		}
	}

	rnd := &sameBytes{}
	f2 := newFixture(t, Options[*widget]{Rand: rnd})
	gen := &widget{ObjectMeta: meta.ObjectMeta{Namespace: "ns", GenerateName: "g-"}}
	first, err := f2.r.Create(ctx, gen, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rnd.reads = 0
	rev := f2.s.Revision()
	_, err = f2.r.Create(ctx, gen, CreateOptions{})
	se := wantStatus(t, "collision", err, 409, status.ReasonAlreadyExists,
		`widgets.example.com "`+first.Name+`" already exists, the server was not able to generate a unique name for the object`)
	if se.RetryAfterSeconds() != 1 {
		t.Errorf("retryAfterSeconds = %d; want 1", se.RetryAfterSeconds())
	}
	if rnd.reads != 1+maxGenerateAttempts { // the uid, then one name per attempt
		t.Errorf("reads = %d; want a uid and %d names", rnd.reads, maxGenerateAttempts)
	}
	if f2.s.Revision() != rev {
		t.Errorf("failed create consumed a revision")
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestCreateRandomFailure(t *testing.T) {
	f := newFixture(t, Options[*widget]{Rand: failingReader{}})
	_, err := f.r.Create(context.Background(), newWidget("ns", "a"), CreateOptions{})
	if !status.IsInternalError(err) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v; want a 500 wrapping the reader's error", err)
	}
}

func TestDryRun(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	fin := newWidget("ns", "fin")
	fin.Finalizers = []string{"x"}
	f.create(t, fin)
	f.create(t, newWidget("ns", "plain"))
	rev := f.s.Revision()
	done := f.s.Changed(rev)
	check := func(what string) {
		t.Helper()
		if f.s.Revision() != rev {
			t.Fatalf("%s: dry run consumed a revision", what)
		}
		if evs := f.events(t, rev); len(evs) != 0 {
			t.Fatalf("%s: dry run sent %d events", what, len(evs))
		}
		select {
		case <-done:
			t.Fatalf("%s: dry run woke watchers", what)
		default:
		}
	}

	w := &widget{ObjectMeta: meta.ObjectMeta{Namespace: "ns", GenerateName: "d-", ResourceVersion: "3"}}
	out, err := f.r.Create(ctx, w, CreateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Name == "" || out.UID == "" || out.CreationTimestamp.IsZero() || out.ResourceVersion != "" {
		t.Errorf("dry-run create = %s; want generated name, uid, creationTimestamp and no resourceVersion", mustJSON(out))
	}
	check("create")
	if _, err := f.r.Get(ctx, "ns", out.Name, rv.Read{Semantics: rv.MostRecent}); !status.IsNotFound(err) {
		t.Errorf("dry-run create is visible: %v", err)
	}
	if _, err := f.r.Create(ctx, newWidget("ns", "plain"), CreateOptions{DryRun: true}); !status.IsAlreadyExists(err) {
		t.Errorf("dry-run create of an existing name: %v; want 409", err)
	}

	upd := f.get(t, "ns", "plain")
	upd.Spec = map[string]string{"k": "v"}
	got, err := f.r.Update(ctx, upd, UpdateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec["k"] != "v" || got.ResourceVersion != upd.ResourceVersion {
		t.Errorf("dry-run update = %s", mustJSON(got))
	}
	check("update")
	if f.get(t, "ns", "plain").Spec != nil {
		t.Errorf("dry-run update was stored")
	}

	del, deleted, err := f.r.Delete(ctx, "ns", "plain", DeleteOptions{DryRun: true})
	if err != nil || !deleted || del.Name != "plain" {
		t.Errorf("dry-run delete = %v, %v, %v", del, deleted, err)
	}
	del, deleted, err = f.r.Delete(ctx, "ns", "fin", DeleteOptions{DryRun: true})
	if err != nil || deleted || del.DeletionTimestamp == nil || *del.DeletionGracePeriodSeconds != 0 {
		t.Errorf("dry-run delete with finalizers = %s, %v, %v", mustJSON(del), deleted, err)
	}
	check("delete")
	if f.get(t, "ns", "fin").DeletionTimestamp != nil {
		t.Errorf("dry-run delete marked the object")
	}
	items, err := f.r.DeleteCollection(ctx, "ns", ListOptions{}, DeleteOptions{DryRun: true})
	if err != nil || len(items) != 2 {
		t.Errorf("dry-run deletecollection = %d items, %v", len(items), err)
	}
	check("deletecollection")
}

// TestView checks that View returns the stored object, whose encodings
// the store caches, where Get returns a copy.
func TestView(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	f.create(t, newWidget("ns", "a"))
	read := rv.Read{Semantics: rv.MostRecent}
	v1, err := f.r.View(ctx, "ns", "a", read)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := f.r.View(ctx, "ns", "a", read)
	g, _ := f.r.Get(ctx, "ns", "a", read)
	if v1 != v2 || g == v1 {
		t.Errorf("View returned %p and %p, Get %p: want one stored object and a copy", v1, v2, g)
	}
	calls := 0
	enc := NewEncoding(func(dst []byte, w *widget) ([]byte, error) { calls++; return append(dst, w.Name...), nil })
	for range 2 {
		if b, err := f.s.Encoded(v1, enc); err != nil || string(b) != "a" {
			t.Fatalf("Encoded = %q, %v", b, err)
		}
	}
	if calls != 1 {
		t.Errorf("the view was encoded %d times, want once", calls)
	}
	if _, err := f.r.View(ctx, "ns", "b", read); !status.IsNotFound(err) {
		t.Errorf("View of a missing object: %v, want NotFound", err)
	}
}

func TestUpdate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	orig := f.create(t, newWidget("ns", "a"))

	stale := orig.DeepCopy()
	stale.Spec = map[string]string{"x": "1"}
	cur, err := f.r.Update(ctx, stale, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cur.ResourceVersion != "2" || cur.Spec["x"] != "1" {
		t.Errorf("update = %s", mustJSON(cur))
	}
	_, err = f.r.Update(ctx, stale, UpdateOptions{})
	se := wantStatus(t, "stale", err, 409, status.ReasonConflict,
		`Operation cannot be fulfilled on widgets.example.com "a": the object has been modified; please apply your changes to the latest version and try again`)
	if d := se.Status.Details; d == nil || d.Name != "a" || d.Kind != "widgets" {
		t.Errorf("details = %+v", d)
	}

	// Unconditional update, and clients cannot touch system fields.
	free := newWidget("ns", "a")
	free.Spec = map[string]string{"x": "2"}
	free.CreationTimestamp = meta.NewTime(epoch.Add(time.Hour))
	free.Generation = 9
	free.SelfLink = "/x"
	dt := meta.NewTime(epoch)
	free.DeletionTimestamp = &dt
	got, err := f.r.Update(ctx, free, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreationTimestamp.Equal(orig.CreationTimestamp.Time) || got.UID != orig.UID || got.Generation != 0 ||
		got.SelfLink != "" || got.DeletionTimestamp != nil || got.Spec["x"] != "2" {
		t.Errorf("unconditional update = %s", mustJSON(got))
	}
	_, err = f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{RequireResourceVersion: true})
	wantStatus(t, "no rv", err, 422, status.ReasonInvalid,
		`Widget.example.com "a" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`)

	other := got.DeepCopy()
	other.UID = "other"
	_, err = f.r.Update(ctx, other, UpdateOptions{})
	wantStatus(t, "uid", err, 422, status.ReasonInvalid, `Widget.example.com "a" is invalid: metadata.uid: Invalid value: "other": field is immutable`)

	uid, badUID := got.UID, "nope"
	_, err = f.r.Update(ctx, got, UpdateOptions{Preconditions: Preconditions{UID: &badUID}})
	wantStatus(t, "uid precondition", err, 409, status.ReasonConflict,
		`Operation cannot be fulfilled on widgets.example.com "a": StorageError: invalid object, Code: 4, Key: /registry/example.com/widgets/ns/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: nope, UID in object meta: `+uid)
	badRV := "1"
	_, err = f.r.Update(ctx, got, UpdateOptions{Preconditions: Preconditions{ResourceVersion: &badRV}})
	wantStatus(t, "rv precondition", err, 409, status.ReasonConflict,
		`Operation cannot be fulfilled on widgets.example.com "a": StorageError: invalid object, Code: 4, Key: /registry/example.com/widgets/ns/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: `+got.ResourceVersion)
	if _, err := f.r.Update(ctx, got, UpdateOptions{Preconditions: Preconditions{UID: &uid}}); err != nil {
		t.Errorf("update with a matching precondition: %v", err)
	}

	_, err = f.r.Update(ctx, newWidget("ns", "missing"), UpdateOptions{})
	wantStatus(t, "missing", err, 404, status.ReasonNotFound, `widgets.example.com "missing" not found`)
	created, err := f.r.Update(ctx, newWidget("ns", "missing"), UpdateOptions{AllowCreate: true})
	if err != nil || created.UID == "" || created.CreationTimestamp.IsZero() {
		t.Errorf("create on update = %s, %v", mustJSON(created), err)
	}
	if evs := f.events(t, f.s.Revision()-1); evs[0].Type != watch.Added {
		t.Errorf("create on update sent %s", evs[0].Type)
	}
}

func TestUpdateWithoutChange(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{Equal: func(a, b *widget) bool { return mustJSON(a) == mustJSON(b) }})
	w := f.create(t, newWidget("ns", "a"))
	same, err := f.r.Update(ctx, w, UpdateOptions{})
	if err != nil || same.ResourceVersion != w.ResourceVersion || f.s.Revision() != 1 {
		t.Errorf("no-op update = %s, %v, revision %d; want nothing written", mustJSON(same), err, f.s.Revision())
	}
	w.Labels = map[string]string{"a": "b"}
	if changed, err := f.r.Update(ctx, w, UpdateOptions{}); err != nil || changed.ResourceVersion != "2" {
		t.Errorf("update = %v, %v", changed, err)
	}
}

func TestGuaranteedUpdate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	f.create(t, newWidget("ns", "a"))
	calls := 0
	out, err := f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{}, func(cur *widget) (*widget, error) {
		calls++
		if calls == 1 { // another write sneaks in: tryUpdate runs again
			w := f.get(t, "ns", "a")
			w.Spec = map[string]string{"other": "1"}
			if _, err := f.r.Update(ctx, w, UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		cur.Generation++
		if cur.Spec == nil {
			cur.Spec = map[string]string{}
		}
		cur.Spec["mine"] = "1"
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || out.Spec["other"] != "1" || out.Spec["mine"] != "1" || out.Generation != 1 {
		t.Errorf("calls %d, result %s", calls, mustJSON(out))
	}
	boom := errors.New("boom")
	if _, err := f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{}, func(*widget) (*widget, error) { return nil, boom }); err != boom {
		t.Errorf("err = %v; want tryUpdate's error", err)
	}
	if _, err := f.r.GuaranteedUpdate(ctx, "ns", "x", UpdateOptions{}, func(w *widget) (*widget, error) { return w, nil }); !status.IsNotFound(err) {
		t.Errorf("missing: %v", err)
	}
}

// TestGuaranteedUpdateCopy checks that UpdateOptions.Copy makes the
// object tryUpdate gets, so that what it shares with the stored object
// the new version and the old one share.
func TestGuaranteedUpdateCopy(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	w := newWidget("ns", "a")
	w.Spec = map[string]string{"big": "shared"}
	old := f.create(t, w)
	oldStored, err := f.r.View(ctx, "ns", "a", rv.Read{})
	if err != nil {
		t.Fatal(err)
	}
	metaOnly := func(o any) any { // shares the spec
		w := o.(*widget)
		out := &widget{TypeMeta: w.TypeMeta, Spec: w.Spec}
		w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
		return out
	}
	out, err := f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{Copy: metaOnly, Handoff: true, ReadOnlyResult: true},
		func(cur *widget) (*widget, error) {
			cur.Labels = map[string]string{"l": "1"}
			return cur, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if out.Labels["l"] != "1" || out.ResourceVersion == old.ResourceVersion {
		t.Fatalf("not written: %s", mustJSON(out))
	}
	if reflect.ValueOf(out.Spec).UnsafePointer() != reflect.ValueOf(oldStored.Spec).UnsafePointer() {
		t.Error("the new version has a spec of its own; want the old version's, as Copy shared it")
	}
	if oldStored.Labels != nil {
		t.Errorf("the old version changed: %s", mustJSON(oldStored))
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	a := f.create(t, newWidget("ns", "a"))
	bad := "nope"
	_, _, err := f.r.Delete(ctx, "ns", "a", DeleteOptions{Preconditions: Preconditions{UID: &bad}})
	// A failed precondition names the kind, as kube-apiserver 1.37.1's
	// (DELETE .../widgets/w1 {"preconditions":{"uid":"x"}} => "Operation
	// cannot be fulfilled on Widget.example.com \"w1\": ...").
	wantStatus(t, "uid precondition", err, 409, status.ReasonConflict,
		`Operation cannot be fulfilled on Widget.example.com "a": the UID in the precondition (nope) does not match the UID in record (`+a.UID+`). The object might have been deleted and then recreated`)
	_, _, err = f.r.Delete(ctx, "ns", "a", DeleteOptions{Preconditions: Preconditions{ResourceVersion: &bad}})
	wantStatus(t, "rv precondition", err, 409, status.ReasonConflict,
		`Operation cannot be fulfilled on Widget.example.com "a": the ResourceVersion in the precondition (nope) does not match the ResourceVersion in record (1). The object might have been modified`)

	gone, deleted, err := f.r.Delete(ctx, "ns", "a", DeleteOptions{Preconditions: Preconditions{UID: &a.UID, ResourceVersion: &a.ResourceVersion}})
	if err != nil || !deleted || gone.ResourceVersion != "2" || gone.UID != a.UID {
		t.Fatalf("Delete = %s, %v, %v", mustJSON(gone), deleted, err)
	}
	ev := f.events(t, 1)[0]
	if ev.Type != watch.Deleted || ev.Object.ResourceVersion != "2" || ev.Prev.ResourceVersion != "1" {
		t.Errorf("event = %s %s prev %s", ev.Type, ev.Object.ResourceVersion, ev.Prev.ResourceVersion)
	}
	if _, err := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.MostRecent}); !status.IsNotFound(err) {
		t.Errorf("Get after delete: %v", err)
	}
	_, _, err = f.r.Delete(ctx, "ns", "a", DeleteOptions{})
	wantStatus(t, "missing", err, 404, status.ReasonNotFound, `widgets.example.com "a" not found`)
}

// TestDeleteWithFinalizers walks the spec's "Resource deletion": the
// object is marked, stays until its last finalizer is removed, then goes.
func TestDeleteWithFinalizers(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	in := newWidget("ns", "a")
	in.Generation = 3
	in.Finalizers = []string{"url.io/neat-finalization", "other-url.io/my-finalizer"}
	f.create(t, in)

	f.clock.Advance(10 * time.Second)
	marked, deleted, err := f.r.Delete(ctx, "ns", "a", DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("Delete = %v, %v", deleted, err)
	}
	wantTime := epoch.Add(10 * time.Second)
	if marked.DeletionTimestamp == nil || !marked.DeletionTimestamp.Equal(wantTime) ||
		marked.DeletionGracePeriodSeconds == nil || *marked.DeletionGracePeriodSeconds != 0 || marked.Generation != 4 {
		t.Fatalf("marked object = %s", mustJSON(marked))
	}
	if ev := f.events(t, 1)[0]; ev.Type != watch.Modified {
		t.Errorf("marking sent %s; want MODIFIED", ev.Type)
	}

	// Deleting again changes nothing: same timestamp, no new revision.
	f.clock.Advance(10 * time.Second)
	again, deleted, err := f.r.Delete(ctx, "ns", "a", DeleteOptions{})
	if err != nil || deleted || !again.DeletionTimestamp.Equal(wantTime) || again.Generation != 4 || f.s.Revision() != 2 {
		t.Errorf("second delete = %s, %v, %v (revision %d)", mustJSON(again), deleted, err, f.s.Revision())
	}
	// An update cannot clear the mark nor add finalizers.
	upd := f.get(t, "ns", "a")
	upd.DeletionTimestamp = nil
	upd.Finalizers = []string{"url.io/neat-finalization"}
	kept, err := f.r.Update(ctx, upd, UpdateOptions{})
	if err != nil || kept.DeletionTimestamp == nil || !kept.DeletionTimestamp.Equal(wantTime) {
		t.Fatalf("update of a terminating object = %s, %v", mustJSON(kept), err)
	}
	kept.Finalizers = append(kept.Finalizers, "new")
	_, err = f.r.Update(ctx, kept, UpdateOptions{})
	wantStatus(t, "new finalizer", err, 422, status.ReasonInvalid,
		`Widget.example.com "a" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"new"}`)
	// Creating the name again while it terminates is refused.
	if _, err := f.r.Create(ctx, newWidget("ns", "a"), CreateOptions{}); !status.IsAlreadyExists(err) ||
		!strings.HasPrefix(err.Error(), "object is being deleted: ") {
		t.Errorf("create while terminating: %v", err)
	}

	// The last finalizer goes: the object is deleted by that update.
	last := f.get(t, "ns", "a")
	last.Finalizers = nil
	gone, err := f.r.Update(ctx, last, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.MostRecent}); !status.IsNotFound(err) {
		t.Errorf("object still there after its last finalizer: %v", err)
	}
	evs := f.events(t, 3)
	// The writer gets what it wrote, at the version it updated; watchers
	// the deletion.
	if gone.ResourceVersion != last.ResourceVersion || gone.Finalizers != nil {
		t.Errorf("update removing the last finalizer = %s", mustJSON(gone))
	}
	if len(evs) != 1 || evs[0].Type != watch.Deleted || evs[0].Object.ResourceVersion == gone.ResourceVersion {
		t.Errorf("events = %+v", evs)
	}
	if _, err := f.r.Create(ctx, newWidget("ns", "a"), CreateOptions{}); err != nil {
		t.Errorf("re-create after deletion: %v", err)
	}
}

func TestDeleteCollection(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	for i, name := range []string{"a", "b", "c", "d"} {
		w := newWidget("ns", name)
		w.Labels = map[string]string{"even": map[bool]string{true: "yes", false: "no"}[i%2 == 0]}
		f.create(t, w)
	}
	other := newWidget("other", "a")
	other.Labels = map[string]string{"even": "yes"}
	f.create(t, other)
	sel := mustLabels(t, "even=yes")
	items, err := f.r.DeleteCollection(ctx, "ns", ListOptions{Labels: sel}, DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Name != "a" || items[1].Name != "c" || items[0].ResourceVersion != "1" {
		t.Fatalf("deleted %s", mustJSON(items))
	}
	evs := f.events(t, 5)
	if len(evs) != 2 || evs[0].Type != watch.Deleted || evs[1].Key != "widgets.example.com/ns/c" {
		t.Errorf("events = %v", evs)
	}
	p, err := f.r.List(ctx, "", ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil || p.Len() != 3 {
		t.Errorf("left %d objects, %v", p.Len(), err)
	}
	items, err = f.r.DeleteCollection(ctx, "", ListOptions{Read: rv.Read{Limit: 1}}, DeleteOptions{})
	if err != nil || len(items) != 1 || items[0].Name != "b" {
		t.Errorf("limited deletecollection = %v, %v", items, err)
	}
	if _, err := f.r.DeleteCollection(ctx, "", ListOptions{Fields: mustFields(t, "spec.size=1")}, DeleteOptions{}); !status.IsBadRequest(err) {
		t.Errorf("unknown field: %v", err)
	}
}

// TestDeleteWithFinalizersOutsideMetadata covers ResourceOptions.Finalizers:
// an object held by finalizers kept elsewhere (a Namespace's
// spec.finalizers) is only marked by Delete, keeps its metadata as is, and
// goes with the update that leaves it without finalizers of either kind.
func TestDeleteWithFinalizersOutsideMetadata(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	spaces := f.s.Resource(ResourceOptions[*widget]{
		GroupResource: status.GroupResource{Resource: "spaces"},
		Kind:          "Space",
		Finalizers:    func(w *widget) bool { return len(w.Items) > 0 },
	})
	in := newWidget("", "a")
	in.Items = []string{"kubernetes"}
	if _, err := spaces.Create(ctx, in, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, deleted, err := spaces.Delete(ctx, "", "a", DeleteOptions{DryRun: true}); err != nil || deleted {
		t.Fatalf("dry-run Delete = %v, %v; want marked, not deleted", deleted, err)
	}
	marked, deleted, err := spaces.Delete(ctx, "", "a", DeleteOptions{})
	if err != nil || deleted || marked.DeletionTimestamp == nil || len(marked.Finalizers) != 0 {
		t.Fatalf("Delete = %s, %v, %v; want marked with metadata.finalizers untouched", mustJSON(marked), deleted, err)
	}
	// An update that keeps the outside finalizer keeps the object.
	upd, err := spaces.Update(ctx, marked, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spaces.Get(ctx, "", "a", rv.Read{Semantics: rv.MostRecent}); err != nil {
		t.Fatalf("object gone while still held: %v", err)
	}
	// Removing it completes the deletion.
	upd.Items = nil
	if _, err := spaces.Update(ctx, upd, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := spaces.Get(ctx, "", "a", rv.Read{Semantics: rv.MostRecent}); !status.IsNotFound(err) {
		t.Errorf("object still there after its last finalizer: %v", err)
	}
	// Without outside finalizers the same object is deleted at once.
	if _, err := spaces.Create(ctx, newWidget("", "b"), CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, deleted, err := spaces.Delete(ctx, "", "b", DeleteOptions{}); err != nil || !deleted {
		t.Errorf("Delete of an unheld object = %v, %v; want deleted", deleted, err)
	}
}

// TestReadOnlyResult checks every write path's result: with
// ReadOnlyResult it is the stored object itself (the one watch events
// carry), without it a copy.
func TestReadOnlyResult(t *testing.T) {
	ctx := context.Background()
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("ReadOnlyResult=%v", readOnly), func(t *testing.T) {
			f := newFixture(t, Options[*widget]{Equal: func(a, b *widget) bool { return mustJSON(a) == mustJSON(b) }})
			co := CreateOptions{ReadOnlyResult: readOnly}
			uo := UpdateOptions{ReadOnlyResult: readOnly}
			do := DeleteOptions{ReadOnlyResult: readOnly}
			// stored returns the stored object of key: the Object of its
			// latest event, or with prev that event's Prev.
			stored := func(key string, prev bool) *widget {
				t.Helper()
				evs := f.events(t, 0)
				for i := len(evs) - 1; i >= 0; i-- {
					if evs[i].Key == key {
						if prev {
							return evs[i].Prev
						}
						return evs[i].Object
					}
				}
				t.Fatalf("no event for %s", key)
				return nil
			}
			held := newWidget("ns", "held")
			held.Finalizers = []string{"f"}
			for _, tc := range []struct {
				name string
				key  string
				prev bool // the result is the state before the write
				// written: the result is the object the write gave, not
				// a stored one: the state before without its finalizers
				// (kube-apiserver's answer to the update that ends a
				// deletion).
				written bool
				op      func() (*widget, error)
			}{
				{"create", "a", false, false, func() (*widget, error) { return f.r.Create(ctx, newWidget("ns", "a"), co) }},
				{"create held", "held", false, false, func() (*widget, error) { return f.r.Create(ctx, held, co) }},
				{"update", "a", false, false, func() (*widget, error) {
					w := newWidget("ns", "a")
					w.Spec = map[string]string{"v": "2"}
					return f.r.Update(ctx, w, uo)
				}},
				{"update without change", "a", false, false, func() (*widget, error) {
					return f.r.Update(ctx, f.get(t, "ns", "a"), uo)
				}},
				{"create on update", "b", false, false, func() (*widget, error) {
					return f.r.Update(ctx, newWidget("ns", "b"), UpdateOptions{AllowCreate: true, ReadOnlyResult: readOnly})
				}},
				{"guaranteed update", "b", false, false, func() (*widget, error) {
					return f.r.GuaranteedUpdate(ctx, "ns", "b", uo, func(w *widget) (*widget, error) {
						w.Spec = map[string]string{"g": "1"}
						return w, nil
					})
				}},
				{"delete", "b", false, false, func() (*widget, error) { w, _, err := f.r.Delete(ctx, "ns", "b", do); return w, err }},
				{"delete marks", "held", false, false, func() (*widget, error) { w, _, err := f.r.Delete(ctx, "ns", "held", do); return w, err }},
				{"delete already marked", "held", false, false, func() (*widget, error) {
					w, _, err := f.r.Delete(ctx, "ns", "held", do)
					return w, err
				}},
				{"update removes the last finalizer", "held", true, true, func() (*widget, error) {
					w := f.get(t, "ns", "held")
					w.Finalizers = nil
					return f.r.Update(ctx, w, uo)
				}},
				{"deletecollection", "a", true, false, func() (*widget, error) {
					items, err := f.r.DeleteCollection(ctx, "ns", ListOptions{}, do)
					if len(items) != 1 {
						return nil, fmt.Errorf("deleted %d objects; want 1", len(items))
					}
					return items[0], err
				}},
			} {
				got, err := tc.op()
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				want := stored(f.r.Key("ns", tc.key), tc.prev)
				if tc.written {
					w := *want
					w.Finalizers = nil
					if got == want || mustJSON(got) != mustJSON(&w) {
						t.Errorf("%s: result %s; want the object written, %s", tc.name, mustJSON(got), mustJSON(&w))
					}
					continue
				}
				if (got == want) != readOnly {
					t.Errorf("%s: result is the stored object: %v; want %v", tc.name, got == want, readOnly)
				}
				if mustJSON(got) != mustJSON(want) {
					t.Errorf("%s: result %s; stored %s", tc.name, mustJSON(got), mustJSON(want))
				}
			}
		})
	}
}

// A failed storage precondition names the object's etcd key below the
// storage's prefix (/registry by default) as kube-apiserver lays it out (its answer to a pods/binding
// with another resourceVersion names /registry/pods/default/p4): the
// EtcdPrefix, else <group>/<resource> of the Prefix or GroupResource,
// or <resource> in the core group. Another StoragePrefix is named
// instead (the reference started with --etcd-prefix=/custom answers a
// deployments/scale with another uid naming /custom/deployments/default/d).
func TestPreconditionKey(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts   ResourceOptions[*widget]
		ns     string
		want   string
		prefix string // Options.StoragePrefix
	}{
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "pods"}, Namespaced: true}, "default", "/registry/pods/default/p", ""},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "apps", Resource: "deployments"}, Namespaced: true, EtcdPrefix: "deployments"}, "ns", "/registry/deployments/ns/p", ""},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "services"}, Namespaced: true, EtcdPrefix: "services/specs"}, "ns", "/registry/services/specs/ns/p", ""},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "example.com", Resource: "widgets"}, Namespaced: true}, "ns", "/registry/example.com/widgets/ns/p", ""},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "example.com", Resource: "gadgets"}}, "", "/registry/example.com/gadgets/p", ""},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "events.k8s.io", Resource: "events"}, Namespaced: true, Prefix: "events"}, "ns", "/registry/events/ns/p", ""},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "apps", Resource: "deployments"}, Namespaced: true, EtcdPrefix: "deployments"}, "default", "/custom/deployments/default/p", "/custom"},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "pods"}, Namespaced: true}, "default", "/custom/pods/default/p", "/custom/"},
		{ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "example.com", Resource: "gadgets"}}, "", "/a/b/example.com/gadgets/p", "/a/b"},
	} {
		s := New(Options[*widget]{StoragePrefix: tc.prefix})
		if want := cmp.Or(strings.TrimSuffix(tc.prefix, "/"), "/registry"); s.StoragePrefix() != want {
			t.Errorf("StoragePrefix() = %q, want %q", s.StoragePrefix(), want)
		}
		r := s.Resource(tc.opts)
		if _, err := r.Create(ctx, newWidget(tc.ns, "p"), CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		rv := "999" // not the object's
		_, err := r.Update(ctx, newWidget(tc.ns, "p"), UpdateOptions{Preconditions: Preconditions{ResourceVersion: &rv}})
		if err == nil || !strings.Contains(err.Error(), "Key: "+tc.want+", ") {
			t.Errorf("%+v: %v; want the key %s", tc.opts.GroupResource, err, tc.want)
		}
		// A dry run's key is below the prefix, as kube-apiserver's dry-run
		// storage names it (PUT ...?dryRun=All => Key: /configmaps/default/a).
		dry := tc.want[len(cmp.Or(strings.TrimSuffix(tc.prefix, "/"), "/registry")):]
		_, err = r.GuaranteedUpdate(ctx, tc.ns, "p", UpdateOptions{DryRun: true, Preconditions: Preconditions{ResourceVersion: &rv}},
			func(w *widget) (*widget, error) { return w, nil })
		if err == nil || !strings.Contains(err.Error(), "Key: "+dry+", ") {
			t.Errorf("%+v, dry run: %v; want the key %s", tc.opts.GroupResource, err, dry)
		}
	}
}

// The reference started with --etcd-prefix=/custom answers a failed uid
// precondition with the message recorded in testdata; a Store with that
// StoragePrefix gives the same message.
func TestPreconditionKeyReference(t *testing.T) {
	data, err := os.ReadFile("testdata/reference-v1.37.1-precondition-etcd-prefix.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		UID    string
		Status struct{ Message string }
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	r := New(Options[*widget]{StoragePrefix: "/custom"}).Resource(ResourceOptions[*widget]{
		GroupResource: status.GroupResource{Group: "apps", Resource: "deployments"}, Namespaced: true, EtcdPrefix: "deployments"})
	w, err := r.Create(context.Background(), newWidget("default", "d"), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uid := "zz"
	_, err = r.GuaranteedUpdate(context.Background(), "default", "d", UpdateOptions{Preconditions: Preconditions{UID: &uid}},
		func(w *widget) (*widget, error) { return w, nil })
	want := strings.ReplaceAll(ref.Status.Message, ref.UID, string(w.UID))
	if err == nil || err.Error() != want || !status.IsConflict(err) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
