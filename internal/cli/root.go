// Package cli implements the pipewhy command: one file per verb, each a thin layer
// over the library packages. Main maps errors to the stable exit codes.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes that scripts can rely on.
const (
	ExitOK         = 0 // success, or no difference found
	ExitDifference = 1 // a difference was found, or a check failed
	ExitError      = 2 // usage error, unreadable input, or any other failure
)

// exitError carries an exit code through cobra without printing anything more:
// the command has already reported what the user needs to know.
type exitError struct {
	code int
	err  error // nil when the command already printed its message
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withExit returns an error that makes Main exit with code; err, if not nil, is printed.
func withExit(code int, err error) error { return &exitError{code: code, err: err} }

// streams are the standard streams of one invocation, so commands are testable in process.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// newRootCommand builds the pipewhy command tree over the given streams.
func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "pipewhy",
		Short: "Tell what changed in your data, where exactly, and why",
		Long: `PipeWhy observes datasets, turns every typed value into canonical words (C2),
fingerprints datasets, records and values (C3), keeps immutable snapshots (C5),
shows what changed between two snapshots (diff) or two live sources (compare), and
explains a change through the lineage between artifacts (lineage, why, check).

Exit codes: 0 success or no difference, 1 difference found or check failed, 2 error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.AddCommand(
		newVersionCommand(s),
		newNormalizeCommand(s),
		newCanonicalCommand(s),
		newSnapshotCommand(s),
		newInitCommand(s),
		newScanCommand(s),
		newLogCommand(s),
		newShowCommand(s),
		newDiffCommand(s),
		newCompareCommand(s),
		newDemoCommand(s),
		newLineageCommand(s),
		newWhyCommand(s),
		newCheckCommand(s),
		newIncidentsCommand(s),
	)
	return root
}

// Main runs the command line args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := streams{in: stdin, out: stdout, err: stderr}
	root := newRootCommand(s)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "pipewhy: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "pipewhy: %v\n", err)
	return ExitError
}
