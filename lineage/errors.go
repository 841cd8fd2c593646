package lineage

import (
	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodeInvalid   Code = "PW_LINEAGE_INVALID"   // a declaration breaks a rule (self-copy, a copy with a transform, ...)
	CodeConflict  Code = "PW_LINEAGE_CONFLICT"  // two declarations of one edge disagree on relation or transform
	CodeUnknown   Code = "PW_LINEAGE_UNKNOWN"   // an artifact no scan and no pipewhy.yaml source has
	CodeTransform Code = "PW_LINEAGE_TRANSFORM" // a transform names a file that does not exist
	CodeImport    Code = "PW_LINEAGE_IMPORT"    // an OpenLineage or dbt file is malformed
	CodeUnmapped  Code = "PW_LINEAGE_UNMAPPED"  // an imported dataset name maps to no artifact
	CodeStore     Code = "PW_LINEAGE_STORE"     // the lineage store cannot be read or written
	CodeFormat    Code = "PW_LINEAGE_FORMAT"    // a stored lineage version is not valid
	CodeNotFound  Code = "PW_LINEAGE_NOT_FOUND" // an edge to remove is not declared
)

// Error is the error type of this package. Messages name artifacts, columns, files and
// lines, never data values.
type Error struct {
	Code Code
	Op   string // "declare", "sync", "import", "load", "commit", "remove", "scan"
	Path string // the file involved, if any
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	head := "lineage " + e.Op
	if e.Path != "" {
		head += " " + e.Path
	}
	return errcode.Text(head, e.Msg, e.Err, string(e.Code))
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

// CodeOf returns the code of the first *Error in err's chain, or "".
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }
