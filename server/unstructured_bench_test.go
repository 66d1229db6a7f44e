package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/table"
)

// gizmo1KiB is a custom resource of about 1 KiB, shaped like a typical
// one: metadata with labels and annotations, a nested spec, a status with
// conditions.
const gizmo1KiB = `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"annotations":{"demo.io/owner":"team-a","demo.io/revision":"42"},` +
	`"creationTimestamp":"2024-05-06T07:08:09Z","generation":3,"labels":{"app":"gizmo","tier":"backend","zone":"eu-1"},` +
	`"name":"gizmo-0001","namespace":"default","resourceVersion":"123456","uid":"6ae6783f-4fbd-491b-aeb8-8b73a48ed247"},` +
	`"spec":{"color":"red","replicas":3,"ratio":0.75,"selector":{"matchLabels":{"app":"gizmo"}},` +
	`"ports":[{"name":"http","port":8080,"protocol":"TCP"},{"name":"metrics","port":9090,"protocol":"TCP"}],` +
	`"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"64Mi"}},` +
	`"features":["alpha","beta","gamma"],"paused":false},` +
	`"status":{"observedGeneration":3,"readyReplicas":3,"conditions":[` +
	`{"lastTransitionTime":"2024-05-06T07:09:00Z","message":"all replicas are ready","reason":"Ready","status":"True","type":"Ready"},` +
	`{"lastTransitionTime":"2024-05-06T07:09:00Z","message":"rollout finished","reason":"Done","status":"True","type":"Progressing"}]}}`

func BenchmarkUnstructuredJSON(b *testing.B) {
	var u Unstructured
	if err := json.Unmarshal([]byte(gizmo1KiB), &u); err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(gizmo1KiB)))
		data := []byte(gizmo1KiB)
		for b.Loop() {
			var u Unstructured
			if err := u.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-strict", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(gizmo1KiB)))
		data := []byte(gizmo1KiB)
		for b.Loop() {
			var u Unstructured
			if _, err := u.UnmarshalJSONStrict(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(gizmo1KiB)))
		var dst []byte
		for b.Loop() {
			var err error
			if dst, err = u.appendJSON(dst[:0], meta.TypeMeta{Kind: "Gizmo", APIVersion: "demo.io/v1"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("deepcopy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = u.DeepCopyObject()
		}
	})
}

// BenchmarkJSONPathColumn computes printer-column cells of a custom
// resource: a member of its content, a filter, and paths into its
// metadata (which makes the metadata, without managedFields, a generic
// map first). fieldPath is
// the simple reader selectable fields use, for comparison.
func BenchmarkJSONPathColumn(b *testing.B) {
	var u Unstructured
	if err := json.Unmarshal([]byte(`{"apiVersion":"demo.io/v1","kind":"Gizmo",
		"metadata":{"name":"g1","namespace":"default","labels":{"tier":"web"},"creationTimestamp":"2024-05-06T07:08:09Z","uid":"u1","resourceVersion":"5",
			"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"demo.io/v1","time":"2024-05-06T07:08:09Z","fieldsType":"FieldsV1",
				"fieldsV1":{"f:metadata":{"f:labels":{"f:tier":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:name":{}},"k:{\"name\":\"b\"}":{".":{},"f:name":{}}},"f:replicas":{}}}},
				{"manager":"controller","operation":"Update","apiVersion":"demo.io/v1","time":"2024-05-06T07:08:09Z","fieldsType":"FieldsV1","subresource":"status",
				"fieldsV1":{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Synced\"}":{".":{},"f:status":{},"f:type":{}}}}}}]},
		"spec":{"replicas":3,"containers":[{"name":"a"},{"name":"b"}]},
		"status":{"conditions":[{"type":"Synced","status":"False"},{"type":"Ready","status":"True"}]}}`), &u); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for _, tc := range []struct{ name, path string }{
		{"member", ".spec.replicas"},
		{"filter", `.status.conditions[?(@.type=="Ready")].status`},
		{"metadata", ".metadata.labels.tier"},
		{"age", ".metadata.creationTimestamp"},
	} {
		col, err := JSONPathColumn(table.Column{Name: "c", Type: "string"}, tc.path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if col.Cell(&u, now) == nil {
					b.Fatal("no cell")
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	p, err := parseFieldPath(".spec.replicas")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("FieldPath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := p.Get(&u); !ok {
				b.Fatal("no value")
			}
		}
	})
}
