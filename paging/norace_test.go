//go:build !race

package paging

const raceEnabled = false
