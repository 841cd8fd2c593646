//go:build cgo

package duckdb

import (
	"context"
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/pipewhy/pipewhy/source"
)

// TestTypeMapping pins the Arrow type of every DuckDB type, or that it is
// rejected. The expectations are the table in doc.go.
func TestTypeMapping(t *testing.T) {
	supported := []struct {
		sqlType string
		want    arrow.DataType
		spell   string
		width   string
	}{
		{"BOOLEAN", arrow.FixedWidthTypes.Boolean, "BOOLEAN", ""},
		{"TINYINT", arrow.PrimitiveTypes.Int8, "TINYINT", "8"},
		{"SMALLINT", arrow.PrimitiveTypes.Int16, "SMALLINT", "16"},
		{"INTEGER", arrow.PrimitiveTypes.Int32, "INTEGER", "32"},
		{"BIGINT", arrow.PrimitiveTypes.Int64, "BIGINT", "64"},
		{"UTINYINT", arrow.PrimitiveTypes.Uint8, "UTINYINT", "8"},
		{"USMALLINT", arrow.PrimitiveTypes.Uint16, "USMALLINT", "16"},
		{"UINTEGER", arrow.PrimitiveTypes.Uint32, "UINTEGER", "32"},
		{"UBIGINT", arrow.PrimitiveTypes.Uint64, "UBIGINT", "64"},
		{"FLOAT", arrow.PrimitiveTypes.Float32, "FLOAT", "32"},
		{"DOUBLE", arrow.PrimitiveTypes.Float64, "DOUBLE", "64"},
		{"DECIMAL(4,1)", &arrow.Decimal128Type{Precision: 4, Scale: 1}, "DECIMAL(4,1)", ""},
		{"DECIMAL(9,9)", &arrow.Decimal128Type{Precision: 9, Scale: 9}, "DECIMAL(9,9)", ""},
		{"DECIMAL(18,3)", &arrow.Decimal128Type{Precision: 18, Scale: 3}, "DECIMAL(18,3)", ""},
		{"DECIMAL(38,10)", &arrow.Decimal128Type{Precision: 38, Scale: 10}, "DECIMAL(38,10)", ""},
		{"VARCHAR", arrow.BinaryTypes.String, "VARCHAR", ""},
		{"JSON", arrow.BinaryTypes.String, "JSON", ""},
		{"BLOB", arrow.BinaryTypes.Binary, "BLOB", ""},
		{"TIMESTAMP", &arrow.TimestampType{Unit: arrow.Microsecond}, "TIMESTAMP", ""},
		{"TIMESTAMP_S", &arrow.TimestampType{Unit: arrow.Second}, "TIMESTAMP_S", ""},
		{"TIMESTAMP_MS", &arrow.TimestampType{Unit: arrow.Millisecond}, "TIMESTAMP_MS", ""},
		{"TIMESTAMP_NS", &arrow.TimestampType{Unit: arrow.Nanosecond}, "TIMESTAMP_NS", ""},
		{"TIMESTAMPTZ", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "TIMESTAMP WITH TIME ZONE", ""},
	}
	for _, c := range supported {
		src, err := Open(context.Background(), Options{Query: "SELECT CAST(NULL AS " + c.sqlType + ") AS c"})
		if err != nil {
			t.Errorf("%s: %v", c.sqlType, err)
			continue
		}
		f := src.Schema().Field(0)
		if !arrow.TypeEqual(f.Type, c.want) {
			t.Errorf("%s: Arrow type %v, want %v", c.sqlType, f.Type, c.want)
		}
		if v, _ := f.Metadata.GetValue(source.MetaSourceType); v != c.spell {
			t.Errorf("%s: source type %q, want %q", c.sqlType, v, c.spell)
		}
		if v, _ := f.Metadata.GetValue(source.MetaSourceWidth); v != c.width {
			t.Errorf("%s: source width %q, want %q", c.sqlType, v, c.width)
		}
		if f.Metadata.FindKey("ARROW:extension:name") >= 0 {
			t.Errorf("%s: extension type %v", c.sqlType, f.Metadata)
		}
		src.Close()
	}
	// Rejected, even where DuckDB would export a supported Arrow type
	// (HUGEINT/UHUGEINT as decimal128(38,0), UUID and ENUM values as text).
	for _, ty := range []string{"HUGEINT", "UHUGEINT", "UUID", "DATE", "TIME", "TIMETZ", "INTERVAL", "INTEGER[]", "INTEGER[2]",
		"STRUCT(a INTEGER)", "MAP(VARCHAR, INTEGER)", "ENUM('a','b')", "BIT", "VARINT", "UNION(a INTEGER, b VARCHAR)"} {
		_, err := Open(context.Background(), Options{Query: "SELECT CAST(NULL AS " + ty + ") AS c"})
		if source.CodeOf(err) != source.CodeUnsupported {
			t.Errorf("%s: err %v, want %s", ty, err, source.CodeUnsupported)
		}
		// Excluding the column is the explicit way around it.
		_, cols, ev := openRead(t, Options{Query: "SELECT CAST(NULL AS " + ty + ") AS c, 1::BIGINT AS k", Exclude: []string{"c"}})
		if len(cols) != 1 || cols[0].Len() != 1 || len(ev.Excluded) != 1 || ev.Excluded[0] != "c" {
			t.Errorf("%s: exclusion read %v, excluded %v", ty, cols, ev.Excluded)
		}
	}
}

func dec(s string) decimal128.Num {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return decimal128.FromBigInt(b)
}

// TestValues reads boundary values and NULLs of every supported type from a
// database table. Expected values are written from the SQL literals: the
// integer limits of each width, decimals as unscaled integers, timestamps
// as counts of units since 1970-01-01 UTC.
func TestValues(t *testing.T) {
	p := tempDB(t,
		`CREATE TABLE v(b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INTEGER, i64 BIGINT, u8 UTINYINT, u16 USMALLINT, u32 UINTEGER, u64 UBIGINT,
		  d41 DECIMAL(4,1), d182 DECIMAL(18,2), d380 DECIMAL(38,0), s VARCHAR, bl BLOB,
		  ts TIMESTAMP, tss TIMESTAMP_S, tsms TIMESTAMP_MS, tsns TIMESTAMP_NS, tstz TIMESTAMPTZ)`,
		`INSERT INTO v VALUES (true, -128, -32768, -2147483648, -9223372036854775808, 0, 0, 0, 0,
		  -999.9, -9999999999999999.99, -99999999999999999999999999999999999999, '', ''::BLOB,
		  '1970-01-01 00:00:00', '1969-12-31 23:59:59', '1970-01-01 00:00:00.001', '1970-01-01 00:00:00.000000001', '1970-01-01 00:00:00+00')`,
		`INSERT INTO v VALUES (false, 127, 32767, 2147483647, 9223372036854775807, 255, 65535, 4294967295, 18446744073709551615,
		  999.9, 9999999999999999.99, 99999999999999999999999999999999999999, 'zoë 🙂 "q"', '\x00\xFF\xDE\xAD'::BLOB,
		  '2262-04-11 23:47:16.854775', '2000-01-01 00:00:00', '1969-12-31 23:59:59.999', '2262-04-11 23:47:16.854775806', '2024-02-29 12:00:00.5+01')`,
		`INSERT INTO v VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)
	for _, bs := range []int{1, 2, 100} {
		_, cols, ev := openRead(t, Options{Path: p, Table: "v", BatchSize: bs})
		if ev.Coverage.Status != source.StatusComplete || ev.Coverage.Expected != 3 || ev.Coverage.Returned != 3 {
			t.Fatalf("coverage %+v", ev.Coverage)
		}
		for i, c := range cols {
			if c.Len() != 3 || !c.IsNull(2) || c.IsNull(0) || c.IsNull(1) || c.NullN() != 1 {
				t.Errorf("column %d: %d rows, nulls %d; want row 3 null only", i, c.Len(), c.NullN())
			}
		}
		check := func(name string, got, want [2]any) {
			t.Helper()
			if got != want {
				t.Errorf("%s: got %v, want %v", name, got, want)
			}
		}
		b := cols[0].(*array.Boolean)
		check("bool", [2]any{b.Value(0), b.Value(1)}, [2]any{true, false})
		i8 := cols[1].(*array.Int8)
		check("int8", [2]any{i8.Value(0), i8.Value(1)}, [2]any{int8(math.MinInt8), int8(math.MaxInt8)})
		i16 := cols[2].(*array.Int16)
		check("int16", [2]any{i16.Value(0), i16.Value(1)}, [2]any{int16(math.MinInt16), int16(math.MaxInt16)})
		i32 := cols[3].(*array.Int32)
		check("int32", [2]any{i32.Value(0), i32.Value(1)}, [2]any{int32(math.MinInt32), int32(math.MaxInt32)})
		i64 := cols[4].(*array.Int64)
		check("int64", [2]any{i64.Value(0), i64.Value(1)}, [2]any{int64(math.MinInt64), int64(math.MaxInt64)})
		u8 := cols[5].(*array.Uint8)
		check("uint8", [2]any{u8.Value(0), u8.Value(1)}, [2]any{uint8(0), uint8(math.MaxUint8)})
		u16 := cols[6].(*array.Uint16)
		check("uint16", [2]any{u16.Value(0), u16.Value(1)}, [2]any{uint16(0), uint16(math.MaxUint16)})
		u32 := cols[7].(*array.Uint32)
		check("uint32", [2]any{u32.Value(0), u32.Value(1)}, [2]any{uint32(0), uint32(math.MaxUint32)})
		u64 := cols[8].(*array.Uint64)
		check("uint64", [2]any{u64.Value(0), u64.Value(1)}, [2]any{uint64(0), uint64(math.MaxUint64)})
		d41 := cols[9].(*array.Decimal128)
		check("decimal(4,1)", [2]any{d41.Value(0), d41.Value(1)}, [2]any{dec("-9999"), dec("9999")})
		d182 := cols[10].(*array.Decimal128)
		check("decimal(18,2)", [2]any{d182.Value(0), d182.Value(1)}, [2]any{dec("-999999999999999999"), dec("999999999999999999")})
		d380 := cols[11].(*array.Decimal128)
		check("decimal(38,0)", [2]any{d380.Value(0), d380.Value(1)}, [2]any{dec("-99999999999999999999999999999999999999"), dec("99999999999999999999999999999999999999")})
		s := cols[12].(*array.String)
		check("text", [2]any{s.Value(0), s.Value(1)}, [2]any{"", "zo\xc3\xab \xf0\x9f\x99\x82 \"q\""})
		bl := cols[13].(*array.Binary)
		check("blob", [2]any{string(bl.Value(0)), string(bl.Value(1))}, [2]any{"", "\x00\xff\xde\xad"})
		ts := cols[14].(*array.Timestamp)
		check("timestamp(us)", [2]any{ts.Value(0), ts.Value(1)}, [2]any{arrow.Timestamp(0), arrow.Timestamp(9223372036854775)})
		tss := cols[15].(*array.Timestamp)
		check("timestamp(s)", [2]any{tss.Value(0), tss.Value(1)}, [2]any{arrow.Timestamp(-1), arrow.Timestamp(946684800)})
		tsms := cols[16].(*array.Timestamp)
		check("timestamp(ms)", [2]any{tsms.Value(0), tsms.Value(1)}, [2]any{arrow.Timestamp(1), arrow.Timestamp(-1)})
		tsns := cols[17].(*array.Timestamp)
		check("timestamp(ns)", [2]any{tsns.Value(0), tsns.Value(1)}, [2]any{arrow.Timestamp(1), arrow.Timestamp(math.MaxInt64 - 1)})
		// 2024-02-29 12:00:00.5+01 is 11:00:00.5 UTC: 1709204400 s + 0.5 s.
		tstz := cols[18].(*array.Timestamp)
		check("timestamp(us,UTC)", [2]any{tstz.Value(0), tstz.Value(1)}, [2]any{arrow.Timestamp(0), arrow.Timestamp(1709204400500000)})
	}
}

// TestFloatExactness: -0.0 keeps its sign, infinities and NaN come through;
// a NaN's payload as DuckDB itself stores it is tested in
// TestNaNPayloads.
func TestFloatExactness(t *testing.T) {
	_, cols, _ := openRead(t, Options{Query: `SELECT * FROM (VALUES
		(1, '-0.0'::DOUBLE, '-0.0'::FLOAT), (2, 'inf'::DOUBLE, 'inf'::FLOAT), (3, '-inf'::DOUBLE, '-inf'::FLOAT),
		(4, 'nan'::DOUBLE, 'nan'::FLOAT), (5, 4.9e-324::DOUBLE, 1.4e-45::FLOAT), (6, 1.7976931348623157e308::DOUBLE, 3.4028235e38::FLOAT),
		(7, 0.1::DOUBLE, 0.1::FLOAT)) AS t(k, d, f) ORDER BY k`})
	d := cols[1].(*array.Float64).Float64Values()
	f := cols[2].(*array.Float32).Float32Values()
	wantD := []uint64{0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0, 1, 0x7fefffffffffffff, 0x3fb999999999999a}
	wantF := []uint32{0x80000000, 0x7f800000, 0xff800000, 0, 1, 0x7f7fffff, 0x3dcccccd}
	for i := range wantD {
		if i == 3 {
			if !math.IsNaN(d[i]) || f[i] == f[i] {
				t.Errorf("row 4: %v %v, want NaN", d[i], f[i])
			}
			continue
		}
		if math.Float64bits(d[i]) != wantD[i] || math.Float32bits(f[i]) != wantF[i] {
			t.Errorf("row %d: bits %#x %#x, want %#x %#x", i+1, math.Float64bits(d[i]), math.Float32bits(f[i]), wantD[i], wantF[i])
		}
	}
}
