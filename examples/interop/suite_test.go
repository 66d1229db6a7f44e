package interop

import (
	"testing"

	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/examples/interop/suite"
)

// TestSuite runs the storage-independent interop suite on the example
// server in memory; the etcd module runs it on etcd.
func TestSuite(t *testing.T) {
	suite.Run(t, func(t *testing.T, opts demo.Options) suite.Server {
		s, err := demo.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
