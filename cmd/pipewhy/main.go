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
	if path := os.Getenv("PIPEWHY_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "pipewhy: PIPEWHY_CPUPROFILE: %v (running without a profile)\n", err)
		} else {
			defer func() {
				pprof.StopCPUProfile()
				if err := f.Close(); err != nil {
					fmt.Fprintf(os.Stderr, "pipewhy: PIPEWHY_CPUPROFILE: %v\n", err)
				}
			}()
		}
	}
	if path := os.Getenv("PIPEWHY_TRACE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "pipewhy: PIPEWHY_TRACE: %v (running without a trace)\n", err)
		} else {
			defer func() {
				trace.Stop()
				if err := f.Close(); err != nil {
					fmt.Fprintf(os.Stderr, "pipewhy: PIPEWHY_TRACE: %v\n", err)
				}
			}()
		}
	}
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
