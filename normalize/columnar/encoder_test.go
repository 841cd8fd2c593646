package columnar_test

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

// packStr packs s as the contract's text payload (test-side, written from the rule).
func packStr(s string) []uint64 {
	out := []uint64{uint64(len(s))}
	for i := 0; i < len(s); i += 8 {
		var w uint64
		for k := 0; k < 8 && i+k < len(s); k++ {
			w |= uint64(s[i+k]) << (8 * k)
		}
		out = append(out, w)
	}
	return out
}

func cat(parts ...[]uint64) []uint64 { return slices.Concat(parts...) }

// encodeOne encodes a one-column, one-row table and returns the field's type code and
// payload.
func encodeOne(t *testing.T, arr arrow.Array, p normalize.Profile) (normalize.TypeCode, []uint64) {
	t.Helper()
	w := encodeRecords(t, arr, p)[0]
	if len(w) < 6 || w[0] != 1 || w[1] != 2 || w[2] != 1 || w[3] != 5 || int(w[5]) != len(w)-6 {
		t.Fatalf("bad frame %v", w)
	}
	return normalize.TypeCode(w[4]), w[6:]
}

// encodeRecords encodes a one-column table (the column is field 5) and returns each
// row's record words.
func encodeRecords(t *testing.T, arr arrow.Array, p normalize.Profile) [][]uint64 {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arr.DataType(), Nullable: true}}, nil)
	enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "x", Field: 5}}, p)
	if err != nil {
		t.Fatal(err)
	}
	var b normalize.RecordBatch
	if err := enc.Append(&b, array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))); err != nil {
		t.Fatal(err)
	}
	out := make([][]uint64, arr.Len())
	for i := range out {
		out[i] = b.Record(i)
	}
	return out
}

func tsArray(t *testing.T, typ *arrow.TimestampType, vals ...int64) arrow.Array {
	b := array.NewTimestampBuilder(mem, typ)
	for _, v := range vals {
		b.Append(arrow.Timestamp(v))
	}
	return b.NewArray()
}

// TestHandWords pins words derived by hand from C2, the typed-values contract and the
// package's mapping table.
func TestHandWords(t *testing.T) {
	const (
		strict  = normalize.StrictV1
		logical = normalize.LogicalV1
		sext    = normalize.StrictV1Ext1
	)
	berlinFold1 := int64(1729992600) // 2024-10-27T01:30:00Z = 02:30 CET, the second 02:30
	berlinFold0 := int64(1729989000) // 2024-10-27T00:30:00Z = 02:30 CEST, the first
	d128 := func(scale int32, v int64) arrow.Array {
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: scale})
		b.Append(decimal128.FromI64(v))
		return b.NewArray()
	}
	f32 := func(bits uint32) arrow.Array {
		b := array.NewFloat32Builder(mem)
		b.Append(math.Float32frombits(bits))
		return b.NewArray()
	}
	ts := normalize.Timestamp
	cases := []struct {
		name  string
		arr   arrow.Array
		p     normalize.Profile
		tc    normalize.TypeCode
		words []uint64
	}{
		{"fixed +01:00 has Python's tzname", tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+01:00"}, 0), strict, ts,
			cat([]uint64{1970, 1, 1, 1, 0, 0, 0, 0, 1, 3600000000}, packStr("UTC+01:00"))},
		{"fixed -05:30", tsArray(t, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "-05:30"}, 1), strict, ts,
			cat([]uint64{1969, 12, 31, 18, 30, 0, 1000, 0, 1, neg(19800000000)}, packStr("UTC-05:30"))},
		{"UTC is timezone.utc", tsArray(t, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, 1), strict, ts,
			cat([]uint64{1970, 1, 1, 0, 0, 0, 1, 0, 1, 0}, packStr("UTC"))},
		{"-00:00 is timezone.utc", tsArray(t, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "-00:00"}, 0), strict, ts,
			cat([]uint64{1970, 1, 1, 0, 0, 0, 0, 0, 1, 0}, packStr("UTC"))},
		{"naive", tsArray(t, &arrow.TimestampType{Unit: arrow.Second}, -1), strict, ts,
			[]uint64{1969, 12, 31, 23, 59, 59, 0, 0, 0, 0, 0}},
		{"Berlin second 02:30 has fold 1", tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Berlin"}, berlinFold1), strict, ts,
			cat([]uint64{2024, 10, 27, 2, 30, 0, 0, 1, 2, 3600000000}, packStr("Europe/Berlin"))},
		{"Berlin first 02:30 has fold 0", tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Berlin"}, berlinFold0), strict, ts,
			cat([]uint64{2024, 10, 27, 2, 30, 0, 0, 0, 2, 7200000000}, packStr("Europe/Berlin"))},
		{"Berlin under logical-v1 is UTC", tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Berlin"}, berlinFold1), logical, ts,
			cat([]uint64{2024, 10, 27, 1, 30, 0, 0, 0, 1, 0}, packStr("UTC"))},
		{"ns whole microsecond is TIMESTAMP", tsArray(t, &arrow.TimestampType{Unit: arrow.Nanosecond}, 1000), sext, ts,
			[]uint64{1970, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0}},
		{"ns is TIMESTAMP_NS", tsArray(t, &arrow.TimestampType{Unit: arrow.Nanosecond}, -1), sext, normalize.TimestampNS,
			[]uint64{1969, 12, 31, 23, 59, 59, 999999999, 0, 0, 0, 0}},
		{"decimal -123.45", d128(2, -12345), strict, normalize.Decimal, []uint64{1, 0, 1, 2, 5, 1, 12345}},
		{"decimal 12.00 strict", d128(2, 1200), strict, normalize.Decimal, []uint64{0, 0, 1, 2, 4, 1, 1200}},
		{"decimal 12.00 logical", d128(2, 1200), logical, normalize.Decimal, []uint64{0, 0, 0, 0, 2, 1, 12}},
		{"decimal 0.000 strict", d128(3, 0), strict, normalize.Decimal, []uint64{0, 0, 1, 3, 1, 1, 0}},
		{"decimal 0.000 logical", d128(3, 0), logical, normalize.Decimal, []uint64{0, 0, 0, 0, 1, 1, 0}},
		{"decimal 5E+2 (negative scale)", d128(-2, 5), strict, normalize.Decimal, []uint64{0, 0, 0, 2, 1, 1, 5}},
		{"decimal 10 scale 1 logical is 1E+0", d128(1, 10), logical, normalize.Decimal, []uint64{0, 0, 0, 0, 1, 1, 1}},
		{"float32 sNaN strict keeps it", f32(0x7f800001), strict, normalize.Float64, []uint64{0x7ff0000020000000}},
		{"float32 sNaN logical canonical", f32(0x7f800001), logical, normalize.Float64, []uint64{0x7ff8000000000000}},
		{"float32 -0 logical", f32(0x80000000), logical, normalize.Float64, []uint64{0}},
	}
	{
		b := array.NewDecimal256Builder(mem, &arrow.Decimal256Type{Precision: 76, Scale: 0})
		b.Append(decimal256.New(0, 0, 1, 0)) // 2**64
		cases = append(cases, struct {
			name  string
			arr   arrow.Array
			p     normalize.Profile
			tc    normalize.TypeCode
			words []uint64
		}{"decimal256 2**64", b.NewArray(), strict, normalize.Decimal, []uint64{0, 0, 0, 0, 20, 2, 0, 1}})
		b.Append(decimal256.New(0, 0, 1, 0).Negate())
		arr := b.NewArray()
		cases = append(cases, struct {
			name  string
			arr   arrow.Array
			p     normalize.Profile
			tc    normalize.TypeCode
			words []uint64
		}{"decimal256 -2**64", arr, strict, normalize.Decimal, []uint64{1, 0, 0, 0, 20, 2, 0, 1}})
	}
	for _, c := range cases {
		tc, w := encodeOne(t, c.arr, c.p)
		if tc != c.tc || !slices.Equal(w, c.words) {
			t.Errorf("%s: %v %v, want %v %v", c.name, tc, w, c.tc, c.words)
		}
	}
}

// decText is a decimal text array of the given values ("" is a null).
func decText(vals ...string) arrow.Array {
	b := array.NewExtensionBuilder(mem, decimaltext.New())
	sb := b.StorageBuilder().(*array.StringBuilder)
	for _, v := range vals {
		if v == "" {
			sb.AppendNull()
		} else {
			sb.Append(v)
		}
	}
	return b.NewArray()
}

// TestDecimalTextHandWords pins the DECIMAL words of decimal text values, derived by hand
// from C2 PW-03.07 and Python: Decimal(text).as_tuple() gives sign, digits and exponent;
// the payload is [sign, form, exponent sign, exponent magnitude, digit count, coefficient
// word count, coefficient words]; logical-v1 removes trailing zeros (raising the exponent)
// and the sign of zero. Every value's words come from its own text alone.
func TestDecimalTextHandWords(t *testing.T) {
	const strict, logical = normalize.StrictV1, normalize.LogicalV1
	// 123456789012345678901235 = 6692·2**64 + 11177671081359486963 (24 digits).
	big := []uint64{0, 0, 1, 1, 24, 2, 11177671081359486963, 6692}
	cases := []struct {
		text  string
		p     normalize.Profile
		words []uint64
	}{
		{"1.50", strict, []uint64{0, 0, 1, 2, 3, 1, 150}},
		{"1.50", logical, []uint64{0, 0, 1, 1, 2, 1, 15}},
		{"1.5", strict, []uint64{0, 0, 1, 1, 2, 1, 15}},
		{"1.5", logical, []uint64{0, 0, 1, 1, 2, 1, 15}},
		{"2.5", strict, []uint64{0, 0, 1, 1, 2, 1, 25}},
		{"7", strict, []uint64{0, 0, 0, 0, 1, 1, 7}},
		{"7", logical, []uint64{0, 0, 0, 0, 1, 1, 7}},
		{"70", strict, []uint64{0, 0, 0, 0, 2, 1, 70}},
		{"70", logical, []uint64{0, 0, 0, 1, 1, 1, 7}},
		{"-0.0", strict, []uint64{1, 0, 1, 1, 1, 1, 0}},
		{"-0.0", logical, []uint64{0, 0, 0, 0, 1, 1, 0}},
		{"1e3", strict, []uint64{0, 0, 0, 3, 1, 1, 1}},
		{"1e3", logical, []uint64{0, 0, 0, 3, 1, 1, 1}},
		{"1E-2", strict, []uint64{0, 0, 1, 2, 1, 1, 1}},
		{"-2.50e1", strict, []uint64{1, 0, 1, 1, 3, 1, 250}},
		{"-2.50e1", logical, []uint64{1, 0, 0, 0, 2, 1, 25}},
		{"12345678901234567890123.5", strict, big},
		{"12345678901234567890123.5", logical, big},
		{"NaN", strict, []uint64{0, 2, 0, 0, 0, 1, 0}},
		{"-Infinity", strict, []uint64{1, 1, 0, 0, 1, 1, 0}},
	}
	for _, c := range cases {
		tc, w := encodeOne(t, decText(c.text), c.p)
		if tc != normalize.Decimal || !slices.Equal(w, c.words) {
			t.Errorf("%q under %s: %v %v, want DECIMAL %v", c.text, c.p.Name(), tc, w, c.words)
		}
	}
	// In one column, each value keeps its own exponent: 2.5 beside 1.50 is still 2.5.
	schema := arrow.NewSchema([]arrow.Field{field("x", decimaltext.New())}, nil)
	enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "x", Field: 1}}, strict)
	if err != nil {
		t.Fatal(err)
	}
	arr := decText("1.50", "", "2.5")
	var b normalize.RecordBatch
	if err := enc.Append(&b, array.NewRecordBatch(schema, []arrow.Array{arr}, 3)); err != nil {
		t.Fatal(err)
	}
	want := [][]uint64{
		{1, 2, 1, 1, uint64(normalize.Decimal), 7, 0, 0, 1, 2, 3, 1, 150},
		{1, 2, 1, 1, uint64(normalize.Null), 0},
		{1, 2, 1, 1, uint64(normalize.Decimal), 7, 0, 0, 1, 1, 2, 1, 25},
	}
	for r, w := range want {
		if got := b.Record(r); !slices.Equal(got, w) {
			t.Errorf("row %d: %v, want %v", r, got, w)
		}
	}
}

func TestExtensionHandWords(t *testing.T) {
	p := normalize.StrictV1Ext1
	d32 := array.NewDate32Builder(mem)
	d32.Append(-1)
	d64 := array.NewDate64Builder(mem)
	d64.Append(86_400_000 * 19782) // 2024-02-29
	t32 := array.NewTime32Builder(mem, &arrow.Time32Type{Unit: arrow.Millisecond})
	t32.Append(1000)
	t64 := array.NewTime64Builder(mem, &arrow.Time64Type{Unit: arrow.Nanosecond})
	t64.Append(86_399_999_999_999)
	du := array.NewDurationBuilder(mem, &arrow.DurationType{Unit: arrow.Second})
	du.Append(-1)
	dmax := array.NewDurationBuilder(mem, &arrow.DurationType{Unit: arrow.Second})
	dmax.Append(math.MaxInt64) // 9223372036854775807e9 = 0x1dcd64fff_e2329b000 ... computed below
	cases := []struct {
		name  string
		arr   arrow.Array
		tc    normalize.TypeCode
		words []uint64
	}{
		{"date32 -1", d32.NewArray(), normalize.Date, []uint64{math.MaxUint64}},
		{"date64 2024-02-29", d64.NewArray(), normalize.Date, []uint64{19782}},
		{"time32 ms 1000", t32.NewArray(), normalize.Time, []uint64{1_000_000_000}},
		{"time64 ns last", t64.NewArray(), normalize.Time, []uint64{86_399_999_999_999}},
		{"duration -1s", du.NewArray(), normalize.Duration, []uint64{neg(1_000_000_000), math.MaxUint64}},
		// (2**63-1)*10**9 = 9223372036854775807000000000 = 0x1DCD64FF_FFFFFFFF_C4653600
		{"duration max s", dmax.NewArray(), normalize.Duration, []uint64{0xFFFFFFFFC4653600, 0x1DCD64FF}},
	}
	for _, c := range cases {
		tc, w := encodeOne(t, c.arr, p)
		if tc != c.tc || !slices.Equal(w, c.words) {
			t.Errorf("%s: %v %v, want %v %v", c.name, tc, w, c.tc, c.words)
		}
	}
}

func field(name string, typ arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: typ, Nullable: true}
}

// TestConstructionErrors: unsupported types and column-list mistakes fail at
// NewEncoder with stable codes naming the column and type.
func TestConstructionErrors(t *testing.T) {
	list := arrow.ListOf(arrow.PrimitiveTypes.Int64)
	strct := arrow.StructOf(field("a", arrow.PrimitiveTypes.Int64))
	mp := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	cases := []struct {
		name string
		typ  arrow.DataType
		tz   bool
		p    normalize.Profile
		code normalize.Code
	}{
		{"date32 v1", arrow.FixedWidthTypes.Date32, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"date64 v1", arrow.FixedWidthTypes.Date64, false, normalize.LogicalV1, normalize.CodeUnsupported},
		{"time32 v1", arrow.FixedWidthTypes.Time32s, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"time64 v1", arrow.FixedWidthTypes.Time64ns, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"duration v1", arrow.FixedWidthTypes.Duration_ms, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"timestamp ns v1", &arrow.TimestampType{Unit: arrow.Nanosecond}, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"list v1", list, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"large list v1", arrow.LargeListOf(arrow.PrimitiveTypes.Int8), false, normalize.LogicalV1, normalize.CodeUnsupported},
		{"fixed size list v1", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int8), false, normalize.StrictV1, normalize.CodeUnsupported},
		{"struct v1", strct, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"map v1", mp, false, normalize.LogicalV1, normalize.CodeUnsupported},
		{"list of utf8_view (outside graphforge-canonical/1)", arrow.ListOf(arrow.BinaryTypes.StringView), false, normalize.StrictV1Ext1, normalize.CodeUnsupported},
		{"list of Berlin timestamps (outside graphforge-canonical/1)", arrow.ListOf(&arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Berlin"}), false, normalize.StrictV1Ext1, normalize.CodeUnsupported},
		{"dense union", arrow.DenseUnionOf([]arrow.Field{field("a", arrow.PrimitiveTypes.Int8)}, []arrow.UnionTypeCode{0}), false, normalize.StrictV1Ext1, normalize.CodeUnsupported},
		{"dictionary of date32 v1", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.FixedWidthTypes.Date32}, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"interval", arrow.FixedWidthTypes.MonthInterval, false, normalize.StrictV1Ext1, normalize.CodeUnsupported},
		{"extension type other than decimal text", extensions.NewUUIDType(), false, normalize.StrictV1Ext1, normalize.CodeUnsupported},
		{"decimal text over large_utf8", &decimaltext.Type{ExtensionBase: arrow.ExtensionBase{Storage: arrow.BinaryTypes.LargeString}}, false, normalize.StrictV1, normalize.CodeUnsupported},
		{"tz Local", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Local"}, false, normalize.StrictV1, normalize.CodeTimezone},
		{"tz unknown", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Mars/Olympus"}, false, normalize.StrictV1, normalize.CodeTimezone},
		{"tz +24:00", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+24:00"}, false, normalize.StrictV1, normalize.CodeTimezone},
		{"tz +1:00", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+1:000"}, false, normalize.StrictV1, normalize.CodeTimezone},
	}
	for _, c := range cases {
		schema := arrow.NewSchema([]arrow.Field{field("ok", arrow.PrimitiveTypes.Int64), field("bad", c.typ)}, nil)
		_, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "ok", Field: 1}, {Name: "bad", Field: 2}}, c.p)
		var ce *columnar.Error
		if !errors.As(err, &ce) || ce.Err.Code != c.code || normalize.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
			continue
		}
		if ce.Column != 1 || ce.Name != "bad" || ce.Type != c.typ.String() || !strings.Contains(err.Error(), c.typ.String()) {
			t.Errorf("%s: error does not name the column and type: %+v", c.name, ce)
		}
		// Excluding the column explicitly is the alternative, and is reported.
		enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "ok", Field: 1}, {Index: 1, Treatment: columnar.Exclude}}, c.p)
		if err != nil {
			t.Errorf("%s: exclusion refused: %v", c.name, err)
			continue
		}
		if ex := enc.Excluded(); len(ex) != 1 || ex[0].Index != 1 || ex[0].Name != "bad" || ex[0].Type != c.typ.String() {
			t.Errorf("%s: exclusion not reported: %+v", c.name, ex)
		}
		if cols := enc.Columns(); len(cols) != 1 || cols[0].Name != "ok" || cols[0].Field != 1 {
			t.Errorf("%s: columns %+v", c.name, cols)
		}
	}

	two := arrow.NewSchema([]arrow.Field{field("a", arrow.PrimitiveTypes.Int64), field("b", arrow.PrimitiveTypes.Int64), field("b2", arrow.PrimitiveTypes.Int64)}, nil)
	dup := arrow.NewSchema([]arrow.Field{field("a", arrow.PrimitiveTypes.Int64), field("a", arrow.PrimitiveTypes.Int64)}, nil)
	listErrs := []struct {
		name   string
		schema *arrow.Schema
		cols   []columnar.Column
		p      normalize.Profile
		code   normalize.Code
	}{
		{"unmentioned column", two, []columnar.Column{{Name: "a", Field: 1}, {Name: "b", Field: 2}}, 0, columnar.CodeColumns},
		{"unknown name", two, []columnar.Column{{Name: "a", Field: 1}, {Name: "b", Field: 2}, {Name: "zz", Field: 3}}, 0, columnar.CodeColumns},
		{"ambiguous name", dup, []columnar.Column{{Name: "a", Field: 1}, {Index: 1, Field: 2}}, 0, columnar.CodeColumns},
		{"index out of range", two, []columnar.Column{{Index: 0, Field: 1}, {Index: 1, Field: 2}, {Index: 3, Field: 3}}, 0, columnar.CodeColumns},
		{"listed twice", two, []columnar.Column{{Index: 0, Field: 1}, {Name: "a", Field: 2}, {Index: 2, Field: 3}}, 0, columnar.CodeColumns},
		{"duplicate field id", two, []columnar.Column{{Index: 0, Field: 1}, {Index: 1, Field: 1}, {Index: 2, Field: 3}}, 0, normalize.CodeFieldID},
		{"reserved field id", two, []columnar.Column{{Index: 0, Field: 1}, {Index: 1, Field: math.MaxUint64}, {Index: 2, Field: 3}}, 0, normalize.CodeFieldID},
		{"unknown treatment", two, []columnar.Column{{Index: 0, Field: 1}, {Index: 1, Field: 2, Treatment: 9}, {Index: 2, Field: 3}}, 0, columnar.CodeColumns},
		{"invalid profile", two, []columnar.Column{{Index: 0, Field: 1}, {Index: 1, Field: 2}, {Index: 2, Field: 3}}, 9, normalize.CodeInput},
	}
	for _, c := range listErrs {
		if _, err := columnar.NewEncoder(c.schema, c.cols, c.p); normalize.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

// TestValueErrors: bad values fail with their code, the row and the column, leave the
// batch unchanged, and never show the value.
func TestValueErrors(t *testing.T) {
	bad := "sec\xffret"
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"a", "b", "c", bad}, nil)
	year10000 := int64(253402300800) // 10000-01-01T00:00:00Z
	year1 := int64(-62135596800)     // 0001-01-01T00:00:00Z
	d64 := array.NewDate64Builder(mem)
	d64.AppendValues([]arrow.Date64{0, 86_400_001}, nil)
	d32 := array.NewDate32Builder(mem)
	d32.AppendValues([]arrow.Date32{0, 0, 2932897}, nil) // 10000-01-01
	t32 := array.NewTime32Builder(mem, &arrow.Time32Type{Unit: arrow.Second})
	t32.AppendValues([]arrow.Time32{86400}, nil)
	cases := []struct {
		name string
		arr  arrow.Array
		p    normalize.Profile
		row  int
		code normalize.Code
	}{
		{"invalid UTF-8", sb.NewArray(), normalize.StrictV1, 3, normalize.CodeUTF8},
		{"year 10000", tsArray(t, &arrow.TimestampType{Unit: arrow.Second}, 0, year10000), normalize.StrictV1, 1, normalize.CodeOverflow},
		{"before year 1", tsArray(t, &arrow.TimestampType{Unit: arrow.Second}, year1-1), normalize.StrictV1, 0, normalize.CodeOverflow},
		{"s overflowing int64 microseconds", tsArray(t, &arrow.TimestampType{Unit: arrow.Second}, math.MaxInt64), normalize.StrictV1, 0, normalize.CodeOverflow},
		{"local wall after 9999", tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+01:00"}, year10000-60), normalize.StrictV1, 0, normalize.CodeOverflow},
		{"logical UTC before year 1", tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+01:00"}, year1-60), normalize.LogicalV1, 0, normalize.CodeOverflow},
		{"date64 not a whole day", d64.NewArray(), normalize.StrictV1Ext1, 1, normalize.CodePrecision},
		{"date32 year 10000", d32.NewArray(), normalize.StrictV1Ext1, 2, normalize.CodeOverflow},
		{"time32 24:00:00", t32.NewArray(), normalize.StrictV1Ext1, 0, normalize.CodeOverflow},
		{"decimal text not a decimal", decText("1.5", "", "1.5secret"), normalize.StrictV1, 2, normalize.CodeDecimal},
		{"decimal text empty", decText("1", "", "", "0", "+"), normalize.StrictV1, 4, normalize.CodeDecimal},
		{"decimal text with spaces", decText(" 1"), normalize.StrictV1, 0, normalize.CodeDecimal},
		{"decimal text exponent beyond 2**64-1", decText("1", "1.0E-18446744073709551615"), normalize.StrictV1, 1, normalize.CodeDecimal},
	}
	for _, c := range cases {
		schema := arrow.NewSchema([]arrow.Field{field("x", c.arr.DataType())}, nil)
		enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "x", Field: 1}}, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dst := normalize.RecordBatch{Words: []uint64{7}, Offsets: []uint64{}, Lengths: []uint64{}}
		err = enc.Append(&dst, array.NewRecordBatch(schema, []arrow.Array{c.arr}, int64(c.arr.Len())))
		var ce *columnar.Error
		if !errors.As(err, &ce) || ce.Err.Code != c.code || ce.Row != c.row || ce.Column != 0 || ce.Name != "x" {
			t.Errorf("%s: %v (%+v), want %s at row %d", c.name, err, ce, c.code, c.row)
			continue
		}
		if strings.Contains(err.Error(), "ret") {
			t.Errorf("%s: error shows the value: %v", c.name, err)
		}
		if len(dst.Words) != 1 || len(dst.Offsets) != 0 || dst.ProfileID != "" {
			t.Errorf("%s: batch changed on error", c.name)
		}
	}
	// The strict profile accepts the wall time whose UTC conversion overflows.
	arr := tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+01:00"}, year1-60)
	if tc, w := encodeOne(t, arr, normalize.StrictV1); tc != normalize.Timestamp || w[0] != 1 || w[3] != 0 || w[4] != 59 {
		t.Errorf("strict wall 0001-01-01T00:59: %v %v", tc, w)
	}
}

func TestAppendErrors(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{field("x", arrow.PrimitiveTypes.Int64)}, nil)
	enc, err := columnar.NewEncoder(schema, []columnar.Column{{Index: 0, Field: 1}}, normalize.StrictV1)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(mem)
	b.Append(1)
	rec := array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, 1)
	dst := normalize.RecordBatch{ProfileID: normalize.LogicalV1.ID()}
	if err := enc.Append(&dst, rec); normalize.CodeOf(err) != normalize.CodeBatchProfile {
		t.Errorf("profile mismatch: %v", err)
	}
	other := arrow.NewSchema([]arrow.Field{field("y", arrow.PrimitiveTypes.Int64)}, nil)
	if err := enc.Append(&normalize.RecordBatch{}, array.NewRecordBatch(other, rec.Columns(), 1)); normalize.CodeOf(err) != columnar.CodeColumns {
		t.Errorf("schema mismatch: %v", err)
	}
	// An empty record appends nothing but declares the profile.
	var empty normalize.RecordBatch
	if err := enc.Append(&empty, rec.NewSlice(0, 0)); err != nil || empty.Len() != 0 || empty.ProfileID != normalize.StrictV1.ID() {
		t.Errorf("empty record: %v %+v", err, empty)
	}
}

// TestAppendAllocs: once the encoder's scratch and the batch have grown, encoding
// another batch of the benchmark's shape allocates nothing.
func TestAppendAllocs(t *testing.T) {
	rec := benchRecord(1000)
	enc, err := columnar.NewEncoder(rec.Schema(), benchColumns, normalize.StrictV1)
	if err != nil {
		t.Fatal(err)
	}
	var dst normalize.RecordBatch
	if err := enc.Append(&dst, rec); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		dst.Words, dst.Offsets, dst.Lengths = dst.Words[:0], dst.Offsets[:0], dst.Lengths[:0]
		if err := enc.Append(&dst, rec); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Append allocates %v times per batch", allocs)
	}
}

// neg returns the two's-complement word of -x.
func neg(x uint64) uint64 { return -x }

func asError(err error, target **columnar.Error) bool { return errors.As(err, target) }

// TestMalformedArrays: arrays whose buffers contradict each other (as a corrupt IPC
// stream could produce) are errors, never panics.
func TestMalformedArrays(t *testing.T) {
	i32 := func(xs ...int32) *memory.Buffer {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		return memory.NewBufferBytes(b)
	}
	data := memory.NewBufferBytes([]byte("abcdef"))
	cases := []struct {
		name string
		arr  func() arrow.Array
		code normalize.Code
	}{
		{"decreasing offsets", func() arrow.Array {
			return array.MakeFromData(array.NewData(arrow.BinaryTypes.String, 2, []*memory.Buffer{nil, i32(0, 4, 2), data}, nil, 0, 0))
		}, normalize.CodeInput},
		{"offset past the data", func() arrow.Array {
			return array.MakeFromData(array.NewData(arrow.BinaryTypes.String, 2, []*memory.Buffer{nil, i32(0, 4, 9), data}, nil, 0, 0))
		}, normalize.CodeInput},
		{"negative first offset", func() arrow.Array {
			return array.MakeFromData(array.NewData(arrow.BinaryTypes.Binary, 1, []*memory.Buffer{nil, i32(-1, 2), data}, nil, 0, 0))
		}, normalize.CodeInput},
		{"dictionary index out of range", func() arrow.Array {
			ib := array.NewInt8Builder(mem)
			ib.AppendValues([]int8{0, 5}, nil)
			sb := array.NewStringBuilder(mem)
			sb.Append("x")
			return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, ib.NewArray(), sb.NewArray())
		}, normalize.CodeInput},
	}
	for _, c := range cases {
		var arr arrow.Array
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Logf("%s: arrow itself refuses to build the array: %v", c.name, r)
				}
			}()
			arr = c.arr()
		}()
		if arr == nil {
			continue
		}
		schema := arrow.NewSchema([]arrow.Field{field("x", arr.DataType())}, nil)
		enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "x", Field: 1}}, normalize.StrictV1)
		if err != nil {
			t.Fatal(err)
		}
		var dst normalize.RecordBatch
		err = enc.Append(&dst, array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len())))
		if normalize.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

// TestAppendTableError: an error in a later chunk leaves the batch as it was.
func TestAppendTableError(t *testing.T) {
	good, bad := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
	good.AppendValues([]string{"a", "b"}, nil)
	bad.AppendValues([]string{"c", "\xc3"}, nil)
	f := field("s", arrow.BinaryTypes.String)
	schema := arrow.NewSchema([]arrow.Field{f}, nil)
	col := arrow.NewColumn(f, arrow.NewChunked(f.Type, []arrow.Array{good.NewArray(), bad.NewArray()}))
	tbl := array.NewTable(schema, []arrow.Column{*col}, 4)
	enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "s", Field: 1}}, normalize.StrictV1)
	if err != nil {
		t.Fatal(err)
	}
	dst := normalize.RecordBatch{Words: []uint64{9}}
	err = enc.AppendTable(&dst, tbl)
	var ce *columnar.Error
	if !errors.As(err, &ce) || ce.Err.Code != normalize.CodeUTF8 || ce.Row != 1 {
		t.Fatalf("%v", err)
	}
	if len(dst.Words) != 1 || dst.Len() != 0 || dst.ProfileID != "" {
		t.Fatalf("batch changed: %+v", dst)
	}
}
