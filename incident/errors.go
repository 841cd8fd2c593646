package incident

import "github.com/pipewhy/pipewhy/internal/errcode"

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodePolicy   Code = "PW_INCIDENT_POLICY"    // pipewhy.yaml's policy names an unknown reason or column
	CodeUnknown  Code = "PW_INCIDENT_UNKNOWN"   // an artifact to check was never scanned
	CodeNotFound Code = "PW_INCIDENT_NOT_FOUND" // no incident has that id
	CodeResolved Code = "PW_INCIDENT_RESOLVED"  // the incident is already resolved
	CodeStore    Code = "PW_INCIDENT_STORE"     // the incident store cannot be read or written
	CodeFormat   Code = "PW_INCIDENT_FORMAT"    // a stored incident event is not valid
	CodeInternal Code = "PW_INCIDENT_INTERNAL"  // an internal cross-check failed (a bug)
)

// Error is the error type of this package. Messages never contain data values.
type Error struct {
	Code Code
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	return errcode.Text("incident", e.Msg, e.Err, string(e.Code))
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
