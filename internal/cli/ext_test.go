package cli

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// extRow is one row of the extension-type Parquet file. A nil pointer is a null.
type extRow struct {
	id   int64
	d    *int32 // date32: days since 1970-01-01
	t    int64  // time64(us): microseconds since midnight
	ts   int64  // timestamp(ns), naive
	dur  int64  // duration(ms)
	tags []int64
	a    int64 // st.a
	b    string
}

// extFields are the file's columns; durType is the type of column 4.
func extFields(durType arrow.DataType) []arrow.Field {
	return []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "t", Type: arrow.FixedWidthTypes.Time64us},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		{Name: "dur", Type: durType},
		{Name: "tags", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int64, Nullable: true})},
		{Name: "st", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})},
	}
}

// writeExtParquet writes rows with pqarrow the way pyarrow writes a duration column:
// Parquet has no duration type, so the column is stored as INT64 and the Arrow schema
// (ARROW:schema, base64 of the IPC schema message) records duration(ms); pqarrow's reader
// restores the type from it. (pqarrow's own writer refuses duration columns.)
func writeExtParquet(t *testing.T, path string, rows []extRow) {
	t.Helper()
	logical := arrow.NewSchema(extFields(&arrow.DurationType{Unit: arrow.Millisecond}), nil)
	stored := base64.StdEncoding.EncodeToString(flight.SerializeSchema(logical, memory.DefaultAllocator))
	md := arrow.NewMetadata([]string{"ARROW:schema"}, []string{stored})
	physical := arrow.NewSchema(extFields(arrow.PrimitiveTypes.Int64), &md)
	bld := array.NewRecordBuilder(memory.NewGoAllocator(), physical)
	defer bld.Release()
	for _, r := range rows {
		bld.Field(0).(*array.Int64Builder).Append(r.id)
		if r.d == nil {
			bld.Field(1).AppendNull()
		} else {
			bld.Field(1).(*array.Date32Builder).Append(arrow.Date32(*r.d))
		}
		bld.Field(2).(*array.Time64Builder).Append(arrow.Time64(r.t))
		bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts))
		bld.Field(4).(*array.Int64Builder).Append(r.dur)
		lb := bld.Field(5).(*array.ListBuilder)
		lb.Append(true)
		for _, v := range r.tags {
			lb.ValueBuilder().(*array.Int64Builder).Append(v)
		}
		sb := bld.Field(6).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int64Builder).Append(r.a)
		sb.FieldBuilder(1).(*array.StringBuilder).Append(r.b)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(physical, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
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

// Hand-derived values. 2026-01-01 is 56 years after 1970-01-01, 14 of them leap
// (1972..2024): 56·365+14 = 20454 days; Nov 30 is day 304+29 of 2026, so 2026-11-30 is
// day 20787. 13:45:00 is 49500 s. 2026-11-30 08:00:00 is 20787·86400+28800 =
// 1796025600 s.
const (
	day20261130 = 20787
	t134500us   = 49500 * 1000000
	ts0800ns    = 1796025600 * 1000000000
)

func i32p(v int32) *int32 { return &v }

func extVersions() (a, b []extRow) {
	a = []extRow{
		{id: 1, d: nil, t: 0, ts: 0, dur: 0, tags: []int64{}, a: 0, b: ""},
		{id: 2, d: i32p(day20261130), t: t134500us, ts: ts0800ns, dur: 1000, tags: []int64{7}, a: 2, b: "two"},
		{id: 3, d: i32p(day20261130), t: t134500us + 123456, ts: ts0800ns, dur: 1000, tags: []int64{7}, a: 3, b: "three"},
		{id: 4, d: i32p(day20261130), t: t134500us, ts: ts0800ns, dur: 1500, tags: []int64{1, 2}, a: 1, b: "x"},
		{id: 5, d: i32p(0), t: 0, ts: 0, dur: 0, tags: nil, a: 5, b: "gone"},
	}
	b = []extRow{
		a[0],
		// id 2: the date moves one day.
		{id: 2, d: i32p(day20261130 + 1), t: t134500us, ts: ts0800ns, dur: 1000, tags: []int64{7}, a: 2, b: "two"},
		// id 3: the time becomes .5 s, the timestamp gains one nanosecond (TIMESTAMP →
		// TIMESTAMP_NS).
		{id: 3, d: i32p(day20261130), t: t134500us + 500000, ts: ts0800ns + 1, dur: 1000, tags: []int64{7}, a: 3, b: "three"},
		// id 4: duration 1500 ms → -250 ms, tags [1,2] → [1,3], st.b "x" → "y".
		{id: 4, d: i32p(day20261130), t: t134500us, ts: ts0800ns, dur: -250, tags: []int64{1, 3}, a: 1, b: "y"},
		// id 5 removed, id 6 added.
		{id: 6, d: i32p(-1), t: 86399999999, ts: -1, dur: 0, tags: []int64{}, a: 6, b: "new"},
	}
	return a, b
}

// TestExtensionTypesEndToEnd scans two versions of a Parquet file with date, time,
// nanosecond timestamp, duration, list and struct columns at value resolution under
// strict-v1+ext1 and checks diff's counts and printed values, all derived by hand.
func TestExtensionTypesEndToEnd(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	va, vb := extVersions()
	pa, pb := filepath.Join(dir, "a", "events.parquet"), filepath.Join(dir, "b", "events.parquet")
	os.Mkdir(filepath.Dir(pa), 0o755)
	os.Mkdir(filepath.Dir(pb), 0o755)
	writeExtParquet(t, pa, va)
	writeExtParquet(t, pb, vb)

	// Under strict-v1 the scan fails visibly, naming the first such column, its type
	// and both ways out, and publishes nothing.
	before := treeOf(t, r)
	code, _, e := runCLI(t, "scan", "--repo", r, "--resolution", "value", "--key", "id", pa)
	if code != ExitError {
		t.Fatalf("strict-v1 scan: exit %d, want %d; stderr %s", code, ExitError, e)
	}
	for _, s := range []string{`column "d"`, "date32", "strict-v1+ext1", "--exclude d", "PW_SCAN_PROFILE"} {
		if !strings.Contains(e, s) {
			t.Errorf("strict-v1 scan message lacks %q: %s", s, e)
		}
	}
	after := treeOf(t, r)
	for i, l := range after {
		if strings.HasPrefix(l, "lock ") { // the repository lock file, created by any scan
			after = append(after[:i:i], after[i+1:]...)
			break
		}
	}
	sameTree(t, before, after)
	// logical-v1 points at logical-v1+ext1; timestamp(ns) alone needs the extension too.
	code, _, e = runCLI(t, "scan", "--repo", r, "--profile", "logical-v1", "--exclude", "d,t,dur,tags,st", pa)
	if code != ExitError || !strings.Contains(e, `column "ts"`) || !strings.Contains(e, "timestamp(ns)") || !strings.Contains(e, "logical-v1+ext1") {
		t.Errorf("logical-v1 scan of timestamp(ns): exit %d: %s", code, e)
	}

	scanExt := func(p string) string {
		t.Helper()
		code, out, e := runCLI(t, "scan", "--repo", r, "--profile", "strict-v1+ext1", "--resolution", "value", "--key", "id", p)
		if code != 0 {
			t.Fatalf("scan %s: exit %d: %s", p, code, e)
		}
		m := snapRe.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("scan printed no snapshot id: %q", out)
		}
		return m[1]
	}
	a, b := scanExt(pa), scanExt(pb)

	// The snapshot records each column's C3 value type and Arrow type.
	code, out, e := runCLI(t, "show", "--repo", r, "--json", a)
	if code != 0 {
		t.Fatalf("show: %d %s", code, e)
	}
	var doc struct {
		Fields []struct{ Name, Type, Arrow string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string][2]string{
		"id": {"int", "int64"}, "d": {"date", "date32"}, "t": {"time", "time64(us)"},
		"ts": {"timestamp", "timestamp(ns)"}, "dur": {"duration", "duration(ms)"},
		"tags": {"nested", ""}, "st": {"nested", `struct<"a":int64,"b":utf8>`},
	}
	for _, f := range doc.Fields {
		w, ok := wantTypes[f.Name]
		if !ok || f.Type != w[0] || (w[1] != "" && f.Arrow != w[1]) {
			t.Errorf("field %s: type %s arrow %s, want %v", f.Name, f.Type, f.Arrow, w)
		}
		if f.Name == "tags" && !strings.HasPrefix(f.Arrow, "list<") {
			t.Errorf("tags arrow type %s", f.Arrow)
		}
	}

	d := diffJSONOf(t, ExitDifference, "--repo", r, "--limit", "100", a, b)
	if d.Records == nil {
		t.Fatalf("diff has no records: %+v", d)
	}
	got := [4]uint64{*d.Records.Added, *d.Records.Removed, *d.Records.Changed, *d.Records.Unchanged}
	if got != [4]uint64{1, 1, 3, 1} {
		t.Errorf("added/removed/changed/unchanged = %v, want [1 1 3 1]", got)
	}
	wantFields := map[string]uint64{"id": 0, "d": 1, "t": 1, "ts": 1, "dur": 1, "tags": 1, "st": 1}
	for name, n := range wantFields {
		if f, ok := d.Fields[name]; !ok || f.Changed == nil || *f.Changed != n {
			t.Errorf("fields[%s] = %+v, want changed %d", name, f, n)
		}
	}
	if len(d.Examples.Added) != 1 || d.Examples.Added[0].Key != "id=6" || len(d.Examples.Removed) != 1 || d.Examples.Removed[0].Key != "id=5" {
		t.Errorf("added %+v removed %+v", d.Examples.Added, d.Examples.Removed)
	}
	// Old → new as diff prints them. Nested values are their graphforge-canonical/1
	// value bytes (big-endian counts and integers, a presence byte 01 before every
	// value): list<int64> [1,2] = 01 | u64 2 | 01 i64 1 | 01 i64 2 (27 bytes);
	// struct {a:1, b:"x"} = 01 | 01 i64 1 | 01 u64 1 "x" (20 bytes).
	want := map[string]map[string][2]string{
		"id=2": {"d": {"2026-11-30", "2026-12-01"}},
		"id=3": {
			"t":  {"13:45:00.123456", "13:45:00.500"},
			"ts": {"2026-11-30 08:00:00", "2026-11-30 08:00:00.000000001"},
		},
		"id=4": {
			"dur": {"1.5s", "-0.25s"},
			"tags": {"<nested 27 bytes 0x01000000000000000201000000000000000101000000000000000" + "2>",
				"<nested 27 bytes 0x01000000000000000201000000000000000101000000000000000" + "3>"},
			"st": {"<nested 20 bytes 0x0101000000000000000101000000000000000178>",
				"<nested 20 bytes 0x0101000000000000000101000000000000000179>"},
		},
	}
	seen := 0
	for _, ex := range d.Examples.Changed {
		w, ok := want[ex.Key]
		if !ok {
			t.Errorf("unexpected changed record %s", ex.Key)
			continue
		}
		if len(ex.Changes) != len(w) {
			t.Errorf("%s: changes %+v, want %v", ex.Key, ex.Changes, w)
		}
		for _, c := range ex.Changes {
			if ov, ok := w[c.Field]; !ok || c.Old != ov[0] || c.New != ov[1] {
				t.Errorf("%s %s: %s → %s, want %v", ex.Key, c.Field, c.Old, c.New, ov)
			}
			seen++
		}
	}
	if seen != 6 {
		t.Errorf("saw %d field changes, want 6", seen)
	}
	// The text form a person reads.
	code, out, _ = runCLI(t, "diff", "--repo", r, a, b)
	if code != ExitDifference {
		t.Fatalf("text diff exit %d", code)
	}
	for _, s := range []string{"+1 added", "−1 removed", "~3 changed", "1 same", "d 2026-11-30 → 2026-12-01",
		"ts 2026-11-30 08:00:00 → 2026-11-30 08:00:00.000000001", "dur 1.5s → -0.25s", "(id unchanged)"} {
		if !strings.Contains(out, s) {
			t.Errorf("text diff lacks %q:\n%s", s, out)
		}
	}
}

// TestExtensionKeyColumn: a date in a composite key is stored in the key records, read
// back and printed.
func TestExtensionKeyColumn(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	va, vb := extVersions()
	pa, pb := filepath.Join(dir, "a", "events.parquet"), filepath.Join(dir, "b", "events.parquet")
	os.Mkdir(filepath.Dir(pa), 0o755)
	os.Mkdir(filepath.Dir(pb), 0o755)
	writeExtParquet(t, pa, va)
	writeExtParquet(t, pb, vb)
	var ids []string
	for _, p := range []string{pa, pb} {
		code, out, e := runCLI(t, "scan", "--repo", r, "--profile", "strict-v1+ext1", "--resolution", "record", "--key", "id,d", p)
		if code != 0 {
			t.Fatalf("scan: %d %s", code, e)
		}
		ids = append(ids, snapRe.FindStringSubmatch(out)[1])
	}
	d := diffJSONOf(t, ExitDifference, "--repo", r, ids[0], ids[1])
	// id 2's date moved: its old key is removed and its new key added. Day -1 is
	// 1969-12-31, day 0 1970-01-01. ids 3 and 4 changed; id 1 (null date) is the same.
	got := [4]uint64{*d.Records.Added, *d.Records.Removed, *d.Records.Changed, *d.Records.Unchanged}
	if got != [4]uint64{2, 2, 2, 1} {
		t.Errorf("added/removed/changed/unchanged = %v, want [2 2 2 1]", got)
	}
	keys := func(ex []struct{ Key string }) string {
		var ks []string
		for _, e := range ex {
			ks = append(ks, e.Key)
		}
		sort.Strings(ks)
		return strings.Join(ks, ";")
	}
	if k := keys(d.Examples.Added); k != "id=2 d=2026-12-01;id=6 d=1969-12-31" {
		t.Errorf("added keys %s", k)
	}
	if k := keys(d.Examples.Removed); k != "id=2 d=2026-11-30;id=5 d=1970-01-01" {
		t.Errorf("removed keys %s", k)
	}
}

// TestExtensionExcludeIsRecorded: under strict-v1, --exclude of every extension column
// lets the scan through and the snapshot records what was left out.
func TestExtensionExcludeIsRecorded(t *testing.T) {
	r := newRepo(t)
	va, _ := extVersions()
	p := filepath.Join(t.TempDir(), "events.parquet")
	writeExtParquet(t, p, va)
	code, out, e := runCLI(t, "scan", "--repo", r, "--exclude", "d,t,ts,dur,tags,st", p)
	if code != 0 {
		t.Fatalf("scan with --exclude: exit %d: %s", code, e)
	}
	id := snapRe.FindStringSubmatch(out)[1]
	code, out, e = runCLI(t, "show", "--repo", r, "--json", id)
	if code != 0 {
		t.Fatalf("show: %d %s", code, e)
	}
	var doc struct {
		Scope    string
		Excluded []string
		Fields   []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if strings.Join(doc.Excluded, ",") != "d,t,ts,dur,tags,st" || len(doc.Fields) != 1 || doc.Fields[0].Name != "id" {
		t.Errorf("excluded %v fields %v", doc.Excluded, doc.Fields)
	}
	if doc.Scope != "rows=all;columns=all-except:d,t,ts,dur,tags,st" {
		t.Errorf("scope %q", doc.Scope)
	}
	// An excluded column that does not exist is an error, not silently ignored.
	if code, _, e := runCLI(t, "scan", "--repo", r, "--exclude", "nope", p); code != ExitError || !strings.Contains(e, "nope") {
		t.Errorf("unknown --exclude: exit %d: %s", code, e)
	}
}
