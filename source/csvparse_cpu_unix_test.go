//go:build unix

package source

import "syscall"

// processCPUSeconds is the process's user+sys CPU time so far: the CSV
// benchmarks report it per read, since wall time on a shared machine counts
// time slices lost to other processes.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
