package managedfields

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
)

func entry(manager, op, apiVersion, sub, fieldsV1 string, timed bool) meta.ManagedFieldsEntry {
	e := meta.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: apiVersion, Subresource: sub,
		FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(fieldsV1)}}
	if timed {
		t := meta.NewTime(t0)
		e.Time = &t
	}
	return e
}

// render writes entries one per line: manager, operation, apiVersion,
// subresource, "-" for no time, fields.
func render(es []meta.ManagedFieldsEntry) string {
	var lines []string
	for _, e := range es {
		tm := "t"
		if e.Time == nil {
			tm = "-"
		}
		lines = append(lines, strings.Join([]string{e.Manager, e.Operation, e.APIVersion, e.Subresource, tm, string(e.FieldsV1.Raw)}, " "))
	}
	return strings.Join(lines, "\n")
}

// TestScaleMapping follows writes to a scale subresource through the
// Scale view and back, with the results kube-apiserver 1.37 gives: a
// creator's entry that owned the replicas splits in two after any scale
// write, a new scale manager's entry has no time, an Apply entry that
// still owns the replicas stays as it is.
func TestScaleMapping(t *testing.T) {
	m := ScaleMapping{APIVersion: "example.com/v1", Replicas: map[string][]string{
		"example.com/v1":      {"spec", "replicas"},
		"example.com/v1beta1": {"spec", "count"},
		"example.com/v1alpha": nil, // no scale subresource
	}}
	obj := []meta.ManagedFieldsEntry{
		entry("creator", "Update", "example.com/v1", "", `{"f:spec":{".":{},"f:color":{},"f:replicas":{}}}`, true),
		entry("applier", "Apply", "example.com/v1", "", `{"f:spec":{"f:replicas":{},"f:size":{}}}`, true),
		entry("old", "Update", "example.com/v1beta1", "", `{"f:spec":{"f:count":{}}}`, true),
		entry("other", "Update", "example.com/v1", "", `{"f:spec":{"f:size":{}}}`, true),
		entry("alpha", "Update", "example.com/v1alpha", "", `{"f:spec":{"f:replicas":{}}}`, true),
		entry("gone", "Update", "example.com/v0", "", `{"f:spec":{"f:replicas":{}}}`, true),
	}
	sc, err := m.ToScale(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `
applier Apply autoscaling/v1  t {"f:spec":{"f:replicas":{}}}
creator Update autoscaling/v1  t {"f:spec":{"f:replicas":{}}}
old Update autoscaling/v1  t {"f:spec":{"f:replicas":{}}}`
	if got := render(sc); got != strings.TrimSpace(want) {
		t.Errorf("ToScale:\n%s\nwant\n%s", got, strings.TrimSpace(want))
	}

	for _, tt := range []struct {
		name  string
		scale []meta.ManagedFieldsEntry // the Scale view after the write
		want  string
	}{{
		// The Scale view's entries decode under new identities (the
		// apiVersion is autoscaling/v1): the Update entries of the
		// object lose the replicas, which return in entries of their own.
		name:  "a write that changed no ownership",
		scale: sc,
		want: `
applier Apply example.com/v1  t {"f:spec":{"f:replicas":{},"f:size":{}}}
creator Update example.com/v1  - {"f:spec":{"f:replicas":{}}}
old Update example.com/v1  - {"f:spec":{"f:replicas":{}}}
alpha Update example.com/v1alpha  t {"f:spec":{"f:replicas":{}}}
creator Update example.com/v1  t {"f:spec":{".":{},"f:color":{}}}
other Update example.com/v1  t {"f:spec":{"f:size":{}}}`,
	}, {
		name: "an update that took the replicas",
		scale: []meta.ManagedFieldsEntry{
			entry("scaler", "Update", "autoscaling/v1", "scale", `{"f:spec":{"f:replicas":{}}}`, true),
		},
		want: `
applier Apply example.com/v1  t {"f:spec":{"f:size":{}}}
scaler Update example.com/v1 scale - {"f:spec":{"f:replicas":{}}}
alpha Update example.com/v1alpha  t {"f:spec":{"f:replicas":{}}}
creator Update example.com/v1  t {"f:spec":{".":{},"f:color":{}}}
other Update example.com/v1  t {"f:spec":{"f:size":{}}}`,
	}, {
		name: "an apply that shares them",
		scale: []meta.ManagedFieldsEntry{
			entry("applier", "Apply", "autoscaling/v1", "", `{"f:spec":{"f:replicas":{}}}`, true),
			entry("auto", "Apply", "autoscaling/v1", "scale", `{"f:spec":{"f:replicas":{}},"f:status":{"f:replicas":{}}}`, true),
		},
		want: `
auto Apply example.com/v1 scale - {"f:spec":{"f:replicas":{}}}
applier Apply example.com/v1  t {"f:spec":{"f:replicas":{},"f:size":{}}}
alpha Update example.com/v1alpha  t {"f:spec":{"f:replicas":{}}}
creator Update example.com/v1  t {"f:spec":{".":{},"f:color":{}}}
other Update example.com/v1  t {"f:spec":{"f:size":{}}}`,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := m.ToObject(obj, tt.scale)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(out); got != strings.TrimSpace(tt.want) {
				t.Errorf("ToObject:\n%s\nwant\n%s", got, strings.TrimSpace(tt.want))
			}
		})
	}
	if _, err := m.ToScale([]meta.ManagedFieldsEntry{{Manager: "x", Operation: "Bogus", APIVersion: "v1", FieldsType: "FieldsV1"}}); err == nil {
		t.Error("ToScale of an invalid entry: no error")
	}
}
