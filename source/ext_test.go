package source

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestTypeNameExtension: the spelling of every type the C2 extension added, derived
// from the grammar in doc.go.
func TestTypeNameExtension(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	utf8 := arrow.BinaryTypes.String
	for _, c := range []struct {
		dt   arrow.DataType
		want string
	}{
		{arrow.FixedWidthTypes.Date32, "date32"},
		{arrow.FixedWidthTypes.Date64, "date64"},
		{arrow.FixedWidthTypes.Time32s, "time32(s)"},
		{arrow.FixedWidthTypes.Time32ms, "time32(ms)"},
		{arrow.FixedWidthTypes.Time64us, "time64(us)"},
		{arrow.FixedWidthTypes.Time64ns, "time64(ns)"},
		{arrow.FixedWidthTypes.Duration_s, "duration(s)"},
		{arrow.FixedWidthTypes.Duration_ms, "duration(ms)"},
		{arrow.FixedWidthTypes.Duration_us, "duration(us)"},
		{arrow.FixedWidthTypes.Duration_ns, "duration(ns)"},
		{&arrow.TimestampType{Unit: arrow.Nanosecond}, "timestamp(ns)"},
		{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, "timestamp(ns,UTC)"},
		{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Berlin"}, "timestamp(ns,Europe/Berlin)"},
		{arrow.ListOf(i64), `list<"item":int64>`},
		{arrow.ListOfNonNullable(i64), `list<"item":int64 not null>`},
		{arrow.LargeListOf(utf8), `large_list<"item":utf8>`},
		{arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64), `fixed_size_list(3)<"item":float64>`},
		{arrow.StructOf(arrow.Field{Name: "a", Type: i64, Nullable: true}, arrow.Field{Name: "b", Type: utf8}), `struct<"a":int64,"b":utf8 not null>`},
		{arrow.StructOf(), `struct<>`},
		{arrow.MapOf(utf8, i64), `map<"key":utf8 not null,"value":int64>`},
		{func() arrow.DataType { m := arrow.MapOf(utf8, i64); m.KeysSorted = true; return m }(), `map(keys_sorted)<"key":utf8 not null,"value":int64>`},
		// Names are quoted with '"', '\' and controls escaped, so they cannot be confused
		// with the grammar.
		{arrow.StructOf(arrow.Field{Name: `a"b\c` + "\n" + `,>x`, Type: i64, Nullable: true}), `struct<"a\"b\\c\u000a,>x":int64>`},
		{arrow.StructOf(arrow.Field{Name: "ü", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "t", Type: arrow.FixedWidthTypes.Date32, Nullable: true})), Nullable: true}),
			`struct<"ü":list<"item":struct<"t":date32>>>`},
	} {
		got, ok := TypeName(c.dt)
		if !ok || got != c.want {
			t.Errorf("TypeName(%s) = %q, %v; want %q", c.dt, got, ok, c.want)
		}
	}
	// Unsupported: units a type does not have, unknown children, invalid names, depth.
	deep := arrow.DataType(arrow.PrimitiveTypes.Int64)
	for i := 0; i < maxNestedDepth+1; i++ {
		deep = arrow.ListOf(deep)
	}
	for _, dt := range []arrow.DataType{
		&arrow.Time32Type{Unit: arrow.Microsecond},
		&arrow.Time64Type{Unit: arrow.Second},
		arrow.ListOf(arrow.FixedWidthTypes.Float16),
		arrow.StructOf(arrow.Field{Name: "\xff", Type: i64}),
		arrow.MapOf(utf8, arrow.FixedWidthTypes.MonthDayNanoInterval),
		arrow.ListViewOf(i64),
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: utf8},
		deep,
	} {
		if n, ok := TypeName(dt); ok {
			t.Errorf("TypeName(%s) = %q, want unsupported", dt, n)
		}
	}
	if _, ok := TypeName(deep.(*arrow.ListType).Elem()); !ok {
		t.Errorf("nesting depth %d rejected", maxNestedDepth)
	}
}

// extRecord builds a record of every extension type, two rows, the second null where
// the column is nullable.
func extRecord(t testing.TB, schema *arrow.Schema) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Date32Builder).AppendValues([]arrow.Date32{20787, -1}, nil)
	b.Field(1).(*array.Time64Builder).AppendValues([]arrow.Time64{49500123456, 0}, nil)
	b.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1796025600000000001, -1}, nil)
	lb := b.Field(3).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	lb.AppendNull()
	sb := b.Field(4).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int64Builder).Append(7)
	sb.FieldBuilder(1).(*array.StringBuilder).Append("x")
	sb.AppendNull()
	sb.FieldBuilder(0).(*array.Int64Builder).AppendNull()
	sb.FieldBuilder(1).(*array.StringBuilder).AppendNull()
	b.Field(5).(*array.Int64Builder).AppendValues([]int64{10, 20}, nil)
	b.Field(6).(*array.Int64Builder).AppendValues([]int64{1500, -250}, nil) // duration(ms) or its int64 storage
	return b.NewRecordBatch()
}

func extFieldsOf(last arrow.DataType) []arrow.Field {
	return []arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "t", Type: arrow.FixedWidthTypes.Time64us},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		{Name: "tags", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dur", Type: last},
	}
}

// TestExtensionTypesRead: Parquet and IPC files with date, time, timestamp(ns), list,
// struct and duration columns open and read back exactly, with every column's
// TypeName; excluding a nested column still reads the right Parquet leaves.
func TestExtensionTypesRead(t *testing.T) {
	dir := t.TempDir()
	logical := arrow.NewSchema(extFieldsOf(arrow.FixedWidthTypes.Duration_ms), nil)
	// Parquet: duration stored as INT64 with the Arrow schema in ARROW:schema, as
	// pyarrow writes it (pqarrow's writer has no duration support).
	md := arrow.NewMetadata([]string{"ARROW:schema"}, []string{base64.StdEncoding.EncodeToString(flight.SerializeSchema(logical, memory.DefaultAllocator))})
	prec := extRecord(t, arrow.NewSchema(extFieldsOf(arrow.PrimitiveTypes.Int64), &md))
	defer prec.Release()
	writeParquet(t, filepath.Join(dir, "e.parquet"), prec, 1)
	// IPC holds the duration type natively.
	irec := extRecord(t, arrow.NewSchema(extFieldsOf(arrow.PrimitiveTypes.Int64), nil))
	defer irec.Release()
	cols := irec.Columns()
	dd := array.NewData(arrow.FixedWidthTypes.Duration_ms, 2, cols[6].Data().Buffers(), nil, 0, 0)
	dur := array.MakeFromData(dd)
	dd.Release()
	ipcRec := array.NewRecordBatch(logical, append(append([]arrow.Array(nil), cols[:6]...), dur), 2)
	dur.Release()
	defer ipcRec.Release()
	writeIPC(t, filepath.Join(dir, "e.arrow"), ipcRec, false, 1)
	writeIPC(t, filepath.Join(dir, "e.arrows"), ipcRec, true, 2)

	wantNames := []string{"date32", "time64(us)", "timestamp(ns)", `list<"element":int64>`, `struct<"a":int64,"b":utf8>`, "int64", "duration(ms)"}
	for _, f := range []string{"e.parquet", "e.arrow", "e.arrows"} {
		sc, got, ev := openRead(t, filepath.Join(dir, f), Options{})
		if ev.Coverage.Status != StatusComplete {
			t.Fatalf("%s: coverage %+v", f, ev.Coverage)
		}
		for i, w := range wantNames {
			if n, _ := TypeName(sc.Field(i).Type); n != w {
				t.Errorf("%s: column %s is %q, want %q", f, sc.Field(i).Name, n, w)
			}
		}
		if d := got[0].(*array.Date32); d.Value(0) != 20787 || d.Value(1) != -1 {
			t.Errorf("%s: dates %v", f, d)
		}
		if tm := got[1].(*array.Time64); tm.Value(0) != 49500123456 {
			t.Errorf("%s: times %v", f, tm)
		}
		if ts := got[2].(*array.Timestamp); ts.Value(0) != 1796025600000000001 || ts.Value(1) != -1 {
			t.Errorf("%s: timestamps %v", f, ts)
		}
		l := got[3].(*array.List)
		if vals := l.ListValues().(*array.Int64); !l.IsValid(0) || l.IsValid(1) || vals.Len() != 2 || vals.Value(0) != 1 || vals.Value(1) != 2 {
			t.Errorf("%s: list %v", f, l)
		}
		st := got[4].(*array.Struct)
		if !st.IsValid(0) || st.IsValid(1) || st.Field(0).(*array.Int64).Value(0) != 7 || st.Field(1).(*array.String).Value(0) != "x" {
			t.Errorf("%s: struct %v", f, st)
		}
		if d := got[6].(*array.Duration); d.Value(0) != 1500 || d.Value(1) != -250 {
			t.Errorf("%s: durations %v", f, d)
		}
		if f == "e.parquet" {
			if src := sc.Field(3).Metadata.Values()[sc.Field(3).Metadata.FindKey(MetaSourceType)]; src != "group/List" {
				t.Errorf("list source type %q", src)
			}
		}
		// Excluding the nested columns keeps the flat ones right (leaf selection).
		sc2, got2, ev2 := openRead(t, filepath.Join(dir, f), Options{Exclude: []string{"tags", "st"}})
		if sc2.NumFields() != 5 || sc2.Field(3).Name != "n" || got2[3].(*array.Int64).Value(1) != 20 ||
			got2[4].(*array.Duration).Value(1) != -250 || strings.Join(ev2.Excluded, ",") != "tags,st" {
			t.Errorf("%s: with exclusions: %v %v %v", f, sc2, got2, ev2.Excluded)
		}
	}
}
