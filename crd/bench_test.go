package crd

import (
	"context"
	"fmt"
	"testing"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/server"
)

// benchDefinitions are n definitions like testdata's, in n groups.
func benchDefinitions(b *testing.B, n int) []*CustomResourceDefinition {
	base, err := Load("testdata/definitions")
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
	defs, err := Load("testdata/definitions")
	if err != nil {
		b.Fatal(err)
	}
	sch := defs[0].Spec.Versions[0].Schema.OpenAPIV3Schema
	n := schema.NewTree(sch)
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
