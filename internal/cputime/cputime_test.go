package cputime

import (
	"runtime"
	"testing"
)

// Work done by the process shows in its CPU time.
func TestProcessCounts(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("not read on", runtime.GOOS)
	}
	before := Process()
	x := 0
	for i := range 50_000_000 {
		x ^= i
	}
	_ = x
	if after := Process(); after <= before {
		t.Errorf("CPU time went from %v to %v over a busy loop", before, after)
	}
}
