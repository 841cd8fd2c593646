package postgres

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"

	"github.com/pipewhy/pipewhy/source"
)

// PostgreSQL type OIDs (src/include/catalog/pg_type.dat); they are fixed
// for built-in types.
const (
	oidBool        = 16
	oidBytea       = 17
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidJSON        = 114
	oidFloat4      = 700
	oidFloat8      = 701
	oidBPChar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
	oidInterval    = 1186
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
)

// Epoch differences: PostgreSQL counts dates and timestamps from
// 2000-01-01, Arrow from 1970-01-01.
const (
	pgEpochDays   = 10957                // days from 1970-01-01 to 2000-01-01
	pgEpochMicros = 946684800000000      // microseconds from 1970-01-01 to 2000-01-01
	microsPerDay  = 86400 * 1000000      // length of a day in microseconds
	maxIntervalUs = math.MaxInt64 / 1000 // largest |µs| that fits as nanoseconds
)

// decoder kinds
type dkind uint8

const (
	dBool dkind = iota + 1
	dInt2
	dInt4
	dInt8
	dOID
	dFloat4
	dFloat8
	dText       // text, varchar, bpchar, name, json: the bytes, UTF-8 checked
	dServerText // any column read in the server's text output format (Columns override)
	dJSONB      // version byte 1, then the text
	dBytea
	dUUID
	dNumeric // decimal(prec, scale), exact or the row fails
	dDate
	dTime
	dTimestamp
	dTimestampTZ
	dInterval
)

// column is one result column: how its wire value becomes an Arrow value.
type column struct {
	name     string
	oid      uint32
	typmod   int32
	srcType  string // "postgres:int4", ...
	kind     dkind
	prec     int32 // dNumeric
	scale    int32 // dNumeric
	typ      arrow.DataType
	format   int16  // 1 binary, 0 text
	override string // the Columns type that selected kind, if any
}

// pgTypeName is the source type spelling recorded in MetaSourceType:
// "postgres:" and the catalog type name, with the type modifier where it
// shapes values (numeric(p,s), varchar(n), bpchar(n), time/timestamp(p)).
func pgTypeName(oid uint32, typmod int32, catalogName string) string {
	n := catalogName
	switch oid {
	case oidBool:
		n = "bool"
	case oidBytea:
		n = "bytea"
	case oidName:
		n = "name"
	case oidInt2:
		n = "int2"
	case oidInt4:
		n = "int4"
	case oidInt8:
		n = "int8"
	case oidText:
		n = "text"
	case oidOID:
		n = "oid"
	case oidJSON:
		n = "json"
	case oidJSONB:
		n = "jsonb"
	case oidFloat4:
		n = "float4"
	case oidFloat8:
		n = "float8"
	case oidUUID:
		n = "uuid"
	case oidDate:
		n = "date"
	case oidInterval:
		n = "interval"
	case oidNumeric:
		n = "numeric"
		if typmod >= 4 {
			p, s := numericTypmod(typmod)
			n += "(" + strconv.Itoa(int(p)) + "," + strconv.Itoa(int(s)) + ")"
		}
	case oidVarchar, oidBPChar:
		n = map[uint32]string{oidVarchar: "varchar", oidBPChar: "bpchar"}[oid]
		if typmod >= 4 {
			n += "(" + strconv.Itoa(int(typmod-4)) + ")"
		}
	case oidTime, oidTimestamp, oidTimestampTZ:
		n = map[uint32]string{oidTime: "time", oidTimestamp: "timestamp", oidTimestampTZ: "timestamptz"}[oid]
		if typmod >= 0 {
			n += "(" + strconv.Itoa(int(typmod)) + ")"
		}
	}
	return "postgres:" + n
}

// numericTypmod splits a numeric type modifier into precision and scale
// (PostgreSQL 15 allows a negative scale and a scale above the precision:
// the scale is an 11-bit signed field).
func numericTypmod(typmod int32) (prec, scale int32) {
	t := typmod - 4
	prec = (t >> 16) & 0xffff
	scale = t & 0x7ff
	if scale&0x400 != 0 {
		scale -= 0x800
	}
	return prec, scale
}

// mapType chooses the decoder and Arrow type of a column from its type OID
// and modifier. ok=false means the type is unsupported without an explicit
// Columns override.
func mapType(c *column) (ok bool, why string) {
	c.format = 1
	switch c.oid {
	case oidBool:
		c.kind, c.typ = dBool, arrow.FixedWidthTypes.Boolean
	case oidInt2:
		c.kind, c.typ = dInt2, arrow.PrimitiveTypes.Int16
	case oidInt4:
		c.kind, c.typ = dInt4, arrow.PrimitiveTypes.Int32
	case oidInt8:
		c.kind, c.typ = dInt8, arrow.PrimitiveTypes.Int64
	case oidOID:
		c.kind, c.typ = dOID, arrow.PrimitiveTypes.Uint32
	case oidFloat4:
		c.kind, c.typ = dFloat4, arrow.PrimitiveTypes.Float32
	case oidFloat8:
		c.kind, c.typ = dFloat8, arrow.PrimitiveTypes.Float64
	case oidText, oidVarchar, oidBPChar, oidName, oidJSON:
		c.kind, c.typ = dText, arrow.BinaryTypes.String
	case oidJSONB:
		c.kind, c.typ = dJSONB, arrow.BinaryTypes.String
	case oidUUID:
		c.kind, c.typ = dUUID, arrow.BinaryTypes.String
	case oidBytea:
		c.kind, c.typ = dBytea, arrow.BinaryTypes.Binary
	case oidDate:
		c.kind, c.typ = dDate, arrow.FixedWidthTypes.Date32
	case oidTime:
		c.kind, c.typ = dTime, arrow.FixedWidthTypes.Time64us
	case oidTimestamp:
		c.kind, c.typ = dTimestamp, &arrow.TimestampType{Unit: arrow.Microsecond}
	case oidTimestampTZ:
		c.kind, c.typ = dTimestampTZ, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case oidInterval:
		c.kind, c.typ = dInterval, arrow.FixedWidthTypes.MonthDayNanoInterval
	case oidNumeric:
		if c.typmod < 4 {
			return false, "unconstrained numeric has no fixed scale; declare decimal(P,S) or text in Columns, or cast it"
		}
		p, s := numericTypmod(c.typmod)
		if s < 0 || s > p || p > 76 {
			return false, "numeric(" + strconv.Itoa(int(p)) + "," + strconv.Itoa(int(s)) + ") has no Arrow decimal type (needs 0 <= scale <= precision <= 76); declare text in Columns, or cast it"
		}
		setDecimal(c, p, s)
	default:
		return false, "no exact Arrow mapping; declare text in Columns (server text output), exclude it, or cast it"
	}
	return true, ""
}

func setDecimal(c *column, p, s int32) {
	c.kind, c.prec, c.scale = dNumeric, p, s
	if p <= 38 {
		c.typ = &arrow.Decimal128Type{Precision: p, Scale: s}
	} else {
		c.typ = &arrow.Decimal256Type{Precision: p, Scale: s}
	}
}

// fieldMeta is the adapter metadata of one field, as package source writes
// it: the source type, and the bit width of fixed-width numeric types.
func fieldMeta(c *column) arrow.Metadata {
	w := 0
	switch c.kind {
	case dInt2:
		w = 16
	case dInt4, dOID, dFloat4:
		w = 32
	case dInt8, dFloat8:
		w = 64
	}
	if w != 0 {
		return arrow.NewMetadata([]string{source.MetaSourceType, source.MetaSourceWidth}, []string{c.srcType, strconv.Itoa(w)})
	}
	return arrow.NewMetadata([]string{source.MetaSourceType}, []string{c.srcType})
}

// cell is one decoded value, staged so that a failing row appends nothing.
type cell struct {
	null bool
	i    int64
	b    []byte // aliases the wire buffer: valid until the next row
	s    string
	d128 decimal128.Num
	d256 decimal256.Num
	iv   arrow.MonthDayNanoInterval
}

// failure details (never values)
const (
	detailLength = "malformed binary value (unexpected length)"
)

// decode turns one non-null wire value into c. It returns a code and a
// detail (without the value) when the value has no exact Arrow form.
func (col *column) decode(v []byte, c *cell) (source.Code, string) {
	need := func(n int) bool { return len(v) == n }
	switch col.kind {
	case dBool:
		if !need(1) || v[0] > 1 {
			return source.CodeCorrupt, detailLength
		}
		c.i = int64(v[0])
	case dInt2:
		if !need(2) {
			return source.CodeCorrupt, detailLength
		}
		c.i = int64(int16(binary.BigEndian.Uint16(v)))
	case dInt4:
		if !need(4) {
			return source.CodeCorrupt, detailLength
		}
		c.i = int64(int32(binary.BigEndian.Uint32(v)))
	case dOID:
		if !need(4) {
			return source.CodeCorrupt, detailLength
		}
		c.i = int64(binary.BigEndian.Uint32(v))
	case dInt8:
		if !need(8) {
			return source.CodeCorrupt, detailLength
		}
		c.i = int64(binary.BigEndian.Uint64(v))
	case dFloat4:
		if !need(4) {
			return source.CodeCorrupt, detailLength
		}
		c.i = int64(binary.BigEndian.Uint32(v)) // bits, kept exactly
	case dFloat8:
		if !need(8) {
			return source.CodeCorrupt, detailLength
		}
		c.i = int64(binary.BigEndian.Uint64(v)) // bits, kept exactly
	case dText, dServerText:
		if !utf8.Valid(v) {
			return source.CodeUTF8, "text is not valid UTF-8"
		}
		c.b = v
	case dJSONB:
		if len(v) < 1 || v[0] != 1 {
			return source.CodeCorrupt, "unknown jsonb binary format version"
		}
		if !utf8.Valid(v[1:]) {
			return source.CodeUTF8, "text is not valid UTF-8"
		}
		c.b = v[1:]
	case dBytea:
		c.b = v
	case dUUID:
		if !need(16) {
			return source.CodeCorrupt, detailLength
		}
		c.s = formatUUID(v)
	case dNumeric:
		return decodeNumeric(v, col.prec, col.scale, c)
	case dDate:
		if !need(4) {
			return source.CodeCorrupt, detailLength
		}
		d := int32(binary.BigEndian.Uint32(v))
		if d == math.MaxInt32 || d == math.MinInt32 {
			return source.CodeType, "date infinity has no date32 value"
		}
		c.i = int64(d) + pgEpochDays
		if c.i > math.MaxInt32 {
			return source.CodeType, "date out of the date32 range"
		}
	case dTime:
		if !need(8) {
			return source.CodeCorrupt, detailLength
		}
		us := int64(binary.BigEndian.Uint64(v))
		if us < 0 || us >= microsPerDay {
			// PostgreSQL accepts 24:00:00; Arrow time64 values lie in [0, 24h).
			return source.CodeType, "time 24:00:00 (or beyond) has no time64 value"
		}
		c.i = us
	case dTimestamp, dTimestampTZ:
		if !need(8) {
			return source.CodeCorrupt, detailLength
		}
		us := int64(binary.BigEndian.Uint64(v))
		if us == math.MaxInt64 || us == math.MinInt64 {
			return source.CodeType, "timestamp infinity has no Arrow timestamp value"
		}
		if us > math.MaxInt64-pgEpochMicros {
			return source.CodeType, "timestamp out of the Arrow timestamp(us) range"
		}
		c.i = us + pgEpochMicros
	case dInterval:
		if !need(16) {
			return source.CodeCorrupt, detailLength
		}
		us := int64(binary.BigEndian.Uint64(v[0:8]))
		if us > maxIntervalUs || us < -maxIntervalUs {
			return source.CodeType, "interval time part out of the month_day_nano nanosecond range"
		}
		c.iv = arrow.MonthDayNanoInterval{
			Days:        int32(binary.BigEndian.Uint32(v[8:12])),
			Months:      int32(binary.BigEndian.Uint32(v[12:16])),
			Nanoseconds: us * 1000,
		}
	}
	return "", ""
}

func formatUUID(v []byte) string {
	var b [36]byte
	hex.Encode(b[0:8], v[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], v[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], v[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], v[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], v[10:16])
	return string(b[:])
}

// numeric sign words
const (
	numPos  = 0x0000
	numNeg  = 0x4000
	numNaN  = 0xC000
	numPInf = 0xD000
	numNInf = 0xF000
)

var (
	bigTenThousand = big.NewInt(10000)
	bigTen         = big.NewInt(10)
	pow10u64       = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}
)

// decodeNumeric decodes PostgreSQL's binary numeric (int16 ndigits, int16
// weight, uint16 sign, uint16 dscale, ndigits base-10000 int16 digits; the
// value is sum digit[i]·10000^(weight-i)) into the coefficient of a
// decimal(prec, scale): value·10^scale, which must be an integer with at
// most prec digits. Nothing is rounded: a value needing more fraction digits
// or more integer digits fails the row, as do NaN and ±Infinity.
func decodeNumeric(v []byte, prec, scale int32, c *cell) (source.Code, string) {
	if len(v) < 8 {
		return source.CodeCorrupt, detailLength
	}
	nd := int(int16(binary.BigEndian.Uint16(v[0:2])))
	weight := int(int16(binary.BigEndian.Uint16(v[2:4])))
	sign := binary.BigEndian.Uint16(v[4:6])
	if nd < 0 || len(v) != 8+2*nd {
		return source.CodeCorrupt, detailLength
	}
	switch sign {
	case numPos, numNeg:
	case numNaN:
		return source.CodeType, "numeric NaN has no decimal value"
	case numPInf, numNInf:
		return source.CodeType, "numeric Infinity has no decimal value"
	default:
		return source.CodeCorrupt, "malformed numeric sign"
	}
	digits := v[8:]
	// The value is D·10^e with D the digits read as one base-10000 integer
	// and e = 4·(weight-nd+1); the coefficient is D·10^(e+scale).
	shift := 4*(weight-nd+1) + int(scale)
	neg := sign == numNeg
	// Fast path: D below 10^16 and a small shift keep everything in uint64.
	if nd <= 4 {
		var d uint64
		for i := 0; i < nd; i++ {
			g := binary.BigEndian.Uint16(digits[2*i:])
			if g > 9999 {
				return source.CodeCorrupt, "malformed numeric digit"
			}
			d = d*10000 + uint64(g)
		}
		ok := true
		switch {
		case d == 0:
		case shift >= 0 && shift <= 3:
			d *= pow10u64[shift] // d < 10^16, so d·10^3 < 10^19 fits
		case shift < 0 && shift >= -19:
			if d%pow10u64[-shift] != 0 {
				return source.CodeType, "more fractional digits than the scale of the column"
			}
			d /= pow10u64[-shift]
		default:
			ok = false
		}
		if ok {
			if prec < 20 && d >= pow10u64[prec] {
				return source.CodeType, "more digits than the precision of the column"
			}
			if prec <= 38 {
				c.d128 = decimal128.FromU64(d)
				if neg {
					c.d128 = c.d128.Negate()
				}
			} else {
				c.d256 = decimal256.FromU64(d)
				if neg {
					c.d256 = c.d256.Negate()
				}
			}
			return "", ""
		}
	}
	d := new(big.Int)
	g := new(big.Int)
	for i := 0; i < nd; i++ {
		w := binary.BigEndian.Uint16(digits[2*i:])
		if w > 9999 {
			return source.CodeCorrupt, "malformed numeric digit"
		}
		d.Mul(d, bigTenThousand)
		d.Add(d, g.SetUint64(uint64(w)))
	}
	if d.Sign() != 0 {
		if shift > 0 {
			if shift > 1000 {
				return source.CodeType, "more digits than the precision of the column"
			}
			d.Mul(d, new(big.Int).Exp(bigTen, big.NewInt(int64(shift)), nil))
		} else if shift < 0 {
			q, r := new(big.Int), new(big.Int)
			q.QuoRem(d, new(big.Int).Exp(bigTen, big.NewInt(int64(-shift)), nil), r)
			if r.Sign() != 0 {
				return source.CodeType, "more fractional digits than the scale of the column"
			}
			d = q
		}
	}
	if d.Cmp(new(big.Int).Exp(bigTen, big.NewInt(int64(prec)), nil)) >= 0 {
		return source.CodeType, "more digits than the precision of the column"
	}
	if neg {
		d.Neg(d)
	}
	if prec <= 38 {
		c.d128 = decimal128.FromBigInt(d)
	} else {
		c.d256 = decimal256.FromBigInt(d)
	}
	return "", ""
}

// appendCell appends a staged value to a builder of col.typ.
func (col *column) appendCell(b array.Builder, c *cell) {
	if c.null {
		b.AppendNull()
		return
	}
	switch col.kind {
	case dBool:
		b.(*array.BooleanBuilder).Append(c.i != 0)
	case dInt2:
		b.(*array.Int16Builder).Append(int16(c.i))
	case dInt4:
		b.(*array.Int32Builder).Append(int32(c.i))
	case dInt8:
		b.(*array.Int64Builder).Append(c.i)
	case dOID:
		b.(*array.Uint32Builder).Append(uint32(c.i))
	case dFloat4:
		b.(*array.Float32Builder).Append(math.Float32frombits(uint32(c.i)))
	case dFloat8:
		b.(*array.Float64Builder).Append(math.Float64frombits(uint64(c.i)))
	case dText, dServerText, dJSONB:
		b.(*array.StringBuilder).BinaryBuilder.Append(c.b)
	case dUUID:
		b.(*array.StringBuilder).Append(c.s)
	case dBytea:
		b.(*array.BinaryBuilder).Append(c.b)
	case dNumeric:
		if col.prec <= 38 {
			b.(*array.Decimal128Builder).Append(c.d128)
		} else {
			b.(*array.Decimal256Builder).Append(c.d256)
		}
	case dDate:
		b.(*array.Date32Builder).Append(arrow.Date32(c.i))
	case dTime:
		b.(*array.Time64Builder).Append(arrow.Time64(c.i))
	case dTimestamp, dTimestampTZ:
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(c.i))
	case dInterval:
		b.(*array.MonthDayNanoIntervalBuilder).Append(c.iv)
	}
}
