//go:build unix

package connlimit

import "syscall"

// fileLimit returns the process's limit on open files (RLIMIT_NOFILE),
// which Go raises to the hard limit at start, and false if unknown.
func fileLimit() (int, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur == 0 {
		return 0, false
	}
	if r.Cur > 1<<30 {
		return 1 << 30, true // RLIM_INFINITY
	}
	return int(r.Cur), true
}
