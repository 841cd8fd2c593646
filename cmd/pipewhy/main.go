// Command pipewhy tells data teams what changed in their data, where exactly, and why.
//
// Exit codes are stable and documented in the README: 0 success or no difference,
// 1 a difference (or a failed check) was found, 2 an error.
//
// For performance work, PIPEWHY_CPUPROFILE=FILE writes a CPU profile of the whole
// command to FILE and PIPEWHY_MEMPROFILE=FILE the allocation profile at its end (go tool
// pprof reads both; -sample_index=alloc_space ranks where memory was allocated), and
// PIPEWHY_TRACE=FILE an execution trace (go tool trace; -pprof=sync shows where
// goroutines waited for each other). A profile or trace that cannot be written is
// reported and the command's result is unchanged.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/pipewhy/pipewhy/internal/cli"
)

func main() {
	os.Exit(run())
}

func run() int {
	defer record("PIPEWHY_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)()
	defer record("PIPEWHY_TRACE", trace.Start, trace.Stop)()
	if path := os.Getenv("PIPEWHY_MEMPROFILE"); path != "" {
		defer func() {
			runtime.GC() // the profile counts allocations up to the last collection
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "pipewhy: PIPEWHY_MEMPROFILE: %v\n", err)
			}
		}()
	}
	return cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// record starts recording into the file that environment variable env names, if any,
// and returns what stops it (a no-op when nothing was started). A file that cannot be
// created or a recording that cannot start is reported, and the command runs without.
func record(env string, start func(io.Writer) error, stop func()) func() {
	path := os.Getenv(env)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pipewhy: %s: %v (running without it)\n", env, err)
		return func() {}
	}
	return func() {
		stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "pipewhy: %s: %v\n", env, err)
		}
	}
}
