// Package cputime reads the process's CPU time, for benchmarks and bench programs that
// report throughput per CPU-second: on a shared machine time slicing stretches wall time
// but not CPU time.
package cputime
