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

// The PipeWhy extension 1 type codes (docs/contracts/C2-extensions.md). Only the
// extension profiles (StrictV1Ext1, LogicalV1Ext1) produce or accept them; v1 profiles
// and v1 batches reject them.
const (
	Date        TypeCode = 10 // [days since 1970-01-01, two's complement]
	Time        TypeCode = 11 // [nanoseconds since midnight]
	Duration    TypeCode = 12 // [lo, hi]: 128-bit two's complement nanoseconds
	TimestampNS TypeCode = 13 // TIMESTAMP's layout, word 6 = nanosecond of the second
	Nested      TypeCode = 14 // [type bytes packed, value bytes packed] (graphforge-canonical/1)
)

// maxTypeCode is the largest type code wire version 1 knows; maxExtTypeCode the largest
// extension 1 knows.
const (
	maxTypeCode    = Timestamp
	maxExtTypeCode = Nested
)

var typeCodeNames = [...]string{"MISSING", "NULL", "BOOL", "INT64", "UINT64", "FLOAT64", "TEXT", "BYTES", "DECIMAL", "TIMESTAMP",
	"DATE", "TIME", "DURATION", "TIMESTAMP_NS", "NESTED"}

// String returns the contract's name of c (for example "UINT64", or "DATE" for an
// extension code).
func (c TypeCode) String() string {
	if c <= maxExtTypeCode {
		return typeCodeNames[c]
	}
	return "TypeCode(" + strconv.Itoa(int(c)) + ")"
}

// Valid reports whether c is a wire version 1 type code (0..9).
func (c TypeCode) Valid() bool { return c <= maxTypeCode }

// ValidIn reports whether profile p produces and accepts c: 0..9 under every profile,
// 10..14 under the extension profiles only.
func (c TypeCode) ValidIn(p Profile) bool {
	if p.Extended() {
		return c <= maxExtTypeCode
	}
	return p.Valid() && c <= maxTypeCode
}

// Wire constants of a framed record: [WireVersion, RecordDomain, field_count, ...].
const (
	WireVersion  = 1
	RecordDomain = 2
)
