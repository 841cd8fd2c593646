package normalize

import (
	"fmt"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable error code. Codes are part of the public contract: they are only
// ever appended, never renamed or reused.
type Code string

// Normalization (encoder and typed-input) codes, as fixed by the typed-values contract.
const (
	CodeIntRange    Code = "PW_NORM_INT_RANGE"   // integer below -2**63 or above 2**64-1
	CodeUTF8        Code = "PW_NORM_UTF8"        // text that is not strict UTF-8 of Unicode scalar values
	CodeDecimal     Code = "PW_NORM_DECIMAL"     // malformed or unrepresentable decimal
	CodeTimezone    Code = "PW_NORM_TIMEZONE"    // custom tzinfo, unknown zone key, invalid timezone evidence
	CodeOverflow    Code = "PW_NORM_OVERFLOW"    // timestamp conversion out of range
	CodePrecision   Code = "PW_NORM_PRECISION"   // sub-microsecond timestamp input
	CodeUnsupported Code = "PW_NORM_UNSUPPORTED" // a type outside the supported set
	CodeFieldID     Code = "PW_NORM_FIELD_ID"    // duplicate, negative, UINT64_MAX or larger field id
	CodeInput       Code = "PW_NORM_INPUT"       // malformed typed input (JSON shape, hex, calendar)
	CodeProfile     Code = "PW_NORM_PROFILE"     // unknown profile name (PipeWhy addition)
)

// Flat-batch validation codes (PW-09.13). PipeWhy's own; the seed names none.
const (
	CodeBatchShape   Code = "PW_BATCH_SHAPE"    // offsets and lengths differ in count
	CodeBatchBounds  Code = "PW_BATCH_BOUNDS"   // a record slice overflows or leaves the word pool
	CodeBatchHeader  Code = "PW_BATCH_HEADER"   // record shorter than 3 words, or wire version/domain wrong
	CodeBatchFieldID Code = "PW_BATCH_FIELD_ID" // field ids not strictly increasing, or UINT64_MAX
	CodeBatchTag     Code = "PW_BATCH_TAG"      // type code outside 0..9
	CodeBatchFrame   Code = "PW_BATCH_FRAME"    // field count/payload lengths do not frame the record exactly
	CodeBatchPayload Code = "PW_BATCH_PAYLOAD"  // payload word count inconsistent with the type's layout
	CodeBatchProfile Code = "PW_BATCH_PROFILE"  // Append under a profile other than the batch's ProfileID
)

// Error is the error returned by every function of this package. Use errors.As to
// reach it, or CodeOf to read just the code. Messages never contain user data values.
type Error struct {
	Code   Code   // stable code
	Op     string // what was being done: "encode", "parse", "validate", "profile"
	Record int    // record index within a batch; -1 when not applicable
	Word   int    // word offset (within the batch pool, or the record); -1 when not applicable
	Msg    string // human-readable detail, free of user data values
	Err    error  // underlying cause, if any
}

func (e *Error) Error() string {
	s := "normalize: " + e.Op + ": " + string(e.Code)
	if e.Record >= 0 {
		s += fmt.Sprintf(" record %d", e.Record)
	}
	if e.Word >= 0 {
		s += fmt.Sprintf(" word %d", e.Word)
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

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, &normalize.Error{Code: normalize.CodeUTF8}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Op == "" && t.Msg == ""
}

// CodeOf returns the stable code of err, or "" when err carries none.
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }

func newErr(op string, code Code, msg string) *Error {
	return &Error{Code: code, Op: op, Record: -1, Word: -1, Msg: msg}
}

func encErr(code Code, msg string) *Error { return newErr("encode", code, msg) }
