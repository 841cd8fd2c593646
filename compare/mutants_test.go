package compare

// Tests written for the mutants that lived under the package's tests (issue 22,
// docs/mutation/compare.txt): exact counts, fields, examples and rendered values derived
// by hand from small tables, the limits at their boundary, and the rare paths of Diff.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// idNameV are the columns of the small tables below: id and v are INT64 (C2 type 3 or
// 4 by sign, rendered as decimal integers), name is TEXT (rendered quoted).
var idNameV = []source.Column{{Name: "id", Type: "int64"}, {Name: "name", Type: "text"}, {Name: "v", Type: "int64"}}

// tableRepo scans each CSV text (header id,name,v) into one repository under artifact
// name "t" with the given resolution and key, and returns the repository and the ids.
func tableRepo(t *testing.T, res snapshot.Resolution, key []string, csvs ...string) (*repo.Repo, []snapshot.ID) {
	t.Helper()
	r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []snapshot.ID
	for i, text := range csvs {
		p := writeFile(t, t.TempDir(), "t.csv", text)
		out, err := scan.Run(context.Background(), r, scan.Options{Address: p, Name: "t", Resolution: res, Key: key,
			Source: source.Options{Columns: idNameV}})
		if err != nil {
			t.Fatalf("scan %d: %v", i, err)
		}
		ids = append(ids, out.ID)
	}
	return r, ids
}

// diffTwoWays diffs snapshots ids[0] and ids[1] of r twice: over fully loaded scans, and
// over summaries with Options.Stream; it returns both reports.
func diffTwoWays(t *testing.T, r *repo.Repo, ids []snapshot.ID, o Options) (loaded, streamed *Report) {
	t.Helper()
	a, err := r.Load(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Load(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	if loaded, err = Diff(a, b, o); err != nil {
		t.Fatal(err)
	}
	if a, err = r.LoadParts(ids[0], 0, nil); err != nil {
		t.Fatal(err)
	}
	if b, err = r.LoadParts(ids[1], 0, nil); err != nil {
		t.Fatal(err)
	}
	o.Stream = func(s *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) { return r.Entries(s, parts, nil) }
	if streamed, err = Diff(a, b, o); err != nil {
		t.Fatal(err)
	}
	return loaded, streamed
}

// keys lists the examples' keys.
func keys(es []Example) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Key)
	}
	return out
}

// TestMutantsDiffValueExact: a keyed value-resolution diff of a hand-built pair of
// tables, every figure derived by hand. A (id,name,v): 1,a,10 2,b,20 3,c,30 5,e,50.
// B: 1,a,11 2,x,20 4,d,40 5,e,50. Key 4 is added, 3 removed, 1 changed in v (10 → 11),
// 2 changed in name ("b" → "x"), 5 unchanged. Fields in B's order: id never differs
// (it is the key), name and v once each. A record was added and removed under a key, so
// every column's state differs by them and ColumnsDiffer is nil.
func TestMutantsDiffValueExact(t *testing.T) {
	r, ids := tableRepo(t, snapshot.ResolutionValue, []string{"id"},
		"id,name,v\n1,a,10\n2,b,20\n3,c,30\n5,e,50\n",
		"id,name,v\n1,a,11\n2,x,20\n4,d,40\n5,e,50\n")
	loaded, streamed := diffTwoWays(t, r, ids, Options{Limit: -1})
	for way, rep := range map[string]*Report{"loaded": loaded, "streamed": streamed} {
		if want := (Counts{Added: 1, Removed: 1, Changed: 2, Unchanged: 1}); rep.Records == nil || *rep.Records != want {
			t.Errorf("%s: records %+v, want %+v", way, rep.Records, want)
		}
		wantFields := []FieldCount{{Name: "id", ID: 1}, {Name: "name", ID: 2, Changed: 1}, {Name: "v", ID: 3, Changed: 1}}
		if !reflect.DeepEqual(rep.Fields, wantFields) {
			t.Errorf("%s: fields %+v, want %+v", way, rep.Fields, wantFields)
		}
		if rep.ColumnsDiffer != nil {
			t.Errorf("%s: columns differ %q, want nil (records added and removed under a key)", way, rep.ColumnsDiffer)
		}
		ex := rep.Examples
		if got := keys(ex.Added); !slices.Equal(got, []string{"id=4"}) {
			t.Errorf("%s: added %q, want [id=4]", way, got)
		}
		if got := keys(ex.Removed); !slices.Equal(got, []string{"id=3"}) {
			t.Errorf("%s: removed %q, want [id=3]", way, got)
		}
		want := []Example{
			{Key: "id=1", Brief: "id=1", Changes: []ValueChange{{Field: "v", Old: "10", New: "11", id: 3}}, key: keyOf(t, normalize.Int(1))},
			{Key: "id=2", Brief: "id=2", Changes: []ValueChange{{Field: "name", Old: `"b"`, New: `"x"`, id: 2}}, key: keyOf(t, normalize.Int(2))},
		}
		if !reflect.DeepEqual(ex.Changed, want) {
			t.Errorf("%s: changed\n got %+v\nwant %+v", way, ex.Changed, want)
		}
		if len(ex.Changed) == 2 && ex.Changed[1].Changes[0].FieldID() != 2 {
			t.Errorf("%s: FieldID %d, want 2", way, ex.Changed[1].Changes[0].FieldID())
		}
	}
}

// TestMutantsDiffLimit: Limit is the number of examples per kind at its boundaries: 0
// keeps none, 1 keeps the smallest key, a negative Limit keeps 10. B adds the 12 keys
// 3..14 to A's 1 and 2 and changes 2 (v 20 → 21); the smallest added keys are 3..12.
func TestMutantsDiffLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,name,v\n1,a,10\n2,b,21\n")
	for k := 3; k <= 14; k++ {
		fmt.Fprintf(&b, "%d,n,%d\n", k, k)
	}
	r, ids := tableRepo(t, snapshot.ResolutionRecord, []string{"id"}, "id,name,v\n1,a,10\n2,b,20\n", b.String())
	var ten []string
	for k := 3; k <= 12; k++ {
		ten = append(ten, fmt.Sprintf("id=%d", k))
	}
	for _, c := range []struct {
		limit          int
		added, changed []string
	}{
		{0, []string{}, []string{}},
		{1, []string{"id=3"}, []string{"id=2"}},
		{-1, ten, []string{"id=2"}},
		{-5, ten, []string{"id=2"}},
	} {
		loaded, streamed := diffTwoWays(t, r, ids, Options{Limit: c.limit})
		for way, rep := range map[string]*Report{"loaded": loaded, "streamed": streamed} {
			if want := (Counts{Added: 12, Changed: 1, Unchanged: 1}); rep.Records == nil || *rep.Records != want {
				t.Errorf("limit %d %s: records %+v, want %+v", c.limit, way, rep.Records, want)
			}
			if got := keys(rep.Examples.Added); !slices.Equal(got, c.added) {
				t.Errorf("limit %d %s: added examples %q, want %q", c.limit, way, got, c.added)
			}
			if got := keys(rep.Examples.Changed); !slices.Equal(got, c.changed) {
				t.Errorf("limit %d %s: changed examples %q, want %q", c.limit, way, got, c.changed)
			}
			if len(rep.Examples.Removed) != 0 {
				t.Errorf("limit %d %s: removed examples %q, want none", c.limit, way, keys(rep.Examples.Removed))
			}
		}
	}
}

// TestMutantsKeylessBriefFirst: without a key a changed record is removed and added
// (its key is the whole record); with equal row counts the columns whose states differ
// are named (v), and each example's Brief shows them first, the other fields after in
// field id order, while Key keeps field id order.
func TestMutantsKeylessBriefFirst(t *testing.T) {
	r, ids := tableRepo(t, snapshot.ResolutionRecord, nil,
		"id,name,v\n1,a,10\n2,b,20\n",
		"id,name,v\n1,a,10\n2,b,21\n")
	loaded, streamed := diffTwoWays(t, r, ids, Options{Limit: -1})
	for way, rep := range map[string]*Report{"loaded": loaded, "streamed": streamed} {
		if want := (Counts{Added: 1, Removed: 1, Unchanged: 1}); rep.Records == nil || *rep.Records != want {
			t.Errorf("%s: records %+v, want %+v", way, rep.Records, want)
		}
		if !slices.Equal(rep.ColumnsDiffer, []string{"v"}) {
			t.Errorf("%s: columns differ %q, want [v]", way, rep.ColumnsDiffer)
		}
		want := Examples{
			Added:   []Example{{Key: `id=2 name="b" v=21`, Brief: `v=21 id=2 name="b"`}},
			Removed: []Example{{Key: `id=2 name="b" v=20`, Brief: `v=20 id=2 name="b"`}},
		}
		if !reflect.DeepEqual(rep.Examples, want) {
			t.Errorf("%s: examples\n got %+v\nwant %+v", way, rep.Examples, want)
		}
	}
}

// TestMutantsKeyedAddedEqualsRemoved: under a key, one record removed and one added
// (equal row counts, added = removed) say nothing about which columns changed: every
// column's state differs by those records, so ColumnsDiffer is nil.
func TestMutantsKeyedAddedEqualsRemoved(t *testing.T) {
	r, ids := tableRepo(t, snapshot.ResolutionRecord, []string{"id"},
		"id,name,v\n1,a,10\n2,b,20\n",
		"id,name,v\n1,a,10\n3,b,20\n")
	loaded, streamed := diffTwoWays(t, r, ids, Options{})
	for way, rep := range map[string]*Report{"loaded": loaded, "streamed": streamed} {
		if want := (Counts{Added: 1, Removed: 1, Unchanged: 1}); rep.Records == nil || *rep.Records != want {
			t.Errorf("%s: records %+v, want %+v", way, rep.Records, want)
		}
		if rep.ColumnsDiffer != nil {
			t.Errorf("%s: columns differ %q, want nil", way, rep.ColumnsDiffer)
		}
	}
}

// observeTwo observes one idNameV table (1,a,10 2,b,20) twice under artifact name "t",
// with the resolution and key of each of a and b.
func observeTwo(t *testing.T, a, b scan.Options) [2]*repo.Scan {
	t.Helper()
	reg, err := source.OpenRegistry(filepath.Join(t.TempDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, t.TempDir(), "t.csv", "id,name,v\n1,a,10\n2,b,20\n")
	var s [2]*repo.Scan
	for i, o := range []scan.Options{a, b} {
		o.Address, o.Name, o.Source.Columns = p, "t", idNameV
		out, err := scan.Observe(context.Background(), reg, o)
		if err != nil {
			t.Fatal(err)
		}
		s[i] = out.Scan
	}
	return s
}

// TestMutantsDifferentKeys: snapshots scanned with different keys are compared at
// dataset resolution, with a note, and no record counts.
func TestMutantsDifferentKeys(t *testing.T) {
	s := observeTwo(t, scan.Options{Resolution: snapshot.ResolutionRecord, Key: []string{"id"}}, scan.Options{Resolution: snapshot.ResolutionRecord})
	rep, err := Diff(s[0], s[1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantNotes := []string{"the snapshots were scanned with different keys: compared at dataset resolution"}
	if rep.Resolution != snapshot.ResolutionDataset || rep.Records != nil || !slices.Equal(rep.Notes, wantNotes) || !rep.Equal {
		t.Errorf("resolution %s records %+v notes %q equal %v; want dataset, none, %q, equal", rep.Resolution, rep.Records, rep.Notes, rep.Equal, wantNotes)
	}
}

// TestMutantsCoarserResolution: a value-resolution snapshot and a record-resolution one
// of the same table compare at record resolution: record counts, no fields (those are
// value resolution's), either way round.
func TestMutantsCoarserResolution(t *testing.T) {
	key := []string{"id"}
	s := observeTwo(t, scan.Options{Resolution: snapshot.ResolutionValue, Key: key}, scan.Options{Resolution: snapshot.ResolutionRecord, Key: key})
	for _, pair := range [][2]*repo.Scan{{s[0], s[1]}, {s[1], s[0]}} {
		rep, err := Diff(pair[0], pair[1], Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Resolution != snapshot.ResolutionRecord || rep.Fields != nil || rep.Records == nil || *rep.Records != (Counts{Unchanged: 2}) {
			t.Errorf("%s vs %s: resolution %s fields %+v records %+v; want record, no fields, 2 unchanged",
				pair[0].Metadata.Resolution, pair[1].Metadata.Resolution, rep.Resolution, rep.Fields, rep.Records)
		}
	}
}

// TestMutantsEqualStatesFields: equal states at value resolution list every common
// field with no change (from the states, with or without a key); at record resolution
// there are no fields.
func TestMutantsEqualStatesFields(t *testing.T) {
	table := "id,name,v\n1,a,10\n2,b,20\n"
	all := []FieldCount{{Name: "id", ID: 1}, {Name: "name", ID: 2}, {Name: "v", ID: 3}}
	for _, c := range []struct {
		res  snapshot.Resolution
		key  []string
		want []FieldCount
	}{
		{snapshot.ResolutionValue, []string{"id"}, all},
		{snapshot.ResolutionValue, nil, all},
		{snapshot.ResolutionRecord, []string{"id"}, nil},
		{snapshot.ResolutionRecord, nil, nil},
	} {
		r, ids := tableRepo(t, c.res, c.key, table, table)
		loaded, streamed := diffTwoWays(t, r, ids, Options{})
		for way, rep := range map[string]*Report{"loaded": loaded, "streamed": streamed} {
			if !rep.Equal || rep.Records == nil || *rep.Records != (Counts{Unchanged: 2}) || !reflect.DeepEqual(rep.Fields, c.want) {
				t.Errorf("%s key %v %s: equal %v records %+v fields %+v; want equal, 2 unchanged, %+v",
					c.res, c.key, way, rep.Equal, rep.Records, rep.Fields, c.want)
			}
		}
	}
}

// collided returns two keyless record-resolution scans whose dataset states are equal
// (both of table x) while b holds the record arrays of table y: what a collision of the
// 128-bit states would look like. equalStates must then find the difference in its
// merge pass and let the full diff run.
func collided(t *testing.T, x, y string, edit func(records []uint64)) (a, b *repo.Scan) {
	t.Helper()
	r, ids := tableRepo(t, snapshot.ResolutionRecord, nil, x, x, y)
	var s [3]*repo.Scan
	for i, id := range ids {
		var err error
		if s[i], err = r.Load(id); err != nil {
			t.Fatal(err)
		}
	}
	a, b = s[0], s[1]
	if eq, err := a.State.Equal(b.State); err != nil || !eq {
		t.Fatalf("states of one table: equal %v, %v", eq, err)
	}
	b.Records, b.KeyWords, b.KeyOffsets = slices.Clone(s[2].Records), s[2].KeyWords, s[2].KeyOffsets
	if edit != nil {
		edit(b.Records)
	}
	return a, b
}

// TestMutantsEqualStatesCollision: when equal states hide a difference (a collision,
// simulated by giving B another table's records), the record pass finds it and the full
// diff reports it with its examples.
func TestMutantsEqualStatesCollision(t *testing.T) {
	x := "id,name,v\n1,a,10\n2,b,20\n"
	// One record replaced: removed and added, nothing changed (keyless).
	a, b := collided(t, x, "id,name,v\n1,a,10\n2,b,21\n", nil)
	rep, err := Diff(a, b, Options{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Added: 1, Removed: 1, Unchanged: 1}); rep.Records == nil || *rep.Records != want {
		t.Errorf("replaced: records %+v, want %+v", rep.Records, want)
	}
	if got, want := keys(rep.Examples.Added), []string{`id=2 name="b" v=21`}; !slices.Equal(got, want) {
		t.Errorf("replaced: added %q, want %q", got, want)
	}
	if got, want := keys(rep.Examples.Removed), []string{`id=2 name="b" v=20`}; !slices.Equal(got, want) {
		t.Errorf("replaced: removed %q, want %q", got, want)
	}
	// The same records with one entry's record digest changed under its key: one changed
	// record (the key words of B's entry name it), nothing added or removed.
	a, b = collided(t, x, x, func(rec []uint64) { rec[2] ^= 1 })
	rep, err = Diff(a, b, Options{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Changed: 1, Unchanged: 1}); rep.Records == nil || *rep.Records != want {
		t.Errorf("changed: records %+v, want %+v", rep.Records, want)
	}
	// Entry 0 is one of the two rows (entries sort by digest); its key record (the
	// whole record) is [version, domain, 3, 1 (id), type, 1, id value, ...].
	rows := map[uint64]string{1: `id=1 name="a" v=10`, 2: `id=2 name="b" v=20`}
	k := b.Key(0)
	if len(k) < 7 || k[3] != 1 || k[5] != 1 || rows[k[6]] == "" {
		t.Fatalf("key of entry 0: %v", k)
	}
	if got, want := keys(rep.Examples.Changed), []string{rows[k[6]]}; !slices.Equal(got, want) {
		t.Errorf("changed: examples %q, want %q", got, want)
	}
	// A has a third record that B lacks, and B's entry 0 changed: one removed, one
	// changed (as many changed as added and removed together).
	a, b = collided(t, x+"3,c,30\n", x, func(rec []uint64) { rec[2] ^= 1 })
	rep, err = Diff(a, b, Options{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Removed: 1, Changed: 1, Unchanged: 1}); rep.Records == nil || *rep.Records != want {
		t.Errorf("removed and changed: records %+v, want %+v", rep.Records, want)
	}
	if k = b.Key(0); len(k) < 7 || k[3] != 1 || k[5] != 1 || rows[k[6]] == "" {
		t.Fatalf("key of entry 0: %v", k)
	}
	if got, want := keys(rep.Examples.Changed), []string{rows[k[6]]}; !slices.Equal(got, want) {
		t.Errorf("removed and changed: changed examples %q, want %q", got, want)
	}
	if got, want := keys(rep.Examples.Removed), []string{`id=3 name="c" v=30`}; !slices.Equal(got, want) {
		t.Errorf("removed and changed: removed examples %q, want %q", got, want)
	}
}

// TestMutantsSchemaChangeOrder: schema changes come in field id order; a field renamed
// and retyped at once is reported renamed first, then retyped (sort.SliceStable keeps the
// order they were found in).
func TestMutantsSchemaChangeOrder(t *testing.T) {
	dir := t.TempDir()
	reg, err := source.OpenRegistry(filepath.Join(dir, "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	observe := func(text string, cols []source.Column) *repo.Scan {
		p := writeFile(t, t.TempDir(), "t.csv", text)
		out, err := scan.Observe(context.Background(), reg, scan.Options{Address: p, Name: "t", Resolution: snapshot.ResolutionRecord,
			Key: []string{"id"}, Source: source.Options{Columns: cols}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Scan
	}
	i64 := func(n string) source.Column { return source.Column{Name: n, Type: "int64"} }
	a := observe("id,v,x\n1,10,5\n", []source.Column{i64("id"), i64("v"), i64("x")})               // ids 1, 2, 3
	b := observe("id,v,c,d\n1,10,7,8\n", []source.Column{i64("id"), i64("v"), i64("c"), i64("d")}) // c 4, d 5
	rep, err := Diff(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.SchemaChanges {
		got = append(got, fmt.Sprintf("%s %d %s", c.Kind, c.FieldID, c.Name))
	}
	if want := []string{"removed 3 x", "added 4 c", "added 5 d"}; !slices.Equal(got, want) {
		t.Errorf("schema changes %q, want %q", got, want)
	}
	if err := reg.Rename("t", "v", "w"); err != nil {
		t.Fatal(err)
	}
	c := observe("id,w,c,d\n1,ten,7,8\n", []source.Column{i64("id"), {Name: "w", Type: "text"}, i64("c"), i64("d")})
	rep, err = Diff(b, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []SchemaChange{
		{Kind: "renamed", FieldID: 2, Name: "w", OldName: "v"},
		{Kind: "retyped", FieldID: 2, Name: "w", OldType: "int (arrow int64, source int64, not null)", NewType: "text (arrow utf8, source text, not null)"},
	}
	if !reflect.DeepEqual(rep.SchemaChanges, want) {
		t.Errorf("renamed and retyped:\n got %+v\nwant %+v", rep.SchemaChanges, want)
	}
}

// TestMutantsProfileRescan: snapshots of different profiles are refused with
// CodeContext, and the message gives the command that rescans B's source under A's
// profile, with B's key and excluded columns when it has them, and without those
// options when it has none.
func TestMutantsProfileRescan(t *testing.T) {
	reg, err := source.OpenRegistry(filepath.Join(t.TempDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, t.TempDir(), "t.csv", "id,name,v\n1,a,10\n2,b,20\n")
	observe := func(prof normalize.Profile, key, exclude []string) *repo.Scan {
		out, err := scan.Observe(context.Background(), reg, scan.Options{Address: p, Name: "t", Resolution: snapshot.ResolutionRecord,
			Key: key, Profile: prof, Source: source.Options{Columns: idNameV, Exclude: exclude}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Scan
	}
	for _, c := range []struct {
		key, exclude []string
		opts         string
	}{
		{[]string{"id"}, []string{"name"}, " --key id --exclude name"},
		{nil, nil, ""},
	} {
		a := observe(normalize.StrictV1, c.key, c.exclude)
		b := observe(normalize.LogicalV1, c.key, c.exclude)
		_, err := Diff(a, b, Options{})
		if !errors.Is(err, &Error{Code: CodeContext}) {
			t.Fatalf("err = %v, want %s", err, CodeContext)
		}
		want := "for example: pipewhy scan " + shellQuote(p) + " --name t --profile strict-v1 --resolution record" + c.opts + " (with"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("key %v exclude %v: error %q\nwant it to contain %q", c.key, c.exclude, err, want)
		}
	}
}

// TestMutantsShellQuoteBounds: the first and last character of each safe range stays
// unquoted; the characters just outside the letter ranges are quoted.
func TestMutantsShellQuoteBounds(t *testing.T) {
	for _, s := range []string{"a", "z", "A", "Z", "0", "9", "az09AZ"} {
		if got := shellQuote(s); got != s {
			t.Errorf("shellQuote(%q) = %s, want it unquoted", s, got)
		}
	}
	for _, s := range []string{"`", "{", "[", "a b"} {
		if got, want := shellQuote(s), "'"+s+"'"; got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestMutantsDiffValuesByFieldID: diffValues merges two records' value entries
// [field_id, lo, hi] by field id: a field on one side only is skipped, a field whose lo
// or hi word differs counts once, an equal one not at all, and render gets the entries'
// positions on each side.
func TestMutantsDiffValuesByFieldID(t *testing.T) {
	// A: fields 1, 2, 4, 5, 7; B: fields 2, 3, 4, 6, 7, 8.
	av := []uint64{1, 10, 10, 2, 20, 20, 4, 40, 40, 5, 50, 50, 7, 70, 70}
	bv := []uint64{2, 21, 20, 3, 30, 30, 4, 40, 41, 6, 60, 60, 7, 70, 70, 8, 80, 80}
	idx := map[uint64]int{2: 0, 4: 1, 7: 2}
	name := func(id uint64) string { return fmt.Sprintf("f%d", id) }
	render := func(i, j int) (string, string) { return fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", j) }
	fields := []FieldCount{{ID: 2}, {ID: 4}, {ID: 7}}
	got := diffValues(av, bv, fields, idx, name, true, render, nil)
	want := []ValueChange{{Field: "f2", Old: "a1", New: "b0", id: 2}, {Field: "f4", Old: "a2", New: "b2", id: 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes %+v, want %+v", got, want)
	}
	if wantF := []FieldCount{{ID: 2, Changed: 1}, {ID: 4, Changed: 1}, {ID: 7}}; !reflect.DeepEqual(fields, wantF) {
		t.Errorf("fields %+v, want %+v", fields, wantF)
	}
	// Swapped sides: the same fields differ, positions swap.
	fields = []FieldCount{{ID: 2}, {ID: 4}, {ID: 7}}
	got = diffValues(bv, av, fields, idx, name, true, render, nil)
	want = []ValueChange{{Field: "f2", Old: "a0", New: "b1", id: 2}, {Field: "f4", Old: "a2", New: "b2", id: 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("swapped: changes %+v, want %+v", got, want)
	}
	if wantF := []FieldCount{{ID: 2, Changed: 1}, {ID: 4, Changed: 1}, {ID: 7}}; !reflect.DeepEqual(fields, wantF) {
		t.Errorf("swapped: fields %+v, want %+v", fields, wantF)
	}
	// Counting only (no fields, no keep): nothing is rendered or counted.
	if got := diffValues(av, bv, nil, idx, name, false, render, nil); got != nil {
		t.Errorf("no keep: %+v", got)
	}
	// Empty sides.
	if got := diffValues(nil, bv, fields, idx, name, true, render, nil); got != nil {
		t.Errorf("empty a: %+v", got)
	}
}

// TestMutantsLessWordsPrefix: word order puts a proper prefix first.
func TestMutantsLessWordsPrefix(t *testing.T) {
	short, long := []uint64{1, 2}, []uint64{1, 2, 0}
	if !lessWords(short, long) || lessWords(long, short) || lessWords(short, short) {
		t.Errorf("lessWords: prefix %v, reverse %v, equal %v; want true, false, false",
			lessWords(short, long), lessWords(long, short), lessWords(short, short))
	}
}

// TestMutantsLessKeyTies: keys whose fields are equal in the natural order are ordered
// by their words, so that only equal words tie: two NaNs of different payloads (strict-v1
// keeps the bits) sort by their bits, also before a trailing NULL or MISSING field.
func TestMutantsLessKeyTies(t *testing.T) {
	nan1, nan2 := normalize.FloatValue{Bits: 0x7ff8000000000000}, normalize.FloatValue{Bits: 0x7ff8000000000001}
	if !math.IsNaN(math.Float64frombits(nan2.Bits)) {
		t.Fatal("not a NaN")
	}
	for _, c := range [][2][]normalize.Value{
		{{nan1}, {nan2}},
		{{nan1, normalize.Nil}, {nan2, normalize.Nil}},
		{{nan1, normalize.Absent}, {nan2, normalize.Absent}},
		{{nan1, normalize.Int(2)}, {nan2, normalize.Int(1)}},
	} {
		a, b := keyOf(t, c[0]...), keyOf(t, c[1]...)
		if !lessKey(a, b) || lessKey(b, a) {
			t.Errorf("%v vs %v: lessKey %v, reverse %v; want true, false", c[0], c[1], lessKey(a, b), lessKey(b, a))
		}
		if lessKey(a, a) {
			t.Errorf("%v: less than itself", c[0])
		}
	}
}

// TestMutantsLessKeyAbsentNull: MISSING (absence) sorts before NULL, and ties at equal
// ones go on to the next field; a text field after an equal first field is compared by
// its bytes ("ab" before "b"), not its byte count.
func TestMutantsLessKeyAbsentNull(t *testing.T) {
	for _, seq := range [][][]normalize.Value{
		{{normalize.Absent, normalize.Int(2)}, {normalize.Nil, normalize.Int(1)}},
		{{normalize.Absent, normalize.Int(1)}, {normalize.Absent, normalize.Int(2)}},
		{{normalize.Nil, normalize.Int(1)}, {normalize.Nil, normalize.Int(2)}},
		{{normalize.Int(1), normalize.TextValue("ab")}, {normalize.Int(1), normalize.TextValue("b")}},
		{{normalize.TextValue("k"), normalize.TextValue("ab"), normalize.Int(9)}, {normalize.TextValue("k"), normalize.TextValue("b"), normalize.Int(1)}},
	} {
		a, b := keyOf(t, seq[0]...), keyOf(t, seq[1]...)
		if !lessKey(a, b) || lessKey(b, a) {
			t.Errorf("%v before %v: lessKey %v, reverse %v", seq[0], seq[1], lessKey(a, b), lessKey(b, a))
		}
	}
}

// TestMutantsLessKeyMalformed: frames that do not parse (a field cut short, a payload
// count past the end) sort after a well-formed record, on either side, without a panic,
// whatever their word order.
func TestMutantsLessKeyMalformed(t *testing.T) {
	full := []uint64{1, 2, 1, 5, 4, 1, 7}
	for _, c := range []struct {
		name string
		bad  []uint64
	}{
		{"cut after the field id", []uint64{1, 2, 1, 5}},
		{"cut after the type", []uint64{1, 2, 1, 5, 4}},
		{"payload count past the end", []uint64{1, 2, 1, 5, 4, 3, 7}},
		{"payload count past the end, more words", []uint64{1, 2, 1, 5, 4, 3, 6, 0}},
	} {
		if !lessKey(full, c.bad) || lessKey(c.bad, full) {
			t.Errorf("%s: lessKey(full, bad) = %v, lessKey(bad, full) = %v; want true, false",
				c.name, lessKey(full, c.bad), lessKey(c.bad, full))
		}
	}
}

// streams publishes hand-built record arrays as keyless record-resolution snapshots of
// one repository (the store does not look into the arrays; the entry reader checks their
// order as they pass) and opens entry streams of them.
type streams struct {
	t   *testing.T
	r   *repo.Repo
	ids map[string]snapshot.ID // by the array's words
}

func newStreams(t *testing.T) *streams {
	r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	return &streams{t: t, r: r, ids: map[string]snapshot.ID{}}
}

// open returns a stream of the record entries records, publishing them first.
func (s *streams) open(records []uint64) *repo.EntryReader {
	s.t.Helper()
	er, err := s.r.Entries(s.scan(records), repo.PartRecords, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = er.Close() })
	return er
}

// scan returns the summary of the snapshot of records (of n = len(records)/4 rows of
// one column, 0..n-1: snapshots of as many records have equal states), publishing it
// first.
func (s *streams) scan(records []uint64) *repo.Scan {
	t := s.t
	t.Helper()
	id, ok := s.ids[fmt.Sprint(records)]
	if !ok {
		n := len(records) / 4
		var b strings.Builder
		b.WriteString("id\n")
		for i := range n {
			fmt.Fprintf(&b, "%d\n", i)
		}
		reg, err := source.OpenRegistry(filepath.Join(t.TempDir(), "registry.json"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := scan.Observe(context.Background(), reg, scan.Options{Address: writeFile(t, t.TempDir(), "s.csv", b.String()),
			Name: "s", Resolution: snapshot.ResolutionRecord, Source: source.Options{Columns: []source.Column{{Name: "id", Type: "int64"}}}})
		if err != nil {
			t.Fatal(err)
		}
		sc := out.Scan
		sc.Records = slices.Clone(records)
		arrs, err := sc.Arrays()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.r.Store().Publish(context.Background(), sc.Metadata, arrs); err != nil {
			t.Fatal(err)
		}
		id = sc.Metadata.ID
		s.ids[fmt.Sprint(records)] = id
	}
	sc, err := s.r.LoadParts(id, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// entryLog records MergeStreams' visits as "kind [a's record words] [b's]" ("-" for
// the side missing); fail, when set, is returned by the visit of that kind.
type entryLog struct {
	visits []string
	fail   Kind
	err    error
}

func (l *entryLog) visit(k Kind, ea, eb *repo.Entry) error {
	words := func(e *repo.Entry) string {
		if e == nil {
			return "-"
		}
		return fmt.Sprint(e.Record[:])
	}
	l.visits = append(l.visits, fmt.Sprintf("%s %s %s", k, words(ea), words(eb)))
	if l.err != nil && k == l.fail {
		return l.err
	}
	return nil
}

// streamCases are hand-built pairs of record arrays, with the counts and the visits
// (entries by their words) of a merge: tails on either side, keys that share their
// first word, a change in the record's second word, duplicated keys pairing by record
// digest (both words) with leftovers on either side.
var streamCases = []struct {
	name   string
	a, b   []uint64
	want   Counts
	visits []string
}{
	{"removed tail", cat(e(1, 10), e(2, 20), e(3, 30)), cat(e(1, 10)), Counts{Removed: 2, Unchanged: 1},
		[]string{"removed [2 0 20 0] -", "removed [3 0 30 0] -"}},
	{"added tail", cat(e(1, 10)), cat(e(1, 10), e(2, 20), e(3, 30)), Counts{Added: 2, Unchanged: 1},
		[]string{"added - [2 0 20 0]", "added - [3 0 30 0]"}},
	{"removed then added", cat(e(1, 10), e(4, 40)), cat(e(2, 20), e(3, 30), e(4, 40)), Counts{Removed: 1, Added: 2, Unchanged: 1},
		[]string{"removed [1 0 10 0] -", "added - [2 0 20 0]", "added - [3 0 30 0]"}},
	{"key second word, a lower", []uint64{5, 1, 9, 9}, []uint64{5, 2, 9, 9}, Counts{Removed: 1, Added: 1},
		[]string{"removed [5 1 9 9] -", "added - [5 2 9 9]"}},
	{"key second word, b lower", []uint64{5, 2, 9, 9}, []uint64{5, 1, 9, 9}, Counts{Removed: 1, Added: 1},
		[]string{"added - [5 1 9 9]", "removed [5 2 9 9] -"}},
	{"record second word changes", []uint64{5, 1, 9, 1, 6, 0, 1, 1}, []uint64{5, 1, 9, 2, 6, 0, 1, 1}, Counts{Changed: 1, Unchanged: 1},
		[]string{"changed [5 1 9 1] [5 1 9 2]"}},
	{"duplicate keys pair by record",
		cat(e(1, 10), e(1, 11), e(2, 20)),
		cat(e(1, 11), e(1, 12), e(1, 13), e(2, 20)),
		Counts{Added: 2, Removed: 1, Unchanged: 2, DuplicateKeys: 1},
		[]string{"removed [1 0 10 0] -", "added - [1 0 12 0]", "added - [1 0 13 0]"}},
	{"duplicate key, record second word",
		[]uint64{1, 0, 9, 5, 1, 0, 9, 6},
		[]uint64{1, 0, 9, 1, 1, 0, 9, 5},
		Counts{Added: 1, Removed: 1, Unchanged: 1, DuplicateKeys: 1},
		[]string{"added - [1 0 9 1]", "removed [1 0 9 6] -"}},
	{"duplicate key, a's record second word lower",
		[]uint64{1, 0, 9, 1, 1, 0, 9, 7},
		[]uint64{1, 0, 9, 5, 1, 0, 9, 7},
		Counts{Added: 1, Removed: 1, Unchanged: 1, DuplicateKeys: 1},
		[]string{"removed [1 0 9 1] -", "added - [1 0 9 5]"}},
	{"duplicate key, a's leftovers", cat(e(1, 10), e(1, 10), e(1, 10)), cat(e(1, 10), e(2, 20)),
		Counts{Removed: 2, Added: 1, Unchanged: 1, DuplicateKeys: 1},
		[]string{"removed [1 0 10 0] -", "removed [1 0 10 0] -", "added - [2 0 20 0]"}},
	{"duplicate key, b's leftovers", cat(e(1, 10), e(2, 20)), cat(e(1, 10), e(1, 10), e(1, 10)),
		Counts{Added: 2, Removed: 1, Unchanged: 1, DuplicateKeys: 1},
		[]string{"added - [1 0 10 0]", "added - [1 0 10 0]", "removed [2 0 20 0] -"}},
}

// TestMutantsMergeStreamsHandBuilt: MergeStreams counts and visits hand-built streams as
// the merge contract says (the cases of streamCases).
func TestMutantsMergeStreamsHandBuilt(t *testing.T) {
	s := newStreams(t)
	for _, c := range streamCases {
		var l entryLog
		got, err := MergeStreams(s.open(c.a), s.open(c.b), l.visit)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: counts %+v, want %+v", c.name, got, c.want)
		}
		if !slices.Equal(l.visits, c.visits) {
			t.Errorf("%s: visits %q, want %q", c.name, l.visits, c.visits)
		}
		if got, err := MergeStreams(s.open(c.a), s.open(c.b), nil); err != nil || got != c.want {
			t.Errorf("%s without visit: counts %+v, %v", c.name, got, err)
		}
	}
}

// TestMutantsMergeStreamsVisitError: the first visit that fails ends the pass with its
// error, whichever kind and place (main pass, a side's tail, a duplicated key's group):
// no visit comes after it.
func TestMutantsMergeStreamsVisitError(t *testing.T) {
	s := newStreams(t)
	stop := errors.New("stop")
	for _, c := range streamCases {
		for _, k := range []Kind{Added, Removed, Changed} {
			first := slices.IndexFunc(c.visits, func(v string) bool { return strings.HasPrefix(v, k.String()+" ") })
			if first < 0 {
				continue
			}
			l := entryLog{fail: k, err: stop}
			_, err := MergeStreams(s.open(c.a), s.open(c.b), l.visit)
			if err != stop {
				t.Errorf("%s, %s fails: err %v, want the visit's", c.name, k, err)
			}
			if want := c.visits[:first+1]; !slices.Equal(l.visits, want) {
				t.Errorf("%s, %s fails: visits %q, want %q", c.name, k, l.visits, want)
			}
		}
	}
}

// TestMutantsMergeStreamsReadError: an entry out of order is a read error of its stream
// (repo.CodeFormat) when the pass reaches it, in the main pass, a side's tail, or a
// duplicated key's group, on either side; the pass ends with that error.
func TestMutantsMergeStreamsReadError(t *testing.T) {
	s := newStreams(t)
	for _, c := range []struct {
		name string
		a, b []uint64
	}{
		{"main pass", cat(e(1, 10), e(3, 30), e(2, 20), e(9, 90)), cat(e(5, 50), e(6, 60))},
		{"a's tail", cat(e(1, 10), e(2, 20), e(3, 30), e(5, 50), e(4, 40)), cat(e(1, 10))},
		{"a's group leftovers", cat(e(1, 10), e(1, 10), e(1, 10), e(0, 0)), cat(e(1, 10))},
		{"both in a group", cat(e(1, 10), e(1, 10), e(0, 0)), cat(e(1, 10), e(1, 10), e(1, 11))},
	} {
		for _, swap := range []bool{false, true} {
			a, b := c.a, c.b
			if swap {
				a, b = b, a
			}
			var l entryLog
			_, err := MergeStreams(s.open(a), s.open(b), l.visit)
			if !errors.Is(err, &repo.Error{Code: repo.CodeFormat}) {
				t.Errorf("%s (swapped %v): err %v, want %s", c.name, swap, err, repo.CodeFormat)
			}
		}
	}
}

// TestMutantsStreamOpenError: when Options.Stream cannot open a side's stream, Diff
// fails with that error (B's is not opened after A's failed), for the full diff and for
// equal keyless states' record pass alike. (The report Diff returns beside the error is
// not checked: the equal-states path returns its partial report, the others nil.)
func TestMutantsStreamOpenError(t *testing.T) {
	table := "id,name,v\n1,a,10\n2,b,20\n"
	for _, c := range []struct {
		name   string
		key    []string
		tables [2]string
	}{
		{"different states", []string{"id"}, [2]string{table, "id,name,v\n1,a,10\n2,b,21\n"}},
		{"equal keyless states", nil, [2]string{table, table}},
	} {
		r, ids := tableRepo(t, snapshot.ResolutionValue, c.key, c.tables[0], c.tables[1])
		for side := range 2 {
			a, err := r.LoadParts(ids[0], 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.LoadParts(ids[1], 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			bad := errors.New("cannot open")
			opened := 0
			o := Options{Limit: -1, Stream: func(s *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
				if s == [2]*repo.Scan{a, b}[side] {
					return nil, bad
				}
				opened++
				return r.Entries(s, parts, nil)
			}}
			if rep, err := Diff(a, b, o); err != bad || rep != nil {
				t.Errorf("%s, side %d fails: report %v, err %v; want no report and the open error", c.name, side, rep, err)
			}
			if want := side; opened != want {
				t.Errorf("%s, side %d fails: %d streams opened, want %d", c.name, side, opened, want)
			}
		}
	}
}

// TestMutantsLessKeyOtherTypes: past bytes, values of different types in one key field
// sort by type code (typeRank's "the rest"): BOOL (2) before DECIMAL (8) before TIMESTAMP
// (9), whatever the values.
func TestMutantsLessKeyOtherTypes(t *testing.T) {
	seq := []normalize.Value{
		normalize.BytesValue("\xff"),
		normalize.BoolValue(true),
		normalize.DecimalValue{Digits: "1"},
		normalize.TimestampValue{Year: 1970, Month: 1, Day: 1},
	}
	for i := range seq {
		for j := range seq {
			a, b := keyOf(t, seq[i]), keyOf(t, seq[j])
			if got := lessKey(a, b); got != (i < j) {
				t.Errorf("lessKey(%v, %v) = %v, want %v", seq[i], seq[j], got, i < j)
			}
		}
	}
}

// TestMutantsDiffStreamReadError: a stream that fails in the middle of Diff's merge pass
// (an entry out of order) fails Diff with the stream's error (repo.CodeFormat), closing
// both streams does not hide it: in the record pass of equal keyless states and in the
// full diff.
func TestMutantsDiffStreamReadError(t *testing.T) {
	s := newStreams(t)
	unsorted := cat(e(1, 10), e(3, 30), e(2, 20))
	for _, c := range []struct {
		name string
		b    []uint64
	}{
		{"equal states", cat(e(1, 10), e(2, 20), e(3, 30))},
		{"different states", cat(e(1, 10), e(2, 20))},
	} {
		a, b := s.scan(unsorted), s.scan(c.b)
		_, err := Diff(a, b, Options{Limit: -1, Stream: func(sc *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
			return s.r.Entries(sc, parts, nil)
		}})
		if !errors.Is(err, &repo.Error{Code: repo.CodeFormat}) {
			t.Errorf("%s: err %v, want %s", c.name, err, repo.CodeFormat)
		}
	}
}
