package columnar_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
	"github.com/pipewhy/pipewhy/normalize"
)

// This file generates Go values first and then builds, from the same values and
// independently, both an Arrow array and the scalar normalize.Values that Python would
// hold for them. The conversions here use Go's time package, math/big and math.Ldexp,
// not the encoder's code.

var mem = memory.NewGoAllocator()

// v1Types are the column types C2 v1 represents; extTypes need an extension profile.
func v1Types() []arrow.DataType {
	return []arrow.DataType{
		arrow.Null,
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.StringView,
		arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary, arrow.BinaryTypes.BinaryView,
		&arrow.FixedSizeBinaryType{ByteWidth: 11},
		&arrow.Decimal32Type{Precision: 9, Scale: 2},
		&arrow.Decimal64Type{Precision: 18, Scale: -3},
		&arrow.Decimal128Type{Precision: 38, Scale: 10},
		&arrow.Decimal128Type{Precision: 20, Scale: 0},
		&arrow.Decimal256Type{Precision: 76, Scale: 30},
		&arrow.TimestampType{Unit: arrow.Second},
		&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "+05:30"},
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "-08:00"},
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Berlin"},
		&arrow.TimestampType{Unit: arrow.Second, TimeZone: "America/New_York"},
		&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Australia/Lord_Howe"},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.PrimitiveTypes.Int64},
		decimaltext.New(),
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: decimaltext.New()},
	}
}

func extTypes() []arrow.DataType {
	return []arrow.DataType{
		&arrow.TimestampType{Unit: arrow.Nanosecond},
		&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Berlin"},
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64,
		arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time32ms,
		arrow.FixedWidthTypes.Time64us, arrow.FixedWidthTypes.Time64ns,
		arrow.FixedWidthTypes.Duration_s, arrow.FixedWidthTypes.Duration_ms,
		arrow.FixedWidthTypes.Duration_us, arrow.FixedWidthTypes.Duration_ns,
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.FixedWidthTypes.Date32},
		arrow.ListOf(arrow.PrimitiveTypes.Int64),
		arrow.LargeListOf(arrow.BinaryTypes.String),
		arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int16),
		arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: false},
			arrow.Field{Name: "c", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}),
	}
}

// genColumn returns an array of n rows of type typ and the scalar value of each row.
func genColumn(rng *rand.Rand, typ arrow.DataType, n int) (arrow.Array, []normalize.Value) {
	if d, ok := typ.(*arrow.DictionaryType); ok {
		dn := 1 + rng.IntN(8)
		dict, dvals := genColumn(rng, d.ValueType, dn)
		ib := array.NewBuilder(mem, d.IndexType)
		vals := make([]normalize.Value, n)
		for r := range n {
			if rng.IntN(8) == 0 {
				ib.AppendNull()
				vals[r] = normalize.Nil
				continue
			}
			k := rng.IntN(dn)
			switch b := ib.(type) {
			case *array.Int16Builder:
				b.Append(int16(k))
			case *array.Int32Builder:
				b.Append(int32(k))
			case *array.Uint8Builder:
				b.Append(uint8(k))
			}
			vals[r] = dvals[k]
		}
		return array.NewDictionaryArray(typ, ib.NewArray(), dict), vals
	}
	b := array.NewBuilder(mem, typ)
	vals := make([]normalize.Value, n)
	for r := range n {
		if typ.ID() == arrow.NULL || rng.IntN(7) == 0 {
			b.AppendNull()
			vals[r] = normalize.Nil
			continue
		}
		vals[r] = genValue(rng, b, typ)
	}
	return b.NewArray(), vals
}

// edge picks one of the edge values half of the time, else a random value.
func edge[T any](rng *rand.Rand, edges []T, random func() T) T {
	if rng.IntN(2) == 0 {
		return edges[rng.IntN(len(edges))]
	}
	return random()
}

func genValue(rng *rand.Rand, b array.Builder, typ arrow.DataType) normalize.Value {
	switch b := b.(type) {
	case *array.BooleanBuilder:
		v := rng.IntN(2) == 1
		b.Append(v)
		return normalize.BoolValue(v)
	case *array.Int8Builder:
		v := int8(rng.Uint64())
		b.Append(v)
		return intValue(int64(v))
	case *array.Int16Builder:
		v := int16(rng.Uint64())
		b.Append(v)
		return intValue(int64(v))
	case *array.Int32Builder:
		v := int32(rng.Uint64())
		b.Append(v)
		return intValue(int64(v))
	case *array.Int64Builder:
		v := edge(rng, []int64{0, -1, 1, math.MinInt64, math.MaxInt64}, func() int64 { return int64(rng.Uint64()) >> rng.IntN(64) })
		b.Append(v)
		return intValue(v)
	case *array.Uint8Builder:
		v := uint8(rng.Uint64())
		b.Append(v)
		return normalize.BigInt(new(big.Int).SetUint64(uint64(v)))
	case *array.Uint16Builder:
		v := uint16(rng.Uint64())
		b.Append(v)
		return normalize.BigInt(new(big.Int).SetUint64(uint64(v)))
	case *array.Uint32Builder:
		v := uint32(rng.Uint64())
		b.Append(v)
		return normalize.BigInt(new(big.Int).SetUint64(uint64(v)))
	case *array.Uint64Builder:
		v := edge(rng, []uint64{0, 1, math.MaxUint64, 1 << 63}, func() uint64 { return rng.Uint64() >> rng.IntN(64) })
		b.Append(v)
		return normalize.BigInt(new(big.Int).SetUint64(v))
	case *array.Float16Builder:
		bits := edge(rng, []uint16{0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfd55, 0x0001, 0x03ff, 0x0400, 0x7bff}, func() uint16 { return uint16(rng.Uint32()) })
		b.Append(float16.FromBits(bits))
		return normalize.FloatValue{Bits: ref16(bits)}
	case *array.Float32Builder:
		bits := edge(rng, []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffa5a5a5, 1, 0x007fffff, 0x00800000, 0x7f7fffff}, rng.Uint32)
		b.Append(math.Float32frombits(bits))
		return normalize.FloatValue{Bits: ref32(bits)}
	case *array.Float64Builder:
		bits := edge(rng, []uint64{0, 1 << 63, 0x7ff0000000000001, 0xfff8000000000000, 0x7ff0000000000000, 1}, rng.Uint64)
		b.Append(math.Float64frombits(bits))
		return normalize.FloatValue{Bits: bits}
	case *array.StringBuilder:
		s := genText(rng)
		b.Append(s)
		return normalize.TextValue(s)
	case *array.LargeStringBuilder:
		s := genText(rng)
		b.Append(s)
		return normalize.TextValue(s)
	case *array.StringViewBuilder:
		s := genText(rng)
		b.Append(s)
		return normalize.TextValue(s)
	case *array.FixedSizeBinaryBuilder:
		p := make([]byte, typ.(*arrow.FixedSizeBinaryType).ByteWidth)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		b.Append(p)
		return normalize.BytesValue(p)
	case *array.BinaryBuilder: // binary and large binary
		p := genBytes(rng)
		b.Append(p)
		return normalize.BytesValue(p)
	case *array.BinaryViewBuilder:
		p := genBytes(rng)
		b.Append(p)
		return normalize.BytesValue(p)
	case *array.Decimal32Builder:
		v := int32(rng.Uint32()) >> rng.IntN(32)
		b.Append(decimal.Decimal32(v))
		return decimalScalar(big.NewInt(int64(v)), typ.(*arrow.Decimal32Type).Scale)
	case *array.Decimal64Builder:
		v := int64(rng.Uint64()) >> rng.IntN(64)
		if rng.IntN(3) == 0 {
			v = int64(rng.IntN(100)) * 1000 // trailing zeros
		}
		b.Append(decimal.Decimal64(v))
		return decimalScalar(big.NewInt(v), typ.(*arrow.Decimal64Type).Scale)
	case *array.Decimal128Builder:
		v := randBig(rng, 127)
		b.Append(decimal128.FromBigInt(v))
		return decimalScalar(v, typ.(*arrow.Decimal128Type).Scale)
	case *array.Decimal256Builder:
		v := randBig(rng, 255)
		b.Append(decimal256.FromBigInt(v))
		return decimalScalar(v, typ.(*arrow.Decimal256Type).Scale)
	case *array.TimestampBuilder:
		return genTimestamp(rng, b, typ.(*arrow.TimestampType))
	case *array.Date32Builder:
		days := rng.Int64N(daysMax-daysMin+1) + daysMin
		b.Append(arrow.Date32(days))
		return dateScalar(days)
	case *array.Date64Builder:
		days := rng.Int64N(daysMax-daysMin+1) + daysMin
		b.Append(arrow.Date64(days * 86_400_000))
		return dateScalar(days)
	case *array.Time32Builder:
		unit := typ.(*arrow.Time32Type).Unit
		per := int64(86400)
		if unit == arrow.Millisecond {
			per *= 1000
		}
		v := rng.Int64N(per)
		b.Append(arrow.Time32(v))
		return timeScalar(v, unit)
	case *array.Time64Builder:
		unit := typ.(*arrow.Time64Type).Unit
		per := int64(86400e6)
		if unit == arrow.Nanosecond {
			per *= 1000
		}
		v := rng.Int64N(per)
		b.Append(arrow.Time64(v))
		return timeScalar(v, unit)
	case *array.ListBuilder, *array.LargeListBuilder, *array.FixedSizeListBuilder, *array.StructBuilder:
		return normalize.NestedValue{Type: canonicalSchema(typ), Value: genNested(rng, b, typ, false, true)}
	case *array.ExtensionBuilder: // decimaltext.Type
		text, d := genDecimalText(rng)
		b.StorageBuilder().(*array.StringBuilder).Append(text)
		return d
	case *array.DurationBuilder:
		v := edge(rng, []int64{0, -1, math.MinInt64, math.MaxInt64}, func() int64 { return int64(rng.Uint64()) >> rng.IntN(64) })
		b.Append(arrow.Duration(v))
		return normalize.DurationValue{Value: v, Unit: [...]normalize.TimeUnit{normalize.UnitSecond, normalize.UnitMillisecond, normalize.UnitMicrosecond, normalize.UnitNanosecond}[typ.(*arrow.DurationType).Unit]}
	}
	panic("genValue: no generator for " + typ.String())
}

// genDecimalText returns a decimal string in Python's syntax and the Decimal it denotes,
// built from the same random parts: sign, integer and fraction digits (leading and
// trailing zeros kept), exponent, or a special name.
func genDecimalText(rng *rand.Rand) (string, normalize.DecimalValue) {
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
			if rng.IntN(4) == 0 {
				b[i] = '0'
			}
		}
		return string(b)
	}
	var d normalize.DecimalValue
	sign := [...]string{"", "", "-", "+"}[rng.IntN(4)]
	d.Negative = sign == "-"
	switch rng.IntN(12) {
	case 0:
		d.Form = normalize.DecimalInfinity
		return sign + [...]string{"Infinity", "inf", "INF"}[rng.IntN(3)], d
	case 1:
		d.Form = normalize.DecimalNaN
		payload := digits(rng.IntN(3))
		d.Digits = payload
		return sign + "NaN" + payload, d
	case 2:
		d.Form = normalize.DecimalSNaN
		return sign + "sNaN", d
	}
	intPart, frac := digits(rng.IntN(30)), ""
	text := sign + intPart
	if intPart == "" || rng.IntN(2) == 0 {
		frac = digits(rng.IntN(30))
		if intPart == "" && frac == "" {
			frac = "0"
		}
		text += "." + frac
	}
	exp := int64(0)
	if rng.IntN(2) == 0 {
		exp = rng.Int64N(2_000_001) - 1_000_000
		if rng.IntN(2) == 0 {
			exp = rng.Int64N(41) - 20
		}
		es := ""
		if exp >= 0 && rng.IntN(2) == 0 {
			es = "+"
		}
		text += [...]string{"e", "E"}[rng.IntN(2)] + es + strconv.FormatInt(exp, 10)
	}
	d.Digits = intPart + frac
	if e := exp - int64(len(frac)); e < 0 {
		d.ExponentNegative, d.ExponentMagnitude = true, uint64(-e)
	} else {
		d.ExponentMagnitude = uint64(e)
	}
	return text, d
}

func intValue(v int64) normalize.Value {
	return normalize.BigInt(big.NewInt(v)) // via big.Int: independent of Int/Uint
}

// ref32 is the binary64 pattern of a binary32 pattern: the Go conversion for numbers,
// and by hand for NaNs (the conversion would quiet a signalling NaN): sign, all-ones
// exponent, the 23 fraction bits at the top of the 52.
func ref32(b uint32) uint64 {
	f := math.Float32frombits(b)
	if f != f {
		return uint64(b>>31)<<63 | 0x7ff<<52 | uint64(b&0x7fffff)<<29
	}
	return math.Float64bits(float64(f))
}

// ref16 computes the binary16 value with math.Ldexp (exact in binary64).
func ref16(b uint16) uint64 {
	sign := b>>15 == 1
	exp := int(b>>10) & 0x1f
	frac := uint64(b & 0x3ff)
	var f float64
	switch exp {
	case 0x1f:
		if frac != 0 {
			return uint64(b>>15)<<63 | 0x7ff<<52 | frac<<42
		}
		f = math.Inf(1)
	case 0:
		f = math.Ldexp(float64(frac), -24)
	default:
		f = math.Ldexp(float64(1024+frac), exp-25)
	}
	if sign {
		f = math.Copysign(f, -1)
	}
	return math.Float64bits(f)
}

var textPool = []string{"", "a", "hello, world", "élan", "e\u0301", "\u212b", "Å", "한국어", "\U0001F600 emoji", "12345678", "123456789", "ﬁ ligature", "\u1e9b\u0323"}

func genText(rng *rand.Rand) string {
	if rng.IntN(2) == 0 {
		return textPool[rng.IntN(len(textPool))]
	}
	n := rng.IntN(20)
	rs := make([]rune, n)
	for i := range rs {
		switch rng.IntN(4) {
		case 0:
			rs[i] = rune(0x300 + rng.IntN(0x70)) // combining marks
		case 1:
			rs[i] = rune(rng.IntN(0x80))
		default:
			for {
				rs[i] = rune(rng.IntN(0x110000))
				if utf8.ValidRune(rs[i]) {
					break
				}
			}
		}
	}
	return string(rs)
}

func genBytes(rng *rand.Rand) []byte {
	p := make([]byte, rng.IntN(25))
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	return p
}

func randBig(rng *rand.Rand, maxBits int) *big.Int {
	n := rng.IntN(maxBits + 1)
	v := new(big.Int)
	for i := 0; i < n; i += 32 {
		v.Lsh(v, 32).Or(v, big.NewInt(int64(rng.Uint32())))
	}
	v.Rsh(v, uint(max(0, v.BitLen()-n)))
	if rng.IntN(4) == 0 {
		v.Mul(v, big.NewInt(int64(1000*rng.IntN(10))))
		if v.BitLen() > maxBits {
			v.Rsh(v, uint(v.BitLen()-maxBits))
		}
	}
	if rng.IntN(2) == 0 {
		v.Neg(v)
	}
	return v
}

// decimalScalar is Python's Decimal for the unscaled value v and scale s: coefficient
// |v| in decimal, exponent -s.
func decimalScalar(v *big.Int, scale int32) normalize.Value {
	return normalize.DecimalValue{
		Negative:          v.Sign() < 0,
		Digits:            new(big.Int).Abs(v).String(),
		ExponentNegative:  scale > 0,
		ExponentMagnitude: uint64(max(scale, -scale)),
	}
}

var (
	daysMin = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400
	daysMax = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Unix() / 86400
)

func dateScalar(days int64) normalize.Value {
	y, m, d := time.Unix(days*86400, 0).UTC().Date()
	return normalize.DateValue{Year: y, Month: int(m), Day: d}
}

func timeScalar(v int64, unit arrow.TimeUnit) normalize.Value {
	ns := v * int64(unit.Multiplier())
	t := time.Unix(0, ns).UTC()
	return normalize.TimeValue{Hour: t.Hour(), Minute: t.Minute(), Second: t.Second(), Nanosecond: t.Nanosecond()}
}

// transitionInstants are instants (Unix seconds) near DST transitions of the test zones.
var transitionInstants = func() []int64 {
	var out []int64
	for _, s := range []string{
		"2024-10-27T00:00:00Z", "2024-10-27T01:00:00Z", "2024-03-31T01:00:00Z", // Europe/Berlin
		"2024-11-03T05:00:00Z", "2024-11-03T06:00:00Z", "2024-03-10T07:00:00Z", // America/New_York
		"2024-04-06T15:00:00Z", "2024-10-05T15:30:00Z", // Australia/Lord_Howe (30 minutes)
		"1893-03-31T23:00:00Z", "1883-11-18T17:00:00Z", // LMT changes
	} {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		out = append(out, t.Unix())
	}
	return out
}()

func genTimestamp(rng *rand.Rand, b *array.TimestampBuilder, typ *arrow.TimestampType) normalize.Value {
	// Instants from year 2 to 9998 (overflow is tested separately), or near a transition.
	lo := time.Date(2, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9998, 12, 31, 0, 0, 0, 0, time.UTC).Unix()
	if typ.Unit == arrow.Nanosecond {
		lo, hi = math.MinInt64/1_000_000_000+1, math.MaxInt64/1_000_000_000-1
	}
	var sec int64
	if rng.IntN(2) == 0 {
		sec = transitionInstants[rng.IntN(len(transitionInstants))] + rng.Int64N(7200) - 3600
	} else {
		sec = lo + rng.Int64N(hi-lo)
	}
	var sub int64 // sub-second part in units
	per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[typ.Unit]
	if per > 1 {
		sub = rng.Int64N(per)
		if rng.IntN(3) == 0 {
			sub = sub / 1000 * 1000
		}
	}
	b.Append(arrow.Timestamp(sec*per + sub))
	nanos := sub * (1e9 / per)

	var loc *time.Location
	zone := normalize.Zone{}
	switch tz := typ.TimeZone; {
	case tz == "":
		loc = time.UTC
	case tz == "UTC":
		loc, zone = time.UTC, normalize.FixedZone(0, "UTC")
	case tz[0] == '+' || tz[0] == '-':
		h, _ := strconv.Atoi(tz[1:3])
		m, _ := strconv.Atoi(tz[4:6])
		off := h*3600 + m*60
		if tz[0] == '-' {
			off = -off
		}
		loc, zone = time.FixedZone("", off), normalize.FixedZone(int64(off)*1e6, "UTC"+tz)
	default:
		var err error
		if loc, err = time.LoadLocation(tz); err != nil {
			panic(err)
		}
		zone = normalize.IANAZone(tz)
	}
	t := time.Unix(sec, nanos).In(loc)
	ts := normalize.TimestampValue{
		Year: t.Year(), Month: int(t.Month()), Day: t.Day(),
		Hour: t.Hour(), Minute: t.Minute(), Second: t.Second(),
		Microsecond: t.Nanosecond() / 1000, Nanosecond: t.Nanosecond() % 1000,
		Zone: zone,
	}
	// fold=1 exactly when an earlier instant showed the same wall clock. Such an
	// instant u has u = t - (offset(u) - offset(t)), so try every offset seen in the
	// three hours before t (sampled every five minutes).
	if zone.Kind == normalize.ZoneIANA {
		_, off := t.Zone()
		for k := int64(0); k <= 36; k++ {
			_, o := time.Unix(sec-k*300, 0).In(loc).Zone()
			if o <= off {
				continue
			}
			if u := time.Unix(sec-int64(o-off), nanos).In(loc); sameWall(u, t) {
				ts.Fold = 1
				break
			}
		}
	}
	return ts
}

func sameWall(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Hour() == b.Hour() && a.Minute() == b.Minute() && a.Second() == b.Second()
}

func sortedIDs(rng *rand.Rand, n int) []normalize.FieldID {
	ids := make([]normalize.FieldID, n)
	for i := range ids {
		ids[i] = normalize.FieldID(i*3 + rng.IntN(3))
	}
	rng.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return slices.Clip(ids)
}

func timeUnixUTC(sec int64) (int, int, int) {
	y, m, d := time.Unix(sec, 0).UTC().Date()
	return y, int(m), d
}

// Test-side graphforge-canonical/1 encoder for the nested types generated here, written
// from the seed's grammar: big-endian counts and integers, "text" = u64 length + bytes,
// a field = text name, u8 nullable, data type, u32 metadata count (0 here).

func be(b []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func ctext(b []byte, s string) []byte { return append(be(b, uint64(len(s)), 8), s...) }

func canonicalSchema(t arrow.DataType) []byte {
	b := be([]byte("GFS1"), 1, 4)
	b = canonicalField(b, arrow.Field{Name: "", Type: t, Nullable: true})
	return be(b, 0, 4) // schema metadata
}

func canonicalField(b []byte, f arrow.Field) []byte {
	b = ctext(b, f.Name)
	if f.Nullable {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = canonicalType(b, f.Type)
	return be(b, 0, 4) // field metadata
}

func canonicalType(b []byte, t arrow.DataType) []byte {
	switch t := t.(type) {
	case *arrow.Int16Type:
		return append(b, 0x11)
	case *arrow.Int32Type:
		return append(b, 0x12)
	case *arrow.Int64Type:
		return append(b, 0x13)
	case *arrow.StringType, *arrow.LargeStringType:
		return append(b, 0x30)
	case *arrow.ListType:
		return canonicalField(append(b, 0x60), t.ElemField())
	case *arrow.LargeListType:
		return canonicalField(append(b, 0x60), t.ElemField())
	case *arrow.FixedSizeListType:
		return canonicalField(be(append(b, 0x61), uint64(t.Len()), 4), t.ElemField())
	case *arrow.StructType:
		b = be(append(b, 0x62), uint64(t.NumFields()), 4)
		for _, f := range t.Fields() {
			b = canonicalField(b, f)
		}
		return b
	}
	panic("canonicalType: " + t.String())
}

// genNested appends one value of type t to b and returns its canonical value bytes,
// presence byte first; below the top level a nullable position is null now and then.
func genNested(rng *rand.Rand, b array.Builder, t arrow.DataType, nullable, top bool) []byte {
	if !top && nullable && rng.IntN(5) == 0 {
		b.AppendNull()
		return []byte{0}
	}
	out := []byte{1}
	switch bb := b.(type) {
	case *array.Int16Builder:
		v := int16(rng.Uint32())
		bb.Append(v)
		return be(out, uint64(uint16(v)), 2)
	case *array.Int32Builder:
		v := int32(rng.Uint32())
		bb.Append(v)
		return be(out, uint64(uint32(v)), 4)
	case *array.Int64Builder:
		v := int64(rng.Uint64())
		bb.Append(v)
		return be(out, uint64(v), 8)
	case *array.StringBuilder:
		s := genText(rng)
		bb.Append(s)
		return ctext(out, s)
	case *array.LargeStringBuilder:
		s := genText(rng)
		bb.Append(s)
		return ctext(out, s)
	case *array.ListBuilder:
		elem := t.(*arrow.ListType).ElemField()
		k := rng.IntN(4)
		bb.Append(true)
		out = be(out, uint64(k), 8)
		for range k {
			out = append(out, genNested(rng, bb.ValueBuilder(), elem.Type, elem.Nullable, false)...)
		}
		return out
	case *array.LargeListBuilder:
		elem := t.(*arrow.LargeListType).ElemField()
		k := rng.IntN(4)
		bb.Append(true)
		out = be(out, uint64(k), 8)
		for range k {
			out = append(out, genNested(rng, bb.ValueBuilder(), elem.Type, elem.Nullable, false)...)
		}
		return out
	case *array.FixedSizeListBuilder:
		ft := t.(*arrow.FixedSizeListType)
		bb.Append(true)
		for range ft.Len() {
			out = append(out, genNested(rng, bb.ValueBuilder(), ft.Elem(), ft.ElemField().Nullable, false)...)
		}
		return out
	case *array.StructBuilder:
		st := t.(*arrow.StructType)
		bb.Append(true)
		for i, f := range st.Fields() {
			out = append(out, genNested(rng, bb.FieldBuilder(i), f.Type, f.Nullable, false)...)
		}
		return out
	}
	panic("genNested: " + t.String())
}
