package live

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/source"
)

// keylessA is side A of the keyless cases: three records of two text columns (CSV
// without a schema: every column is text).
const keylessA = "name,qty\napple,1\npear,2\nplum,3\n"

// TestKeyless: without --key, between sources without a primary key, each record is its
// own key and the sources compare as multisets of records. The counts, examples and
// columns below are derived by hand from the CSV texts.
func TestKeyless(t *testing.T) {
	cases := []struct {
		name, a, b string
		equal      bool
		counts     compare.Counts
		added      []string // the examples' keys: whole records, in field order
		removed    []string
		columns    []string // ColumnsDiffer: only when the row counts are equal
	}{
		{name: "equal", a: keylessA, b: keylessA, equal: true,
			counts: compare.Counts{Unchanged: 3}},
		{name: "reordered", a: keylessA, b: "name,qty\nplum,3\napple,1\npear,2\n", equal: true,
			counts: compare.Counts{Unchanged: 3}},
		{name: "columns reordered", a: keylessA, b: "qty,name\n3,plum\n1,apple\n2,pear\n", equal: true,
			counts: compare.Counts{Unchanged: 3}},
		// pear's qty 2 → 5: without a key, one record only in A and one only in B.
		{name: "one row changed", a: keylessA, b: "name,qty\napple,1\npear,5\nplum,3\n",
			counts:  compare.Counts{Added: 1, Removed: 1, Unchanged: 2},
			added:   []string{`name="pear" qty="5"`},
			removed: []string{`name="pear" qty="2"`},
			columns: []string{"qty"}},
		// B has one record more: added; the column states differ by it alone, and with
		// other row counts they do not say which column changed.
		{name: "one row more", a: keylessA, b: keylessA + "fig,4\n",
			counts: compare.Counts{Added: 1, Unchanged: 3},
			added:  []string{`name="fig" qty="4"`}},
		{name: "one row fewer", a: keylessA, b: "name,qty\napple,1\nplum,3\n",
			counts:  compare.Counts{Removed: 1, Unchanged: 2},
			removed: []string{`name="pear" qty="2"`}},
		// apple twice in A, three times in B: two pair as same, the third is added; the
		// duplicated record is counted once in DuplicateKeys.
		{name: "duplicate added", a: "name,qty\napple,1\napple,1\npear,2\n", b: "name,qty\napple,1\npear,2\napple,1\napple,1\n",
			counts: compare.Counts{Added: 1, Unchanged: 3, DuplicateKeys: 1},
			added:  []string{`name="apple" qty="1"`}},
		// A {apple, apple, pear}, B {apple, pear, pear}: one apple removed, one pear
		// added, two records same; both records occur twice on a side. The row counts
		// are equal and both columns' value multisets differ.
		{name: "duplicates swapped", a: "name,qty\napple,1\napple,1\npear,2\n", b: "name,qty\npear,2\napple,1\npear,2\n",
			counts:  compare.Counts{Added: 1, Removed: 1, Unchanged: 2, DuplicateKeys: 2},
			added:   []string{`name="pear" qty="2"`},
			removed: []string{`name="apple" qty="1"`},
			columns: []string{"name", "qty"}},
		// The same records, each twice in B: the copies are added.
		{name: "every row doubled", a: keylessA, b: keylessA + "apple,1\npear,2\nplum,3\n",
			counts: compare.Counts{Added: 3, Unchanged: 3, DuplicateKeys: 3},
			added:  []string{`name="apple" qty="1"`, `name="pear" qty="2"`, `name="plum" qty="3"`}},
		{name: "empty B", a: keylessA, b: "name,qty\n",
			counts:  compare.Counts{Removed: 3},
			removed: []string{`name="apple" qty="1"`, `name="pear" qty="2"`, `name="plum" qty="3"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a := writeFile(t, dir, "a.csv", c.a)
			b := writeFile(t, dir, "b.csv", c.b)
			for _, mem := range []int64{-1, 1 << 10} {
				cmp, err := Compare(context.Background(), Input{Address: a}, Input{Address: b},
					Options{Limit: -1, Memory: mem, SpillDir: dir})
				if err != nil {
					t.Fatalf("memory %d: %v", mem, err)
				}
				r := cmp.Report
				if !cmp.Keyless || len(r.A.Key) != 0 || len(r.B.Key) != 0 {
					t.Errorf("memory %d: keyless %v, keys %v %v; want keyless, no key", mem, cmp.Keyless, r.A.Key, r.B.Key)
				}
				if r.Equal != c.equal || !r.Comparable || r.Records == nil || *r.Records != c.counts {
					t.Errorf("memory %d: equal %v comparable %v records %+v; want equal %v, records %+v", mem, r.Equal, r.Comparable, r.Records, c.equal, c.counts)
				}
				keys := func(ex []compare.Example) []string {
					var out []string
					for _, e := range ex {
						out = append(out, e.Key)
					}
					return out
				}
				if got := keys(r.Examples.Added); !slices.Equal(got, c.added) {
					t.Errorf("memory %d: added examples %q, want %q", mem, got, c.added)
				}
				if got := keys(r.Examples.Removed); !slices.Equal(got, c.removed) {
					t.Errorf("memory %d: removed examples %q, want %q", mem, got, c.removed)
				}
				if len(r.Examples.Changed) != 0 {
					t.Errorf("memory %d: changed examples %+v: without a key no record changes", mem, r.Examples.Changed)
				}
				if !slices.Equal(r.ColumnsDiffer, c.columns) {
					t.Errorf("memory %d: columns differ %q, want %q", mem, r.ColumnsDiffer, c.columns)
				}
				if len(r.Notes) == 0 || r.Notes[0] != KeylessNote {
					t.Errorf("memory %d: notes %q, want the keyless note first", mem, r.Notes)
				}
				for _, n := range r.Notes {
					if strings.Contains(n, "different artifacts") {
						t.Errorf("memory %d: note %q: both sides' field ids were assigned alike", mem, n)
					}
				}
			}
		})
	}
}

// TestKeyedHasNoKeylessNote: with a key, the comparison is not keyless and has no such
// note; the same files compared keyless are.
func TestKeyedHasNoKeylessNote(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", keylessA)
	b := writeFile(t, dir, "b.csv", "name,qty\napple,1\npear,5\nplum,3\n")
	c, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, Options{Key: []string{"name"}, Limit: -1, Memory: -1})
	if err != nil {
		t.Fatal(err)
	}
	if c.Keyless || slices.Contains(c.Report.Notes, KeylessNote) || c.Report.Records == nil ||
		*c.Report.Records != (compare.Counts{Changed: 1, Unchanged: 2}) {
		t.Errorf("keyed: keyless %v notes %q records %+v; want pear changed, no keyless note", c.Keyless, c.Report.Notes, c.Report.Records)
	}
}

// TestKeylessNotComparable: a column whose C3 type differs leaves the fingerprints
// incomparable: no record counts, so no keyless note (it would explain counts that are
// not there), and a note names the column and how to compare the rest.
func TestKeylessNotComparable(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", "name,qty\napple,1\n")
	b := writeFile(t, dir, "b.csv", "name,qty\napple,1\n")
	c, err := Compare(context.Background(), Input{Address: a}, Input{Address: b, Source: source.Options{Infer: true}}, Options{Memory: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Report
	if r.Comparable || r.Records != nil || !c.Keyless || slices.Contains(r.Notes, KeylessNote) {
		t.Errorf("comparable %v records %+v keyless %v notes %q", r.Comparable, r.Records, c.Keyless, r.Notes)
	}
	want := "to compare the records, give qty one C3 type on both sides (--schema-a or --schema-b for a CSV or JSON side), or leave it out: --exclude qty"
	if !slices.Contains(r.Notes, want) {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
}

// TestKeylessPrimaryKeyOneSide: a primary key on one side only is an error that names
// it (comparing without it would drop the key the user has); on neither side, the
// comparison is keyless.
func TestKeylessPrimaryKeyOneSide(t *testing.T) {
	dir := t.TempDir()
	csv := writeFile(t, dir, "a.csv", "id,name\n1,x\n2,y\n")
	db := filepath.Join(dir, "t.db")
	sq, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CREATE TABLE pk(id TEXT PRIMARY KEY, name TEXT)", "CREATE TABLE nopk(id TEXT, name TEXT)",
		"INSERT INTO pk VALUES ('1','x'),('2','y')", "INSERT INTO nopk VALUES ('1','x'),('2','y')"} {
		if _, err := sq.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	sq.Close()
	for _, c := range []struct{ a, b, msg string }{
		{db + "#pk", csv, "A has the primary key id and B none: name the key of both sides with --key (for example --key id)"},
		{csv, db + "#pk", "B has the primary key id and A none: name the key of both sides with --key, in A's names"},
	} {
		_, err := Compare(context.Background(), Input{Address: c.a}, Input{Address: c.b}, Options{Memory: -1})
		if !errors.Is(err, &compare.Error{Code: compare.CodeOptions}) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s vs %s: %v, want %s: %s", c.a, c.b, err, compare.CodeOptions, c.msg)
		}
	}
	c, err := Compare(context.Background(), Input{Address: db + "#nopk"}, Input{Address: csv}, Options{Memory: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Keyless || !c.Report.Equal {
		t.Errorf("no primary key on either side: keyless %v equal %v, want both", c.Keyless, c.Report.Equal)
	}
}

// TestKeylessSpilledMatchesMemory: on random keyless sources with exact duplicate
// records, under budgets that cut each side into many runs, the spilled comparison
// gives the comparison in memory exactly.
func TestKeylessSpilledMatchesMemory(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 64))
			dir := t.TempDir()
			a, b := randomPair(t, rng, dir)
			// Exact copies of some records of each side: duplicates are not an error
			// without a key.
			for _, p := range []string{a, b} {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.SplitAfter(string(data), "\n")
				lines = lines[:len(lines)-1] // the empty string after the last newline
				if len(lines) > 1 {
					for range rng.IntN(20) {
						lines = append(lines, lines[1+rng.IntN(len(lines)-1)])
					}
				}
				if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o := Options{Limit: rng.IntN(12) - 1, Workers: 1 + rng.IntN(3), Memory: -1}
			want, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, o)
			if err != nil {
				t.Fatal(err)
			}
			o.Memory = []int64{1 << 10, 16 << 10, 256 << 10}[rng.IntN(3)]
			o.SpillDir = filepath.Join(dir, "spill")
			if err := os.Mkdir(o.SpillDir, 0o755); err != nil {
				t.Fatal(err)
			}
			got, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, o)
			if err != nil {
				t.Fatal(err)
			}
			if rows := want.Report.A.Rows; rows > 1100 && got.Runs[0][0] < 2 {
				t.Errorf("%d rows under %d bytes: runs %v, want spilled runs", rows, o.Memory, got.Runs)
			}
			if !want.Keyless || !reflect.DeepEqual(masked(got), masked(want)) {
				t.Errorf("spilled (runs %v) differs from in memory:\n got %+v\nwant %+v", got.Runs, *masked(got).Report, *masked(want).Report)
			}
			if left, _ := os.ReadDir(o.SpillDir); len(left) != 0 {
				t.Errorf("spill directory holds %v after the comparison", left)
			}
		})
	}
}
