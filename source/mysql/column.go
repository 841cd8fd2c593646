package mysql

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"

	"github.com/pipewhy/pipewhy/internal/civil"
	"github.com/pipewhy/pipewhy/source"
)

type kind uint8

const (
	kInt       kind = iota + 1 // driver int64, range-checked to bits
	kUint                      // driver int64 (>= 0) or decimal text (UNSIGNED BIGINT > MaxInt64)
	kBit                       // big-endian bytes → unsigned
	kFloat32                   // driver float32, bits kept
	kFloat64                   // driver float64, bits kept
	kDecimal                   // decimal text → decimal128/256
	kText                      // bytes, valid UTF-8 required
	kBinary                    // bytes as they are
	kDate                      // "YYYY-MM-DD" → date32
	kDateTime                  // "YYYY-MM-DD HH:MM:SS[.f]" → timestamp(us), naive
	kTimestamp                 // the same, session time zone +00:00 → timestamp(us, UTC)
	kTime                      // "[-]H+:MM:SS[.f]" → duration(us)
)

// column is the compiled mapping of one result column.
type column struct {
	name     string
	wire     string // the driver's DatabaseTypeName
	srcType  string // MetaSourceType value, "mysql:" + column type
	width    int    // MetaSourceWidth; 0 for none
	kind     kind
	bits     int // kInt, kUint, kBit: Arrow bit width
	prec     int32
	scale    int32
	fsp      int64 // fractional second digits of temporal columns
	nullable bool
}

// mapWire maps the driver's type name of a result column to a column. prec
// and scale are the result metadata's (DECIMAL precision as the driver
// derives it; fractional digits of temporal types); bitWidth is BIT(n)'s n
// when known, else 64.
func mapWire(name, wire string, prec, scale int64, bitWidth int) (column, bool) {
	c := column{name: name, wire: wire}
	setInt := func(k kind, bits, width int) { c.kind, c.bits, c.width = k, bits, width }
	switch wire {
	case "TINYINT":
		setInt(kInt, 8, 8)
	case "UNSIGNED TINYINT":
		setInt(kUint, 8, 8)
	case "SMALLINT":
		setInt(kInt, 16, 16)
	case "UNSIGNED SMALLINT", "YEAR":
		setInt(kUint, 16, 16)
	case "MEDIUMINT":
		setInt(kInt, 32, 24)
	case "UNSIGNED MEDIUMINT":
		setInt(kUint, 32, 24)
	case "INT":
		setInt(kInt, 32, 32)
	case "UNSIGNED INT":
		setInt(kUint, 32, 32)
	case "BIGINT":
		setInt(kInt, 64, 64)
	case "UNSIGNED BIGINT":
		setInt(kUint, 64, 64)
	case "BIT":
		if bitWidth < 1 || bitWidth > 64 {
			return c, false
		}
		bits := 64
		switch {
		case bitWidth <= 8:
			bits = 8
		case bitWidth <= 16:
			bits = 16
		case bitWidth <= 32:
			bits = 32
		}
		setInt(kBit, bits, bitWidth)
	case "FLOAT":
		c.kind, c.width = kFloat32, 32
	case "DOUBLE":
		c.kind, c.width = kFloat64, 64
	case "DECIMAL":
		if prec < 1 || prec > 76 || scale < 0 || scale > prec {
			return c, false
		}
		c.kind, c.prec, c.scale = kDecimal, int32(prec), int32(scale)
	case "CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "JSON", "ENUM", "SET":
		c.kind = kText
	case "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB":
		c.kind = kBinary
	case "DATE":
		c.kind = kDate
	case "DATETIME", "TIMESTAMP", "TIME":
		// 0x1f is the protocol's "not fixed": the driver would then print
		// no fraction at all, silently dropping microseconds.
		if scale < 0 || scale > 6 {
			return c, false
		}
		c.fsp = scale
		c.kind = map[string]kind{"DATETIME": kDateTime, "TIMESTAMP": kTimestamp, "TIME": kTime}[wire]
	default:
		return c, false
	}
	return c, true
}

func (c *column) arrowType() arrow.DataType {
	switch c.kind {
	case kInt:
		return map[int]arrow.DataType{8: arrow.PrimitiveTypes.Int8, 16: arrow.PrimitiveTypes.Int16, 32: arrow.PrimitiveTypes.Int32, 64: arrow.PrimitiveTypes.Int64}[c.bits]
	case kUint, kBit:
		return map[int]arrow.DataType{8: arrow.PrimitiveTypes.Uint8, 16: arrow.PrimitiveTypes.Uint16, 32: arrow.PrimitiveTypes.Uint32, 64: arrow.PrimitiveTypes.Uint64}[c.bits]
	case kFloat32:
		return arrow.PrimitiveTypes.Float32
	case kFloat64:
		return arrow.PrimitiveTypes.Float64
	case kDecimal:
		if c.prec <= 38 {
			return &arrow.Decimal128Type{Precision: c.prec, Scale: c.scale}
		}
		return &arrow.Decimal256Type{Precision: c.prec, Scale: c.scale}
	case kText:
		return arrow.BinaryTypes.String
	case kBinary:
		return arrow.BinaryTypes.Binary
	case kDate:
		return arrow.FixedWidthTypes.Date32
	case kDateTime:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case kTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case kTime:
		return arrow.FixedWidthTypes.Duration_us
	}
	panic("mysql: unknown column kind")
}

func (c *column) field() arrow.Field {
	keys, vals := []string{source.MetaSourceType}, []string{c.srcType}
	if c.width != 0 {
		keys, vals = append(keys, source.MetaSourceWidth), append(vals, strconv.Itoa(c.width))
	}
	return arrow.Field{Name: c.name, Type: c.arrowType(), Nullable: c.nullable, Metadata: arrow.NewMetadata(keys, vals)}
}

// cell is one staged value. b aliases the driver's row buffer, valid until
// the next rows.Next: a row is appended before that.
type cell struct {
	null bool
	i    int64
	u    uint64
	f32  float32
	f64  float64
	b    []byte
	d128 decimal128.Num
	d256 decimal256.Num
}

// slot is a database/sql Scanner that keeps the driver's value as it is:
// no conversion, no copy of []byte.
type slot struct{ v any }

func (s *slot) Scan(src any) error { s.v = src; return nil }

// parse converts the driver value v into c. It returns a detail without
// any part of the value on failure.
func (col *column) parse(v any, c *cell) string {
	*c = cell{}
	if v == nil {
		c.null = true
		return ""
	}
	switch col.kind {
	case kInt:
		x, ok := v.(int64)
		if !ok {
			return "unexpected driver value for " + col.wire
		}
		if col.bits < 64 && (x < int64(-1)<<(col.bits-1) || x > int64(1)<<(col.bits-1)-1) {
			return "out of range for int" + strconv.Itoa(col.bits)
		}
		c.i = x
	case kUint:
		switch x := v.(type) {
		case int64:
			if x < 0 || (col.bits < 64 && uint64(x) > 1<<col.bits-1) {
				return "out of range for uint" + strconv.Itoa(col.bits)
			}
			c.u = uint64(x)
		case []byte: // the driver's text for UNSIGNED BIGINT > MaxInt64
			u, err := strconv.ParseUint(string(x), 10, col.bits)
			if err != nil || len(x) == 0 || x[0] == '+' {
				return "not an unsigned integer"
			}
			c.u = u
		default:
			return "unexpected driver value for " + col.wire
		}
	case kBit:
		x, ok := v.([]byte)
		if !ok {
			return "unexpected driver value for BIT"
		}
		var u uint64
		for i, b := range x {
			if i < len(x)-8 && b != 0 {
				return "BIT value wider than 64 bits"
			}
			u = u<<8 | uint64(b)
		}
		if col.width < 64 && u>>col.width != 0 {
			return "BIT value wider than the column"
		}
		c.u = u
	case kFloat32:
		x, ok := v.(float32)
		if !ok {
			return "unexpected driver value for FLOAT"
		}
		c.f32 = x
	case kFloat64:
		x, ok := v.(float64)
		if !ok {
			return "unexpected driver value for DOUBLE"
		}
		c.f64 = x
	case kDecimal:
		x, ok := v.([]byte)
		if !ok {
			return "unexpected driver value for DECIMAL"
		}
		return parseDecimal(x, col.prec, col.scale, c)
	case kText, kBinary:
		x, ok := v.([]byte)
		if !ok {
			return "unexpected driver value for " + col.wire
		}
		if col.kind == kText && !utf8.Valid(x) {
			return "text is not valid UTF-8"
		}
		if x == nil {
			x = []byte{} // empty, not null
		}
		c.b = x
	case kDate:
		x, ok := v.([]byte)
		if !ok {
			return "unexpected driver value for DATE"
		}
		d, detail := parseDate(x)
		if detail != "" {
			return detail
		}
		c.i = d
	case kDateTime, kTimestamp:
		x, ok := v.([]byte)
		if !ok {
			return "unexpected driver value for " + col.wire
		}
		us, detail := parseDateTime(x, col.fsp)
		if detail != "" {
			return detail
		}
		c.i = us
	case kTime:
		x, ok := v.([]byte)
		if !ok {
			return "unexpected driver value for TIME"
		}
		us, detail := parseTime(x, col.fsp)
		if detail != "" {
			return detail
		}
		c.i = us
	}
	return ""
}

// appendCell appends a staged cell to a builder of col.arrowType().
func (col *column) appendCell(b array.Builder, c *cell) {
	if c.null {
		b.AppendNull()
		return
	}
	switch col.kind {
	case kInt:
		source.AppendInt(b, c.i)
	case kUint, kBit:
		source.AppendUint(b, c.u)
	case kFloat32:
		b.(*array.Float32Builder).Append(c.f32)
	case kFloat64:
		b.(*array.Float64Builder).Append(c.f64)
	case kDecimal:
		if col.prec <= 38 {
			b.(*array.Decimal128Builder).Append(c.d128)
		} else {
			b.(*array.Decimal256Builder).Append(c.d256)
		}
	case kText:
		b.(*array.StringBuilder).BinaryBuilder.Append(c.b)
	case kBinary:
		b.(*array.BinaryBuilder).Append(c.b)
	case kDate:
		b.(*array.Date32Builder).Append(arrow.Date32(c.i))
	case kDateTime, kTimestamp:
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(c.i))
	case kTime:
		b.(*array.DurationBuilder).Append(arrow.Duration(c.i))
	}
}

// parseDecimal parses the server's DECIMAL text -?DIGITS[.DIGITS] into the
// unscaled integer of scale digits. Nothing is rounded: more fraction digits
// than scale, or more integer digits than prec-scale, is an error.
func parseDecimal(x []byte, prec, scale int32, c *cell) string {
	neg := false
	if len(x) > 0 && x[0] == '-' {
		neg, x = true, x[1:]
	}
	intPart, frac := x, []byte(nil)
	if i := indexByte(x, '.'); i >= 0 {
		intPart, frac = x[:i], x[i+1:]
		if len(frac) == 0 {
			return "not a decimal literal"
		}
	}
	if len(intPart) == 0 || !allDigits(intPart) || !allDigits(frac) {
		return "not a decimal literal"
	}
	if len(frac) > int(scale) {
		return "more fraction digits than the column scale"
	}
	for len(intPart) > 0 && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	if len(intPart) > int(prec-scale) {
		return "more integer digits than the column precision allows"
	}
	pad := int(scale) - len(frac)
	if n := len(intPart) + len(frac) + pad; n <= 18 {
		var v int64
		for _, d := range intPart {
			v = v*10 + int64(d-'0')
		}
		for _, d := range frac {
			v = v*10 + int64(d-'0')
		}
		for range pad {
			v *= 10
		}
		if neg {
			v = -v
		}
		if prec <= 38 {
			c.d128 = decimal128.FromI64(v)
		} else {
			c.d256 = decimal256.FromI64(v)
		}
		return ""
	}
	v := new(big.Int)
	digits := string(intPart) + string(frac) + strings.Repeat("0", pad)
	if _, ok := v.SetString(digits, 10); !ok {
		return "not a decimal literal"
	}
	if neg {
		v.Neg(v)
	}
	if prec <= 38 {
		c.d128 = decimal128.FromBigInt(v)
	} else {
		c.d256 = decimal256.FromBigInt(v)
	}
	return ""
}

func indexByte(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func allDigits(b []byte) bool {
	for _, d := range b {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}

func num(b []byte) (int64, bool) {
	if len(b) == 0 || !allDigits(b) {
		return 0, false
	}
	var v int64
	for _, d := range b {
		v = v*10 + int64(d-'0')
	}
	return v, true
}

// parseDate parses "YYYY-MM-DD". Zero dates and zero parts ('0000-00-00',
// '2024-00-10'), which MySQL may store, and impossible dates (allowed by
// ALLOW_INVALID_DATES) fail: they have no calendar value.
func parseDate(x []byte) (int64, string) {
	if len(x) != 10 || x[4] != '-' || x[7] != '-' {
		return 0, "not a date (YYYY-MM-DD)"
	}
	y, ok1 := num(x[0:4])
	m, ok2 := num(x[5:7])
	d, ok3 := num(x[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, "not a date (YYYY-MM-DD)"
	}
	if m == 0 || d == 0 {
		return 0, "zero date or zero month/day (MySQL zero date): no calendar value"
	}
	if m > 12 || d > civil.DaysInMonth(y, m) {
		return 0, "invalid calendar date"
	}
	return civil.DaysFromCivil(y, m, d), ""
}

// fraction parses the fraction digits after '.', at most fsp of them, as
// microseconds.
func fraction(x []byte, fsp int64) (int64, bool) {
	if len(x) == 0 {
		return 0, true
	}
	if x[0] != '.' || len(x) == 1 || int64(len(x)-1) > fsp || len(x)-1 > 6 {
		return 0, false
	}
	v, ok := num(x[1:])
	if !ok {
		return 0, false
	}
	for i := len(x) - 1; i < 6; i++ {
		v *= 10
	}
	return v, true
}

// parseDateTime parses "YYYY-MM-DD HH:MM:SS[.f]" (the driver's format of
// DATETIME and TIMESTAMP) into microseconds since 1970-01-01T00:00:00,
// read as UTC.
func parseDateTime(x []byte, fsp int64) (int64, string) {
	const form = "not a datetime (YYYY-MM-DD HH:MM:SS[.f])"
	if len(x) < 19 || x[10] != ' ' || x[13] != ':' || x[16] != ':' {
		return 0, form
	}
	days, detail := parseDate(x[:10])
	if detail != "" {
		return 0, detail
	}
	h, ok1 := num(x[11:13])
	mi, ok2 := num(x[14:16])
	s, ok3 := num(x[17:19])
	f, ok4 := fraction(x[19:], fsp)
	if !ok1 || !ok2 || !ok3 || !ok4 || h > 23 || mi > 59 || s > 59 {
		return 0, form
	}
	return ((days*24+h)*60+mi)*60_000_000 + s*1_000_000 + f, ""
}

// parseTime parses "[-]H+:MM:SS[.f]" (MySQL TIME, -838:59:59.999999 to
// 838:59:59.999999) into signed microseconds.
func parseTime(x []byte, fsp int64) (int64, string) {
	const form = "not a time ([-]HH:MM:SS[.f])"
	neg := len(x) > 0 && x[0] == '-'
	if neg {
		x = x[1:]
	}
	i := indexByte(x, ':')
	if i < 2 || i > 4 || len(x) < i+6 || x[i+3] != ':' {
		return 0, form
	}
	h, ok1 := num(x[:i])
	m, ok2 := num(x[i+1 : i+3])
	s, ok3 := num(x[i+4 : i+6])
	f, ok4 := fraction(x[i+6:], fsp)
	if !ok1 || !ok2 || !ok3 || !ok4 || m > 59 || s > 59 || h > 838 {
		return 0, form
	}
	v := ((h*60+m)*60+s)*1_000_000 + f
	if neg {
		v = -v
	}
	return v, ""
}
