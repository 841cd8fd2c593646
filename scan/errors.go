package scan

import (
	"fmt"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes of this package.
const (
	CodeOptions      Code = "PW_SCAN_OPTIONS"       // invalid scan options (resolution, profile, name)
	CodeSource       Code = "PW_SCAN_SOURCE"        // the source could not be opened or read to its end
	CodeKey          Code = "PW_SCAN_KEY"           // a --key column that the source does not have
	CodeDuplicateKey Code = "PW_SCAN_DUPLICATE_KEY" // two or more records share a key
	CodeCoverage     Code = "PW_SCAN_COVERAGE"      // records failed to read and partial scans were not allowed
	CodeEncode       Code = "PW_SCAN_ENCODE"        // a value could not be normalized (C2)
	CodeFingerprint  Code = "PW_SCAN_FINGERPRINT"   // the fingerprint engine failed (C3)
	CodeRegistry     Code = "PW_SCAN_REGISTRY"      // the schema registry could not be read or written
	CodePublish      Code = "PW_SCAN_PUBLISH"       // the snapshot could not be published (C5)
	CodeInternal     Code = "PW_SCAN_INTERNAL"      // an internal cross-check failed (a bug)
	CodeProfile      Code = "PW_SCAN_PROFILE"       // a column type the C2 profile cannot represent (use an +ext1 profile or exclude it)
	CodeLineage      Code = "PW_SCAN_LINEAGE"       // the lineage in force could not be read (the lineage store is damaged)
	CodeAlgorithm    Code = "PW_SCAN_ALGORITHM"     // the scan asked for a fingerprint algorithm other than its repository's
	CodeSpill        Code = "PW_SCAN_SPILL"         // a sorted run could not be written to, or read back from, the snapshot's staging attempt
)

// Error is the error type of this package. Messages name files, columns and rows,
// never cell values.
type Error struct {
	Code Code
	Op   string // "options", "open", "read", "encode", "fingerprint", "publish"
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	return errcode.Text("scan "+e.Op, e.Msg, e.Err, string(e.Code))
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

// CodeOf returns the code of the first error of this package (*Error or
// *DuplicateKeyError) in err's chain, or "".
func CodeOf(err error) Code { return errcode.As[coded, Code](err) }

// coded is what this package's two error types have in common; only they implement its
// unexported method.
type coded interface {
	error
	ErrorCode() string
	scanError()
}

func (*Error) scanError()             {}
func (*DuplicateKeyError) scanError() {}

// DuplicateKeyError reports records that share a key (CodeDuplicateKey). Examples
// holds up to ten rendered keys: the caller decides whether to show them (they are
// data values; the Error text does not contain them).
type DuplicateKeyError struct {
	Keys     int      // distinct keys that occur more than once
	Records  int      // records carrying such keys
	Examples []string // rendered keys, e.g. `order_id=5`
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("scan keys: %d key values occur more than once (%d records) [%s]", e.Keys, e.Records, CodeDuplicateKey)
}

// ErrorCode returns CodeDuplicateKey (internal/errcode).
func (e *DuplicateKeyError) ErrorCode() string { return string(CodeDuplicateKey) }

// Is matches &Error{Code: CodeDuplicateKey}.
func (e *DuplicateKeyError) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == CodeDuplicateKey
}
