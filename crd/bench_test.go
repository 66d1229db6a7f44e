package crd

import (
	"context"
	"fmt"
	"testing"

	"github.com/apisem/apisem/server"
)

// benchDefinitions are n definitions like testdata's, in n groups.
func benchDefinitions(b *testing.B, n int) []*CustomResourceDefinition {
	base, err := Load("testdata")
	if err != nil {
		b.Fatal(err)
	}
	out := make([]*CustomResourceDefinition, n)
	for i := range out {
		d := base[0].DeepCopy()
		d.Spec.Group = fmt.Sprintf("g%d.example.com", i)
		d.Name = "widgets." + d.Spec.Group
		out[i] = d
	}
	return out
}

// BenchmarkStartup20 measures a server's start with 20 definitions
// installed and established: server.New, the controller, Install.
func BenchmarkStartup20(b *testing.B) {
	defs := benchDefinitions(b, 20)
	b.ReportAllocs()
	for b.Loop() {
		res := Resource()
		s, err := server.New(server.Options{Resources: []*server.Resource{res}})
		if err != nil {
			b.Fatal(err)
		}
		c := Start(s, res)
		if err := c.Install(context.Background(), defs...); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		c.Stop()
		s.Shutdown(context.Background())
		b.StartTimer()
	}
}

// BenchmarkRead measures the coercion of a stored object as it is read
// (server.Resource.Read): the common case, an object written under the
// current schema, which needs nothing, and one stored before a default
// was added, which is copied and defaulted.
func BenchmarkRead(b *testing.B) {
	defs, err := Load("testdata")
	if err != nil {
		b.Fatal(err)
	}
	n := newSchemaNode(defs[0].Spec.Versions[0].Schema.OpenAPIV3Schema)
	for _, bc := range []struct{ name, obj string }{
		{"unchanged", `{"metadata":{"name":"w"},"spec":{"color":"red","replicas":1,"name":"abc","tags":["a","b"],"labels":{"a":"b"},"config":{"x":[1,2,3]}},"status":{"ready":true,"replicas":1}}`},
		{"defaulted", `{"metadata":{"name":"w"},"spec":{"color":"red","name":"abc","tags":["a","b"],"labels":{"a":"b"},"config":{"x":[1,2,3]}},"status":{"ready":true,"replicas":1}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			u := unstructured(b, bc.obj)
			b.ReportAllocs()
			for b.Loop() {
				read(u, n)
			}
		})
	}
}

// BenchmarkValidate measures the schema validation of one object, as a
// write runs it: a schema without logical junctors (the common case,
// which must not pay for them) and one whose oneOf and anyOf fail, where
// kube-openapi's match counts are kept to choose the errors reported.
func BenchmarkValidate(b *testing.B) {
	for _, bc := range []struct{ name, schema, obj string }{
		{"plain", `{type: object, properties: {spec: {type: object, properties: {
			color: {type: string, enum: [red, green]}, replicas: {type: integer, minimum: 0, maximum: 10},
			at: {type: string, format: date-time}, tags: {type: array, items: {type: string, maxLength: 8}},
			labels: {type: object, additionalProperties: {type: string}}}}}}`,
			`{"spec":{"color":"red","replicas":3,"at":"2024-01-02T03:04:05Z","tags":["a","b","c"],"labels":{"a":"1","b":"2"}}}`},
		{"junctors", `{type: object, properties: {spec: {type: object,
			properties: {a: {type: string}, b: {type: string}, o: {type: object, properties: {x: {type: integer}, z: {type: integer}},
				anyOf: [{required: [z]}, {properties: {x: {minimum: 5}}}]}},
			oneOf: [{required: [a]}, {required: [b]}]}}}`,
			`{"spec":{"o":{"x":3}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			v, err := compileSchema(mustSchema(b, bc.schema))
			if err != nil {
				b.Fatal(err)
			}
			obj := mustValue(b, bc.obj)
			b.ReportAllocs()
			for b.Loop() {
				v.validateObject(obj, nil, false)
			}
		})
	}
}
