package source

import (
	"fmt"
	"strings"
)

// families maps the head of a TypeName spelling (the text before its first '(' or '<')
// to the family of the values its columns hold.
var families = map[string]string{
	"bool": "bool",
	"int8": "int", "int16": "int", "int32": "int", "int64": "int",
	"uint8": "int", "uint16": "int", "uint32": "int", "uint64": "int",
	"float32": "float64", "float64": "float64",
	"utf8": "text", "large_utf8": "text",
	"binary": "bytes", "large_binary": "bytes",
	"decimal128": "decimal", "decimal256": "decimal", "decimal_text": "decimal",
	"timestamp": "timestamp",
	"date32":    "date", "date64": "date",
	"time32": "time", "time64": "time",
	"duration": "duration",
	"list":     "nested", "large_list": "nested", "fixed_size_list": "nested", "struct": "nested", "map": "nested",
}

// ValueFamily returns the family of the values a column of the type spelled name
// (TypeName's spelling) holds, named as its C3 value type (fingerprint.ValueType): bool,
// int, float64, text, bytes, decimal, timestamp, date, time, duration or nested. Values of
// one family are compared as C2 words, whatever the spelling that stored them (int32 and
// int64; decimal128(10,2), decimal256(40,2) and decimal_text; utf8 and large_utf8), so a
// change of spelling within a family is physical and a change of family retypes the
// column (TypeChange). ok is false for a spelling TypeName never starts with.
func ValueFamily(name string) (family string, ok bool) {
	head := name
	if i := strings.IndexAny(name, "(<"); i >= 0 {
		head = name[:i]
	}
	family, ok = families[head]
	return family, ok
}

// FieldType is what a schema records of a column's type: the family of its values and
// how the source stores them.
type FieldType struct {
	Family   string // ValueFamily of Arrow: the C3 value type
	Arrow    string // the Arrow type in TypeName's spelling
	Source   string // MetaSourceType; "" where it is not recorded (the registry)
	Width    uint64 // MetaSourceWidth, else the Arrow type's bit width, else 0
	Nullable bool
}

// String is the family followed by how the values are stored, as schema changes show a
// type: "int (arrow int64, source INT64/None, nullable)".
func (t FieldType) String() string {
	return fmt.Sprintf("%s (arrow %s, source %s, %s)", t.Family, t.Arrow, t.Source, nullability(t.Nullable))
}

// TypeChange is the one rule for what a change of a column's type is, shared by the
// registry (scan's schema changes) and package compare (diff's schema changes and
// physical notes): ChangeRetyped when the families differ (the values compare
// differently), ChangePhysical when only how they are stored differs (Arrow type, source
// spelling, width, nullability: information, never a difference of the data), "" when
// nothing differs.
func TypeChange(a, b FieldType) ChangeKind {
	switch {
	case a.Family != b.Family:
		return ChangeRetyped
	case a != b:
		return ChangePhysical
	}
	return ""
}

// Differences names what differs from a to b, one "what old → new" phrase each, in the
// order arrow, source, width, nullability: "arrow large_utf8 → utf8", "source INT64/None
// → INT64/Int(bitWidth=64, isSigned=true)", "width 32 → 64", "nullable → not null".
func (a FieldType) Differences(b FieldType) []string {
	var out []string
	if a.Arrow != b.Arrow {
		out = append(out, "arrow "+a.Arrow+" → "+b.Arrow)
	}
	if a.Source != b.Source {
		out = append(out, "source "+a.Source+" → "+b.Source)
	}
	if a.Width != b.Width {
		out = append(out, fmt.Sprintf("width %d → %d", a.Width, b.Width))
	}
	if a.Nullable != b.Nullable {
		out = append(out, nullability(a.Nullable)+" → "+nullability(b.Nullable))
	}
	return out
}

func nullability(n bool) string {
	if n {
		return "nullable"
	}
	return "not null"
}
