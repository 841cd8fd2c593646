package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/compare/live"
)

// keylessDoc is what the keyless tests read of compare --json.
type keylessDoc struct {
	Equal      bool `json:"equal"`
	Comparable bool `json:"comparable"`
	Keyless    *bool
	Records    *struct {
		Added, Removed, Changed, Unchanged uint64
		DuplicateKeys                      uint64 `json:"duplicate_keys"`
	} `json:"records"`
	A, B struct {
		Key  []string
		Rows uint64
	}
	SchemaChanges []struct{ Kind, Name string } `json:"schema_changes"`
	ColumnsDiffer []string                      `json:"columns_differ"`
	Examples      struct {
		Added, Removed []struct{ Key string }
		Changed        []struct {
			Key     string
			Changes []struct{ Field, Old, New string }
		}
	}
	Notes []string
}

// keylessJSON runs compare --json and decodes it; the exit status must be want.
func keylessJSON(t *testing.T, want int, args ...string) keylessDoc {
	t.Helper()
	code, out, e := runCLI(t, append([]string{"compare", "--json"}, args...)...)
	if code != want {
		t.Fatalf("compare %v: exit %d, want %d; stderr %s\n%s", args, code, want, e, out)
	}
	var d keylessDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	if d.Keyless == nil {
		t.Fatalf("compare --json has no keyless member:\n%s", out)
	}
	return d
}

func (d keylessDoc) counts() [5]uint64 {
	if d.Records == nil {
		return [5]uint64{^uint64(0)}
	}
	r := d.Records
	return [5]uint64{r.Added, r.Removed, r.Changed, r.Unchanged, r.DuplicateKeys}
}

func exampleKeys(ex []struct{ Key string }) []string {
	out := []string{}
	for _, e := range ex {
		out = append(out, e.Key)
	}
	return out
}

func keylessFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompareKeyless: two CSV files (no primary key) compared without --key: each
// record is its own key, the files compare as multisets of records, and the JSON says
// so (keyless, no key on either side, the note first). Counts and examples are derived
// by hand from the texts: [added, removed, changed, unchanged, duplicate_keys].
func TestCompareKeyless(t *testing.T) {
	const a = "city,zip\nOslo,0150\nRome,00100\nLyon,69001\n"
	cases := []struct {
		name, b        string
		exit           int
		counts         [5]uint64
		added, removed []string
		columns        []string
	}{
		{"equal", a, ExitOK, [5]uint64{0, 0, 0, 3, 0}, []string{}, []string{}, []string{}},
		{"reordered", "city,zip\nLyon,69001\nOslo,0150\nRome,00100\n", ExitOK, [5]uint64{0, 0, 0, 3, 0}, []string{}, []string{}, []string{}},
		// Rome's zip loses its leading zero: one record only in A, one only in B.
		{"one row changed", "city,zip\nOslo,0150\nRome,100\nLyon,69001\n", ExitDifference, [5]uint64{1, 1, 0, 2, 0},
			[]string{`city="Rome" zip="100"`}, []string{`city="Rome" zip="00100"`}, []string{"zip"}},
		{"a row more", a + "Oslo,0151\n", ExitDifference, [5]uint64{1, 0, 0, 3, 0},
			[]string{`city="Oslo" zip="0151"`}, []string{}, []string{}},
		{"a row fewer", "city,zip\nOslo,0150\n", ExitDifference, [5]uint64{0, 2, 0, 1, 0},
			[]string{}, []string{`city="Lyon" zip="69001"`, `city="Rome" zip="00100"`}, []string{}},
		// Oslo twice in B: one pairs with A's, the copy is added.
		{"a row duplicated", a + "Oslo,0150\n", ExitDifference, [5]uint64{1, 0, 0, 3, 1},
			[]string{`city="Oslo" zip="0150"`}, []string{}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pa, pb := keylessFile(t, dir, "a.csv", a), keylessFile(t, dir, "b.csv", c.b)
			d := keylessJSON(t, c.exit, pa, pb)
			if !*d.Keyless || len(d.A.Key) != 0 || len(d.B.Key) != 0 || d.A.Key == nil {
				t.Errorf("keyless %v, keys %v %v; want true and [] on both sides", *d.Keyless, d.A.Key, d.B.Key)
			}
			if d.counts() != c.counts || d.Equal != (c.exit == ExitOK) {
				t.Errorf("records %v equal %v, want %v", d.counts(), d.Equal, c.counts)
			}
			if got := exampleKeys(d.Examples.Added); !slices.Equal(got, c.added) {
				t.Errorf("added %q, want %q", got, c.added)
			}
			if got := exampleKeys(d.Examples.Removed); !slices.Equal(got, c.removed) {
				t.Errorf("removed %q, want %q", got, c.removed)
			}
			if !slices.Equal(d.ColumnsDiffer, c.columns) {
				t.Errorf("columns_differ %q, want %q", d.ColumnsDiffer, c.columns)
			}
			if len(d.Notes) == 0 || d.Notes[0] != live.KeylessNote {
				t.Errorf("notes %q, want the keyless note first", d.Notes)
			}
			for _, n := range d.Notes {
				if strings.Contains(n, "different artifacts") {
					t.Errorf("note %q: compare assigns both sides' field ids alike", n)
				}
			}
		})
	}
}

// TestCompareKeylessText: the text of a keyless comparison says that no key was used
// and what that means (the note), counts duplicated records as such, and neither tells
// the user to rescan nor says that the artifacts numbered their columns on their own.
func TestCompareKeylessText(t *testing.T) {
	dir := t.TempDir()
	a := keylessFile(t, dir, "a.csv", "city,zip\nOslo,0150\nOslo,0150\nRome,00100\n")
	b := keylessFile(t, dir, "b.csv", "city,zip\nOslo,0150\nRome,100\nOslo,0150\n")
	code, out, e := runCLI(t, "compare", a, b)
	if code != ExitDifference {
		t.Fatalf("exit %d, stderr %s", code, e)
	}
	for _, want := range []string{
		"  records   3 → 3   +1 added  −1 removed  ~0 changed  2 same\n" +
			"            (added = only in B, removed = only in A)\n" +
			"            1 distinct records occur more than once (copies matched by count)\n",
		"  columns   zip differ\n",
		"  added     zip=\"100\" city=\"Rome\"\n",
		"  removed   zip=\"00100\" city=\"Rome\"\n",
		"  note      " + live.KeylessNote + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The first line names both sides and when they were compared, not the ids of
	// observations that are published nowhere, nor two times (read at once).
	if first, _, _ := strings.Cut(out, "\n"); !regexp.MustCompile(`^a → b   compared \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`).MatchString(first) {
		t.Errorf("first line %q, want the names and times only", first)
	}
	for _, bad := range []string{"scan with --key", "duplicated keys", "different artifacts"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q:\n%s", bad, out)
		}
	}
	// With a key, no keyless note; the artifacts (a, b) still differ and are not noted.
	code, _, _ = runCLI(t, "compare", "--key", "city", a, keylessFile(t, dir, "c.csv", "city,zip\nOslo,0150\nRome,100\n"))
	if code != ExitError {
		t.Fatalf("--key city on duplicated cities: exit %d, want 2", code)
	}
	code, out, e = runCLI(t, "compare", "--key", "city", keylessFile(t, dir, "d.csv", "city,zip\nOslo,0150\nRome,00100\n"),
		keylessFile(t, dir, "e.csv", "city,zip\nOslo,0150\nRome,100\n"))
	if code != ExitDifference || strings.Contains(out, "no key") || strings.Contains(out, "different artifacts") ||
		!strings.Contains(out, "  changed   city=\"Rome\"  zip \"00100\" → \"100\"\n") {
		t.Errorf("--key city: exit %d stderr %s\n%s", code, e, out)
	}
}

// TestCompareKeylessPrimaryKeyOneSide: a SQLite table with a primary key against a CSV
// file without --key is an error naming the key (exit 2); the same table's rows in a
// table without a primary key compare keyless.
func TestCompareKeylessPrimaryKeyOneSide(t *testing.T) {
	dir := t.TempDir()
	csv := keylessFile(t, dir, "t.csv", "id,name\n1,x\n2,y\n")
	db := filepath.Join(dir, "t.db")
	sq, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CREATE TABLE pk(id TEXT PRIMARY KEY, name TEXT)", "CREATE TABLE nopk(id TEXT, name TEXT)",
		"INSERT INTO pk VALUES ('1','x'),('2','y')", "INSERT INTO nopk VALUES ('2','y'),('1','x')"} {
		if _, err := sq.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	sq.Close()
	code, _, e := runCLI(t, "compare", db+"#pk", csv)
	if code != ExitError || !strings.Contains(e, "A has the primary key id and B none: name the key of both sides with --key (for example --key id)") {
		t.Errorf("primary key on A only: exit %d, stderr %q", code, e)
	}
	d := keylessJSON(t, ExitOK, db+"#nopk", csv)
	if !*d.Keyless || d.counts() != [5]uint64{0, 0, 0, 2, 0} {
		t.Errorf("no primary key: keyless %v records %v", *d.Keyless, d.counts())
	}
	d = keylessJSON(t, ExitOK, "--key", "id", db+"#pk", csv)
	if *d.Keyless || slices.Contains(d.Notes, live.KeylessNote) || !slices.Equal(d.A.Key, []string{"id"}) {
		t.Errorf("--key id: keyless %v key %v notes %q", *d.Keyless, d.A.Key, d.Notes)
	}
}

// TestCompareKeylessVegaFlights: vega-datasets 3.2.1's flights-200k.arrow and
// flights-200k.json (BSD-3-Clause package; data of the U.S. Bureau of Transportation
// Statistics), their first 500 records (testdata/vega/flights-500.*, README.md there),
// compared without a key. The Arrow file types time float32 and the JSON file's
// numbers are decimals, so the plain comparison is not comparable and says how to
// proceed; typing the JSON side alike (--schema-b), the files are equal, and the
// changes below, made by hand to a copy of the JSON text, give the counts derived by
// hand. The 4 duplicated records are the 4 records that occur twice in the JSON text
// (README.md).
func TestCompareKeylessVegaFlights(t *testing.T) {
	arrowFile := filepath.Join(vega, "flights-500.arrow")
	jsonFile := filepath.Join(vega, "flights-500.json")
	d := keylessJSON(t, ExitDifference, arrowFile, jsonFile)
	if d.Comparable || d.Records != nil || len(d.SchemaChanges) != 1 || d.SchemaChanges[0].Kind != "retyped" || d.SchemaChanges[0].Name != "time" ||
		!slices.Contains(d.Notes, "to compare the records, give time one C3 type on both sides (--schema-a or --schema-b for a CSV or JSON side), or leave it out: --exclude time") {
		t.Errorf("arrow vs json: comparable %v records %v schema changes %+v notes %q", d.Comparable, d.counts(), d.SchemaChanges, d.Notes)
	}
	dir := t.TempDir()
	schema := keylessFile(t, dir, "schema.json", `{"columns":[{"name":"delay","type":"int64"},{"name":"distance","type":"int64"},{"name":"time","type":"float32"}]}`)
	d = keylessJSON(t, ExitOK, "--schema-b", schema, arrowFile, jsonFile)
	if !d.Equal || !*d.Keyless || d.counts() != [5]uint64{0, 0, 0, 500, 4} || d.A.Rows != 500 || d.B.Rows != 500 {
		t.Errorf("typed alike: equal %v keyless %v records %v rows %d %d", d.Equal, *d.Keyless, d.counts(), d.A.Rows, d.B.Rows)
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const second = `{"delay":171,"distance":2227,"time":0.0}`
	if !strings.HasPrefix(text, `[{"delay":0,"distance":1452,"time":0.0},`+second+",") {
		t.Fatalf("flights-500.json does not start with the records this test changes: %.100s", text)
	}
	body := strings.TrimSuffix(strings.TrimSpace(text), "]")[1:]
	objs := strings.SplitAfter(body, "},")
	cases := []struct {
		name, json string
		exit       int
		counts     [5]uint64
		added      []string
		removed    []string
	}{
		// The second record's delay 171 → 172: one removed, one added.
		{"one delay changed", strings.Replace(text, second, `{"delay":172,"distance":2227,"time":0.0}`, 1), ExitDifference,
			[5]uint64{1, 1, 0, 499, 4}, []string{"delay=172 distance=2227 time=0"}, []string{"delay=171 distance=2227 time=0"}},
		// The records in reverse order: the same multiset.
		{"reversed", "[" + reverseJoin(objs) + "]", ExitOK, [5]uint64{0, 0, 0, 500, 4}, []string{}, []string{}},
		// The first record twice: its copy is added, and a fifth record occurs twice.
		{"first duplicated", strings.Replace(text, "[", `[{"delay":0,"distance":1452,"time":0.0},`, 1), ExitDifference,
			[5]uint64{1, 0, 0, 500, 5}, []string{"delay=0 distance=1452 time=0"}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := keylessFile(t, t.TempDir(), "flights-500.json", c.json)
			d := keylessJSON(t, c.exit, "--schema-b", schema, arrowFile, b)
			if d.counts() != c.counts {
				t.Errorf("records %v, want %v", d.counts(), c.counts)
			}
			if got := exampleKeys(d.Examples.Added); !slices.Equal(got, c.added) {
				t.Errorf("added %q, want %q", got, c.added)
			}
			if got := exampleKeys(d.Examples.Removed); !slices.Equal(got, c.removed) {
				t.Errorf("removed %q, want %q", got, c.removed)
			}
		})
	}
}

// reverseJoin joins JSON objects split after "}," in reverse order, commas between.
func reverseJoin(objs []string) string {
	var out []string
	for i := len(objs) - 1; i >= 0; i-- {
		out = append(out, strings.TrimSuffix(objs[i], ","))
	}
	return strings.Join(out, ",")
}

// TestCompareKeylessZipcodes: vega-datasets' zipcodes (testdata/vega/zipcodes-640.csv,
// README.md there) against a copy with one city changed (00602 Aguada → Aguadilla,
// line 5): without a key one record only in A and one only in B, the zip code's
// leading zeros kept (CSV text); with --key zip_code one record changed, in city.
func TestCompareKeylessZipcodes(t *testing.T) {
	zips := filepath.Join(vega, "zipcodes-640.csv")
	data, err := os.ReadFile(zips)
	if err != nil {
		t.Fatal(err)
	}
	const row = "00602,18.393103,-67.180953,Aguada,PR,Aguada\n"
	if !strings.Contains(string(data), "\n"+row) {
		t.Fatalf("zipcodes-640.csv lacks %q", row)
	}
	copyFile := keylessFile(t, t.TempDir(), "zipcodes-copy.csv",
		strings.Replace(string(data), row, "00602,18.393103,-67.180953,Aguadilla,PR,Aguada\n", 1))
	d := keylessJSON(t, ExitDifference, zips, copyFile)
	if !*d.Keyless || d.counts() != [5]uint64{1, 1, 0, 639, 0} || !slices.Equal(d.ColumnsDiffer, []string{"city"}) ||
		!slices.Equal(exampleKeys(d.Examples.Added), []string{`zip_code="00602" latitude="18.393103" longitude="-67.180953" city="Aguadilla" state="PR" county="Aguada"`}) ||
		!slices.Equal(exampleKeys(d.Examples.Removed), []string{`zip_code="00602" latitude="18.393103" longitude="-67.180953" city="Aguada" state="PR" county="Aguada"`}) {
		t.Errorf("keyless: %+v", d)
	}
	d = keylessJSON(t, ExitDifference, "--key", "zip_code", zips, copyFile)
	if *d.Keyless || d.counts() != [5]uint64{0, 0, 1, 639, 0} || len(d.Examples.Changed) != 1 ||
		d.Examples.Changed[0].Key != `zip_code="00602"` || len(d.Examples.Changed[0].Changes) != 1 ||
		d.Examples.Changed[0].Changes[0] != (struct{ Field, Old, New string }{"city", `"Aguada"`, `"Aguadilla"`}) {
		t.Errorf("--key zip_code: %+v", d)
	}
	for _, n := range d.Notes {
		if strings.Contains(n, "different artifacts") {
			t.Errorf("zipcodes-640 vs zipcodes-copy: note %q", n)
		}
	}
}
