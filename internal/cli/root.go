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
		Long: `PipeWhy tells what changed in your data, where exactly, and why. Scan a dataset (a
file or a database table) into a snapshot now and again, and diff two snapshots: records
added, removed and changed, the fields that changed, with old and new values. Or compare
two live sources directly, to check a copy or a migration. Declare the lineage between
your datasets (or import it from OpenLineage or dbt), and 'pipewhy why' explains a change
through it: a copy that does not match its source, an upstream change, a changed
transform, or a change nothing upstream explains; 'pipewhy check' turns that into
incidents, a gate for CI; 'pipewhy report' shows it all on one HTML page.

Start with 'pipewhy demo'. Then: pipewhy init, pipewhy scan SOURCE, pipewhy log,
pipewhy diff A B, pipewhy compare SOURCE_A SOURCE_B, pipewhy lineage, pipewhy why
ARTIFACT, pipewhy check, pipewhy report. The contracts PipeWhy implements (C2 values, C3 fingerprints,
C5 snapshots, graphforge-canonical/1) are the normalize, canonical and snapshot commands,
and docs/.

Exit codes: 0 success or no difference, 1 difference found or check failed, 2 error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = version()
	root.SetVersionTemplate("pipewhy {{.Version}}\n")
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
		newReportCommand(s),
	)
	checkUsage(root)
	return root
}

// Main runs the command line args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return execute(streams{in: stdin, out: stdout, err: stderr}, args)
}

// execute runs the command line args over s and returns the exit code. The error that
// ends a command is printed on s.err as one line; when the command was asked for --json
// and wrote nothing on s.out yet, it is also written there as the JSON error object
// (jsonError), so that a script reading stdout always gets one JSON document.
func execute(s streams, args []string) int {
	out := &countingWriter{w: s.out}
	s.out = out
	root := newRootCommand(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	return finish(s, out.n > 0, cmd, args, err)
}

// finish prints the error that ended cmd, if any, and returns the exit code; wrote says
// whether the command wrote anything on s.out.
func finish(s streams, wrote bool, cmd *cobra.Command, args []string, err error) int {
	if err == nil {
		return ExitOK
	}
	exit := ExitError
	var line, msg, code string
	if ue, ok := errors.AsType[*usageError](err); ok {
		line, msg, code = ue.line(), ue.message(), CodeUsage
	} else {
		if ee, ok := errors.AsType[*exitError](err); ok {
			if ee.err == nil {
				return ee.code // the command has reported what the user needs to know
			}
			exit, err = ee.code, ee.err
		}
		msg, code = describe(err)
		line = msg + " [" + code + "]"
	}
	fmt.Fprintf(s.err, "pipewhy: %s\n", line)
	if !wrote && jsonRequested(cmd, args) {
		// A failing stdout leaves nowhere to report that it failed: the line is on stderr.
		_ = emitJSON(s, jsonError{Error: jsonErrorBody{Code: code, Message: msg}})
	}
	return exit
}

// jsonError is what a --json command writes on stdout when it fails:
// {"error": {"code": "PW_…", "message": "…"}}. The code is the one that ends the error
// line on stderr; the message is that line without it.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// jsonRequested reports whether the command that ran was asked for JSON output. A usage
// error may stop flag parsing before --json: the words before "--" are looked at then.
func jsonRequested(cmd *cobra.Command, args []string) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flag("json")
	if f == nil {
		return false
	}
	if f.Changed {
		return f.Value.String() == "true"
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
