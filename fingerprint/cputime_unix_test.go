//go:build unix

package fingerprint

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time, so benchmarks on a shared, loaded
// machine can also report throughput per CPU-second, which time slicing does not distort.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
