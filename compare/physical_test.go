package compare

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// vega is the directory of the real files of testdata/vega (README.md there).
var vega = filepath.Join("..", "testdata", "vega")

// observeAll scans each address at resolution res into one registry under one artifact
// name, as `pipewhy scan --name NAME` does in one repository.
func observeAll(t *testing.T, name string, res snapshot.Resolution, key []string, addrs ...string) []*repo.Scan {
	t.Helper()
	reg, err := source.OpenRegistry(filepath.Join(t.TempDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*repo.Scan
	for _, a := range addrs {
		r, err := scan.Observe(context.Background(), reg, scan.Options{Address: a, Name: name, Resolution: res, Key: key})
		if err != nil {
			t.Fatalf("observe %s: %v", a, err)
		}
		out = append(out, r.Scan)
	}
	return out
}

// TestDiffPhysicalIsNotADifference: the same 1,000 flights written by three Parquet
// writers (testdata/vega) are equal. What the writers chose (large_utf8 or utf8 strings,
// REQUIRED or OPTIONAL columns) is listed as physical changes, never as schema changes.
// The expected changes are those the writers are documented to make (README.md there).
func TestDiffPhysicalIsNotADifference(t *testing.T) {
	arrowGo := filepath.Join(vega, "flights-1k-arrowgo.parquet")
	duck := filepath.Join(vega, "flights-1k-duckdb.parquet")
	pqGo := filepath.Join(vega, "flights-1k-parquetgo.parquet")
	for _, res := range []snapshot.Resolution{snapshot.ResolutionDataset, snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		s := observeAll(t, "flights", res, nil, arrowGo, duck, pqGo)
		ids := map[string]uint64{}
		for _, f := range s[0].Descriptor.Fields {
			ids[f.Name] = uint64(f.ID)
		}
		str := func(arrow string) Physical {
			return Physical{Arrow: arrow, Source: "BYTE_ARRAY/String", Nullable: true}
		}
		cases := []struct {
			name string
			a, b *repo.Scan
			want []PhysicalChange
		}{
			{"arrow-go → duckdb", s[0], s[1], []PhysicalChange{
				{FieldID: ids["origin"], Name: "origin", Type: "text", A: str("large_utf8"), B: str("utf8")},
				{FieldID: ids["destination"], Name: "destination", Type: "text", A: str("large_utf8"), B: str("utf8")},
			}},
			{"duckdb → arrow-go", s[1], s[0], []PhysicalChange{
				{FieldID: ids["origin"], Name: "origin", Type: "text", A: str("utf8"), B: str("large_utf8")},
				{FieldID: ids["destination"], Name: "destination", Type: "text", A: str("utf8"), B: str("large_utf8")},
			}},
		}
		// parquet-go → duckdb: only nullability, every field (in B's schema order).
		var nulls []PhysicalChange
		for _, f := range s[1].Descriptor.FieldsSorted() {
			pa := physical(f)
			pa.Nullable = false
			nulls = append(nulls, PhysicalChange{FieldID: uint64(f.ID), Name: f.Name, Type: f.Type, A: pa, B: physical(f)})
		}
		cases = append(cases, struct {
			name string
			a, b *repo.Scan
			want []PhysicalChange
		}{"parquet-go → duckdb", s[2], s[1], nulls})
		for _, c := range cases {
			r, err := Diff(c.a, c.b, Options{Limit: -1})
			if err != nil {
				t.Fatalf("%s %s: %v", res, c.name, err)
			}
			if !r.Comparable || !r.StatesEqual || !r.Equal || len(r.SchemaChanges) != 0 {
				t.Errorf("%s %s: comparable %v states equal %v equal %v schema changes %+v; want equal, no schema change",
					res, c.name, r.Comparable, r.StatesEqual, r.Equal, r.SchemaChanges)
			}
			if !reflect.DeepEqual(r.Physical, c.want) {
				t.Errorf("%s %s: physical\n got %+v\nwant %+v", res, c.name, r.Physical, c.want)
			}
			if res != snapshot.ResolutionDataset && (r.Records == nil || r.Records.Unchanged != 1000 || r.Records.Added+r.Records.Removed+r.Records.Changed != 0) {
				t.Errorf("%s %s: records %+v, want 1,000 unchanged", res, c.name, r.Records)
			}
			if len(r.ColumnsDiffer) != 0 {
				t.Errorf("%s %s: columns differ %v", res, c.name, r.ColumnsDiffer)
			}
		}
	}
}

// TestPhysicalChangeDifferences: each physical attribute is named once, old → new.
func TestPhysicalChangeDifferences(t *testing.T) {
	a := Physical{Arrow: "int32", Source: "postgres:int4", Width: 32, Nullable: true}
	b := Physical{Arrow: "int64", Source: "INT64/None", Width: 64, Nullable: false}
	got := PhysicalChange{A: a, B: b}.Differences()
	want := []string{"arrow int32 → int64", "source postgres:int4 → INT64/None", "width 32 → 64", "nullable → not null"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	if got := (PhysicalChange{A: a, B: a}).Differences(); got != nil {
		t.Errorf("no difference: %q", got)
	}
}

// TestDiffRetypeIsADifference: a field whose C3 value type changes (int64 → text) is a
// schema change: the fingerprints are not comparable and the report is not equal.
func TestDiffRetypeIsADifference(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "t.csv", "id,v\n1,10\n2,20\n")
	reg, err := source.OpenRegistry(filepath.Join(dir, "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s []*repo.Scan
	for _, v := range []string{"int64", "text"} {
		r, err := scan.Observe(context.Background(), reg, scan.Options{Address: data, Name: "t", Resolution: snapshot.ResolutionRecord,
			Key: []string{"id"}, Source: source.Options{Columns: []source.Column{{Name: "id", Type: "int64"}, {Name: "v", Type: v}}}})
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, r.Scan)
	}
	r, err := Diff(s[0], s[1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []SchemaChange{{Kind: "retyped", FieldID: 2, Name: "v",
		OldType: "int (arrow int64, source int64, not null)", NewType: "text (arrow utf8, source text, not null)"}}
	if r.Equal || r.Comparable || !reflect.DeepEqual(r.SchemaChanges, want) || len(r.Physical) != 0 {
		t.Errorf("equal %v comparable %v schema %+v physical %+v; want not equal, not comparable, %+v", r.Equal, r.Comparable, r.SchemaChanges, r.Physical, want)
	}
}
