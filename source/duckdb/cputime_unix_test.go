//go:build cgo && unix

package duckdb

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time (all threads, the
// engine's included), so benchmarks on a shared machine can report CPU
// time per row, which time slicing does not distort.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
