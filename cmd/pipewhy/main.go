// Command pipewhy tells data teams what changed in their data, where exactly, and why.
//
// Exit codes are stable and documented in the README: 0 success or no difference,
// 1 a difference (or a failed check) was found, 2 an error.
package main

import (
	"os"

	"github.com/pipewhy/pipewhy/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
