package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/pipewhy/pipewhy/normalize"
)

// ValueType is the C2 value family a schema field declares. It names what determines the
// words (C2 type codes), never a physical source width: an int4 database column and a
// Parquet int64 column are both TypeInt, because C2 encodes every integer as INT64 (negative)
// or UINT64 (nonnegative) regardless of width.
type ValueType string

// The schema value types and the C2 type codes each admits. Every type also admits
// MISSING and NULL, since absence and null are values of any field (C2 PW-03.02).
//
// The last four (and TIMESTAMP_NS under TypeTimestamp) are the PipeWhy extension 1 types
// (docs/contracts/C2-extensions.md): a schema that uses them needs an extension profile
// (NewContext refuses it otherwise), and only extension profiles produce their codes.
const (
	TypeBool      ValueType = "bool"      // BOOL
	TypeInt       ValueType = "int"       // INT64, UINT64
	TypeFloat64   ValueType = "float64"   // FLOAT64
	TypeText      ValueType = "text"      // TEXT
	TypeBytes     ValueType = "bytes"     // BYTES
	TypeDecimal   ValueType = "decimal"   // DECIMAL
	TypeTimestamp ValueType = "timestamp" // TIMESTAMP, and TIMESTAMP_NS (extension profiles only)
	TypeAny       ValueType = "any"       // every C2 type code (heterogeneous sources such as JSON)
	TypeDate      ValueType = "date"      // DATE (extension)
	TypeTime      ValueType = "time"      // TIME (extension)
	TypeDuration  ValueType = "duration"  // DURATION (extension)
	TypeNested    ValueType = "nested"    // NESTED (extension)
)

const absentTags = 1<<normalize.Missing | 1<<normalize.Null

// tags returns the bit set of C2 type codes t admits, 0 for an unknown type.
//
// A timestamp column of any Arrow unit is TypeTimestamp: under an extension profile a
// timestamp(ns) value is TIMESTAMP when its sub-microsecond part is zero and
// TIMESTAMP_NS otherwise, chosen per value like INT64/UINT64, so one type admits both.
// The unit is schema metadata (C2 PW-03.04) and does not change the schema identity.
func (t ValueType) tags() uint16 {
	switch t {
	case TypeBool:
		return absentTags | 1<<normalize.Bool
	case TypeInt:
		return absentTags | 1<<normalize.Int64 | 1<<normalize.Uint64
	case TypeFloat64:
		return absentTags | 1<<normalize.Float64
	case TypeText:
		return absentTags | 1<<normalize.Text
	case TypeBytes:
		return absentTags | 1<<normalize.Bytes
	case TypeDecimal:
		return absentTags | 1<<normalize.Decimal
	case TypeTimestamp:
		return absentTags | 1<<normalize.Timestamp | 1<<normalize.TimestampNS
	case TypeAny:
		return 1<<(normalize.Nested+1) - 1
	case TypeDate:
		return absentTags | 1<<normalize.Date
	case TypeTime:
		return absentTags | 1<<normalize.Time
	case TypeDuration:
		return absentTags | 1<<normalize.Duration
	case TypeNested:
		return absentTags | 1<<normalize.Nested
	}
	return 0
}

// Extended reports whether t is one of the extension 1 types (TypeDate, TypeTime,
// TypeDuration, TypeNested), which only an extension profile can encode.
func (t ValueType) Extended() bool {
	switch t {
	case TypeDate, TypeTime, TypeDuration, TypeNested:
		return true
	}
	return false
}

// RenamePolicy is the recorded source schema policy for renames (C2 PW-03.10).
type RenamePolicy string

const (
	// RenameKeepsIdentity: fields are identified by their stable ids only; names do not
	// participate in the schema identity, so a rename keeps it.
	RenameKeepsIdentity RenamePolicy = "keep-identity"
	// RenameChangesIdentity: field names participate in the schema identity, so a rename
	// changes it.
	RenameChangesIdentity RenamePolicy = "change-identity"
)

// SchemaField is one field of a schema descriptor.
type SchemaField struct {
	ID   uint64    // stable C2 field id; never UINT64_MAX
	Name string    // field name; part of the identity only under RenameChangesIdentity
	Type ValueType // C2 value family; part of the identity
	// Source is the physical source type ("parquet:int64", "postgres:int4", ...). It is
	// recorded beside the identity and never participates in it, so equal logical data
	// read from different physical types fingerprints equal.
	Source string
}

// SchemaDescriptor is the part of a source schema that determines C2 words, and therefore
// fingerprints: field ids, their C2 value types and the rename policy. Field order in
// Fields does not matter; ids must be unique.
type SchemaDescriptor struct {
	Fields       []SchemaField
	RenamePolicy RenamePolicy
}

// SchemaIDPrefix begins every schema identity string.
const SchemaIDPrefix = "pipewhy.schema/sha256:"

// Descriptor returns the exact bytes whose SHA-256 is the schema identity: compact,
// key-sorted JSON,
//
//	{"domain":"pipewhy.fingerprint.schema","fields":[F,...],"rename_policy":"<policy>","version":1}
//
// with F = {"id":"<decimal>","type":"<type>"} (or {"id":..,"name":"<name>","type":..}
// under RenameChangesIdentity), fields in ascending id order. Names are valid UTF-8 and
// escaped as Python's json.dumps(ensure_ascii=False) does: \" \\ \b \f \n \r \t, other
// controls below U+0020 as \u00xx (lowercase hex), everything else raw.
func (s SchemaDescriptor) Descriptor() ([]byte, error) {
	fields, err := s.sorted()
	if err != nil {
		return nil, err
	}
	names := s.RenamePolicy == RenameChangesIdentity
	b := []byte(`{"domain":"pipewhy.fingerprint.schema","fields":[`)
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":"`...)
		b = append(b, uitoa(f.ID)...)
		b = append(b, '"')
		if names {
			b = append(b, `,"name":`...)
			b = appendJSONString(b, f.Name)
		}
		b = append(b, `,"type":"`...)
		b = append(b, f.Type...)
		b = append(b, `"}`...)
	}
	b = append(b, `],"rename_policy":"`...)
	b = append(b, s.RenamePolicy...)
	b = append(b, `","version":1}`...)
	return b, nil
}

// ID returns the schema identity, SchemaIDPrefix followed by the lowercase hex SHA-256
// of Descriptor.
func (s SchemaDescriptor) ID() (string, error) {
	d, err := s.Descriptor()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(d)
	return SchemaIDPrefix + hex.EncodeToString(sum[:]), nil
}

// Validate checks the descriptor: a known rename policy, known value types, unique field
// ids other than UINT64_MAX, and valid UTF-8 names where names participate.
func (s SchemaDescriptor) Validate() error {
	_, err := s.sorted()
	return err
}

// sorted validates s and returns a copy of its fields in ascending id order.
func (s SchemaDescriptor) sorted() ([]SchemaField, error) {
	if s.RenamePolicy != RenameKeepsIdentity && s.RenamePolicy != RenameChangesIdentity {
		return nil, newErr("schema", CodeSchema, "unknown rename policy")
	}
	fields := slices.Clone(s.Fields)
	slices.SortFunc(fields, func(a, b SchemaField) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	for i, f := range fields {
		if f.ID == math.MaxUint64 {
			return nil, newErr("schema", CodeSchema, "field id UINT64_MAX is reserved")
		}
		if i > 0 && fields[i-1].ID == f.ID {
			return nil, newErr("schema", CodeSchema, "duplicate field id "+uitoa(f.ID))
		}
		if f.Type.tags() == 0 {
			return nil, newErr("schema", CodeSchema, "field "+uitoa(f.ID)+" has an unknown value type")
		}
		if s.RenamePolicy == RenameChangesIdentity && !utf8.ValidString(f.Name) {
			return nil, newErr("schema", CodeSchema, "field "+uitoa(f.ID)+" name is not valid UTF-8")
		}
	}
	return fields, nil
}

// appendJSONString appends s (valid UTF-8) as a JSON string with minimal escaping.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

// fieldTable answers, for a field id, its index in the sorted schema and the C2 type codes
// it admits. Dense ids use a direct table, sparse ones binary search; neither allocates.
type fieldTable struct {
	ids   []uint64 // ascending
	tags  []uint16 // per index
	dense []int32  // id -> index+1 (0 = absent) when every id < len(dense)
}

const maxDenseID = 1 << 16

func newFieldTable(fields []SchemaField) *fieldTable {
	t := &fieldTable{ids: make([]uint64, len(fields)), tags: make([]uint16, len(fields))}
	for i, f := range fields {
		t.ids[i] = f.ID
		t.tags[i] = f.Type.tags()
	}
	if n := len(fields); n > 0 && fields[n-1].ID < maxDenseID {
		t.dense = make([]int32, fields[n-1].ID+1)
		for i, f := range fields {
			t.dense[f.ID] = int32(i + 1)
		}
	}
	return t
}

// index returns the schema index of id, or -1. The dense case inlines.
func (t *fieldTable) index(id uint64) int {
	if t.dense != nil {
		if id < uint64(len(t.dense)) {
			return int(t.dense[id]) - 1
		}
		return -1
	}
	return t.search(id)
}

func (t *fieldTable) search(id uint64) int {
	i, ok := slices.BinarySearch(t.ids, id)
	if !ok {
		return -1
	}
	return i
}
