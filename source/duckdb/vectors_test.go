//go:build cgo

package duckdb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/source"
)

// TestValidityBitmap: DuckDB's uint64 validity words become Arrow's
// LSB-first bitmap bytes; bits past n are cleared; an all-valid mask gives
// no bitmap.
func TestValidityBitmap(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	cases := []struct {
		mask  []uint64
		n     int
		want  []byte // nil: no bitmap
		nulls int
	}{
		{nil, 5, nil, 0},
		{[]uint64{0b11111}, 5, nil, 0},
		{[]uint64{0xffffffffffffffe0}, 5, []byte{0b00000}, 5}, // bits past n ignored
		{[]uint64{0b10110}, 5, []byte{0b10110}, 2},            // rows 0 and 3 invalid
		{[]uint64{0xfffffffffffffffe, 0x1}, 65, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 1},
		{[]uint64{math.MaxUint64, 0xff00}, 72, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 8},
		{[]uint64{0x8000000000000000}, 64, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, 63},
	}
	for i, c := range cases {
		b, nulls := validityBitmap(mem, c.mask, c.n)
		if nulls != c.nulls {
			t.Errorf("case %d: %d nulls, want %d", i, nulls, c.nulls)
		}
		if (b == nil) != (c.want == nil) {
			t.Errorf("case %d: bitmap %v, want %v", i, b, c.want)
		}
		if b != nil {
			if got := b.Bytes()[:len(c.want)]; string(got) != string(c.want) {
				t.Errorf("case %d: bitmap %08b, want %08b", i, got, c.want)
			}
			b.Release()
		}
	}
}

func TestPackBoolsAndWidenDecimals(t *testing.T) {
	dst := []byte{0xff, 0xff} // every bit is written, the unused ones zero
	packBools(dst, []byte{1, 0, 0, 1, 1, 0, 0, 0, 0, 1})
	if dst[0] != 0b00011001 || dst[1] != 0b10 {
		t.Errorf("packBools: %08b", dst)
	}
	// Two's complement 128-bit values, low word first.
	out := make([]byte, 3*16)
	widenDecimals(out, []int16{-1, 9999, math.MinInt16})
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&out[0])), 6)
	want := []uint64{math.MaxUint64, math.MaxUint64, 9999, 0, 0xffffffffffff8000, math.MaxUint64}
	for i := range want {
		if words[i] != want[i] {
			t.Errorf("widenDecimals word %d: %#x, want %#x", i, words[i], want[i])
		}
	}
}

// TestDecoderValues reads, through Open, a query whose expected values are
// written from its SQL literals: text of lengths around the 12-byte inline
// limit and non-ASCII, decimals of every storage width (int16, int32,
// int64, hugeint) with negative values, booleans and NULLs in every column.
func TestDecoderValues(t *testing.T) {
	_, cols, ev := openRead(t, Options{Query: `SELECT * FROM (VALUES
		(1, true,  '',              'abcdefghijkl',  -1.5::DECIMAL(4,1),  -1234.56789::DECIMAL(9,5), -1.23456789012345678::DECIMAL(18,17), -12345678901234567890.123::DECIMAL(38,3), '\x00'::BLOB,                         '-0.0'::DOUBLE, -0.0::FLOAT),
		(2, false, 'é',             'abcdefghijklm', 999.9::DECIMAL(4,1),  0.00001::DECIMAL(9,5),     0.00000000000000001::DECIMAL(18,17), 0.001::DECIMAL(38,3),                     '\xAB\xCD\xEF\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09'::BLOB, 'inf'::DOUBLE, '-inf'::FLOAT),
		(3, NULL,  NULL,            NULL,            NULL,                 NULL,                      NULL,                              NULL,                                     NULL,                                 NULL,           NULL),
		(4, true,  '日本語 text 🙂', 'x',             -0.1::DECIMAL(4,1),   -9999.99999::DECIMAL(9,5), 0.12345678901234567::DECIMAL(18,17), -0.001::DECIMAL(38,3),                   ''::BLOB,                             'nan'::DOUBLE,  5e-45::FLOAT)
		) AS t(k, b, s1, s2, d4, d9, d18, d38, bl, f64, f32) ORDER BY k`})
	if ev.Coverage.Status != source.StatusComplete || ev.Coverage.Returned != 4 {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	for i, c := range cols[1:] {
		if !c.IsNull(2) || c.NullN() != 1 {
			t.Errorf("column %d: nulls %d, want row 3 only", i+2, c.NullN())
		}
	}
	b := cols[1].(*array.Boolean)
	if !b.Value(0) || b.Value(1) || !b.Value(3) {
		t.Errorf("bool: %v", b)
	}
	s1, s2 := cols[2].(*array.String), cols[3].(*array.String)
	for i, w := range []string{"", "\xc3\xa9", "", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e text \xf0\x9f\x99\x82"} {
		if s1.Value(i) != w {
			t.Errorf("s1 row %d: %q, want %q", i+1, s1.Value(i), w)
		}
	}
	for i, w := range []string{"abcdefghijkl", "abcdefghijklm", "", "x"} {
		if s2.Value(i) != w {
			t.Errorf("s2 row %d: %q, want %q", i+1, s2.Value(i), w)
		}
	}
	decs := []struct {
		col  int
		want [4]string // unscaled; "" for NULL
	}{
		{4, [4]string{"-15", "9999", "", "-1"}},
		{5, [4]string{"-123456789", "1", "", "-999999999"}},
		{6, [4]string{"-123456789012345678", "1", "", "12345678901234567"}},
		{7, [4]string{"-12345678901234567890123", "1", "", "-1"}},
	}
	for _, d := range decs {
		c := cols[d.col].(*array.Decimal128)
		for i, w := range d.want {
			if w == "" {
				if c.IsValid(i) {
					t.Errorf("column %d row %d: %v, want NULL", d.col+1, i+1, c.Value(i))
				}
				continue
			}
			if c.Value(i) != dec(w) {
				t.Errorf("column %d row %d: %s, want %s", d.col+1, i+1, c.Value(i).BigInt(), w)
			}
		}
	}
	bl := cols[8].(*array.Binary)
	for i, w := range []string{"\x00", "\xab\xcd\xef\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", "", ""} {
		if string(bl.Value(i)) != w {
			t.Errorf("blob row %d: %x, want %x", i+1, bl.Value(i), w)
		}
	}
	f64, f32 := cols[9].(*array.Float64), cols[10].(*array.Float32)
	// 'nan'::DOUBLE is DuckDB's quiet NaN, std::numeric_limits<double>::quiet_NaN().
	for i, w := range []uint64{0x8000000000000000, 0x7ff0000000000000, 0, 0x7ff8000000000000} {
		if i != 2 && math.Float64bits(f64.Value(i)) != w {
			t.Errorf("double row %d: %#x, want %#x", i+1, math.Float64bits(f64.Value(i)), w)
		}
	}
	// -0.0::FLOAT is the negation of the literal 0.0 (DECIMAL) cast to FLOAT;
	// 5e-45 rounds to the float32 subnormal 4 * 2^-149 (0x4).
	for i, w := range []uint32{0x80000000, 0xff800000, 0, 0x4} {
		if i != 2 && math.Float32bits(f32.Value(i)) != w {
			t.Errorf("float row %d: %#x, want %#x", i+1, math.Float32bits(f32.Value(i)), w)
		}
	}
}

// TestDecoderChunks reads several data chunks (2048 rows each) with NULLs
// at chosen rows, so that validity words, partial words and chunk borders
// are exercised. Expected values follow from the SQL expressions.
func TestDecoderChunks(t *testing.T) {
	const n = 5000
	_, cols, ev := openRead(t, Options{Query: fmt.Sprintf(`SELECT i,
		CASE WHEN i %% 7 = 3 THEN NULL ELSE i %% 3 = 0 END AS b,
		CASE WHEN i %% 5 = 1 THEN NULL ELSE repeat('x', (i %% 20)::INTEGER) END AS s,
		CASE WHEN i %% 64 = 63 THEN NULL ELSE (i * 1.5)::DECIMAL(9,1) END AS d,
		CASE WHEN i %% 11 = 0 THEN NULL ELSE -i::SMALLINT END AS h
		FROM range(%d) t(i) ORDER BY i`, n), BatchSize: 100000})
	if ev.Coverage.Returned != n {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	id := cols[0].(*array.Int64)
	b, s, d, h := cols[1].(*array.Boolean), cols[2].(*array.String), cols[3].(*array.Decimal128), cols[4].(*array.Int16)
	for r := 0; r < n; r++ {
		i := int64(r)
		if id.Value(r) != i {
			t.Fatalf("row %d: id %d", r, id.Value(r))
		}
		if (i%7 == 3) != b.IsNull(r) || (b.IsValid(r) && b.Value(r) != (i%3 == 0)) {
			t.Fatalf("row %d: bool %v", r, b.Value(r))
		}
		if (i%5 == 1) != s.IsNull(r) || (s.IsValid(r) && s.Value(r) != strings.Repeat("x", int(i%20))) {
			t.Fatalf("row %d: text %q", r, s.Value(r))
		}
		if (i%64 == 63) != d.IsNull(r) || (d.IsValid(r) && d.Value(r) != decimal128.FromI64(i*15)) {
			t.Fatalf("row %d: decimal %v", r, d.Value(r))
		}
		if (i%11 == 0) != h.IsNull(r) || (h.IsValid(r) && h.Value(r) != int16(-i)) {
			t.Fatalf("row %d: smallint %v", r, h.Value(r))
		}
	}
	if want := n / 7; b.NullN() < want || b.NullN() > want+1 {
		t.Errorf("bool nulls %d", b.NullN())
	}
}

// TestDecoderMemory: every buffer the decoder allocates is released with
// the batches.
func TestDecoderMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	_, cols, _ := openRead(t, Options{Query: "SELECT i, i::VARCHAR || 'long enough text' AS s, i % 2 = 0 AS b, NULLIF(i, 3)::DECIMAL(20,2) AS d FROM range(3000) t(i)", Allocator: mem})
	for _, c := range cols {
		c.Release()
	}
}

// NaN and signed-zero bit patterns of nanRecord, written by hand.
var (
	nanBits64 = []uint64{nanPayload, nanNegative, nanSignal, 0x8000000000000000, 0xfff0000000000001, 0x7fffffffffffffff}
	nanBits32 = []uint32{0x7fc00001, 0xffc00000, 0x7f800001, 0x80000000, 0xff800001, 0} // last: NULL
)

// nanRecord holds NaNs with payloads (quiet, negative, signalling), -0.0
// and one NULL, as float32 and float64 columns.
func nanRecord(t testing.TB) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range nanBits64 {
		b.Field(0).(*array.Int64Builder).Append(int64(i + 1))
		if i == len(nanBits32)-1 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Float32Builder).Append(math.Float32frombits(nanBits32[i]))
		}
		b.Field(2).(*array.Float64Builder).Append(math.Float64frombits(nanBits64[i]))
	}
	return b.NewRecordBatch()
}

// TestNaNPayloadsParquet: a Parquet file written by arrow-go (pqarrow),
// read through DuckDB's read_parquet, a DuckDB table made from it, and
// package source's Parquet reader, gives the hand-written float bits every
// time.
func TestNaNPayloadsParquet(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "nan.parquet")
	rec := nanRecord(t)
	defer rec.Release()
	writeParquet(t, pq, rec, 4)
	db := filepath.Join(dir, "nan.duckdb")
	mkdb(t, db, "CREATE TABLE nans AS SELECT * FROM read_parquet("+quoteLiteral(pq)+")")
	check := func(name string, cols []arrow.Array) {
		t.Helper()
		f32, f64 := cols[1].(*array.Float32), cols[2].(*array.Float64)
		if f32.Len() != len(nanBits32) || f64.Len() != len(nanBits64) {
			t.Fatalf("%s: %d rows", name, f64.Len())
		}
		for i := range nanBits64 {
			if got := math.Float64bits(f64.Value(i)); f64.IsNull(i) || got != nanBits64[i] {
				t.Errorf("%s: f64 row %d: %#016x, want %#016x", name, i+1, got, nanBits64[i])
			}
			last := i == len(nanBits32)-1
			if f32.IsNull(i) != last || (!last && math.Float32bits(f32.Value(i)) != nanBits32[i]) {
				t.Errorf("%s: f32 row %d: %#08x (null %v), want %#08x", name, i+1, math.Float32bits(f32.Value(i)), f32.IsNull(i), nanBits32[i])
			}
		}
	}
	ref, err := source.Open(context.Background(), pq, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := readAllSource(t, ref)
	ref.Close()
	check("package source", cols)
	_, cols, _ = openRead(t, Options{Query: "SELECT * FROM read_parquet(" + quoteLiteral(pq) + ") ORDER BY k"})
	check("read_parquet", cols)
	_, cols, _ = openRead(t, Options{Path: db, Table: "nans"})
	check("table", cols)
}

// longString is a duckdb_string_t for b (longer than 12 bytes): length,
// 4-byte prefix, pointer. b must be kept alive while it is read.
func longString(b []byte) duckString {
	s := duckString{length: uint32(len(b))}
	copy(s.inline[:4], b)
	*(*unsafe.Pointer)(unsafe.Pointer(&s.inline[4])) = unsafe.Pointer(&b[0])
	return s
}

// TestDecodeStrings: inline and pointed-to values; an invalid row is empty
// and its bytes are never followed (its length and pointer are garbage);
// more than math.MaxInt32 bytes in one chunk fail with errVector.
func TestDecodeStrings(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	long := []byte("thirteen byte")
	src := []duckString{{length: 3, inline: [12]byte{'a', 'b', 'c'}}, longString(long), {length: 0xffffffff}, {length: 12, inline: [12]byte{'1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '1', '2'}}}
	offs, vals, err := decodeStrings(mem, src, []uint64{0b1011})
	runtime.KeepAlive(long)
	if err != nil {
		t.Fatal(err)
	}
	o := unsafe.Slice((*int32)(unsafe.Pointer(&offs.Bytes()[0])), 5)
	if want := []int32{0, 3, 16, 16, 28}; fmt.Sprint(o) != fmt.Sprint(want) {
		t.Errorf("offsets %v, want %v", o, want)
	}
	if got := string(vals.Bytes()); got != "abcthirteen byte123456789012" {
		t.Errorf("values %q", got)
	}
	offs.Release()
	vals.Release()

	big := make([]duckString, 2048)
	for i := range big {
		big[i].length = 1<<20 + 1 // 2048 * (1 MiB + 1) > MaxInt32; never read
	}
	if _, _, err := decodeStrings(mem, big, nil); !errors.Is(err, errVector) {
		t.Errorf("err %v, want errVector", err)
	}
}
