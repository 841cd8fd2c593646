package repo

import (
	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodeNotRepo   Code = "PW_REPO_NOT_REPO"   // no repository at or above the directory
	CodeExists    Code = "PW_REPO_EXISTS"     // init on a directory that already holds a repository
	CodeLayout    Code = "PW_REPO_LAYOUT"     // the .pipewhy directory is damaged or of another version
	CodeIO        Code = "PW_REPO_IO"         // a filesystem operation failed
	CodeLog       Code = "PW_REPO_LOG"        // the scan log holds a malformed line
	CodeUnknownID Code = "PW_REPO_UNKNOWN_ID" // no snapshot matches the id or prefix
	CodeAmbiguous Code = "PW_REPO_AMBIGUOUS"  // a prefix matches more than one snapshot
	CodeFormat    Code = "PW_REPO_FORMAT"     // a snapshot is not a valid scan snapshot (docs/scan-format.md)
	CodeBusy      Code = "PW_REPO_BUSY"       // TryLock: another writer holds the repository lock
)

// Error is the error type of this package. Messages never contain data values.
type Error struct {
	Code Code
	Op   string // "init", "find", "log", "resolve", "load", "encode"
	Path string // file or directory involved, if any
	Msg  string // what is wrong
	Err  error  // underlying cause, if any
}

func (e *Error) Error() string {
	head := "repo " + e.Op
	if e.Path != "" {
		head += " " + e.Path
	}
	return errcode.Text(head, e.Msg, e.Err, string(e.Code))
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode: the method every
// PipeWhy error has, for callers that do not know its type).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, &repo.Error{Code: repo.CodeNotRepo}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinel categories, matched with errors.Is.
var (
	ErrNotRepo   = &Error{Code: CodeNotRepo}
	ErrUnknownID = &Error{Code: CodeUnknownID}
	ErrAmbiguous = &Error{Code: CodeAmbiguous}
	ErrFormat    = &Error{Code: CodeFormat}
)

// CodeOf returns the code of the first *Error in err's chain, or "".
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }
