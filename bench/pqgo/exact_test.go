package pqgo

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// cell is one value in a form both readers can be compared in, bit for bit:
// bits holds an integer's two's complement, a float's IEEE bits (a float32's in
// the low 32 bits) or a decimal's low 64 bits; hi a decimal's high 64 bits;
// bytes a text or binary value.
type cell struct {
	null  bool
	bits  uint64
	hi    int64
	bytes string
}

func (c cell) String() string {
	if c.null {
		return "null"
	}
	return fmt.Sprintf("{bits=%#016x hi=%#x bytes=%q}", c.bits, c.hi, c.bytes)
}

// splitmix64 mixes i into 64 pseudo-random bits (any float bit pattern, NaN
// payloads included, comes out of it).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// The tricky values, written by hand. Each column takes them in turn on even
// rows and a pseudo-random value on odd rows (distinct values, so that a small
// dictionary-size limit makes the writer fall back to plain encoding mid-chunk).
var (
	tricky64 = []uint64{
		0x7ff8000000000000, // quiet NaN, the canonical one
		0x7ff8000000000001, // quiet NaN with a payload
		0x7ff0000000000001, // signalling NaN
		0xfff8000000000000, // negative quiet NaN
		0xffffffffffffffff, // all-ones NaN
		0x7ff4000000abcdef, // signalling NaN, larger payload
		0x8000000000000000, // -0.0
		0x0000000000000000, // +0.0
		0x7ff0000000000000, // +Inf
		0xfff0000000000000, // -Inf
		0x0000000000000001, // smallest subnormal
		0x800fffffffffffff, // largest negative subnormal
		0x7fefffffffffffff, // MaxFloat64
	}
	tricky32 = []uint32{0x7fc00000, 0x7fc00001, 0x7f800001, 0xffc00000, 0xffffffff, 0x80000000, 0, 0x7f800000, 0xff800000, 1, 0x7f7fffff}
	trickyI  = []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt64 + 1, math.MaxInt32 + 1, math.MinInt32 - 1}
	// Timestamps: the epoch's neighbours, year 1, 1900, year 9999's last
	// microsecond, and the int64 extremes (valid in every unit as raw counts).
	trickyTS = []int64{0, -1, 1, -62135596800000000, -2208988800000000, 253402300799999999, math.MinInt64, math.MaxInt64}
	trickyS  = []string{"", "a", "héllo wörld", "日本語テキスト", "🙂👍🏽", "nul\x00byte", "\u00a0nbsp", "tab\tand\nnewline", string(bytes.Repeat([]byte("x"), 1000))}
	trickyB  = []string{"", "\xff\xfe", "\x00", "\xc3\x28", "plain", "\xed\xa0\x80"} // invalid UTF-8 included
	decimals = []struct{ p, s int32 }{{1, 0}, {4, 2}, {9, 3}, {10, 0}, {18, 6}, {19, 0}, {28, 10}, {38, 0}, {38, 37}}
)

// pow10m1 is 10^p − 1, the largest unscaled value of precision p.
func pow10m1(p int32) decimal128.Num {
	v := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	return decimal128.FromBigInt(v.Sub(v, big.NewInt(1)))
}

const exactRows = 2500

// isNull marks the nulls of column c: every 11th row, shifted per column, and
// a run of nulls in one row group.
func isNull(c, i int) bool { return (i+c)%11 == 5 || (i >= 1200 && i < 1300) }

// exactTable builds the table of tricky values and, for each column, the cells
// the input holds (derived from the Go values, not from either reader).
func exactTable(t *testing.T) (arrow.RecordBatch, [][]cell) {
	t.Helper()
	mem := memory.NewGoAllocator()
	fields := []arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "ts_us_utc", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "ts_ns_utc", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64}, // required: no definition levels
	}
	for _, d := range decimals {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("dec_%d_%d", d.p, d.s),
			Type: &arrow.Decimal128Type{Precision: d.p, Scale: d.s}, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	want := make([][]cell, len(fields))
	for c, f := range fields {
		for i := range exactRows {
			k := i / 2 // index into the tricky values on even rows
			r := splitmix64(uint64(i)*31 + uint64(c))
			if f.Nullable && isNull(c, i) {
				b.Field(c).AppendNull()
				want[c] = append(want[c], cell{null: true})
				continue
			}
			var v cell
			switch fb := b.Field(c).(type) {
			case *array.Int64Builder:
				x := int64(r)
				if f.Name == "id" {
					x = int64(i) - 1000
				} else if i%2 == 0 {
					x = trickyI[k%len(trickyI)]
				}
				fb.Append(x)
				v.bits = uint64(x)
			case *array.Float64Builder:
				x := r
				if i%2 == 0 {
					x = tricky64[k%len(tricky64)]
				}
				fb.Append(math.Float64frombits(x))
				v.bits = x
			case *array.Float32Builder:
				x := uint32(r)
				if i%2 == 0 {
					x = tricky32[k%len(tricky32)]
				}
				fb.Append(math.Float32frombits(x))
				v.bits = uint64(x)
			case *array.TimestampBuilder:
				x := int64(r)
				if i%2 == 0 {
					x = trickyTS[k%len(trickyTS)]
				}
				fb.Append(arrow.Timestamp(x))
				v.bits = uint64(x)
			case *array.StringBuilder:
				x := fmt.Sprintf("v%d-ü-%x", i, r)
				if i%2 == 0 {
					x = trickyS[k%len(trickyS)]
				}
				fb.Append(x)
				v.bytes = x
			case *array.BinaryBuilder:
				x := string(binary.LittleEndian.AppendUint64(nil, r))
				if i%2 == 0 {
					x = trickyB[k%len(trickyB)]
				}
				fb.AppendString(x)
				v.bytes = x
			case *array.Decimal128Builder:
				dt := f.Type.(*arrow.Decimal128Type)
				max := pow10m1(dt.Precision)
				var x decimal128.Num
				switch k % 6 {
				case 0:
					x = max
				case 1:
					x = max.Negate()
				case 2:
					x = decimal128.FromI64(0)
				case 3:
					x = decimal128.FromI64(-1)
				case 4:
					x = decimal128.FromI64(1)
				default:
					x = decimal128.FromI64(-int64(i % 10))
				}
				if i%2 == 1 { // pseudo-random in range: r mod 10^p, sign from r
					m := new(big.Int).Mod(new(big.Int).SetUint64(r), max.Add(decimal128.FromI64(1)).BigInt())
					if r&1 == 1 {
						m.Neg(m)
					}
					x = decimal128.FromBigInt(m)
				}
				fb.Append(x)
				v.hi, v.bits = x.HighBits(), x.LowBits()
			default:
				t.Fatalf("column %s: no builder case for %T", f.Name, fb)
			}
			want[c] = append(want[c], v)
		}
	}
	return b.NewRecordBatch(), want
}

// writerConfig is one way of laying the table out in Parquet.
type writerConfig struct {
	name      string
	props     []pq.WriterProperty
	floatDict bool // float columns dictionary-encoded: arrow-go's writer merges NaN payloads there
}

func writerConfigs() []writerConfig {
	base := []pq.WriterProperty{pq.WithMaxRowGroupLength(1000), pq.WithDataPageSize(512), pq.WithBatchSize(128)}
	with := func(ps ...pq.WriterProperty) []pq.WriterProperty {
		return append(append([]pq.WriterProperty(nil), base...), ps...)
	}
	noFloatDict := []pq.WriterProperty{pq.WithDictionaryFor("f64", false), pq.WithDictionaryFor("f32", false)}
	return []writerConfig{
		{name: "dict-v1-snappy", props: with(append(noFloatDict, pq.WithCompression(compress.Codecs.Snappy))...)},
		{name: "dict-fallback-v2-zstd", props: with(append(noFloatDict,
			pq.WithDictionaryPageSizeLimit(200), pq.WithDataPageVersion(pq.DataPageV2),
			pq.WithCompression(compress.Codecs.Zstd))...)},
		{name: "float-dict", floatDict: true, props: with(pq.WithCompression(compress.Codecs.Gzip))},
		{name: "plain-decimal-int-v2", props: with(pq.WithDictionaryDefault(false), pq.WithStoreDecimalAsInteger(true),
			pq.WithDataPageVersion(pq.DataPageV2))},
		{name: "delta-bss", props: with(pq.WithDictionaryDefault(false), pq.WithStoreDecimalAsInteger(true),
			pq.WithEncodingFor("i64", pq.Encodings.DeltaBinaryPacked),
			pq.WithEncodingFor("id", pq.Encodings.DeltaBinaryPacked),
			pq.WithEncodingFor("ts_us", pq.Encodings.DeltaBinaryPacked),
			pq.WithEncodingFor("ts_ns_utc", pq.Encodings.DeltaBinaryPacked),
			pq.WithEncodingFor("dec_9_3", pq.Encodings.DeltaBinaryPacked),
			pq.WithEncodingFor("dec_18_6", pq.Encodings.DeltaBinaryPacked),
			pq.WithEncodingFor("f64", pq.Encodings.ByteStreamSplit),
			pq.WithEncodingFor("f32", pq.Encodings.ByteStreamSplit),
			pq.WithEncodingFor("text", pq.Encodings.DeltaByteArray),
			pq.WithEncodingFor("bin", pq.Encodings.DeltaLengthByteArray))},
	}
}

func writeParquet(t *testing.T, path string, rec arrow.RecordBatch, props []pq.WriterProperty) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, pq.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readPqarrow reads every column of path with pqarrow into cells.
func readPqarrow(t *testing.T, path string) (*arrow.Schema, [][]cell) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, nil, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	out := make([][]cell, tbl.NumCols())
	for c := range out {
		for _, a := range tbl.Column(c).Data().Chunks() {
			for i := range a.Len() {
				if a.IsNull(i) {
					out[c] = append(out[c], cell{null: true})
					continue
				}
				var v cell
				switch a := a.(type) {
				case *array.Int64:
					v.bits = uint64(a.Value(i))
				case *array.Float64:
					v.bits = math.Float64bits(a.Value(i))
				case *array.Float32:
					v.bits = uint64(math.Float32bits(a.Value(i)))
				case *array.Timestamp:
					v.bits = uint64(a.Value(i))
				case *array.String:
					v.bytes = a.Value(i)
				case *array.Binary:
					v.bytes = string(a.Value(i))
				case *array.Decimal128:
					v.hi, v.bits = a.Value(i).HighBits(), a.Value(i).LowBits()
				default:
					t.Fatalf("pqarrow column %d: unexpected %s", c, a.DataType())
				}
				out[c] = append(out[c], v)
			}
		}
	}
	return tbl.Schema(), out
}

// beDecimal sign-extends a big-endian two's complement integer of up to 16
// bytes (Parquet's FIXED_LEN_BYTE_ARRAY decimal) to 128 bits.
func beDecimal(b []byte) (hi int64, lo uint64, ok bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, 0, false
	}
	var buf [16]byte
	if b[0]&0x80 != 0 {
		for i := range buf {
			buf[i] = 0xff
		}
	}
	copy(buf[16-len(b):], b)
	return int64(binary.BigEndian.Uint64(buf[:8])), binary.BigEndian.Uint64(buf[8:]), true
}

// readParquetGo reads every column of path with parquet-go's page API (View,
// Pages: the code Drain runs) into cells, row group by row group.
func readParquetGo(t *testing.T, path string) ([]*parquet.Column, [][]cell) {
	t.Helper()
	pf, closer, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	cols, err := leaves(pf)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]cell, len(cols))
	for _, rg := range pf.RowGroups() {
		for c, cc := range rg.ColumnChunks() {
			typ := cols[c].Type()
			isDecimal := false
			if lt := typ.LogicalType(); lt != nil {
				_, isDecimal = lt.Value.(*format.DecimalType)
			}
			err := Pages(cc, func(p parquet.Page) error {
				v, err := View(p)
				if err != nil {
					return err
				}
				rows := int(p.NumValues())
				k := 0 // next dense value
				for r := range rows {
					if v.Defs != nil && v.Defs[r] == 0 {
						out[c] = append(out[c], cell{null: true})
						continue
					}
					j := k
					if v.Idx != nil {
						if k >= len(v.Idx) {
							return fmt.Errorf("more rows than indexes")
						}
						j = int(v.Idx[k])
					}
					k++
					var x cell
					switch typ.Kind() {
					case parquet.Int64:
						n := v.Values.Int64()[j]
						x.bits = uint64(n)
						if isDecimal {
							x.hi = n >> 63
						}
					case parquet.Int32:
						n := int64(v.Values.Int32()[j])
						x.bits = uint64(n)
						if isDecimal {
							x.hi = n >> 63
						}
					case parquet.Double:
						x.bits = math.Float64bits(v.Values.Double()[j])
					case parquet.Float:
						x.bits = uint64(math.Float32bits(v.Values.Float()[j]))
					case parquet.ByteArray:
						data, offs := v.Values.ByteArray()
						x.bytes = string(data[offs[j]:offs[j+1]])
					case parquet.FixedLenByteArray:
						data, size := v.Values.FixedLenByteArray()
						var ok bool
						if x.hi, x.bits, ok = beDecimal(data[j*size : (j+1)*size]); !ok {
							return fmt.Errorf("FLBA of size %d is not a decimal", size)
						}
					default:
						return fmt.Errorf("kind %s", typ.Kind())
					}
					out[c] = append(out[c], x)
				}
				if k != len(v.Idx) && v.Idx != nil {
					return fmt.Errorf("%d indexes for %d values", len(v.Idx), k)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("parquet-go column %s: %v", cols[c].Name(), err)
			}
		}
	}
	return cols, out
}

// checkLogical requires parquet-go's view of column c's logical type to say
// what the Arrow type says: a reader that returned the right integers under
// the wrong unit or scale would not be exact.
func checkLogical(t *testing.T, f arrow.Field, col *parquet.Column) {
	t.Helper()
	lt := col.Type().LogicalType()
	var got any
	if lt != nil {
		got = lt.Value
	}
	switch dt := f.Type.(type) {
	case *arrow.TimestampType:
		ts, ok := got.(*format.TimestampType)
		if !ok {
			t.Errorf("%s: parquet-go logical type %v, want a timestamp", f.Name, got)
			return
		}
		want := map[arrow.TimeUnit]string{arrow.Millisecond: "MILLIS", arrow.Microsecond: "MICROS", arrow.Nanosecond: "NANOS"}[dt.Unit]
		if ts.Unit.String() != want || ts.IsAdjustedToUTC != (dt.TimeZone != "") {
			t.Errorf("%s: parquet-go says %v, Arrow type %s", f.Name, ts, dt)
		}
	case *arrow.Decimal128Type:
		d, ok := got.(*format.DecimalType)
		if !ok || d.Precision != dt.Precision || d.Scale != dt.Scale {
			t.Errorf("%s: parquet-go logical type %v, Arrow type %s", f.Name, got, dt)
		}
	case *arrow.StringType:
		if _, ok := got.(*format.StringType); !ok {
			t.Errorf("%s: parquet-go logical type %v, want STRING", f.Name, got)
		}
	case *arrow.BinaryType:
		if got != nil {
			t.Errorf("%s: parquet-go logical type %v, want none", f.Name, got)
		}
	}
	if f.Nullable != (col.MaxDefinitionLevel() == 1) {
		t.Errorf("%s: nullable %t, parquet-go max definition level %d", f.Name, f.Nullable, col.MaxDefinitionLevel())
	}
}

// TestParquetGoExact writes the tricky values with arrow-go in several layouts
// and requires parquet-go's page API to return every value bit for bit as
// pqarrow does, and both to return what was written (except NaN payloads in a
// float dictionary, which arrow-go's writer merges before either reader runs).
func TestParquetGoExact(t *testing.T) {
	rec, want := exactTable(t)
	defer rec.Release()
	for _, cfg := range writerConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "exact.parquet")
			writeParquet(t, path, rec, cfg.props)
			schema, fromArrow := readPqarrow(t, path)
			cols, fromGo := readParquetGo(t, path)
			if len(cols) != len(want) || len(fromArrow) != len(want) {
				t.Fatalf("columns: parquet-go %d, pqarrow %d, written %d", len(cols), len(fromArrow), len(want))
			}
			for c, f := range rec.Schema().Fields() {
				if schema.Field(c).Name != f.Name || cols[c].Name() != f.Name {
					t.Fatalf("column %d: pqarrow %q, parquet-go %q, written %q", c, schema.Field(c).Name, cols[c].Name(), f.Name)
				}
				checkLogical(t, f, cols[c])
				if len(fromGo[c]) != exactRows || len(fromArrow[c]) != exactRows {
					t.Fatalf("%s: parquet-go %d rows, pqarrow %d, want %d", f.Name, len(fromGo[c]), len(fromArrow[c]), exactRows)
				}
				bad := 0
				for i := range exactRows {
					g, a, w := fromGo[c][i], fromArrow[c][i], want[c][i]
					if g != a {
						t.Errorf("%s row %d: parquet-go %v, pqarrow %v", f.Name, i, g, a)
						bad++
					}
					merged := cfg.floatDict && (f.Name == "f64" && math.IsNaN(math.Float64frombits(w.bits)) ||
						f.Name == "f32" && math.IsNaN(float64(math.Float32frombits(uint32(w.bits)))))
					if a != w && !merged {
						t.Errorf("%s row %d: pqarrow %v, written %v", f.Name, i, a, w)
						bad++
					}
					if bad > 10 {
						t.Fatalf("%s: too many differences", f.Name)
					}
				}
			}
		})
	}
}

// TestParquetGoEncodings makes sure the layouts above really exercise the
// decoding paths they are named for: dictionary pages, a fall back to plain
// within a chunk, data page v2, the delta and byte-stream-split encodings.
func TestParquetGoEncodings(t *testing.T) {
	rec, _ := exactTable(t)
	defer rec.Release()
	for _, cfg := range writerConfigs() {
		path := filepath.Join(t.TempDir(), cfg.name+".parquet")
		writeParquet(t, path, rec, cfg.props)
		r, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for g := range r.NumRowGroups() {
			rg := r.MetaData().RowGroup(g)
			for c := range rg.NumColumns() {
				cc, err := rg.ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range cc.Encodings() {
					seen[cc.PathInSchema().String()+":"+e.String()] = true
				}
			}
		}
		r.Close()
		var need []string
		switch cfg.name {
		case "dict-fallback-v2-zstd":
			need = []string{"i64:RLE_DICTIONARY", "i64:PLAIN", "text:RLE_DICTIONARY", "text:PLAIN"}
		case "float-dict":
			need = []string{"f64:RLE_DICTIONARY", "f32:RLE_DICTIONARY"}
		case "delta-bss":
			need = []string{"i64:DELTA_BINARY_PACKED", "f64:BYTE_STREAM_SPLIT", "text:DELTA_BYTE_ARRAY", "bin:DELTA_LENGTH_BYTE_ARRAY", "dec_9_3:DELTA_BINARY_PACKED"}
		case "dict-v1-snappy":
			need = []string{"text:RLE_DICTIONARY", "dec_38_0:RLE_DICTIONARY"}
		}
		for _, n := range need {
			if !seen[n] {
				t.Errorf("%s: no %s in the file (has %v)", cfg.name, n, seen)
			}
		}
	}
}
