package scan

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
	"github.com/pipewhy/pipewhy/normalize/columnar"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

const shop = "../examples/shop"

// encodeBoth encodes rec with the columnar encoder and with the slow reference path.
func encodeBoth(t *testing.T, rec arrow.RecordBatch, p normalize.Profile) (fast, slow *normalize.RecordBatch) {
	t.Helper()
	n := int(rec.NumCols())
	cols := make([]columnar.Column, n)
	ids := make([]uint64, n)
	for i := range cols {
		ids[i] = uint64(i + 1)
		cols[i] = columnar.Column{Index: i, Field: normalize.FieldID(i + 1)}
	}
	enc, err := columnar.NewEncoder(rec.Schema(), cols, p)
	if err != nil {
		t.Fatal(err)
	}
	fast, slow = &normalize.RecordBatch{}, &normalize.RecordBatch{}
	if err := enc.Append(fast, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := appendBatchSlow(slow, rec, ids, p, nil, 1); err != nil {
		t.Fatal(err)
	}
	return fast, slow
}

func sameRecords(t *testing.T, what string, a, b *normalize.RecordBatch) {
	t.Helper()
	if a.Len() != b.Len() {
		t.Fatalf("%s: %d vs %d records", what, a.Len(), b.Len())
	}
	for i := 0; i < a.Len(); i++ {
		if !slices.Equal(a.Record(i), b.Record(i)) {
			t.Fatalf("%s: record %d differs:\ncolumnar %v\nslow     %v", what, i, a.Record(i), b.Record(i))
		}
	}
}

// TestColumnarMatchesSlowPath: the columnar encoder scan uses and the independent
// cell-by-cell path agree on every sample table, under both profiles.
func TestColumnarMatchesSlowPath(t *testing.T) {
	for _, v := range []string{"v1", "v2"} {
		for _, table := range []string{"customers", "orders", "daily_revenue"} {
			cols, err := source.LoadColumns(filepath.Join(shop, "schema", table+".json"))
			if err != nil {
				t.Fatal(err)
			}
			src, err := source.Open(context.Background(), filepath.Join(shop, v, table+".csv"), source.Options{Columns: cols})
			if err != nil {
				t.Fatal(err)
			}
			for {
				rec, err := src.Next(context.Background())
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range []normalize.Profile{normalize.StrictV1, normalize.LogicalV1} {
					f, s := encodeBoth(t, rec, p)
					sameRecords(t, v+"/"+table+"/"+p.Name(), f, s)
				}
				rec.Release()
			}
			src.Close()
		}
	}
}

// TestSlowPathEdgeValues pins the Arrow → C2 mapping on values the sample data lacks:
// nulls, negative decimals with a leading zero, zoned timestamps including a DST fold.
func TestSlowPathEdgeValues(t *testing.T) {
	mem := memory.NewGoAllocator()
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	tsUTC := &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}
	tsOff := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "+01:30"}
	tsBer := &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Berlin"}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: dec, Nullable: true}, {Name: "u", Type: tsUTC}, {Name: "o", Type: tsOff}, {Name: "b", Type: tsBer},
	}, nil)
	bld := array.NewRecordBuilder(mem, schema)
	defer bld.Release()
	db := bld.Field(0).(*array.Decimal128Builder)
	db.Append(decimal128.FromI64(-5)) // -0.05
	db.AppendNull()
	db.Append(decimal128.FromI64(12345)) // 123.45
	// 2026-10-25 00:30:00 UTC and 01:30:00 UTC are both 02:30 in Berlin (fold 0, then 1).
	for _, s := range []int64{1792888200, 1792891800, 0} {
		bld.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(s))
		bld.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(s * 1e6))
		bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(s))
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()

	// Hand-derived C2 values (C2 PW-03.06/07, typed-values contract).
	want := []struct {
		col, row int
		v        normalize.Value
	}{
		{0, 0, normalize.DecimalValue{Negative: true, Digits: "5", ExponentNegative: true, ExponentMagnitude: 2}},
		{0, 1, normalize.Nil},
		{0, 2, normalize.DecimalValue{Digits: "12345", ExponentNegative: true, ExponentMagnitude: 2}},
		{1, 0, normalize.TimestampValue{Year: 2026, Month: 10, Day: 25, Hour: 0, Minute: 30, Zone: normalize.FixedZone(0, "UTC")}},
		{2, 0, normalize.TimestampValue{Year: 2026, Month: 10, Day: 25, Hour: 2, Minute: 0, Zone: normalize.FixedZone(5400e6, "UTC+01:30")}},
		{3, 0, normalize.TimestampValue{Year: 2026, Month: 10, Day: 25, Hour: 2, Minute: 30, Fold: 0, Zone: normalize.IANAZone("Europe/Berlin")}},
		{3, 1, normalize.TimestampValue{Year: 2026, Month: 10, Day: 25, Hour: 2, Minute: 30, Fold: 1, Zone: normalize.IANAZone("Europe/Berlin")}},
		{3, 2, normalize.TimestampValue{Year: 1970, Month: 1, Day: 1, Hour: 1, Zone: normalize.IANAZone("Europe/Berlin")}},
	}
	for _, w := range want {
		got, err := cellValue(rec.Column(w.col), w.row)
		if err != nil {
			t.Fatal(err)
		}
		gt, gw, err1 := normalize.EncodeValue(got, normalize.StrictV1)
		wt, ww, err2 := normalize.EncodeValue(w.v, normalize.StrictV1)
		if err1 != nil || err2 != nil || gt != wt || !slices.Equal(gw, ww) {
			t.Errorf("col %d row %d: got %v %v (%v), want %v %v (%v)", w.col, w.row, gt, gw, err1, wt, ww, err2)
		}
	}
	f, s := encodeBoth(t, rec, normalize.StrictV1)
	sameRecords(t, "edge values", f, s)
}

func TestProjectKey(t *testing.T) {
	rec, err := normalize.EncodeRecord([]normalize.Field{
		{ID: 1, Value: normalize.Int(7)}, {ID: 2, Value: normalize.TextValue("abcdefghi")}, {ID: 5, Value: normalize.Nil},
	}, normalize.StrictV1)
	if err != nil {
		t.Fatal(err)
	}
	// Projection onto {2, 5}: [1, 2, 2, frame(2), frame(5)], by hand from C3 §key digest.
	want := []uint64{1, 2, 2, 2, 6, 3, 9, 0x6867666564636261, 0x69, 5, 1, 0}
	if got := projectKey(nil, rec, []uint64{2, 5}); !slices.Equal(got, want) {
		t.Errorf("projectKey = %v, want %v", got, want)
	}
	if got := projectKey(nil, rec, nil); !slices.Equal(got, rec) {
		t.Errorf("no key: %v, want the whole record", got)
	}
}

// TestRunFailureWritesNothing: a duplicate-key scan leaves the store, registry and log
// untouched; a good scan then publishes a snapshot that Load validates.
func TestRunFailureWritesNothing(t *testing.T) {
	r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	os.WriteFile(p, []byte("k,v\n1,a\n1,b\n"), 0o644)
	_, err = Run(context.Background(), r, Options{Address: p, Resolution: snapshot.ResolutionRecord, Key: []string{"k"}})
	var dk *DuplicateKeyError
	if !asDup(err, &dk) || dk.Keys != 1 || dk.Records != 2 || CodeOf(err) != CodeDuplicateKey ||
		!errors.Is(err, &Error{Code: CodeDuplicateKey}) || dk.Examples[0] != `k="1"` {
		t.Fatalf("err = %v", err)
	}
	if ids, _ := r.IDs(); len(ids) != 0 {
		t.Errorf("published %v", ids)
	}
	if _, err := os.Stat(r.RegistryPath()); !os.IsNotExist(err) {
		t.Errorf("registry written on failure: %v", err)
	}
	if l, _ := r.Log(); len(l) != 0 {
		t.Errorf("log written on failure: %v", l)
	}
	os.WriteFile(p, []byte("k,v\n1,a\n2,b\n"), 0o644)
	res, err := Run(context.Background(), r, Options{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := r.Load(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Len() != 2 || sc.ValueTable.Len() != 4 || sc.Descriptor.Artifact != "t" {
		t.Errorf("loaded %d records, %d values, artifact %q", sc.Len(), sc.ValueTable.Len(), sc.Descriptor.Artifact)
	}
	if got := c2text.Record(sc.Key(0), func(uint64) string { return "k" }); got != `k="1"` && got != `k="2"` {
		t.Errorf("key 0 = %s", got)
	}
}

func asDup(err error, dk **DuplicateKeyError) bool {
	d, ok := err.(*DuplicateKeyError)
	*dk = d
	return ok
}

// BenchmarkScanDatasetCSV: a dataset-resolution scan (read, C2, C3; no publish) of a
// generated 1M-row CSV (id int64, name text, amount decimal(12,2), at timestamp(s)).
func BenchmarkScanDatasetCSV(b *testing.B) {
	rows := 1_000_000
	if testing.Short() {
		rows = 50_000
	}
	dir := b.TempDir()
	p := filepath.Join(dir, "big.csv")
	fh, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	f := bufio.NewWriter(fh)
	fmt.Fprintln(f, "id,name,amount,at")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(f, "%d,customer %d,%d.%02d,2026-11-%02dT%02d:%02d:%02d\n", i, i%9973, i%100000, i%100, 1+i%28, i%24, i%60, i%60)
	}
	if err := f.Flush(); err != nil {
		b.Fatal(err)
	}
	fh.Close()
	cols := []source.Column{{Name: "id", Type: "int64"}, {Name: "name", Type: "text"}, {Name: "amount", Type: "decimal(12,2)"}, {Name: "at", Type: "timestamp(s)"}}
	b.ResetTimer()
	for b.Loop() {
		reg, _ := source.OpenRegistry(filepath.Join(dir, "reg.json"))
		res, err := Observe(context.Background(), reg, Options{Address: p, Source: source.Options{Columns: cols}})
		if err != nil {
			b.Fatal(err)
		}
		if res.Scan.State.Count() != uint64(rows) {
			b.Fatal("count")
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkScanParquet: scans (read, C2, C3, snapshot arrays built; no publish) of a
// generated 1M-row Parquet file (id int64, name utf8, amount decimal128(12,2),
// at timestamp[us]), 64k-row row groups, at each resolution (key id).
func BenchmarkScanParquet(b *testing.B) {
	rows := 1_000_000
	if testing.Short() {
		rows = 50_000
	}
	dir := b.TempDir()
	p := filepath.Join(dir, "big.parquet")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
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
			bld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("customer %d", i%9973))
			bld.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i % 10000000)))
			bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_790_000_000_000_000 + int64(i)*1_000_003))
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
	for _, res := range []snapshot.Resolution{snapshot.ResolutionDataset, snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		b.Run(string(res), func(b *testing.B) {
			o := Options{Address: p, Resolution: res}
			if res != snapshot.ResolutionDataset {
				o.Key = []string{"id"}
			}
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

func TestDefaultName(t *testing.T) {
	for addr, want := range map[string]string{
		"/data/orders.csv":                          "orders",
		"sqlite:/data/shop.db#orders":               "orders",
		"duckdb:/data/shop.duckdb#orders":           "orders",
		"mysql://root@127.0.0.1:3306/test#pw.items": "items",
		"postgres://u@h/db#public.customers":        "customers",
		"postgres://u@h/db#":                        "",
		"mysql://u@h/db#schema.":                    "",
	} {
		if got := DefaultName(addr); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", addr, got, want)
		}
	}
}

// projectKey appends to dst the record projected onto the key fields
// [1, 2, k, key frames in ascending id order] (the whole record when keyIDs is
// empty). rec must be a valid C2 record. The test reference of the key records the engine returns.
func projectKey(dst []uint64, rec []uint64, keyIDs []uint64) []uint64 {
	if len(keyIDs) == 0 {
		return append(dst, rec...)
	}
	dst = append(dst, normalize.WireVersion, normalize.RecordDomain, uint64(len(keyIDs)))
	n, pos, k := rec[2], 3, 0
	for f := uint64(0); f < n && k < len(keyIDs); f++ {
		l := 3 + int(rec[pos+2])
		if rec[pos] == keyIDs[k] {
			dst = append(dst, rec[pos:pos+l]...)
			k++
		}
		pos += l
	}
	return dst
}
