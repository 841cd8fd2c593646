package retention

import "github.com/pipewhy/pipewhy/internal/errcode"

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodeRule    Code = "PW_RETENTION_RULE"    // the rule keeps nothing on purpose, or a bound is negative
	CodeHistory Code = "PW_RETENTION_HISTORY" // the scan log, the store, the incidents or the lineage cannot be read
	CodeOutside Code = "PW_RETENTION_OUTSIDE" // a path to remove is a link or resolves outside the repository: nothing is removed
	CodeRemove  Code = "PW_RETENTION_REMOVE"  // a removal failed; what was removed before it is reported
)

// Error is the error type of this package. Messages name snapshots and paths, never data
// values.
type Error struct {
	Code Code
	Path string // the file or directory involved, if any
	Msg  string
	Err  error // the underlying cause, if any
}

func (e *Error) Error() string {
	head := "retention"
	if e.Path != "" {
		head += ": " + e.Path
	}
	return errcode.Text(head, e.Msg, e.Err, string(e.Code))
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// CodeOf returns the code of the first *Error in err's chain, or "".
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }
