package builtin

import (
	"testing"

	"github.com/apisem/apisem/server"
)

// BenchmarkResources builds the resources of every built-in kind and a
// server of them, as a test that starts a fresh server per case does.
func BenchmarkResources(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		res, err := Resources(Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := server.New(server.Options{Resources: res}); err != nil {
			b.Fatal(err)
		}
	}
}
