// Package cputime reads the CPU time the process has used, for the
// benchmarks that report CPU per operation beside wall time: on a shared
// machine wall time measures the neighbours, CPU time the code.
package cputime
