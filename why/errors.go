package why

import "github.com/pipewhy/pipewhy/internal/errcode"

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodeUnknown  Code = "PW_WHY_UNKNOWN"  // the artifact was never scanned
	CodeSnapshot Code = "PW_WHY_SNAPSHOT" // a snapshot that is not the artifact's, or fewer than two to compare
	CodeLineage  Code = "PW_WHY_LINEAGE"  // the lineage names an artifact that is neither scanned nor a configured source
	CodeIndex    Code = "PW_WHY_INDEX"    // the summary index cannot be read or written
	CodeInternal Code = "PW_WHY_INTERNAL" // an internal cross-check failed (a bug)
)

// Error is the error type of this package. Messages name artifacts and snapshots, never
// data values.
type Error struct {
	Code Code
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	return errcode.Text("why", e.Msg, e.Err, string(e.Code))
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
