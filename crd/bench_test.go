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
