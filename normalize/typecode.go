package normalize

import "strconv"

// TypeCode is the C2 wire-version-1 type tag of a scalar (PW-03.03).
type TypeCode uint8

// The C2 v1 type codes. Their numeric values are part of the wire format and never change.
const (
	Missing   TypeCode = 0
	Null      TypeCode = 1
	Bool      TypeCode = 2
	Int64     TypeCode = 3
	Uint64    TypeCode = 4
	Float64   TypeCode = 5
	Text      TypeCode = 6
	Bytes     TypeCode = 7
	Decimal   TypeCode = 8
	Timestamp TypeCode = 9
)

// maxTypeCode is the largest type code wire version 1 knows.
const maxTypeCode = Timestamp

var typeCodeNames = [...]string{"MISSING", "NULL", "BOOL", "INT64", "UINT64", "FLOAT64", "TEXT", "BYTES", "DECIMAL", "TIMESTAMP"}

// String returns the contract's name of c (for example "UINT64").
func (c TypeCode) String() string {
	if c <= maxTypeCode {
		return typeCodeNames[c]
	}
	return "TypeCode(" + strconv.Itoa(int(c)) + ")"
}

// Valid reports whether c is a wire version 1 type code.
func (c TypeCode) Valid() bool { return c <= maxTypeCode }

// Wire constants of a framed record: [WireVersion, RecordDomain, field_count, ...].
const (
	WireVersion  = 1
	RecordDomain = 2
)
