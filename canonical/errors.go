package canonical

import (
	"strconv"
	"strings"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable error code of graphforge-canonical/1. Codes are only ever appended.
type Code string

// The error codes. The contract names the GF_CANONICAL_* codes, GF_FINGERPRINT_COLLISION
// and (through the vectors vocabulary) GF_UNSUPPORTED_CONTRACT_VERSION. Cases for which
// the contract names no code (decimal precision overflow, fixed-size width mismatch,
// unknown or duplicate metadata keys, unknown domain tags, invalid dictionary indexes,
// malformed offsets) use CodeEncoding, as contracts/graphforge-vectors-json.md says.
const (
	CodeNullability        Code = "GF_CANONICAL_NULLABILITY"        // null in a non-nullable position
	CodeEncoding           Code = "GF_CANONICAL_ENCODING"           // malformed input or a rule with no named code
	CodeArrowType          Code = "GF_CANONICAL_ARROW_TYPE"         // unsupported or unregistered Arrow type
	CodeTemporal           Code = "GF_CANONICAL_TEMPORAL"           // inexact or overflowing temporal conversion
	CodeMapKey             Code = "GF_CANONICAL_MAP_KEY"            // duplicate canonical map key
	CodeUTF8               Code = "GF_CANONICAL_UTF8"               // invalid UTF-8 in text
	CodeLimit              Code = "GF_CANONICAL_LIMIT"              // a v1 limit is exceeded
	CodeCollision          Code = "GF_FINGERPRINT_COLLISION"        // same fingerprint or UUID, different bytes
	CodeUnsupportedVersion Code = "GF_UNSUPPORTED_CONTRACT_VERSION" // canonical contract version other than 1
)

// Sentinel errors, one per code, so that callers can write errors.Is(err, canonical.ErrLimit).
var (
	ErrNullability = &Error{Code: CodeNullability}
	ErrEncoding    = &Error{Code: CodeEncoding}
	ErrArrowType   = &Error{Code: CodeArrowType}
	ErrTemporal    = &Error{Code: CodeTemporal}
	ErrMapKey      = &Error{Code: CodeMapKey}
	ErrUTF8        = &Error{Code: CodeUTF8}
	ErrLimit       = &Error{Code: CodeLimit}
	ErrCollision   = &Error{Code: CodeCollision}
	ErrUnsupported = &Error{Code: CodeUnsupportedVersion}
)

// Error is the error of every canonicalisation step. As the contract requires it carries
// only the stable code, the domain tag, the contract version, a type/path position, and an
// observed size with its limit: never a text, binary or key value, nor payload bytes.
type Error struct {
	Code     Code
	Domain   Domain // empty when no domain is involved yet
	Version  uint32 // canonical contract version; 0 when not known
	Path     string // type/path position, e.g. "field[0].item" or "row 12 field[1]"
	Observed uint64 // observed size or count, with Limit; 0 when not a size error
	Limit    uint64
	Op       string // what was being done, a fixed word such as "schema" or "table"
	Err      error  // an underlying cause (never a value), e.g. an I/O error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("canonical: ")
	b.WriteString(string(e.Code))
	if e.Op != "" {
		b.WriteString(" in ")
		b.WriteString(e.Op)
	}
	if e.Domain != "" {
		b.WriteString(" domain ")
		b.WriteString(string(e.Domain))
	}
	if e.Version != 0 {
		b.WriteString(" version ")
		b.WriteString(strconv.FormatUint(uint64(e.Version), 10))
	}
	if e.Path != "" {
		b.WriteString(" at ")
		b.WriteString(e.Path)
	}
	if e.Limit != 0 || e.Observed != 0 {
		b.WriteString(" (observed ")
		b.WriteString(strconv.FormatUint(e.Observed, 10))
		b.WriteString(", limit ")
		b.WriteString(strconv.FormatUint(e.Limit, 10))
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode: the method every
// PipeWhy error has, for callers that do not know its type).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is reports whether target is the sentinel of e's code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Op == "" && t.Path == "" && t.Err == nil
}

// CodeOf returns the code of the first *Error in err's chain, or "" if there is none.
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }

func errAt(code Code, path string) *Error { return &Error{Code: code, Path: path} }

func limitErr(path string, observed, limit uint64) *Error {
	return &Error{Code: CodeLimit, Path: path, Observed: observed, Limit: limit}
}
