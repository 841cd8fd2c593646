package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

type diffDoc struct {
	Equal      bool   `json:"equal"`
	Comparable bool   `json:"comparable"`
	Resolution string `json:"resolution"`
	Records    *struct {
		Added     *uint64 `json:"added"`
		Removed   *uint64 `json:"removed"`
		Changed   *uint64 `json:"changed"`
		Unchanged *uint64 `json:"unchanged"`
	} `json:"records"`
	Fields map[string]struct {
		Changed *uint64 `json:"changed"`
	} `json:"fields"`
	SchemaChanges []struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"schema_changes"`
	Physical []physicalDoc `json:"physical_changes"`
	Examples struct {
		Added   []struct{ Key string } `json:"added"`
		Removed []struct{ Key string } `json:"removed"`
		Changed []struct {
			Key     string
			Changes []struct{ Field, Old, New string }
		} `json:"changed"`
	} `json:"examples"`
}

type physicalSide struct {
	Arrow, Source string
	Width         uint64
	Nullable      bool
}

type physicalDoc struct {
	Name, Type string
	A, B       physicalSide
}

// vega is the directory of the real files of testdata/vega (README.md there).
var vega = filepath.Join("..", "..", "testdata", "vega")

func diffJSONOf(t *testing.T, wantCode int, args ...string) diffDoc {
	t.Helper()
	code, out, e := runCLI(t, append([]string{"diff", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("diff %v: exit %d, want %d; stderr %s", args, code, wantCode, e)
	}
	var d diffDoc
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("diff --json: %v\n%s", err, out)
	}
	// Counts are JSON integers, not strings.
	var raw map[string]any
	json.Unmarshal([]byte(out), &raw)
	if rec, ok := raw["records"].(map[string]any); ok {
		for _, k := range []string{"added", "removed", "changed", "unchanged"} {
			if _, isNum := rec[k].(float64); !isNum {
				t.Errorf("records.%s is %T, want a JSON number", k, rec[k])
			}
		}
	}
	if _, ok := raw["schema_changes"].([]any); !ok {
		t.Errorf("schema_changes is %T, want an array", raw["schema_changes"])
	}
	return d
}

// TestDiffShopValue checks the v1 → v2 counts against examples/shop/README.md, whose
// numbers come from the generator's rules.
func TestDiffShopValue(t *testing.T) {
	r := newRepo(t)
	type want struct {
		table, key                        string
		added, removed, changed, v1, same uint64
		fields                            map[string]uint64
	}
	wants := []want{
		// customers: 50 → 50, customer 7 changed email.
		{"customers", "customer_id", 0, 0, 1, 50, 49, map[string]uint64{"email": 1, "name": 0, "country": 0, "created_at": 0, "customer_id": 0}},
		// orders: 200 → 210; +15 (201..215), −5 (37,74,111,148,185), 8 amount + 6 status changed.
		{"orders", "order_id", 15, 5, 14, 200, 200 - 5 - 14, map[string]uint64{"amount": 8, "status": 6, "customer_id": 0, "placed_at": 0, "order_id": 0}},
		// daily_revenue: 20 → 21; +1 day, 13 days changed.
		{"daily_revenue", "day", 1, 0, 13, 20, 20 - 13, nil},
	}
	for _, w := range wants {
		t.Run(w.table, func(t *testing.T) {
			a := scanShop(t, r, 1, w.table, w.key, "value")
			b := scanShop(t, r, 2, w.table, w.key, "value")
			d := diffJSONOf(t, ExitDifference, "--repo", r, "--limit", "100", a, b)
			if d.Equal || d.Records == nil || d.Resolution != "value" {
				t.Fatalf("diff = %+v", d)
			}
			got := [4]uint64{*d.Records.Added, *d.Records.Removed, *d.Records.Changed, *d.Records.Unchanged}
			if got != [4]uint64{w.added, w.removed, w.changed, w.same} {
				t.Errorf("records added/removed/changed/unchanged = %v, want %v", got, [4]uint64{w.added, w.removed, w.changed, w.same})
			}
			for name, n := range w.fields {
				f, ok := d.Fields[name]
				if !ok || f.Changed == nil || *f.Changed != n {
					t.Errorf("fields[%s] = %+v, want changed %d", name, f, n)
				}
			}
			if len(d.SchemaChanges) != 0 {
				t.Errorf("schema changes %+v, want none (README: schemas unchanged)", d.SchemaChanges)
			}
			if uint64(len(d.Examples.Added)) != w.added || uint64(len(d.Examples.Removed)) != w.removed || uint64(len(d.Examples.Changed)) != w.changed {
				t.Errorf("examples %d/%d/%d", len(d.Examples.Added), len(d.Examples.Removed), len(d.Examples.Changed))
			}
		})
	}
	// The README lists the removed orders and the changed customer; the examples name them.
	a := scanShop(t, r, 1, "orders", "order_id", "value")
	b := scanShop(t, r, 2, "orders", "order_id", "value")
	d := diffJSONOf(t, ExitDifference, "--repo", r, a, b)
	var removed []string
	for _, e := range d.Examples.Removed {
		removed = append(removed, e.Key)
	}
	if got := strings.Join(removed, ","); got != "order_id=37,order_id=74,order_id=111,order_id=148,order_id=185" {
		t.Errorf("removed examples %s", got)
	}
	// order 23: amount +5.00 (README), status unchanged.
	var found bool
	for _, e := range d.Examples.Changed {
		if e.Key == "order_id=23" {
			found = true
			if len(e.Changes) != 1 || e.Changes[0].Field != "amount" {
				t.Errorf("order 23 changes %+v", e.Changes)
			}
		}
	}
	if !found {
		t.Errorf("order_id=23 not among the first changed examples: %+v", d.Examples.Changed)
	}
	// Text output: the first lines a person reads.
	code, out, _ := runCLI(t, "diff", "--repo", r, a[:8], b[:8])
	if code != ExitDifference {
		t.Fatalf("text diff exit %d", code)
	}
	for _, s := range []string{"+15 added", "−5 removed", "~14 changed", "181 same", "amount ~8", "status ~6", "schema    unchanged"} {
		if !strings.Contains(out, s) {
			t.Errorf("text diff lacks %q:\n%s", s, out)
		}
	}
}

func TestDiffSelfIsEqual(t *testing.T) {
	r := newRepo(t)
	for _, res := range []string{"dataset", "record", "value"} {
		key := "order_id"
		if res == "dataset" {
			key = ""
		}
		id := scanShop(t, r, 1, "orders", key, res)
		d := diffJSONOf(t, ExitOK, "--repo", r, id, id)
		if !d.Equal {
			t.Errorf("%s: self diff not equal: %+v", res, d)
		}
		if res != "dataset" && (d.Records == nil || *d.Records.Unchanged != 200 || *d.Records.Changed != 0) {
			t.Errorf("%s: self diff records %+v", res, d.Records)
		}
	}
	// Two scans of the same file are equal too.
	a := scanShop(t, r, 2, "customers", "customer_id", "value")
	b := scanShop(t, r, 2, "customers", "customer_id", "value")
	if d := diffJSONOf(t, ExitOK, "--repo", r, a, b); !d.Equal {
		t.Errorf("rescan differs: %+v", d)
	}
}

func TestDiffDatasetResolution(t *testing.T) {
	r := newRepo(t)
	a := scanShop(t, r, 1, "customers", "", "dataset")
	b := scanShop(t, r, 2, "customers", "", "dataset")
	d := diffJSONOf(t, ExitDifference, "--repo", r, a, b)
	if d.Equal || d.Records != nil || d.Fields != nil || d.Resolution != "dataset" {
		t.Errorf("dataset diff = %+v", d)
	}
	code, out, _ := runCLI(t, "diff", "--repo", r, a, b)
	// Only customer 7's email changed: only the email column's fingerprint differs.
	if code != ExitDifference || !strings.Contains(out, "columns   email differ") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// A value and a dataset snapshot compare at dataset resolution.
	c := scanShop(t, r, 2, "customers", "customer_id", "value")
	if d := diffJSONOf(t, ExitDifference, "--repo", r, a, c); d.Resolution != "dataset" || d.Records != nil {
		t.Errorf("mixed resolution diff = %+v", d)
	}
}

func TestDiffSchemaChangeAndContexts(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1.csv")
	v2 := filepath.Join(dir, "v2.csv")
	os.WriteFile(v1, []byte("id,name\n1,a\n2,b\n"), 0o644)
	os.WriteFile(v2, []byte("id,name,extra\n1,a,x\n2,b,y\n"), 0o644)
	scanID := func(args ...string) string {
		code, out, e := runCLI(t, append([]string{"scan", "--repo", r, "--name", "t"}, args...)...)
		if code != 0 {
			t.Fatalf("scan %v: %s", args, e)
		}
		return snapRe.FindStringSubmatch(out)[1]
	}
	a := scanID(v1, "--key", "id", "--resolution", "record")
	b := scanID(v2, "--key", "id", "--resolution", "record")
	d := diffJSONOf(t, ExitDifference, "--repo", r, a, b)
	if d.Equal || d.Comparable || len(d.SchemaChanges) != 1 || d.SchemaChanges[0].Kind != "added" || d.SchemaChanges[0].Name != "extra" {
		t.Errorf("schema diff = %+v", d)
	}
	// Another profile: refused with exit 2, naming both profiles.
	c := scanID(v1, "--key", "id", "--resolution", "record", "--profile", "logical-v1")
	code, _, e := runCLI(t, "diff", "--repo", r, a, c)
	if code != ExitError || !strings.Contains(e, "not comparable") || !strings.Contains(e, "strict-v1") || !strings.Contains(e, "logical-v1") {
		t.Errorf("cross-profile diff: exit %d stderr %q", code, e)
	}
}

// TestDiffDifferentArtifacts: snapshots of two unrelated real files (vega-datasets'
// airports and flights) are refused with exit 2 (their field ids were assigned
// separately: airports' iata and flights' date are both field 1), not reported as a
// rename; --allow-different-artifacts compares them by field id, with a note.
func TestDiffDifferentArtifacts(t *testing.T) {
	r := newRepo(t)
	air := scanID(t, "--repo", r, "--resolution", "record", filepath.Join(vega, "airports-100.csv"))
	fl := scanID(t, "--repo", r, "--resolution", "record", filepath.Join(vega, "flights-1k-arrowgo.parquet"))
	code, out, e := runCLI(t, "diff", "--repo", r, air, fl)
	if code != ExitError || out != "" || !strings.Contains(e, "PW_COMPARE_ARTIFACTS") || !strings.Contains(e, `artifact "airports-100"`) ||
		!strings.Contains(e, `artifact "flights-1k-arrowgo"`) || !strings.Contains(e, "pipewhy compare") {
		t.Errorf("diff of different artifacts: exit %d, stdout %q, stderr %q", code, out, e)
	}
	code, out, _ = runCLI(t, "diff", "--repo", r, "--allow-different-artifacts", air, fl)
	if code != ExitDifference || !strings.Contains(out, "note      different artifacts (airports-100, flights-1k-arrowgo)") {
		t.Errorf("--allow-different-artifacts: exit %d\n%s", code, out)
	}
}

// TestDiffProfilesDiffer: real zip codes scanned under strict-v1 and logical-v1 are not
// comparable; the message names each side's profile and a scan command that rescans B
// under A's profile, and running that command gives a snapshot equal to A.
func TestDiffProfilesDiffer(t *testing.T) {
	r := newRepo(t)
	zips := filepath.Join(vega, "zipcodes-640.csv")
	a := scanID(t, "--repo", r, "--name", "zip", "--key", "zip_code", "--resolution", "value", zips)
	b := scanID(t, "--repo", r, "--name", "zip", "--key", "zip_code", "--resolution", "value", "--profile", "logical-v1", zips)
	code, _, e := runCLI(t, "diff", "--repo", r, a, b)
	want := fmt.Sprintf("snapshot A (%s) was scanned with profile strict-v1 and snapshot B (%s) with profile logical-v1", a[:12], b[:12])
	if code != ExitError || !strings.Contains(e, want) {
		t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, e, want)
	}
	cmd := "pipewhy scan " + zips + " --name zip --profile strict-v1 --resolution value --key zip_code"
	if !strings.Contains(e, "for example: "+cmd+" (") {
		t.Fatalf("stderr %q lacks the rescan command %q", e, cmd)
	}
	again := scanID(t, append([]string{"--repo", r}, strings.Fields(cmd)[2:]...)...)
	if d := diffJSONOf(t, ExitOK, "--repo", r, a, again); !d.Equal {
		t.Errorf("rescan with the suggested command: %+v", d)
	}
}

func TestDiffBadIDs(t *testing.T) {
	r := newRepo(t)
	id := scanShop(t, r, 1, "daily_revenue", "", "dataset")
	// Two fake published directories sharing a prefix make the prefix ambiguous.
	snaps := filepath.Join(r, "store", "snapshots")
	os.Mkdir(filepath.Join(snaps, "ffff0000000000000000000000000001"), 0o755)
	os.Mkdir(filepath.Join(snaps, "ffff0000000000000000000000000002"), 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", id, "0123456789abcdef0123456789abcdef"}, "PW_REPO_UNKNOWN_ID"},
		{[]string{"diff", id, "ffff"}, "PW_REPO_AMBIGUOUS"},
		{[]string{"diff", id, "xyz!"}, "PW_REPO_UNKNOWN_ID"},
		{[]string{"diff", "ffff", "0123456789abcdef0123456789abcdef"}, "PW_REPO_AMBIGUOUS"}, // both bad: A's error (the snapshots load at once)
		{[]string{"diff", "0123456789abcdef0123456789abcdef", "ffff"}, "PW_REPO_UNKNOWN_ID"},
		{[]string{"show", "ffff"}, "PW_REPO_AMBIGUOUS"},
		{[]string{"show", "ffff0000000000000000000000000001"}, "PW_REPO_FORMAT"},
	} {
		code, _, e := runCLI(t, append(c.args, "--repo", r)...)
		if code != ExitError || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d stderr %q, want %s", c.args, code, e, c.want)
		}
	}
}

// TestDiffCompositeKey: a composite key (order_id, customer_id) that the v2 changes do
// not touch gives the README's counts, and keys print both columns in field id order.
func TestDiffCompositeKey(t *testing.T) {
	r := newRepo(t)
	a := scanShop(t, r, 1, "orders", "customer_id,order_id", "value")
	b := scanShop(t, r, 2, "orders", "order_id,customer_id", "value")
	d := diffJSONOf(t, ExitDifference, "--repo", r, a, b)
	if d.Records == nil || *d.Records.Added != 15 || *d.Records.Removed != 5 || *d.Records.Changed != 14 {
		t.Fatalf("records = %+v", d.Records)
	}
	// orders.csv: order 37 has customer 1 + (37*31) % 50 = 48.
	if len(d.Examples.Removed) == 0 || d.Examples.Removed[0].Key != "order_id=37 customer_id=48" {
		t.Errorf("removed[0] = %+v", d.Examples.Removed)
	}
}

// TestDiffWidthIsPhysical: a width change (int32 → int64) leaves the C3 schema identity
// alone (both are C2 integers): the records are compared, the diff is equal (exit 0),
// and the width appears as a physical change, not a schema change.
func TestDiffWidthIsPhysical(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "t.csv")
	os.WriteFile(data, []byte("id,v\n1,10\n2,20\n"), 0o644)
	s32 := filepath.Join(dir, "s32.json")
	s64 := filepath.Join(dir, "s64.json")
	os.WriteFile(s32, []byte(`{"columns":[{"name":"id","type":"int64"},{"name":"v","type":"int32"}]}`), 0o644)
	os.WriteFile(s64, []byte(`{"columns":[{"name":"id","type":"int64"},{"name":"v","type":"int64"}]}`), 0o644)
	var ids []string
	for _, s := range []string{s32, s64} {
		code, out, e := runCLI(t, "scan", "--repo", r, "--schema", s, "--key", "id", "--resolution", "value", data)
		if code != 0 {
			t.Fatalf("scan: %s", e)
		}
		ids = append(ids, snapRe.FindStringSubmatch(out)[1])
	}
	d := diffJSONOf(t, ExitOK, "--repo", r, ids[0], ids[1])
	if !d.Equal || !d.Comparable || d.Records == nil || *d.Records.Unchanged != 2 || *d.Records.Changed != 0 {
		t.Errorf("diff = %+v", d)
	}
	if len(d.SchemaChanges) != 0 {
		t.Errorf("schema changes = %+v, want none", d.SchemaChanges)
	}
	want := []physicalDoc{{Name: "v", Type: "int", A: physicalSide{Arrow: "int32", Source: "int32", Width: 32},
		B: physicalSide{Arrow: "int64", Source: "int64", Width: 64}}}
	if !reflect.DeepEqual(d.Physical, want) {
		t.Errorf("physical changes %+v, want %+v", d.Physical, want)
	}
}

// TestDiffParquetWritersAreEqual: the same 1,000 flights written by Apache Arrow Go and
// by DuckDB (testdata/vega) diff as equal, exit 0, with the writers' choices (string
// layout) as physical notes; the text never says "retyped".
func TestDiffParquetWritersAreEqual(t *testing.T) {
	r := newRepo(t)
	scanFlights := func(file string) string {
		return scanID(t, "--repo", r, "--name", "flights", "--resolution", "value", filepath.Join(vega, file))
	}
	a, b, c := scanFlights("flights-1k-arrowgo.parquet"), scanFlights("flights-1k-duckdb.parquet"), scanFlights("flights-1k-parquetgo.parquet")
	code, out, e := runCLI(t, "diff", "--repo", r, a, b)
	if code != ExitOK {
		t.Fatalf("diff arrow-go → duckdb: exit %d, want 0\n%s%s", code, out, e)
	}
	for _, s := range []string{"1,000 same", "schema    unchanged",
		"physical  origin (text): arrow large_utf8 → utf8\n",
		"          destination (text): arrow large_utf8 → utf8\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("text diff lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "retyped") {
		t.Errorf("text diff reports a retyping:\n%s", out)
	}
	d := diffJSONOf(t, ExitOK, "--repo", r, c, b)
	if !d.Equal || len(d.SchemaChanges) != 0 || len(d.Physical) != 5 {
		t.Fatalf("parquet-go → duckdb: equal %v schema %+v physical %+v; want equal, 5 physical changes", d.Equal, d.SchemaChanges, d.Physical)
	}
	for _, p := range d.Physical {
		if p.A.Nullable || !p.B.Nullable || p.A.Arrow != p.B.Arrow || p.A.Source != p.B.Source || p.A.Width != p.B.Width {
			t.Errorf("%s: %+v → %+v, want only not null → nullable", p.Name, p.A, p.B)
		}
	}
}

// TestInferKeepsZipCodes: vega-datasets' zip codes under --infer keep their text. Writing
// 00501 as 501 and 02108 as +2108 is a difference for diff and for compare (exit 1), and
// 00501 and 501 are two keys, not a duplicate.
func TestInferKeepsZipCodes(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(vega, "zipcodes-640.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.csv")
	both := filepath.Join(dir, "both.csv")
	edited := strings.Replace(strings.Replace(string(orig), "\n00501,", "\n501,", 1), "\n02108,", "\n+2108,", 1)
	if edited == string(orig) || strings.Count(edited, "\n501,") != 1 || strings.Count(edited, "\n+2108,") != 1 {
		t.Fatal("the fixture no longer holds 00501 and 02108")
	}
	os.WriteFile(a, orig, 0o644)
	os.WriteFile(b, []byte(edited), 0o644)
	os.WriteFile(both, []byte(string(orig)+"501,40.922326,-72.637078,Holtsville,NY,Suffolk\n"), 0o644)
	r := newRepo(t)
	scanZip := func(file string) string {
		return scanID(t, "--repo", r, "--name", "zipcodes", "--infer", "--key", "zip_code", "--resolution", "value", file)
	}
	ia, ib := scanZip(a), scanZip(b)
	d := diffJSONOf(t, ExitDifference, "--repo", r, ia, ib)
	if d.Equal || d.Records == nil || *d.Records.Added != 2 || *d.Records.Removed != 2 || *d.Records.Unchanged != 638 {
		t.Fatalf("diff = %+v, want 2 added (501, +2108), 2 removed (00501, 02108), 638 unchanged", d)
	}
	var added, removed []string
	for _, e := range d.Examples.Added {
		added = append(added, e.Key)
	}
	for _, e := range d.Examples.Removed {
		removed = append(removed, e.Key)
	}
	if strings.Join(added, " ") != `zip_code="+2108" zip_code="501"` || strings.Join(removed, " ") != `zip_code="00501" zip_code="02108"` {
		t.Errorf("added %q removed %q", added, removed)
	}
	if code, _, e := runCLI(t, "compare", "--infer", "--key", "zip_code", a, b); code != ExitDifference {
		t.Errorf("compare --infer: exit %d, want 1: %s", code, e)
	}
	// 00501 and 501 are different zip codes: no duplicate key.
	scanZip(both)
}

// TestDiffEqualStatesReadNoValues: two value snapshots of the same real file (1,000
// flights, no key) diff from their states and record entries: the value arrays and key
// words are not read (damaged, they do not stop the diff), the record entries are.
func TestDiffEqualStatesReadNoValues(t *testing.T) {
	r := newRepo(t)
	f := filepath.Join(vega, "flights-1k-arrowgo.parquet")
	a := scanID(t, "--repo", r, "--name", "flights", "--resolution", "value", f)
	b := scanID(t, "--repo", r, "--name", "flights", "--resolution", "value", f)
	damage := func(array string) {
		t.Helper()
		p := filepath.Join(r, "store", "snapshots", b, "array-"+array+".bin")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 1
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	damage("values")
	damage("key_words")
	damage("value_payload_words")
	d := diffJSONOf(t, ExitOK, "--repo", r, a, b)
	if !d.Equal || d.Records == nil || *d.Records.Unchanged != 1000 {
		t.Errorf("diff = %+v, want equal, 1,000 unchanged", d)
	}
	damage("records")
	if code, _, e := runCLI(t, "diff", "--repo", r, a, b); code != ExitError || !strings.Contains(e, "is corrupt") {
		t.Errorf("damaged record entries: exit %d, stderr %q", code, e)
	}
}

// editedCopy writes name in a temporary directory: the real file src with the line
// old replaced by new (old must occur once) and extra appended.
func editedCopy(t *testing.T, src, name, old, new, extra string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if old != "" {
		if strings.Count(s, old) != 1 {
			t.Fatalf("%s holds %q %d times", src, old, strings.Count(s, old))
		}
		s = strings.Replace(s, old, new, 1)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(s+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDiffTextKeyless: a keyless diff of real bird strikes (14 columns; one record's
// time of day changed) stays readable: no line is longer than 160 runes, the column
// that differs is named and shown first in the records, no field is called
// unchanged, and a note says how a changed record counts. --json keeps whole records.
func TestDiffTextKeyless(t *testing.T) {
	r := newRepo(t)
	orig := filepath.Join(vega, "birdstrikes-200.csv")
	line := "BARKSDALE AIR FORCE BASE ARPT,KC-10A,None,1990-01-12,MILITARY,Louisiana,Climb,Medium,Unknown bird or bat,Day,0,0,0,160\r\n" // the file ends its lines with CRLF
	edited := editedCopy(t, orig, "birdstrikes-200.csv", line, strings.Replace(line, ",Day,", ",Night,", 1), "")
	a := scanID(t, "--repo", r, "--name", "birdstrikes", "--resolution", "value", orig)
	b := scanID(t, "--repo", r, "--name", "birdstrikes", "--resolution", "value", edited)
	code, out, _ := runCLI(t, "diff", "--repo", r, a, b)
	if code != ExitDifference {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 160 {
			t.Errorf("a %d-rune line: %s", n, l)
		}
	}
	for _, s := range []string{"+1 added  −1 removed  ~0 changed  199 same", "\n  columns   Time of day differ\n",
		"\n  added     Time of day=\"Night\" Airport Name=\"BARKSDALE AIR FORCE BAS…\" ", "\n  removed   Time of day=\"Day\" ",
		"\n  note      without a key a changed record counts as one removed and one added record"} {
		if !strings.Contains(out, s) {
			t.Errorf("text diff lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "unchanged)") || strings.Contains(out, "\n  fields    ") {
		t.Errorf("text diff calls fields unchanged:\n%s", out)
	}
	d := diffJSONOf(t, ExitDifference, "--repo", r, a, b)
	if len(d.Examples.Added) != 1 || !strings.HasPrefix(d.Examples.Added[0].Key, `Airport Name="BARKSDALE AIR FORCE BASE ARPT" Aircraft Make Model="KC-10A"`) ||
		!strings.HasSuffix(d.Examples.Added[0].Key, `Speed IAS in knots="160"`) {
		t.Errorf("JSON added example %+v, want the whole record", d.Examples.Added)
	}
}

// TestDiffTextColumns: with a key, an added record changes every column's fingerprint,
// yet no column changed: the text lists none as differing (record and dataset
// resolution). When no record was added or removed, the columns that differ are named.
func TestDiffTextColumns(t *testing.T) {
	r := newRepo(t)
	orig := filepath.Join(vega, "zipcodes-640.csv")
	added := editedCopy(t, orig, "zipcodes-640.csv", "", "", "99999,40.0,-70.0,Nowhere,NY,Suffolk\n")
	changed := editedCopy(t, orig, "zipcodes-640.csv", "\n00501,40.922326,-72.637078,Holtsville,", "\n00501,40.922326,-72.637078,Holtsvile,", "")
	for _, res := range []string{"record", "dataset"} {
		key := []string{"--key", "zip_code"}
		if res == "dataset" {
			key = nil
		}
		scan := func(f string) string {
			return scanID(t, append([]string{"--repo", r, "--name", "zipcodes", "--resolution", res, f}, key...)...)
		}
		a, b, c := scan(orig), scan(added), scan(changed)
		code, out, _ := runCLI(t, "diff", "--repo", r, a, b)
		if code != ExitDifference || strings.Contains(out, "columns") || strings.Contains(out, "differ\n") {
			t.Errorf("%s, one record added: exit %d, lists columns:\n%s", res, code, out)
		}
		code, out, _ = runCLI(t, "diff", "--repo", r, a, c)
		if code != ExitDifference || !strings.Contains(out, "\n  columns   city differ\n") {
			t.Errorf("%s, one city changed: exit %d:\n%s", res, code, out)
		}
	}
}

// TestDiffTextPartial: a side read PARTIAL says so first, with the failures.
func TestDiffTextPartial(t *testing.T) {
	r := newRepo(t)
	orig := filepath.Join(vega, "zipcodes-640.csv")
	broken := editedCopy(t, orig, "zipcodes-640.csv", "", "", "99999,40.0\n")
	a := scanID(t, "--repo", r, "--name", "zipcodes", "--resolution", "record", "--key", "zip_code", orig)
	b := scanID(t, "--repo", r, "--name", "zipcodes", "--resolution", "record", "--key", "zip_code", "--allow-partial", broken)
	code, out, _ := runCLI(t, "diff", "--repo", r, a, b)
	if code != ExitOK || !strings.HasPrefix(out, "WARNING: side B ("+broken+") coverage PARTIAL: only the 640 records read were compared\n  failed: ") {
		t.Errorf("exit %d, want 0 (the records read are equal) and a first line on B's coverage:\n%s", code, out)
	}
	if strings.Contains(out, "side A") {
		t.Errorf("side A is COMPLETE:\n%s", out)
	}
}

// TestDiffCompressedPayloadChecksums: a diff of compressed snapshots checks each
// payload's stored bytes before the merge and its decoded bytes' SHA-256 at the end of
// the merge pass (docs/contracts/C5-compressed.md, PW-C5Z.04). Snapshot B's records
// payload is altered and re-compressed, its stored_length and stored_sha256 (and the
// completion marker) rewritten to match: only the logical sha256 still tells. The diff
// fails as a diff of damaged stored bytes fails: exit 2, the same error code, "is
// corrupt", and nothing on stdout but the error; never a result.
func TestDiffCompressedPayloadChecksums(t *testing.T) {
	r := newRepo(t)
	a := scanShop(t, r, 1, "orders", "order_id", "value")
	b := scanShop(t, r, 2, "orders", "order_id", "value")
	dir := filepath.Join(r, "store", "snapshots", b)
	man0, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(man0), `"records":{"byte_length"`) || !strings.Contains(string(man0), `"encoding":"zstd-blocks"`) {
		t.Fatalf("snapshot B is not compressed with a records array: %s", man0)
	}
	stored0, err := os.ReadFile(filepath.Join(dir, "array-records.bin"))
	if err != nil {
		t.Fatal(err)
	}
	d := diffJSONOf(t, ExitDifference, "--repo", r, a, b)
	if d.Records == nil || *d.Records.Changed == 0 {
		t.Fatalf("undamaged diff = %+v", d)
	}
	// write replaces array-records.bin with stored and rewrites the manifest's
	// stored_length and stored_sha256 of records (when fix) and the marker to match.
	write := func(stored []byte, fix bool) {
		t.Helper()
		man := string(man0)
		if fix {
			i := strings.Index(man, `"records":{`)
			j := i + strings.Index(man[i:], "}")
			entry := man[i:j]
			oldSum := sha256.Sum256(stored0)
			newSum := sha256.Sum256(stored)
			entry = strings.Replace(entry, hex.EncodeToString(oldSum[:]), hex.EncodeToString(newSum[:]), 1)
			entry = strings.Replace(entry, fmt.Sprintf(`"stored_length":"%d"`, len(stored0)), fmt.Sprintf(`"stored_length":"%d"`, len(stored)), 1)
			man = man[:i] + entry + man[j:]
		}
		sum := sha256.Sum256([]byte(man))
		for name, data := range map[string][]byte{"array-records.bin": stored, "manifest.json": []byte(man),
			"complete.sha256": []byte(hex.EncodeToString(sum[:]) + "\n")} {
			p := filepath.Join(dir, name)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o444); err != nil {
				t.Fatal(err)
			}
		}
	}
	failure := func(what string) string {
		t.Helper()
		code, out, e := runCLI(t, "diff", "--repo", r, a, b)
		if code != ExitError || out != "" || !strings.Contains(e, "is corrupt") || !strings.Contains(e, "array-records.bin") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, a corrupt array-records.bin", what, code, out, e)
		}
		code, out, _ = runCLI(t, "diff", "--json", "--repo", r, a, b)
		var doc map[string]map[string]any
		if err := json.Unmarshal([]byte(out), &doc); code != ExitError || err != nil || len(doc) != 1 || doc["error"]["code"] == nil {
			t.Fatalf("%s --json: exit %d, stdout %q: want only an error object", what, code, out)
		}
		return fmt.Sprint(doc["error"]["code"])
	}
	// Damaged stored bytes: the checksum pass, before any entry is read.
	bad := bytes.Clone(stored0)
	bad[len(bad)-1] ^= 1
	write(bad, false)
	want := failure("damaged stored bytes")
	// Consistent stored bytes whose decoded bytes are not the manifest's: one record
	// digest bit (word 3 of entry 0: the entries stay sorted), then the top bit of a
	// key digest (word 0 of entry 1: the entries are out of order before the stream
	// ends, and the checksum, not the order, is the error).
	logical := decodeBlocks(t, stored0)
	for _, off := range []int{3 * 8, 4*8 + 7} {
		alt := bytes.Clone(logical)
		alt[off] ^= 0x80
		write(encodeBlocks(t, alt), true)
		if got := failure(fmt.Sprintf("re-compressed payload, byte %d altered", off)); got != want {
			t.Errorf("byte %d: error code %s, want %s (as for damaged stored bytes)", off, got, want)
		}
	}
	write(stored0, false)
	if d := diffJSONOf(t, ExitDifference, "--repo", r, a, b); d.Records == nil || *d.Records.Changed == 0 {
		t.Fatalf("restored diff = %+v", d)
	}
}

// decodeBlocks returns the logical bytes of a zstd-blocks payload (PW-C5Z.03).
func decodeBlocks(t *testing.T, stored []byte) []byte {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var out []byte
	for len(stored) > 0 {
		raw, n := binary.LittleEndian.Uint32(stored), binary.LittleEndian.Uint32(stored[4:])
		block, err := dec.DecodeAll(stored[8:8+n], nil)
		if err != nil || len(block) != int(raw) {
			t.Fatalf("block: %d bytes, %v", len(block), err)
		}
		out = append(out, block...)
		stored = stored[8+n:]
	}
	return out
}

// encodeBlocks writes logical as a zstd-blocks payload of 64 KiB blocks.
func encodeBlocks(t *testing.T, logical []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var out []byte
	for len(logical) > 0 {
		k := min(len(logical), 64<<10)
		frame := enc.EncodeAll(logical[:k], nil)
		out = binary.LittleEndian.AppendUint32(out, uint32(k))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(frame)))
		out = append(out, frame...)
		logical = logical[k:]
	}
	return out
}
