//go:build race

package server

// raceEnabled: the race detector makes sync.Pool drop a random share of
// the values put back, so allocation counts of pooled paths are not
// meaningful under it.
const raceEnabled = true
