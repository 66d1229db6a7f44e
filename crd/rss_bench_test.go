package crd

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/server"
)

// BenchmarkInstalledRSS installs the definitions of the directories in
// APISEM_CRD_DIRS (a list of paths, as PATH is) on a server and reports
// the process's resident set once they are Established, in a test
// binary as small as a server's (rss-MB, and rss-returned-MB after the
// runtime returns free memory to the OS), and the live heap (live-MB).
// examples/interop's BenchmarkRealCRDsMemory names the 43 real
// definitions; their directories in the module cache serve here, e.g.
// $(go env GOMODCACHE)/sigs.k8s.io/gateway-api@v1.6.3/config/crd/standard.
// Run it alone in its process (-benchtime 1x): RSS is the process's.
func BenchmarkInstalledRSS(b *testing.B) {
	dirs := filepath.SplitList(os.Getenv("APISEM_CRD_DIRS"))
	if len(dirs) == 0 {
		b.Skip("APISEM_CRD_DIRS is not set")
	}
	var defs []*CustomResourceDefinition
	for _, dir := range dirs {
		ds, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		defs = append(defs, ds...)
	}
	for b.Loop() {
		res := Resource()
		s, err := server.New(server.Options{Resources: []*server.Resource{res}})
		if err != nil {
			b.Fatal(err)
		}
		c := Start(s, res)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard
		for _, d := range defs {
			if err := c.Install(ctx, d.DeepCopy()); err != nil {
				b.Fatal(err)
			}
		}
		cancel()
		defs = nil // the server's alone from here
		b.ReportMetric(float64(rss())/1e6, "rss-MB")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/1e6, "live-MB")
		debug.FreeOSMemory()
		b.ReportMetric(float64(rss())/1e6, "rss-returned-MB")
		b.ReportMetric(float64(len(c.served)), "definitions")
		c.Stop()
		s.Shutdown(context.Background())
	}
}

// rss is the process's resident set (VmRSS), 0 where /proc is not there.
func rss() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
