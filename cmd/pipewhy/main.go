// Command pipewhy tells data teams what changed in their data, where exactly, and why.
//
// Exit codes are stable and documented in the README: 0 success or no difference,
// 1 a difference (or a failed check) was found, 2 an error.
//
// For performance work, PIPEWHY_CPUPROFILE=FILE writes a CPU profile of the whole
// command to FILE (go tool pprof reads it); a profile that cannot be started is
// reported and the command runs without it.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

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
	return cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
