package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSourcesColumnOrderAndIDs: the same records with the columns in another order
// are equal, and a column's field id is the same on both sides (A's order first).
func TestSourcesColumnOrderAndIDs(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", "id,name,city\n1,x,Oslo\n2,y,Rome\n")
	b := writeFile(t, dir, "b.csv", "city,id,zip,name\nRome,2,00100,y\nOslo,1,0150,x\n")
	c, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, Options{Key: []string{"id"}, Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Report
	if !r.Comparable || !r.StatesEqual || r.Equal {
		t.Fatalf("comparable %v states equal %v equal %v; want comparable, equal states, not equal (zip only in B)", r.Comparable, r.StatesEqual, r.Equal)
	}
	if r.Records == nil || r.Records.Unchanged != 2 || r.Records.Added+r.Records.Removed+r.Records.Changed != 0 {
		t.Errorf("records %+v", r.Records)
	}
	// Ids by hand: A's columns id, name, city get 1, 2, 3; B's own zip gets 4.
	want := map[string]uint64{"id": 1, "name": 2, "city": 3}
	for _, s := range []string{"A", "B"} {
		sc := c.A
		if s == "B" {
			sc = c.B
		}
		if len(sc.Descriptor.Fields) != 3 {
			t.Errorf("%s fields %+v, want the 3 common columns", s, sc.Descriptor.Fields)
		}
		for _, f := range sc.Descriptor.Fields {
			if uint64(f.ID) != want[f.Name] {
				t.Errorf("%s: field %s id %d, want %d", s, f.Name, f.ID, want[f.Name])
			}
		}
	}
	if len(r.SchemaChanges) != 1 || r.SchemaChanges[0] != (compare.SchemaChange{Kind: "added", FieldID: 4, Name: "zip", NewType: "utf8"}) {
		t.Errorf("schema changes %+v, want zip added with id 4", r.SchemaChanges)
	}
	if len(c.OnlyA) != 0 || strings.Join(c.OnlyB, ",") != "zip" {
		t.Errorf("only A %v only B %v", c.OnlyA, c.OnlyB)
	}
}

func TestSourcesErrorCodes(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", "id,name\n1,x\n")
	b := writeFile(t, dir, "b.csv", "id,label\n1,x\n")
	dup := writeFile(t, dir, "dup.csv", "id,name\n1,x\n1,y\n")
	cases := []struct {
		name string
		a, b string
		o    Options
		code compare.Code
	}{
		{"map: A column unknown", a, b, Options{Key: []string{"id"}, Map: []Mapping{{"nope", "label"}}}, compare.CodeOptions},
		{"map: B column unknown", a, b, Options{Key: []string{"id"}, Map: []Mapping{{"name", "nope"}}}, compare.CodeOptions},
		{"map: A twice", a, b, Options{Key: []string{"id"}, Map: []Mapping{{"name", "label"}, {"name", "id"}}}, compare.CodeOptions},
		{"map: collision", a, b, Options{Key: []string{"id"}, Map: []Mapping{{"id", "label"}}}, compare.CodeOptions},
		{"key unknown", a, b, Options{Key: []string{"nope"}}, compare.CodeOptions},
		{"key one-sided", a, b, Options{Key: []string{"name"}}, compare.CodeOptions},
		{"exclude unknown", a, b, Options{Key: []string{"id"}, Exclude: []string{"nope"}}, compare.CodeOptions},
		{"missing file", a, filepath.Join(dir, "missing.csv"), Options{Key: []string{"id"}}, compare.CodeSource},
		{"duplicate key", a, dup, Options{Key: []string{"id"}}, compare.CodeSource},
		{"invalid profile", a, b, Options{Key: []string{"id"}, Profile: normalize.Profile(255)}, compare.CodeOptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compare(context.Background(), Input{Address: c.a}, Input{Address: c.b}, c.o)
			if !errors.Is(err, &compare.Error{Code: c.code}) {
				t.Fatalf("error %v, want code %s", err, c.code)
			}
		})
	}
}

// pkSource is a source with a primary key, for plan.key.
type pkSource struct {
	source.Source
	pk []string
}

func (p pkSource) PrimaryKey() []string { return p.pk }

func TestKeyFromPrimaryKeys(t *testing.T) {
	str := func(names ...string) *arrow.Schema {
		var f []arrow.Field
		for _, n := range names {
			f = append(f, arrow.Field{Name: n, Type: arrow.BinaryTypes.String})
		}
		return arrow.NewSchema(f, nil)
	}
	cases := []struct {
		name    string
		pa, pb  []string
		maps    []Mapping
		want    string // "" means an error, or no key when keyless
		keyless bool
	}{
		{"equal", []string{"id"}, []string{"id"}, nil, "id", false},
		{"composite, other order", []string{"id", "day"}, []string{"day", "id"}, nil, "id,day", false},
		{"mapped", []string{"id"}, []string{"key"}, []Mapping{{"id", "key"}}, "id", false},
		{"differ", []string{"id"}, []string{"day"}, nil, "", false},
		{"A has none", nil, []string{"id"}, nil, "", false},
		{"B has none", []string{"id"}, nil, nil, "", false},
		{"neither has one", nil, nil, nil, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := str("id", "day")
			if c.maps != nil {
				sb = str("key", "day")
			}
			p, err := planColumns(str("id", "day"), sb, Options{Map: c.maps})
			if err != nil {
				t.Fatal(err)
			}
			k, err := p.key(nil, pkSource{pk: c.pa}, pkSource{pk: c.pb})
			if got := strings.Join(k, ","); got != c.want || (err != nil) != (c.want == "" && !c.keyless) {
				t.Errorf("key %q err %v, want %q", got, err, c.want)
			}
		})
	}
}

func TestFirstPrefersTheCause(t *testing.T) {
	cause := errors.New("disk on fire")
	if got := first([2]error{fmt.Errorf("observe A: %w", context.Canceled), cause}); got != cause {
		t.Errorf("first = %v, want the cause", got)
	}
	if got := first([2]error{nil, nil}); got != nil {
		t.Errorf("first = %v, want nil", got)
	}
}

// BenchmarkSources compares two typed CSV files of n records that differ in 1%.
func BenchmarkSources(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	var x, y strings.Builder
	x.WriteString("id,name,qty\n")
	y.WriteString("id,name,qty\n")
	for i := range n {
		fmt.Fprintf(&x, "%d,name-%d,%d\n", i, i, i%97)
		q := i % 97
		if i%100 == 0 {
			q++
		}
		fmt.Fprintf(&y, "%d,name-%d,%d\n", i, i, q)
	}
	a := writeFile(b, dir, "a.csv", x.String())
	c := writeFile(b, dir, "b.csv", y.String())
	cols := []source.Column{{Name: "id", Type: "int64"}, {Name: "name", Type: "text"}, {Name: "qty", Type: "int64"}}
	b.ResetTimer()
	for b.Loop() {
		r, err := Compare(context.Background(), Input{Address: a, Source: source.Options{Columns: cols}},
			Input{Address: c, Source: source.Options{Columns: cols}}, Options{Key: []string{"id"}})
		if err != nil {
			b.Fatal(err)
		}
		if r.Report.Records.Changed != n/100 {
			b.Fatalf("changed %d", r.Report.Records.Changed)
		}
	}
	b.ReportMetric(float64(2*n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// FuzzPlanColumns: for any column lists and mappings, planColumns never panics, and a
// plan it accepts compares the same names on both sides with unique ids.
func FuzzPlanColumns(f *testing.F) {
	f.Add("id,name,city", "city,id,zip,name", "", "")
	f.Add("id,name", "id,label", "name=label", "")
	f.Add("id,name", "id,label", "id=label", "name")
	f.Add("a,a", "a", "", "")
	f.Add("", "", "=", ",")
	f.Fuzz(func(t *testing.T, colsA, colsB, maps, exclude string) {
		if len(colsA)+len(colsB)+len(maps)+len(exclude) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		schema := func(s string) *arrow.Schema {
			var fs []arrow.Field
			for _, n := range strings.Split(s, ",") {
				fs = append(fs, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64})
			}
			return arrow.NewSchema(fs, nil)
		}
		var o Options
		for _, m := range strings.Split(maps, ";") {
			if a, b, ok := strings.Cut(m, "="); ok {
				o.Map = append(o.Map, Mapping{a, b})
			}
		}
		if exclude != "" {
			o.Exclude = strings.Split(exclude, ",")
		}
		p, err := planColumns(schema(colsA), schema(colsB), o)
		if err != nil {
			return
		}
		if strings.Join(p.names[0], "\x00") != strings.Join(p.names[1], "\x00") && len(p.names[0]) == len(p.names[1]) {
			// Same set, possibly in another order: compare as sets.
			seen := map[string]bool{}
			for _, n := range p.names[0] {
				seen[n] = true
			}
			for _, n := range p.names[1] {
				if !seen[n] {
					t.Fatalf("compared names differ: %q vs %q", p.names[0], p.names[1])
				}
			}
		} else if len(p.names[0]) != len(p.names[1]) {
			t.Fatalf("compared names differ: %q vs %q", p.names[0], p.names[1])
		}
		ids := map[uint64]string{}
		for n, id := range p.ids {
			if id == 0 {
				t.Fatalf("column %q has no id", n)
			}
			if o, dup := ids[id]; dup {
				t.Fatalf("id %d given to %q and %q", id, o, n)
			}
			ids[id] = n
		}
	})
}

// TestSourcesFetchedValues: the comparison, which keeps value digests only and reads
// the changed examples' records again, reports exactly what Diff reports for two
// full value-resolution observations of the same files (counts, per-field counts,
// every example with its old and new values).
func TestSourcesFetchedValues(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	a.WriteString("id,name,city,n\n")
	b.WriteString("id,name,city,n\n")
	for i := range 400 {
		row := fmt.Sprintf("%d,name-%d,city-%d,%d\n", i, i%37, i%11, i*3)
		a.WriteString(row)
		switch {
		case i%50 == 7: // removed
		case i%40 == 3:
			fmt.Fprintf(&b, "%d,name-%d,city-%d,%d\n", i, i%37, i%11, i*3+1)
		case i%60 == 5:
			fmt.Fprintf(&b, "%d,NAME-%d,city-%d,%d\n", i, i%37, i%11+1, i*3)
		default:
			b.WriteString(row)
		}
	}
	for i := 400; i < 405; i++ { // added
		fmt.Fprintf(&b, "%d,new,here,%d\n", i, i)
	}
	pa, pb := writeFile(t, dir, "a.csv", a.String()), writeFile(t, dir, "b.csv", b.String())
	defer func(f uint64) { selectFraction = f }(selectFraction)
	for _, f := range []uint64{1, 1 << 40} { // select the changed records, or keep all
		selectFraction = f
		t.Run(fmt.Sprintf("selectFraction=%d", f), func(t *testing.T) { checkFetchedValues(t, pa, pb) })
	}
}

func checkFetchedValues(t *testing.T, pa, pb string) {
	c, err := Compare(context.Background(), Input{Address: pa}, Input{Address: pb}, Options{Key: []string{"id"}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var full [2]*repo.Scan
	for i, p := range []string{pa, pb} {
		reg, err := source.OpenRegistry(filepath.Join(t.TempDir(), "r.json"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := scan.Observe(context.Background(), reg, scan.Options{Address: p, Name: "t", Resolution: snapshot.ResolutionValue, Key: []string{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		full[i] = res.Scan
	}
	want, err := compare.Diff(full[0], full[1], compare.Options{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Report
	if *got.Records != *want.Records || !reflect.DeepEqual(got.Fields, want.Fields) {
		t.Fatalf("records %+v fields %+v, want %+v %+v", *got.Records, got.Fields, *want.Records, want.Fields)
	}
	if got.Records.Changed == 0 || got.Records.Added != 5 || got.Records.Removed != 8 {
		t.Fatalf("test data: records %+v", *got.Records)
	}
	strip := func(ex []compare.Example) []compare.Example { // the comparable parts: key and rendered changes
		out := make([]compare.Example, len(ex))
		for i, e := range ex {
			out[i].Key = e.Key
			for _, ch := range e.Changes {
				out[i].Changes = append(out[i].Changes, compare.ValueChange{Field: ch.Field, Old: ch.Old, New: ch.New})
			}
		}
		return out
	}
	for _, k := range []struct {
		name      string
		got, want []compare.Example
	}{{"added", got.Examples.Added, want.Examples.Added}, {"removed", got.Examples.Removed, want.Examples.Removed}, {"changed", got.Examples.Changed, want.Examples.Changed}} {
		if g, w := strip(k.got), strip(k.want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s examples:\n got %+v\nwant %+v", k.name, g, w)
		}
	}
	if len(got.Examples.Changed) != int(got.Records.Changed) || got.Examples.Changed[0].Changes[0].Old == "" {
		t.Errorf("changed examples %+v", got.Examples.Changed[:1])
	}
	for _, n := range got.Notes {
		if strings.Contains(n, "second read") {
			t.Errorf("unexpected note %q", n)
		}
	}
}

// TestSourcesChangedBeforeFetch: a side that changes between the comparison and the
// second read is reported; the fields and values shown are the second read's.
func TestSourcesChangedBeforeFetch(t *testing.T) {
	dir := t.TempDir()
	pa := writeFile(t, dir, "a.csv", "id,name,n\n1,x,1\n2,y,2\n3,z,3\n")
	pb := writeFile(t, dir, "b.csv", "id,name,n\n1,X,1\n2,Y,2\n3,z,3\n")
	beforeFetch = func() { writeFile(t, dir, "b.csv", "id,name,n\n1,x,5\n3,z,3\n") }
	defer func() { beforeFetch = nil }()
	c, err := Compare(context.Background(), Input{Address: pa}, Input{Address: pb}, Options{Key: []string{"id"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Report
	if r.Records.Changed != 2 {
		t.Errorf("records %+v, want the first read's 2 changed", *r.Records)
	}
	ex := r.Examples.Changed
	var ch compare.ValueChange
	if len(ex) == 1 && len(ex[0].Changes) == 1 {
		ch = ex[0].Changes[0]
	}
	if ch.Field != "n" || ch.Old != `"1"` || ch.New != `"5"` || ch.FieldID() != 3 {
		t.Fatalf("changed examples %+v, want id=1 n 1 → 5 (the second read's)", ex)
	}
	noted := false
	for _, n := range r.Notes {
		noted = noted || strings.Contains(n, "side B changed between the comparison and the second read")
	}
	if !noted {
		t.Errorf("notes %q lack the change of side B", r.Notes)
	}
}

// TestSourcesFetchFails: when the second read fails, the record comparison still
// stands, at record resolution, and a note says why the fields are missing.
func TestSourcesFetchFails(t *testing.T) {
	dir := t.TempDir()
	pa := writeFile(t, dir, "a.csv", "id,name\n1,x\n2,y\n")
	pb := writeFile(t, dir, "b.csv", "id,name\n1,X\n2,y\n")
	beforeFetch = func() { os.Remove(pb) }
	defer func() { beforeFetch = nil }()
	c, err := Compare(context.Background(), Input{Address: pa}, Input{Address: pb}, Options{Key: []string{"id"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Report
	if r.Records.Changed != 1 || len(r.Examples.Changed) != 1 || r.Examples.Changed[0].Key != `id="1"` || r.Fields != nil || r.Resolution != snapshot.ResolutionRecord {
		t.Fatalf("records %+v examples %+v fields %+v resolution %s", *r.Records, r.Examples.Changed, r.Fields, r.Resolution)
	}
	if len(r.Notes) == 0 || !strings.Contains(r.Notes[len(r.Notes)-1], "could not be read again") {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestSourcesNoExamples: with Limit 0 the fields are still counted from the second
// read (which then fetches no record), and equal sources are not read twice.
func TestSourcesNoExamples(t *testing.T) {
	dir := t.TempDir()
	pa := writeFile(t, dir, "a.csv", "id,name,n\n1,x,1\n2,y,2\n3,z,3\n")
	pb := writeFile(t, dir, "b.csv", "id,name,n\n1,X,1\n2,Y,5\n3,z,3\n")
	reads := 0
	beforeFetch = func() { reads++ }
	defer func() { beforeFetch = nil }()
	c, err := Compare(context.Background(), Input{Address: pa}, Input{Address: pb}, Options{Key: []string{"id"}, Limit: 0})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Report
	want := []compare.FieldCount{{Name: "id", ID: 1}, {Name: "name", ID: 2, Changed: 2}, {Name: "n", ID: 3, Changed: 1}}
	if r.Records.Changed != 2 || len(r.Examples.Changed) != 0 || !reflect.DeepEqual(r.Fields, want) || r.Resolution != snapshot.ResolutionValue || reads != 1 {
		t.Fatalf("records %+v examples %+v fields %+v resolution %s second reads %d", *r.Records, r.Examples.Changed, r.Fields, r.Resolution, reads)
	}
	if c.A.Records != nil || c.B.KeyWords != nil || c.A.State.Count() != 3 {
		t.Error("the first read's record arrays were kept through the second read (Comparison.A/B say released)")
	}
	c, err = Compare(context.Background(), Input{Address: pa}, Input{Address: pa}, Options{Key: []string{"id"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want = []compare.FieldCount{{Name: "id", ID: 1}, {Name: "name", ID: 2}, {Name: "n", ID: 3}}
	if !c.Report.Equal || !reflect.DeepEqual(c.Report.Fields, want) || reads != 1 || len(c.A.Records) != 3*4 {
		t.Fatalf("equal %v fields %+v second reads %d record words %d", c.Report.Equal, c.Report.Fields, reads, len(c.A.Records))
	}
}
