package source

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
)

// Column declares one column of an explicit schema: its name and a type
// from the vocabulary documented in doc.go ("int64", "decimal(12,2)",
// "timestamp(us,UTC)", ...).
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Field schema metadata keys set by the adapters.
const (
	// MetaSourceType is the source's own spelling of the column type: the
	// declared SQLite type, the schema vocabulary word for CSV and JSON lines,
	// the Parquet physical/logical type, or the Arrow type for IPC.
	MetaSourceType = "pipewhy.source.type"
	// MetaSourceWidth is the bit width of fixed-width numeric source types
	// ("8" … "64"); absent for variable-width types.
	MetaSourceWidth = "pipewhy.source.width"
	// MetaFieldID is the stable field id assigned by a Registry, decimal.
	MetaFieldID = "pipewhy.field_id"
)

type kind uint8

const (
	kBool kind = iota + 1
	kInt       // signed, width in colType.bits
	kUint      // unsigned, width in colType.bits
	kFloat
	kText
	kHex    // bytes written as hex
	kBase64 // bytes written as standard padded base64
	kDecimal
	kTimestamp
	kNumber // an inferred JSON number column: each literal as written (decimaltext.Type)
)

// numberType is the type of an inferred JSON number column that is not all int64 or
// all uint64. It has no vocabulary spelling: Columns cannot declare it; "number" is its
// MetaSourceType, the JSON kind.
var numberType = colType{spell: "number", kind: kNumber}

// colType is a compiled vocabulary type.
type colType struct {
	spell string // the canonical vocabulary spelling
	kind  kind
	bits  int // kInt, kUint, kFloat
	prec  int32
	scale int32
	unit  arrow.TimeUnit
	tz    string
	loc   *time.Location // nil for naive timestamps
}

func (t colType) arrowType() arrow.DataType {
	switch t.kind {
	case kBool:
		return arrow.FixedWidthTypes.Boolean
	case kInt:
		switch t.bits {
		case 8:
			return arrow.PrimitiveTypes.Int8
		case 16:
			return arrow.PrimitiveTypes.Int16
		case 32:
			return arrow.PrimitiveTypes.Int32
		}
		return arrow.PrimitiveTypes.Int64
	case kUint:
		switch t.bits {
		case 8:
			return arrow.PrimitiveTypes.Uint8
		case 16:
			return arrow.PrimitiveTypes.Uint16
		case 32:
			return arrow.PrimitiveTypes.Uint32
		}
		return arrow.PrimitiveTypes.Uint64
	case kFloat:
		if t.bits == 32 {
			return arrow.PrimitiveTypes.Float32
		}
		return arrow.PrimitiveTypes.Float64
	case kText:
		return arrow.BinaryTypes.String
	case kHex, kBase64:
		return arrow.BinaryTypes.Binary
	case kDecimal:
		if t.prec <= 38 {
			return &arrow.Decimal128Type{Precision: t.prec, Scale: t.scale}
		}
		return &arrow.Decimal256Type{Precision: t.prec, Scale: t.scale}
	case kTimestamp:
		return &arrow.TimestampType{Unit: t.unit, TimeZone: t.tz}
	case kNumber:
		return decimaltext.New()
	}
	panic("source: unknown kind")
}

var unitNames = map[string]arrow.TimeUnit{"s": arrow.Second, "ms": arrow.Millisecond, "us": arrow.Microsecond, "ns": arrow.Nanosecond}

// parseType compiles a vocabulary type spelling. Spelling is exact: lower
// case, no spaces except after the comma of decimal and timestamp.
func parseType(s string) (colType, bool) {
	switch s {
	case "bool":
		return colType{spell: s, kind: kBool}, true
	case "int8", "int16", "int32", "int64":
		b, _ := strconv.Atoi(s[3:])
		return colType{spell: s, kind: kInt, bits: b}, true
	case "uint8", "uint16", "uint32", "uint64":
		b, _ := strconv.Atoi(s[4:])
		return colType{spell: s, kind: kUint, bits: b}, true
	case "float32":
		return colType{spell: s, kind: kFloat, bits: 32}, true
	case "float64":
		return colType{spell: s, kind: kFloat, bits: 64}, true
	case "text":
		return colType{spell: s, kind: kText}, true
	case "bytes", "bytes(hex)":
		return colType{spell: "bytes(hex)", kind: kHex}, true
	case "bytes(base64)":
		return colType{spell: s, kind: kBase64}, true
	}
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return colType{}, false
	}
	args := strings.Split(s[open+1:len(s)-1], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	switch s[:open] {
	case "decimal":
		if len(args) != 2 {
			return colType{}, false
		}
		p, err1 := strconv.ParseInt(args[0], 10, 32)
		sc, err2 := strconv.ParseInt(args[1], 10, 32)
		if err1 != nil || err2 != nil || p < 1 || p > 76 || sc < 0 || sc > p {
			return colType{}, false
		}
		return colType{spell: "decimal(" + args[0] + "," + args[1] + ")", kind: kDecimal, prec: int32(p), scale: int32(sc)}, true
	case "timestamp":
		if len(args) < 1 || len(args) > 2 {
			return colType{}, false
		}
		u, ok := unitNames[args[0]]
		if !ok {
			return colType{}, false
		}
		t := colType{spell: "timestamp(" + args[0] + ")", kind: kTimestamp, unit: u}
		if len(args) == 2 {
			loc, ok := parseZone(args[1])
			if !ok {
				return colType{}, false
			}
			t.tz, t.loc = args[1], loc
			t.spell = "timestamp(" + args[0] + "," + args[1] + ")"
		}
		return t, true
	}
	return colType{}, false
}

// parseZone accepts "UTC", a fixed offset "+hh:mm"/"-hh:mm" or an IANA zone
// name known to the system's zone database.
func parseZone(z string) (*time.Location, bool) {
	if z == "" {
		return nil, false
	}
	if z == "UTC" {
		return time.UTC, true
	}
	if len(z) == 6 && (z[0] == '+' || z[0] == '-') && z[3] == ':' {
		h, err1 := strconv.Atoi(z[1:3])
		m, err2 := strconv.Atoi(z[4:6])
		if err1 != nil || err2 != nil || h > 23 || m > 59 {
			return nil, false
		}
		off := h*3600 + m*60
		if z[0] == '-' {
			off = -off
		}
		return time.FixedZone(z, off), true
	}
	loc, err := time.LoadLocation(z)
	if err != nil || z == "Local" {
		return nil, false
	}
	return loc, true
}

// cell is one parsed value, staged so that a failing record appends nothing.
type cell struct {
	null bool
	i    int64
	u    uint64
	f    float64
	b    bool
	s    string
	tb   []byte // text as bytes (JSON lines); used instead of s when non-nil
	bs   []byte
	d128 decimal128.Num
	d256 decimal256.Num
}

// parseNumber parses an integer or float cell of column type t. It keeps no
// reference to s, so a caller may pass a string copy of a byte slice without it
// escaping to the heap (the CSV parser's cells).
func (t *colType) parseNumber(s string, c *cell) (Code, string) {
	switch t.kind {
	case kInt:
		if !plainInteger(s) {
			return CodeType, "not a base-10 " + t.spell
		}
		v, err := strconv.ParseInt(s, 10, t.bits)
		if err != nil {
			return CodeType, "out of range for " + t.spell
		}
		c.i = v
	case kUint:
		if !plainInteger(s) || s[0] == '-' || s[0] == '+' {
			return CodeType, "not a base-10 " + t.spell
		}
		v, err := strconv.ParseUint(s, 10, t.bits)
		if err != nil {
			return CodeType, "out of range for " + t.spell
		}
		c.u = v
	case kFloat:
		if !floatLiteral(s) {
			return CodeType, "not a decimal " + t.spell + " literal"
		}
		v, err := strconv.ParseFloat(s, t.bits)
		if err != nil {
			return CodeType, "out of range for " + t.spell
		}
		c.f = v
	}
	return "", ""
}

// parseText parses the textual form of a value (a CSV cell, a JSON string or
// number literal) exactly; it never rounds except where the declared type is
// binary floating point. On failure it returns a code and a detail that
// contains no part of the value.
func (t *colType) parseText(s string, c *cell) (Code, string) {
	switch t.kind {
	case kText:
		c.s = s
		return "", ""
	case kBool:
		return parseBool(s, c)
	case kInt, kUint, kFloat:
		return t.parseNumber(s, c)
	case kHex:
		b, err := hex.DecodeString(s)
		if err != nil {
			return CodeType, "not hexadecimal bytes"
		}
		c.bs = b
	case kBase64:
		b, err := base64.StdEncoding.Strict().DecodeString(s)
		if err != nil {
			return CodeType, "not standard padded base64 bytes"
		}
		c.bs = b
	case kDecimal:
		return t.parseDecimal(s, c)
	case kTimestamp:
		return t.parseTimestamp(s, c)
	}
	return "", ""
}

// parseBool parses the bool spellings true and false.
func parseBool(s string, c *cell) (Code, string) {
	switch s {
	case "true":
		c.b = true
	case "false":
		c.b = false
	default:
		return CodeType, "not a bool (true or false)"
	}
	return "", ""
}

// plainInteger reports whether s is an optional sign followed by one or more
// ASCII digits.
func plainInteger(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// floatLiteral accepts the decimal forms [+-]digits[.[digits]] and [+-].digits, each
// with an optional exponent (e|E)[+-]digits (so "+1.5", "5." and ".5" are floats, as
// most writers of CSV spell them), and the special spellings NaN, Inf, +Inf, -Inf
// (case as written). It rejects Go-only forms such as hexadecimal floats and
// underscores.
func floatLiteral(s string) bool {
	switch s {
	case "NaN", "Inf", "+Inf", "-Inf":
		return true
	}
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	digits := i - start
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		digits += i - fs
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == es {
			return false
		}
	}
	return i == len(s)
}

var bigTen = big.NewInt(10)

// parseDecimal accepts -?digits[.digits] (no exponent). The value must have
// at most scale fractional digits and at most precision significant integer
// plus scale digits; nothing is rounded.
func (t *colType) parseDecimal(s string, c *cell) (Code, string) {
	neg := false
	r := s
	if r != "" && (r[0] == '-' || r[0] == '+') {
		neg = r[0] == '-'
		r = r[1:]
	}
	intPart, frac, hasDot := strings.Cut(r, ".")
	if intPart == "" || (hasDot && frac == "") {
		return CodeType, "not a decimal literal"
	}
	for _, p := range []string{intPart, frac} {
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return CodeType, "not a decimal literal"
			}
		}
	}
	if len(frac) > int(t.scale) {
		return CodeType, "more fractional digits than the scale of " + t.spell
	}
	intPart = strings.TrimLeft(intPart, "0")
	if len(intPart) > int(t.prec-t.scale) {
		return CodeType, "more integer digits than " + t.spell + " allows"
	}
	digits := intPart + frac + strings.Repeat("0", int(t.scale)-len(frac))
	v := new(big.Int)
	if digits != "" {
		if _, ok := v.SetString(digits, 10); !ok {
			return CodeType, "not a decimal literal"
		}
	}
	if neg {
		v.Neg(v)
	}
	t.setDecimal(c, v)
	return "", ""
}

// setDecimal stores the unscaled value v (within the precision) in the cell field of
// t's Arrow type: decimal128 up to precision 38, else decimal256.
func (t *colType) setDecimal(c *cell, v *big.Int) {
	if t.prec <= 38 {
		c.d128 = decimal128.FromBigInt(v)
	} else {
		c.d256 = decimal256.FromBigInt(v)
	}
}

var unitNanos = map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}

// parseTimestamp accepts RFC 3339 style "YYYY-MM-DDTHH:MM:SS[.fraction]"
// (a space may replace the T), followed by "Z" or "±hh:mm" exactly when the
// column has a time zone. A naive column stores the wall clock as if it were
// UTC (the Arrow convention for timestamps without a zone). A fraction finer
// than the column unit is an error, never rounded.
func (t *colType) parseTimestamp(s string, c *cell) (Code, string) {
	if len(s) < 19 || (s[10] != 'T' && s[10] != ' ') {
		return CodeType, "not a timestamp (YYYY-MM-DDTHH:MM:SS[.f][zone])"
	}
	b := []byte(s)
	b[10] = 'T'
	var tm time.Time
	var err error
	if t.loc != nil {
		tm, err = time.Parse("2006-01-02T15:04:05.999999999Z07:00", string(b))
	} else {
		tm, err = time.Parse("2006-01-02T15:04:05.999999999", string(b))
	}
	if err != nil {
		if t.loc != nil {
			return CodeType, "not a timestamp with zone offset (YYYY-MM-DDTHH:MM:SS[.f]Z or ±hh:mm)"
		}
		return CodeType, "not a naive timestamp (YYYY-MM-DDTHH:MM:SS[.f], no zone)"
	}
	// time.Parse accepts a comma as fraction separator; the vocabulary does not.
	if strings.IndexByte(s, ',') >= 0 {
		return CodeType, "not a timestamp (fraction separator must be '.')"
	}
	per := unitNanos[t.unit]
	ns := int64(tm.Nanosecond())
	if ns%per != 0 {
		return CodeType, "fraction finer than the unit of " + t.spell
	}
	sec := tm.Unix()
	mul := int64(1e9) / per
	add := ns / per // 0 <= add < mul: Unix rounds down, Nanosecond is never negative
	// Before 1970 the instant is sec*mul + add with sec*mul alone possibly below the
	// range (the earliest timestamp(ns), 1677-09-21T00:12:43.145224192Z, has sec*mul <
	// MinInt64): borrow one second so that both parts are within it.
	if sec < 0 && add > 0 {
		sec, add = sec+1, add-mul
	}
	if sec > math.MaxInt64/mul || sec < math.MinInt64/mul {
		return CodeType, "out of range for " + t.spell
	}
	v := sec * mul
	if (add > 0 && v > math.MaxInt64-add) || (add < 0 && v < math.MinInt64-add) {
		return CodeType, "out of range for " + t.spell
	}
	c.i = v + add
	return "", ""
}

// appendCell appends a staged value to a builder of t.arrowType().
func (t *colType) appendCell(b array.Builder, c *cell) {
	if c.null {
		b.AppendNull()
		return
	}
	switch t.kind {
	case kBool:
		b.(*array.BooleanBuilder).Append(c.b)
	case kInt:
		AppendInt(b, c.i)
	case kUint:
		AppendUint(b, c.u)
	case kFloat:
		if t.bits == 32 {
			b.(*array.Float32Builder).Append(float32(c.f))
		} else {
			b.(*array.Float64Builder).Append(c.f)
		}
	case kText:
		if c.tb != nil {
			b.(*array.StringBuilder).BinaryBuilder.Append(c.tb)
		} else {
			b.(*array.StringBuilder).Append(c.s)
		}
	case kHex, kBase64:
		b.(*array.BinaryBuilder).Append(c.bs)
	case kDecimal:
		if t.prec <= 38 {
			b.(*array.Decimal128Builder).Append(c.d128)
		} else {
			b.(*array.Decimal256Builder).Append(c.d256)
		}
	case kTimestamp:
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(c.i))
	case kNumber:
		b.(*array.ExtensionBuilder).StorageBuilder().(*array.StringBuilder).BinaryBuilder.Append(c.tb)
	}
}

// AppendInt appends v to a signed integer builder of any width (int8…int64).
// The caller has checked that v fits the builder's width: it is truncated otherwise.
// Adapters share it so every one converts staged integers the same way.
func AppendInt(b array.Builder, v int64) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(v))
	case *array.Int16Builder:
		b.Append(int16(v))
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.Int64Builder:
		b.Append(v)
	default:
		panic("source: AppendInt on a " + b.Type().String() + " builder")
	}
}

// AppendUint appends v to an unsigned integer builder of any width (uint8…uint64),
// under the same contract as AppendInt.
func AppendUint(b array.Builder, v uint64) {
	switch b := b.(type) {
	case *array.Uint8Builder:
		b.Append(uint8(v))
	case *array.Uint16Builder:
		b.Append(uint16(v))
	case *array.Uint32Builder:
		b.Append(uint32(v))
	case *array.Uint64Builder:
		b.Append(v)
	default:
		panic("source: AppendUint on a " + b.Type().String() + " builder")
	}
}

// TypeName returns the stable spelling of an Arrow type used in schema
// identity descriptors and registry files ("int64", "date32", "time64(us)",
// "duration(ms)", "timestamp(ns,UTC)", `list<"element":int64>`,
// `struct<"a":int64,"b":utf8 not null>`; the grammar is in doc.go, "Type
// names"). It never depends on arrow-go's String methods, which may change
// between releases. Types outside the supported set return ok=false.
func TypeName(dt arrow.DataType) (name string, ok bool) {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return "bool", true
	case *arrow.Int8Type:
		return "int8", true
	case *arrow.Int16Type:
		return "int16", true
	case *arrow.Int32Type:
		return "int32", true
	case *arrow.Int64Type:
		return "int64", true
	case *arrow.Uint8Type:
		return "uint8", true
	case *arrow.Uint16Type:
		return "uint16", true
	case *arrow.Uint32Type:
		return "uint32", true
	case *arrow.Uint64Type:
		return "uint64", true
	case *arrow.Float32Type:
		return "float32", true
	case *arrow.Float64Type:
		return "float64", true
	case *arrow.StringType:
		return "utf8", true
	case *arrow.LargeStringType:
		return "large_utf8", true
	case *arrow.BinaryType:
		return "binary", true
	case *arrow.LargeBinaryType:
		return "large_binary", true
	case *arrow.Decimal128Type:
		return "decimal128(" + strconv.Itoa(int(t.Precision)) + "," + strconv.Itoa(int(t.Scale)) + ")", true
	case *arrow.Decimal256Type:
		return "decimal256(" + strconv.Itoa(int(t.Precision)) + "," + strconv.Itoa(int(t.Scale)) + ")", true
	case *arrow.TimestampType:
		u, ok := unitName(t.Unit)
		if !ok {
			return "", false
		}
		if t.TimeZone == "" {
			return "timestamp(" + u + ")", true
		}
		return "timestamp(" + u + "," + t.TimeZone + ")", true
	case *arrow.Date32Type:
		return "date32", true
	case *arrow.Date64Type:
		return "date64", true
	case *arrow.Time32Type:
		if t.Unit != arrow.Second && t.Unit != arrow.Millisecond {
			return "", false
		}
		u, _ := unitName(t.Unit)
		return "time32(" + u + ")", true
	case *arrow.Time64Type:
		if t.Unit != arrow.Microsecond && t.Unit != arrow.Nanosecond {
			return "", false
		}
		u, _ := unitName(t.Unit)
		return "time64(" + u + ")", true
	case *arrow.DurationType:
		u, ok := unitName(t.Unit)
		if !ok {
			return "", false
		}
		return "duration(" + u + ")", true
	case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType, *arrow.MapType, *arrow.StructType:
		return typeNameDepth(dt, 1)
	case *decimaltext.Type:
		if decimaltext.Is(t) {
			return "decimal_text", true
		}
	}
	return "", false
}

// unitName is the vocabulary spelling of an Arrow time unit.
func unitName(u arrow.TimeUnit) (string, bool) {
	switch u {
	case arrow.Second:
		return "s", true
	case arrow.Millisecond:
		return "ms", true
	case arrow.Microsecond:
		return "us", true
	case arrow.Nanosecond:
		return "ns", true
	}
	return "", false
}

// maxNestedDepth bounds the recursion of TypeName over nested types, so that a
// hostile IPC schema cannot exhaust the stack.
const maxNestedDepth = 64

// nestedName spells a nested type: prefix, then each child field as
// "NAME":TYPE, followed by " not null" when the child is not nullable,
// separated by commas, then ">". NAME is the child's name with '"', '\\' and
// control characters below U+0020 escaped (\" \\ \u00xx), so the spelling is
// unambiguous whatever the names hold. Child metadata is not spelled.
func nestedName(prefix string, children []arrow.Field, depth int) (string, bool) {
	if depth > maxNestedDepth {
		return "", false
	}
	var b strings.Builder
	b.WriteString(prefix)
	for i, c := range children {
		if !utf8.ValidString(c.Name) {
			return "", false
		}
		var tn string
		var ok bool
		switch ct := c.Type.(type) {
		case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType, *arrow.MapType, *arrow.StructType:
			tn, ok = typeNameDepth(ct, depth+1)
		default:
			tn, ok = TypeName(c.Type)
		}
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for j := 0; j < len(c.Name); j++ {
			switch ch := c.Name[j]; {
			case ch == '"' || ch == '\\':
				b.WriteByte('\\')
				b.WriteByte(ch)
			case ch < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[ch>>4])
				b.WriteByte("0123456789abcdef"[ch&15])
			default:
				b.WriteByte(ch)
			}
		}
		b.WriteString(`":`)
		b.WriteString(tn)
		if !c.Nullable {
			b.WriteString(" not null")
		}
	}
	b.WriteByte('>')
	return b.String(), true
}

// typeNameDepth is TypeName for a nested type at the given nesting depth.
func typeNameDepth(dt arrow.DataType, depth int) (string, bool) {
	switch t := dt.(type) {
	case *arrow.ListType:
		return nestedName("list<", []arrow.Field{t.ElemField()}, depth)
	case *arrow.LargeListType:
		return nestedName("large_list<", []arrow.Field{t.ElemField()}, depth)
	case *arrow.FixedSizeListType:
		if t.Len() < 0 {
			return "", false
		}
		return nestedName("fixed_size_list("+strconv.Itoa(int(t.Len()))+")<", []arrow.Field{t.ElemField()}, depth)
	case *arrow.MapType:
		prefix := "map<"
		if t.KeysSorted {
			prefix = "map(keys_sorted)<"
		}
		return nestedName(prefix, []arrow.Field{t.KeyField(), t.ItemField()}, depth)
	case *arrow.StructType:
		return nestedName("struct<", t.Fields(), depth)
	}
	return TypeName(dt)
}

// typeWidth is the bit width of fixed-width numeric types, 0 otherwise.
func typeWidth(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.BOOL:
		return 0
	case arrow.INT8, arrow.UINT8:
		return 8
	case arrow.INT16, arrow.UINT16:
		return 16
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32:
		return 32
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64:
		return 64
	}
	return 0
}

// fieldMeta builds the adapter metadata of one field.
func fieldMeta(sourceType string, dt arrow.DataType) arrow.Metadata {
	if w := typeWidth(dt); w != 0 {
		return arrow.NewMetadata([]string{MetaSourceType, MetaSourceWidth}, []string{sourceType, strconv.Itoa(w)})
	}
	return arrow.NewMetadata([]string{MetaSourceType}, []string{sourceType})
}

// validName reports whether a column name is usable: nonempty valid UTF-8.
func validName(s string) bool { return s != "" && utf8.ValidString(s) }
