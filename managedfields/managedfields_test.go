package managedfields

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func obj(js string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		panic(err)
	}
	return m
}

func fields(es []meta.ManagedFieldsEntry) string {
	var parts []string
	for _, e := range es {
		raw := ""
		if e.FieldsV1 != nil {
			raw = string(e.FieldsV1.Raw)
		}
		parts = append(parts, e.Manager+"/"+e.Operation+" "+raw)
	}
	return strings.Join(parts, "; ")
}

// newCM is a FieldManager of the deduced type, where a map is a field of
// its own ("." in a field set) besides its keys.
func newCM() *FieldManager { return New(Options{APIVersion: "v1", Kind: "ConfigMap"}) }

func TestUpdate(t *testing.T) {
	f := newCM()
	created := obj(`{"metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`)
	live := obj(`{"metadata":{"name":"a","uid":"u","labels":{"x":"1"}},"data":{"k":"v"}}`)
	entries, err := f.Update(nil, created, nil, nil, Operation{Manager: "kubectl-create", Time: t0})
	if err != nil {
		t.Fatal(err)
	}
	invalid := []meta.ManagedFieldsEntry{{Manager: "x", Operation: "Bogus", APIVersion: "v1", FieldsType: "FieldsV1"}}
	for _, tt := range []struct {
		name        string
		liveEntries []meta.ManagedFieldsEntry
		sent        []meta.ManagedFieldsEntry
		obj         string
		op          Operation
		want        string
	}{
		{"create", nil, nil, "", Operation{Manager: "kubectl-create"},
			`kubectl-create/Update {"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
		{"unnamed manager", nil, nil, "", Operation{}, `unknown/Update {"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
		{"change merges into the entry", entries, nil, `{"metadata":{"name":"a","uid":"u","labels":{"x":"1"}},"data":{"k":"w","l":"v"}}`,
			Operation{Manager: "kubectl-create"},
			`kubectl-create/Update {"f:data":{".":{},"f:k":{},"f:l":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
		{"another manager takes what it changed", entries, nil, `{"metadata":{"name":"a","uid":"u","labels":{"x":"1"}},"data":{"k":"w"}}`,
			Operation{Manager: "editor"},
			// Same second: by manager.
			`editor/Update {"f:data":{"f:k":{}}}; kubectl-create/Update {"f:data":{},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
		{"no change, no new entry", entries, nil, `{"metadata":{"name":"a","uid":"u","resourceVersion":"9","labels":{"x":"1"}},"data":{"k":"v"}}`,
			Operation{Manager: "editor"}, `kubectl-create/Update {"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
		{"reset with [{}]", entries, []meta.ManagedFieldsEntry{{}}, `{"metadata":{"name":"a","uid":"u","labels":{"x":"1"}},"data":{"k":"w"}}`,
			Operation{Manager: "editor"}, ``},
		{"reset with []", entries, []meta.ManagedFieldsEntry{}, "", Operation{Manager: "editor"}, ``},
		{"invalid sent entries are ignored", entries, invalid, `{"metadata":{"name":"a","uid":"u","labels":{"x":"1"}},"data":{"k":"v"}}`,
			Operation{Manager: "editor"}, `kubectl-create/Update {"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
		{"an untracked object stays untracked", nil, nil, `{"metadata":{"name":"a","uid":"u"},"data":{"k":"w"}}`,
			Operation{Manager: "editor"}, ``},
		{"a subresource ignores sent entries", entries, []meta.ManagedFieldsEntry{{}}, `{"metadata":{"name":"a","uid":"u","labels":{"x":"1"}},"data":{"k":"v"}}`,
			Operation{Manager: "editor", Subresource: "status"}, `kubectl-create/Update {"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
	} {
		l, o := live, live
		if tt.name == "create" || tt.name == "unnamed manager" {
			l, o = nil, created
		}
		if tt.obj != "" {
			o = obj(tt.obj)
		}
		tt.op.Time = t0
		got, err := f.Update(l, o, tt.liveEntries, tt.sent, tt.op)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if fields(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, fields(got), tt.want)
		}
	}
}

// Past ten Update entries the oldest are folded into ancient-changes.
func TestCapUpdates(t *testing.T) {
	f := newCM()
	live := obj(`{"metadata":{"name":"a"},"data":{}}`)
	var entries []meta.ManagedFieldsEntry
	for i := range 12 {
		o := obj(fmt.Sprintf(`{"metadata":{"name":"a","uid":"u"},"data":{}}`))
		data := o["data"].(map[string]any)
		for j := 0; j <= i; j++ {
			data[fmt.Sprint("k", j)] = "v"
		}
		var err error
		if entries, err = f.Update(live, o, entries, nil, Operation{Manager: fmt.Sprint("m", i), Time: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
		live = o
	}
	var managers []string
	for _, e := range entries {
		managers = append(managers, e.Manager)
	}
	if got := strings.Join(managers, " "); got != "ancient-changes m3 m4 m5 m6 m7 m8 m9 m10 m11" {
		t.Errorf("managers %s", got)
	}
	if e := entries[0]; string(e.FieldsV1.Raw) != `{"f:data":{"f:k0":{},"f:k1":{},"f:k2":{}}}` || !e.Time.Equal(t0.Add(2*time.Second)) {
		t.Errorf("bucket %s at %v", e.FieldsV1.Raw, e.Time)
	}
}

func TestApply(t *testing.T) {
	f := newCM()
	cfg := func(data string) map[string]any {
		return obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":` + data + `}`)
	}
	out, entries, err := f.Apply(nil, nil, cfg(`{"a":"1","b":"2"}`), Operation{Manager: "ops", Time: t0}, false)
	if err != nil {
		t.Fatal(err)
	}
	if fields(entries) != `ops/Apply {"f:data":{".":{},"f:a":{},"f:b":{}}}` || out["data"].(map[string]any)["a"] != "1" {
		t.Fatalf("create: %v %s", out, fields(entries))
	}
	out["metadata"].(map[string]any)["uid"] = "u"
	_, _, err = f.Apply(out, entries, cfg(`{"a":"2","b":"3"}`), Operation{Manager: "rival", Time: t0}, false)
	want := "Apply failed with 2 conflicts: conflicts with \"ops\":\n- .data.a\n- .data.b"
	if !status.IsConflict(err) || err.Error() != want {
		t.Fatalf("conflict %v; want %q", err, want)
	}
	if c := status.FromError(err).Details.Causes; len(c) != 2 || c[1] != (status.Cause{Type: status.CauseTypeFieldManagerConflict, Message: `conflict with "ops"`, Field: ".data.b"}) {
		t.Errorf("causes %+v", c)
	}
	out2, entries2, err := f.Apply(out, entries, cfg(`{"a":"2"}`), Operation{Manager: "rival", Time: t0}, true)
	if err != nil {
		t.Fatal(err)
	}
	if fields(entries2) != `ops/Apply {"f:data":{".":{},"f:b":{}}}; rival/Apply {"f:data":{".":{},"f:a":{}}}` || out2["data"].(map[string]any)["a"] != "2" {
		t.Errorf("force: %v %s", out2, fields(entries2))
	}
	for _, tt := range []struct {
		name string
		cfg  map[string]any
		want string
	}{
		{"wrong kind", obj(`{"apiVersion":"v1","kind":"Secret"}`), "invalid object type: /v1, Kind=Secret"},
		{"no type", obj(`{}`), "invalid object type: /, Kind="},
		{"managedFields", obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"managedFields":[]}}`), "metadata.managedFields must be nil"},
	} {
		if _, _, err := f.Apply(out, entries, tt.cfg, Operation{Manager: "x", Time: t0}, false); !status.IsBadRequest(err) || err.Error() != tt.want {
			t.Errorf("%s: %v; want 400 %q", tt.name, err, tt.want)
		}
	}
}

// The first apply to an object nobody owns gives its fields to
// before-first-apply, with which the apply then conflicts. Applied to a
// subresource, before-first-apply is an Update of that subresource, and
// owns what a write to it may own (kube-apiserver 1.37 answers a first
// apply to /status with `conflict with "before-first-apply" with
// subresource "status"`).
func TestBeforeFirstApply(t *testing.T) {
	f := newCM()
	live := obj(`{"metadata":{"name":"a","uid":"u"},"data":{"a":"1"}}`)
	cfg := obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"2"}}`)
	_, _, err := f.Apply(live, nil, cfg, Operation{Manager: "ops", Time: t0}, false)
	if want := `Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a`; err == nil || err.Error() != want {
		t.Errorf("got %v; want %q", err, want)
	}

	st := New(Options{APIVersion: "example.com/v1", Kind: "Widget", StatusSubresource: true})
	live = obj(`{"metadata":{"name":"w","uid":"u"},"spec":{"a":"1"},"status":{"b":"1"}}`)
	for _, tt := range []struct {
		name, sub, cfg, want string
	}{
		{"status", "status", `{"status":{"b":"2"}}`,
			`Apply failed with 1 conflict: conflict with "before-first-apply" with subresource "status" using example.com/v1: .status.b`},
		{"status leaves spec alone", "status", `{"spec":{"a":"2"},"status":{"b":"1"}}`, ""},
		{"object", "", `{"spec":{"a":"2"}}`,
			`Apply failed with 1 conflict: conflict with "before-first-apply" using example.com/v1: .spec.a`},
		{"object leaves status alone", "", `{"status":{"b":"2"}}`, ""},
	} {
		cfg := obj(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},` + tt.cfg[1:])
		_, entries, err := st.Apply(live, nil, cfg, Operation{Manager: "ops", Subresource: tt.sub, Time: t0}, false)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("%s: got %v; want %q", tt.name, err, tt.want)
		case tt.want == "" && !strings.Contains(fields(entries), "before-first-apply/Update"):
			t.Errorf("%s: entries %s; want a before-first-apply entry", tt.name, fields(entries))
		}
	}
}

func TestManagerFromUserAgent(t *testing.T) {
	for _, tt := range []struct{ ua, want string }{
		{"kubectl/v1.33.0 (linux/amd64) kubernetes/abc", "kubectl"},
		{"interop.test/v0.0.0", "interop.test"},
		{"", ""},
		{"a\x00b/1", "ab"},
		{strings.Repeat("é", 70), strings.Repeat("é", 64)},
	} {
		if got := ManagerFromUserAgent(tt.ua); got != tt.want {
			t.Errorf("ManagerFromUserAgent(%q) = %q; want %q", tt.ua, got, tt.want)
		}
	}
}

// Applying the same configuration again changes nothing: the live object
// (which, as the server holds it, names no apiVersion or kind) comes back
// as it is, and the manager's entry keeps its time, so that the write
// stores nothing new.
func TestApplySameConfigKeepsTime(t *testing.T) {
	f := newCM()
	config := obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`)
	merged, entries, err := f.Apply(nil, nil, config, Operation{Manager: "m", Time: t0}, false)
	if err != nil {
		t.Fatal(err)
	}
	delete(merged, "apiVersion")
	delete(merged, "kind")
	merged["metadata"].(map[string]any)["uid"] = "u"
	again, entries2, err := f.Apply(merged, entries, config, Operation{Manager: "m", Time: t0.Add(time.Hour)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entries2[0].Time, entries[0].Time; len(entries2) != 1 || !got.Equal(want.Time) {
		t.Errorf("the entry's time is %v; want %v, kept", got, want)
	}
	delete(again, "apiVersion")
	delete(again, "kind")
	if a, b := fmt.Sprint(again), fmt.Sprint(merged); a != b {
		t.Errorf("merged %s; want live %s", a, b)
	}
}
