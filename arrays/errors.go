package arrays

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

// Code is a stable, machine-readable error code. Codes are only ever appended;
// an existing code never changes its meaning or its string.
type Code string

// Buffer borrowing and descriptor codes (PW-02.01, PW-02.11 to PW-02.13).
const (
	CodeDType            Code = "dtype"           // unknown or unsupported dtype name/value
	CodeNotInteger       Code = "not_integer"     // floating point, string, bool or other non-integer input
	CodeNotFixedWidth    Code = "not_fixed_width" // Go int/uint/uintptr: no fixed wire width
	CodeNotOneDim        Code = "not_one_dimensional"
	CodeNotContiguous    Code = "not_contiguous"    // strides other than C-contiguous
	CodeForeignEndian    Code = "foreign_endian"    // big-endian buffer on a little-endian interface
	CodeBigEndianHost    Code = "big_endian_host"   // host is not a qualified little-endian host
	CodeLengthMisaligned Code = "length_misaligned" // byte length is not a multiple of the dtype size
	CodeDevice           Code = "device"            // non-CPU buffer passed to the CPU borrowing constructor
	CodeLogicalID        Code = "logical_id"        // logical id equal to the sentinel
	CodeReleased         Code = "released"          // access after Release
	CodeIndex            Code = "index"             // element index outside [0, Len)
	CodeReadOnly         Code = "read_only"         // write through a read-only view
)

// Checked arithmetic codes (PW-02.01).
const (
	CodeOverflow Code = "overflow"     // a count, offset or length would wrap
	CodeRange    Code = "out_of_range" // a value does not fit the requested integer type
)

// Validity bitmap codes (PW-02.01, PW-02.06).
const (
	CodeBitmapLength Code = "bitmap_length" // word count is not ceil(rows/64)
	CodeBitmapTail   Code = "bitmap_tail"   // unused high bits of the final word are not zero
)

// Table rule codes (PW-02.05 to PW-02.09).
const (
	CodeColumnLength     Code = "column_length"     // row columns of unequal length
	CodeSentinelID       Code = "sentinel_id"       // a row id column holds UINT64_MAX
	CodeDuplicateID      Code = "duplicate_id"      // a row id occurs twice
	CodeAbsentReference  Code = "absent_reference"  // UINT64_MAX where a reference is required
	CodeUnresolved       Code = "unresolved"        // a reference is not in its table or context
	CodeMissingContext   Code = "missing_context"   // a required reference context was not supplied
	CodeSelfParent       Code = "self_parent"       // artifact is its own parent
	CodeCycle            Code = "containment_cycle" // artifact containment cycle
	CodeSliceOffset      Code = "slice_offset"      // offset > word count
	CodeSliceLength      Code = "slice_length"      // length > word count - offset
	CodeNullPayload      Code = "null_payload"      // null row with nonzero payload length
	CodeStatus           Code = "status"            // unknown observation status code
	CodeFingerprintWords Code = "fingerprint_words" // status and fingerprint length disagree
	CodeTimestamp        Code = "timestamp"         // observed_at_ns >= 2**63 (negative as int64)
	CodeRelation         Code = "relation"          // unknown lineage relation code
	CodeTransform        Code = "transform"         // relation and transform_id disagree
	CodeIncidentArtifact Code = "incident_artifact" // incident observation refers to another artifact
	CodeNilTable         Code = "nil_table"         // a required table is nil
)

// Schema codes (PW-02.10).
const (
	CodeSchemaVersion Code = "schema_version" // version is not exactly SchemaVersion
	CodeTableKind     Code = "table_kind"     // unknown table name
	CodeUnknownColumn Code = "unknown_column"
	CodeMissingColumn Code = "missing_column"
	CodeColumnDType   Code = "column_dtype" // column present with the wrong dtype
)

// Category sentinels. Every *Error matches exactly one of them with errors.Is.
var (
	// ErrBuffer: an input buffer was rejected by the borrowing interface.
	ErrBuffer = errors.New("arrays: buffer rejected")
	// ErrReleased: a buffer operation on a released view.
	ErrReleased = errors.New("arrays: view released")
	// ErrRange: checked arithmetic or an index bound failed.
	ErrRange = errors.New("arrays: out of range")
	// ErrSchema: a schema version, table name, column name or column dtype mismatch.
	ErrSchema = errors.New("arrays: schema mismatch")
	// ErrInvalid: a table or bitmap breaks a C1 rule.
	ErrInvalid = errors.New("arrays: invalid table")
)

// Error is the error type of this package. It never carries data values:
// only the table, column and row that break a rule, and the rule's code.
type Error struct {
	Code   Code
	Op     string // "borrow", "access", "validate", "decode", "encode", ...
	Table  string // "artifact", "value", "observation", "lineage_edge", "incident"; "" if none
	Column string // column name; "" if none
	Row    int    // row (or element) index; -1 if the error is not about one row
	Err    error  // optional cause
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("arrays: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Table != "" || e.Column != "" {
		b.WriteString(e.Table)
		if e.Column != "" {
			if e.Table != "" {
				b.WriteByte('.')
			}
			b.WriteString(e.Column)
		}
		if e.Row >= 0 {
			b.WriteString(" row ")
			b.WriteString(strconv.Itoa(e.Row))
		}
		b.WriteString(": ")
	} else if e.Row >= 0 {
		b.WriteString("index ")
		b.WriteString(strconv.Itoa(e.Row))
		b.WriteString(": ")
	}
	b.WriteString(string(e.Code))
	if d := describe[e.Code]; d != "" {
		b.WriteString(" (")
		b.WriteString(d)
		b.WriteByte(')')
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

// Is reports whether target is the category sentinel of e's code.
func (e *Error) Is(target error) bool {
	return target == category(e.Code)
}

// CodeOf returns the code of the first *Error in err's chain, or "" if none.
func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }

func category(c Code) error {
	switch c {
	case CodeReleased:
		return ErrReleased
	case CodeOverflow, CodeRange, CodeIndex:
		return ErrRange
	case CodeSchemaVersion, CodeTableKind, CodeUnknownColumn, CodeMissingColumn, CodeColumnDType:
		return ErrSchema
	case CodeDType, CodeNotInteger, CodeNotFixedWidth, CodeNotOneDim, CodeNotContiguous,
		CodeForeignEndian, CodeBigEndianHost, CodeLengthMisaligned, CodeDevice, CodeLogicalID, CodeReadOnly:
		return ErrBuffer
	default:
		return ErrInvalid
	}
}

var describe = map[Code]string{
	CodeDType:            "unknown integer dtype",
	CodeNotInteger:       "only integer element types can be borrowed",
	CodeNotFixedWidth:    "platform-width integers have no fixed dtype",
	CodeNotOneDim:        "shape must be one-dimensional",
	CodeNotContiguous:    "buffer must be C-contiguous",
	CodeForeignEndian:    "only little-endian buffers can be borrowed",
	CodeBigEndianHost:    "host is not little-endian",
	CodeLengthMisaligned: "byte length is not a multiple of the dtype size",
	CodeDevice:           "only cpu buffers can be borrowed here",
	CodeLogicalID:        "logical id must not be UINT64_MAX",
	CodeReleased:         "view was released",
	CodeIndex:            "index out of range",
	CodeReadOnly:         "view is read-only",
	CodeOverflow:         "integer overflow",
	CodeRange:            "value does not fit the target type",
	CodeBitmapLength:     "bitmap must have ceil(rows/64) words",
	CodeBitmapTail:       "unused bits of the final bitmap word must be zero",
	CodeColumnLength:     "row columns must have equal length",
	CodeSentinelID:       "id must not be UINT64_MAX",
	CodeDuplicateID:      "id is not unique",
	CodeAbsentReference:  "reference must not be UINT64_MAX",
	CodeUnresolved:       "reference does not resolve",
	CodeMissingContext:   "reference context not supplied",
	CodeSelfParent:       "artifact is its own parent",
	CodeCycle:            "artifact containment cycle",
	CodeSliceOffset:      "offset exceeds word count",
	CodeSliceLength:      "length exceeds word count minus offset",
	CodeNullPayload:      "null row must have zero payload length",
	CodeStatus:           "unknown status code",
	CodeFingerprintWords: "CAPTURED needs at least one fingerprint word, UNKNOWN and ERROR none",
	CodeTimestamp:        "observed_at_ns must be below 2**63",
	CodeRelation:         "unknown relation code",
	CodeTransform:        "COPY needs the sentinel transform_id, TRANSFORM a valid one",
	CodeIncidentArtifact: "observation refers to a different artifact",
	CodeNilTable:         "table is nil",
	CodeSchemaVersion:    "schema version must match exactly",
	CodeTableKind:        "unknown table",
	CodeUnknownColumn:    "unknown column",
	CodeMissingColumn:    "missing column",
	CodeColumnDType:      "wrong column dtype",
}

func rowErr(op, table, column string, row int, code Code) *Error {
	return &Error{Code: code, Op: op, Table: table, Column: column, Row: row}
}
