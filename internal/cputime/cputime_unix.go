//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user+system CPU time of the whole process so far (every thread,
// cgo threads included), or 0 if the kernel does not report it.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
