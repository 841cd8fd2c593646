package source

import (
	"fmt"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable error and failure code. Codes are only ever appended; a
// published code never changes its meaning.
type Code string

// Stable codes. They appear in errors, in coverage failures and in the
// failure-reason strings recorded in snapshots.
const (
	CodeAddress     Code = "PW_SOURCE_ADDRESS"     // the address cannot be parsed or names no adapter
	CodeIO          Code = "PW_SOURCE_IO"          // the operating system or engine failed to read
	CodeCSVRow      Code = "PW_SOURCE_CSV_ROW"     // a CSV record is malformed (quotes, field count)
	CodeType        Code = "PW_SOURCE_TYPE"        // a value does not parse as, or is not stored as, the column type
	CodeUTF8        Code = "PW_SOURCE_UTF8"        // text is not valid UTF-8
	CodeUnsupported Code = "PW_SOURCE_UNSUPPORTED" // a type or construct the adapter does not support
	CodeSchema      Code = "PW_SOURCE_SCHEMA"      // a schema option or header is invalid
	CodeJSONLine    Code = "PW_SOURCE_JSON_LINE"   // a JSON line is not a flat JSON object
	CodeMissing     Code = "PW_SOURCE_MISSING"     // a record lacks a column the schema requires
	CodeExtra       Code = "PW_SOURCE_EXTRA"       // a record has a column the schema does not know
	CodeDuplicate   Code = "PW_SOURCE_DUPLICATE"   // a record or header names one column twice
	CodeLimit       Code = "PW_SOURCE_LIMIT"       // an explicit size limit was exceeded
	CodeCorrupt     Code = "PW_SOURCE_CORRUPT"     // the file structure is damaged (truncated, bad metadata)
	CodeNotFound    Code = "PW_SOURCE_NOT_FOUND"   // the file, table or column does not exist
	CodeChanged     Code = "PW_SOURCE_CHANGED"     // the source changed while it was read
	CodeIncomplete  Code = "PW_SOURCE_INCOMPLETE"  // reading stopped before the end of the source
	CodeCount       Code = "PW_SOURCE_COUNT"       // the engine's expected count and the rows read disagree
	CodeRegistry    Code = "PW_SOURCE_REGISTRY"    // the schema registry file or request is invalid
	CodeOption      Code = "PW_SOURCE_OPTION"      // an option is invalid for this adapter
	CodeAuth        Code = "PW_SOURCE_AUTH"        // a server refused the credentials or the privilege to read
)

// Sentinel categories, matched with errors.Is against an *Error.
var (
	ErrAddress     = &Error{Code: CodeAddress}
	ErrIO          = &Error{Code: CodeIO}
	ErrType        = &Error{Code: CodeType}
	ErrUnsupported = &Error{Code: CodeUnsupported}
	ErrSchema      = &Error{Code: CodeSchema}
	ErrCorrupt     = &Error{Code: CodeCorrupt}
	ErrNotFound    = &Error{Code: CodeNotFound}
	ErrRegistry    = &Error{Code: CodeRegistry}
	ErrOption      = &Error{Code: CodeOption}
	ErrLimit       = &Error{Code: CodeLimit}
	ErrAuth        = &Error{Code: CodeAuth}
)

// Error is the error type of this package. Messages name columns, lines and
// files but never contain cell values: source data may be confidential.
type Error struct {
	Code   Code
	Op     string // the operation, e.g. "csv open", "sqlite next"
	Source string // the address or path, when known
	Msg    string // what went wrong, without user data values
	Err    error  // the cause, if any
}

func (e *Error) Error() string {
	msg := string(e.Code)
	if e.Op != "" {
		msg += ": " + e.Op
	}
	if e.Source != "" {
		msg += " " + e.Source
	}
	if e.Msg != "" {
		msg += ": " + e.Msg
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode: the method every
// PipeWhy error has, for callers that do not know its type).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is reports whether target is an *Error with the same code; it lets the
// sentinel values above match any error of their category.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Op == "" && t.Msg == "" && t.Err == nil && t.Source == ""
}

func errorf(code Code, op, src string, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Source: src, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// CodeOf returns the code of the first *Error in err's chain, or "" if none.
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }
