package report

import "github.com/pipewhy/pipewhy/internal/errcode"

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodeUnknown Code = "PW_REPORT_UNKNOWN" // an artifact asked for is neither scanned, configured, nor in the lineage
	CodeRender  Code = "PW_REPORT_RENDER"  // the page could not be rendered or written
	CodeCache   Code = "PW_REPORT_CACHE"   // the history cache cannot be read
	CodeWrite   Code = "PW_REPORT_WRITE"   // the page's file cannot be written
)

// Error is the error type of this package. Messages name artifacts, never data values.
type Error struct {
	Code Code
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	return errcode.Text("report", e.Msg, e.Err, string(e.Code))
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
