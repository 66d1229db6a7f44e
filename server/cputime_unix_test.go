//go:build unix

package server_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used (all threads,
// including the garbage collector's).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
