package live

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// vega is the directory of the real files of testdata/vega (README.md there).
var vega = filepath.Join("..", "..", "testdata", "vega")

// TestSourcesPhysicalIsNotADifference: compare follows Diff's rule. The Parquet writers'
// files are equal; an Arrow type that differs is listed as a type difference, a
// nullability that differs is not listed at all (two engines always differ in it).
func TestSourcesPhysicalIsNotADifference(t *testing.T) {
	in := func(f string) Input { return Input{Address: filepath.Join(vega, f)} }
	for _, c := range []struct {
		a, b  string
		types []TypeDifference
	}{
		{"flights-1k-arrowgo.parquet", "flights-1k-duckdb.parquet", []TypeDifference{
			{Name: "origin", Type: "text", A: "large_utf8", B: "utf8", SourceA: "BYTE_ARRAY/String", SourceB: "BYTE_ARRAY/String"},
			{Name: "destination", Type: "text", A: "large_utf8", B: "utf8", SourceA: "BYTE_ARRAY/String", SourceB: "BYTE_ARRAY/String"},
		}},
		{"flights-1k-parquetgo.parquet", "flights-1k-duckdb.parquet", nil},
	} {
		// Sources needs a key: these 1,000 rows are unique over all five columns.
		cmp, err := Compare(context.Background(), in(c.a), in(c.b), Options{Key: []string{"date", "delay", "distance", "origin", "destination"}, Limit: -1})
		if err != nil {
			t.Fatalf("%s → %s: %v", c.a, c.b, err)
		}
		r := cmp.Report
		if !r.Equal || len(r.SchemaChanges) != 0 || len(r.Physical) != 0 {
			t.Errorf("%s → %s: equal %v schema %+v physical %+v", c.a, c.b, r.Equal, r.SchemaChanges, r.Physical)
		}
		if !reflect.DeepEqual(cmp.Types, c.types) {
			t.Errorf("%s → %s: types\n got %+v\nwant %+v", c.a, c.b, cmp.Types, c.types)
		}
	}
}
