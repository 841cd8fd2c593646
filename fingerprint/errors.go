package fingerprint

import (
	"fmt"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable error code. Codes are part of the public contract: they are only
// ever appended, never renamed or reused.
type Code string

// The package's error codes.
const (
	CodeAlgorithm        Code = "PW_FP_ALGORITHM"         // unknown algorithm name or identity
	CodeAlgorithmVersion Code = "PW_FP_ALGORITHM_VERSION" // known algorithm, version this build does not implement
	CodeContext          Code = "PW_FP_CONTEXT"           // invalid context input (profile identity, mode, zero context)
	CodeSchema           Code = "PW_FP_SCHEMA"            // invalid schema descriptor
	CodeForeignContext   Code = "PW_FP_FOREIGN_CONTEXT"   // states, words or batches of another context mixed in
	CodeState            Code = "PW_FP_STATE"             // malformed state words
	CodeStateVersion     Code = "PW_FP_STATE_VERSION"     // state words of an unknown format version
	CodeLaneCount        Code = "PW_FP_LANE_COUNT"        // lane count differs from the algorithm's
	CodeUnderflow        Code = "PW_FP_UNDERFLOW"         // subtracting more records than a state holds
	CodeRecord           Code = "PW_FP_RECORD"            // a record or batch fails C2 validation (wraps the normalize error)
	CodeSchemaMismatch   Code = "PW_FP_SCHEMA_MISMATCH"   // a record field absent from the schema, or of a type the schema forbids
	CodeKeyField         Code = "PW_FP_KEY_FIELD"         // bad key field list, or a record lacking a key field
	CodeOptions          Code = "PW_FP_OPTIONS"           // invalid engine options
	CodeInput            Code = "PW_FP_INPUT"             // the batch source reported an error
	CodeCanceled         Code = "PW_FP_CANCELED"          // the run's context was canceled
	CodePosition         Code = "PW_FP_POSITION"          // ordered-mode record positions overflow uint64
	CodeObservation      Code = "PW_FP_OBSERVATION"       // an observation row that cannot hold or yield a state
	CodeCountOverflow    Code = "PW_FP_COUNT_OVERFLOW"    // a record count would exceed 2**64-1
)

// Error is the error returned by every function of this package. Use errors.As to
// reach it, or CodeOf to read just the code. Messages never contain data values.
type Error struct {
	Code   Code   // stable code
	Op     string // what was being done: "context", "schema", "state", "run", ...
	Batch  int    // batch index within a run; -1 when not applicable
	Record int    // record index within the batch; -1 when not applicable
	Msg    string // human-readable detail, free of data values
	Err    error  // underlying cause, if any
}

func (e *Error) Error() string {
	s := "fingerprint: " + e.Op + ": " + string(e.Code)
	if e.Batch >= 0 {
		s += fmt.Sprintf(" batch %d", e.Batch)
	}
	if e.Record >= 0 {
		s += fmt.Sprintf(" record %d", e.Record)
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode: the method every
// PipeWhy error has, for callers that do not know its type).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is reports whether target is an *Error with the same Code and no other detail, so that
// errors.Is(err, &fingerprint.Error{Code: fingerprint.CodeUnderflow}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Op == "" && t.Msg == "" && t.Err == nil
}

// CodeOf returns the stable code of err, or "" when err carries none of this package.
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }

func newErr(op string, code Code, msg string) *Error {
	return &Error{Code: code, Op: op, Batch: -1, Record: -1, Msg: msg}
}

func wrapErr(op string, code Code, msg string, err error) *Error {
	e := newErr(op, code, msg)
	e.Err = err
	return e
}
