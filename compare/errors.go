package compare

import "github.com/pipewhy/pipewhy/internal/errcode"

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodeContext Code = "PW_COMPARE_CONTEXT" // the snapshots' fingerprint contexts differ beyond the schema
	CodeRecords Code = "PW_COMPARE_RECORDS" // malformed record arrays (length, order)
	// CodeArtifacts: the snapshots observe different artifacts, whose field ids were
	// assigned separately (Options.AllowDifferentArtifacts overrides).
	CodeArtifacts Code = "PW_COMPARE_ARTIFACTS"
	// CodeAlgorithm: the snapshots were fingerprinted by different C3 algorithms (a
	// repository keeps the one it was created with; snapshots of two repositories of
	// different algorithms never compare).
	CodeAlgorithm Code = "PW_COMPARE_ALGORITHM"
)

// Error codes of the live comparison of two sources (package compare/live).
const (
	CodeOptions Code = "PW_COMPARE_OPTIONS" // a bad --map, --key or --exclude, or a missing key
	CodeSource  Code = "PW_COMPARE_SOURCE"  // a side could not be opened, read or observed
	// CodeSpill: a comparison in bounded memory could not create, write, read back or
	// remove its scratch directory (a full disk, a directory it may not write).
	CodeSpill Code = "PW_COMPARE_SPILL"
)

// Error is the error type of this package and of compare/live.
type Error struct {
	Code Code
	Op   string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	return errcode.Text("compare "+e.Op, e.Msg, e.Err, string(e.Code))
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode: the method every
// PipeWhy error has, for callers that do not know its type).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}
