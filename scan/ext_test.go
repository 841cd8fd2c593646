package scan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/decimaltext"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/source"
)

func TestValueTypeExtension(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	for _, c := range []struct {
		dt  arrow.DataType
		vt  fingerprint.ValueType
		ext bool
	}{
		{arrow.FixedWidthTypes.Date32, fingerprint.TypeDate, true},
		{arrow.FixedWidthTypes.Date64, fingerprint.TypeDate, true},
		{arrow.FixedWidthTypes.Time32ms, fingerprint.TypeTime, true},
		{arrow.FixedWidthTypes.Time64ns, fingerprint.TypeTime, true},
		{arrow.FixedWidthTypes.Duration_s, fingerprint.TypeDuration, true},
		{arrow.ListOf(i64), fingerprint.TypeNested, true},
		{arrow.LargeListOf(i64), fingerprint.TypeNested, true},
		{arrow.FixedSizeListOf(2, i64), fingerprint.TypeNested, true},
		{arrow.StructOf(arrow.Field{Name: "a", Type: i64}), fingerprint.TypeNested, true},
		{arrow.MapOf(i64, i64), fingerprint.TypeNested, true},
		{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, fingerprint.TypeTimestamp, true},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, fingerprint.TypeTimestamp, false},
		{i64, fingerprint.TypeInt, false},
		{arrow.PrimitiveTypes.Int8, fingerprint.TypeInt, false},
		{arrow.PrimitiveTypes.Uint64, fingerprint.TypeInt, false},
		{arrow.FixedWidthTypes.Boolean, fingerprint.TypeBool, false},
		{arrow.PrimitiveTypes.Float32, fingerprint.TypeFloat64, false},
		{arrow.PrimitiveTypes.Float64, fingerprint.TypeFloat64, false},
		{arrow.BinaryTypes.String, fingerprint.TypeText, false},
		{arrow.BinaryTypes.LargeString, fingerprint.TypeText, false},
		{arrow.BinaryTypes.Binary, fingerprint.TypeBytes, false},
		{arrow.BinaryTypes.LargeBinary, fingerprint.TypeBytes, false},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, fingerprint.TypeDecimal, false},
		{&arrow.Decimal256Type{Precision: 40, Scale: 2}, fingerprint.TypeDecimal, false},
		{decimaltext.New(), fingerprint.TypeDecimal, false},
	} {
		vt, ok := valueType(c.dt)
		if !ok || vt != c.vt || needsExtension(c.dt) != c.ext {
			t.Errorf("%s: value type %q %v, needs extension %v; want %q %v", c.dt, vt, ok, needsExtension(c.dt), c.vt, c.ext)
		}
		// The family is a value type the fingerprint context accepts.
		sd := fingerprint.SchemaDescriptor{RenamePolicy: fingerprint.RenameKeepsIdentity, Fields: []fingerprint.SchemaField{{ID: 1, Name: "x", Type: vt}}}
		if _, err := fingerprint.NewContext(fingerprint.XXH3, normalize.StrictV1Ext1.ID(), sd, fingerprint.Multiset); err != nil {
			t.Errorf("%s: value type %q: %v", c.dt, vt, err)
		}
	}
	// A type spelling is of no family unless it is one.
	sd := fingerprint.SchemaDescriptor{RenamePolicy: fingerprint.RenameKeepsIdentity, Fields: []fingerprint.SchemaField{{ID: 1, Name: "x", Type: "integer"}}}
	if _, err := fingerprint.NewContext(fingerprint.XXH3, normalize.StrictV1Ext1.ID(), sd, fingerprint.Multiset); err == nil {
		t.Error("the fingerprint context accepts an unknown value type: the check above proves nothing")
	}
	if _, ok := valueType(arrow.FixedWidthTypes.MonthDayNanoInterval); ok {
		t.Error("interval has a value type")
	}
}

// writeExtIPC writes an IPC file: id int64, when date64, span duration(s), kv map<utf8,int64>.
func writeExtIPC(t *testing.T, path string) {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "when", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "span", Type: arrow.FixedWidthTypes.Duration_s},
		{Name: "kv", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	b.Field(1).(*array.Date64Builder).AppendValues([]arrow.Date64{86400000, 0}, []bool{true, false})
	b.Field(2).(*array.DurationBuilder).AppendValues([]arrow.Duration{-3, 1 << 62}, nil)
	mb := b.Field(3).(*array.MapBuilder)
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).AppendValues([]string{"b", "a"}, nil)
	mb.ItemBuilder().(*array.Int64Builder).AppendValues([]int64{2, 1}, nil)
	mb.AppendNull()
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(sc))
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

// TestObserveExtension: a v1 profile refuses an extension column with CodeProfile and a
// message naming it and the ways out; the +ext1 profile scans it with the extension
// value types; excluding the columns scans under v1 and records them.
func TestObserveExtension(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ev.arrow")
	writeExtIPC(t, p)
	reg, err := source.OpenRegistry(filepath.Join(dir, "reg.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Observe(context.Background(), reg, Options{Address: p, Profile: normalize.LogicalV1})
	if CodeOf(err) != CodeProfile {
		t.Fatalf("logical-v1: %v, want %s", err, CodeProfile)
	}
	for _, s := range []string{`column "when"`, "date64", "logical-v1+ext1", "--exclude when"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q: %v", s, err)
		}
	}
	res, err := Observe(context.Background(), reg, Options{Address: p, Profile: normalize.LogicalV1Ext1, Resolution: "value", Key: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"id": "int", "when": "date", "span": "duration", "kv": "nested"}
	for _, f := range res.Scan.Descriptor.Fields {
		if want[f.Name] != f.Type {
			t.Errorf("field %s: type %s, want %s", f.Name, f.Type, want[f.Name])
		}
	}
	if res.Scan.State.Count() != 2 || !res.Scan.Context.Extended() || res.Scan.Context.ProfileID() != normalize.LogicalV1Ext1.ID() {
		t.Fatalf("count %d context %s", res.Scan.State.Count(), res.Scan.Context.ProfileID())
	}
	// The value table holds the extension codes: DATE and NULL for "when", DURATION for
	// "span", NESTED and NULL for "kv".
	codes := map[uint8]int{}
	for _, tc := range res.Scan.ValueTable.TypeID {
		codes[tc]++
	}
	if codes[uint8(normalize.Date)] != 1 || codes[uint8(normalize.Duration)] != 2 || codes[uint8(normalize.Nested)] != 1 || codes[uint8(normalize.Null)] != 2 {
		t.Errorf("value type codes %v", codes)
	}
	res, err = Observe(context.Background(), reg, Options{Address: p, Source: source.Options{Exclude: []string{"when", "span", "kv"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Scan.Descriptor; strings.Join(d.Excluded, ",") != "when,span,kv" || len(d.Fields) != 1 ||
		res.Scan.Metadata.Scope != "rows=all;columns=all-except:when,span,kv" {
		t.Errorf("excluded %v fields %v scope %s", d.Excluded, d.Fields, res.Scan.Metadata.Scope)
	}
}

// BenchmarkScanParquetExt: dataset-resolution scans under strict-v1+ext1 of a generated
// Parquet file (id int64, d date32, t time64[us], ts timestamp[ns] with a nonzero
// nanosecond part in every other row, tags list<int64> of 0..3 elements), 64k-row row
// groups. The list column goes through the canonical encoder per value.
func BenchmarkScanParquetExt(b *testing.B) {
	rows := 200_000
	if testing.Short() {
		rows = 20_000
	}
	dir := b.TempDir()
	p := filepath.Join(dir, "ext.parquet")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "t", Type: arrow.FixedWidthTypes.Time64us},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		{Name: "tags", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
	}, nil)
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1<<16)), pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	bld := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	for start := 0; start < rows; start += 1 << 16 {
		for i := start; i < rows && i < start+1<<16; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
			bld.Field(1).(*array.Date32Builder).Append(arrow.Date32(20000 + i%3000))
			bld.Field(2).(*array.Time64Builder).Append(arrow.Time64(int64(i) * 1_000_003 % 86_400_000_000))
			bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_790_000_000_000_000_000 + int64(i)*1_000_000_001))
			lb := bld.Field(4).(*array.ListBuilder)
			lb.Append(true)
			for k := 0; k < i%4; k++ {
				lb.ValueBuilder().(*array.Int64Builder).Append(int64(i + k))
			}
		}
		rec := bld.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
	bld.Release()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	for _, excl := range [][]string{nil, {"tags"}} {
		name := "all"
		if excl != nil {
			name = "no-list"
		}
		b.Run(name, func(b *testing.B) {
			o := Options{Address: p, Profile: normalize.StrictV1Ext1, Source: source.Options{Exclude: excl}}
			for b.Loop() {
				reg, _ := source.OpenRegistry(filepath.Join(dir, "reg.json"))
				out, err := Observe(context.Background(), reg, o)
				if err != nil {
					b.Fatal(err)
				}
				if out.Scan.State.Count() != uint64(rows) {
					b.Fatal("count")
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
