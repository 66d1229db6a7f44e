//go:build !unix

package connlimit

// fileLimit reports that the limit on open files is unknown.
func fileLimit() (int, bool) { return 0, false }
