package managedfields_test

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
)

// With Options.Convert, a write through one version keeps the entries of
// another it converts to, taking from them the fields it changes (v2's
// spec.size is v1's spec.count), as Kubernetes' field manager does;
// without it, or for a version it does not convert to, they are dropped.
func TestConvertOtherVersion(t *testing.T) {
	v2 := managedfields.New(managedfields.Options{APIVersion: "example.com/v2", Kind: "Widget"})
	toV2 := func(obj map[string]any, apiVersion string) (map[string]any, *managedfields.FieldManager, error) {
		if apiVersion != "example.com/v2" {
			return nil, nil, nil
		}
		out := maps.Clone(obj)
		if spec, ok := obj["spec"].(map[string]any); ok {
			s := maps.Clone(spec)
			if c, ok := s["count"]; ok {
				delete(s, "count")
				s["size"] = c
			}
			out["spec"] = s
		}
		return out, v2, nil
	}
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	created, err := v2.Update(nil, map[string]any{"spec": map[string]any{"size": int64(1), "color": "red"}}, nil, nil,
		managedfields.Operation{Manager: "creator", Time: now})
	if err != nil {
		t.Fatal(err)
	}
	other := append(created, meta.ManagedFieldsEntry{Manager: "old", Operation: managedfields.OperationUpdate, APIVersion: "example.com/v0",
		FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:spec":{"f:color":{}}}`)}, Time: created[0].Time})
	live := map[string]any{"spec": map[string]any{"count": int64(1), "color": "red"}}
	for _, tc := range []struct {
		name    string
		convert bool
		obj     map[string]any
		want    []string // manager apiVersion fields, of each entry
	}{
		{"no change", true, live, []string{`creator example.com/v2 {"f:spec":{".":{},"f:color":{},"f:size":{}}}`}},
		{"count changed", true, map[string]any{"spec": map[string]any{"count": int64(2), "color": "red"}}, []string{
			`creator example.com/v2 {"f:spec":{".":{},"f:color":{}}}`, `updater example.com/v1 {"f:spec":{"f:count":{}}}`}},
		{"without Convert", false, live, nil},
	} {
		opts := managedfields.Options{APIVersion: "example.com/v1", Kind: "Widget"}
		if tc.convert {
			opts.Convert = toV2
		}
		got, err := managedfields.New(opts).Update(live, tc.obj, other, nil, managedfields.Operation{Manager: "updater", Time: now})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var entries []string
		for _, e := range got {
			entries = append(entries, e.Manager+" "+e.APIVersion+" "+string(e.FieldsV1.Raw))
		}
		if strings.Join(entries, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, entries, tc.want)
		}
	}
}
