package repo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// scanCSV publishes a keyed (column k) value scan of csv in a new repository and
// returns the opened snapshot.
func scanCSV(t *testing.T, csv string) *snapshot.Snapshot {
	t.Helper()
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := r.Store().Open(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// withArray returns a copy of snap whose array key holds words.
func withArray(snap *snapshot.Snapshot, key string, words []uint64) *snapshot.Snapshot {
	bad := *snap
	bad.Arrays = map[string]snapshot.Array{}
	for k, v := range snap.Arrays {
		bad.Arrays[k] = v
	}
	bad.Arrays[key] = snapshot.FromUint64(words)
	return &bad
}

func u64s(t *testing.T, snap *snapshot.Snapshot, key string) []uint64 {
	t.Helper()
	w, err := snap.Arrays[key].Uint64s()
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clone(w)
}

// wantFormat checks that Decode rejects snap with CodeFormat and, if msg is not
// empty, names the rule msg (the rule that is broken, not another one the
// corruption breaks as well).
func wantFormat(t *testing.T, what string, snap *snapshot.Snapshot, msg string) {
	t.Helper()
	_, err := repo.Decode(snap)
	if repo.CodeOf(err) != repo.CodeFormat {
		t.Fatalf("%s: Decode = %v, want %s", what, err, repo.CodeFormat)
	}
	var e *repo.Error
	if msg != "" && (!errors.As(err, &e) || e.Msg != msg) {
		t.Fatalf("%s: Decode = %v, want the rule %q", what, err, msg)
	}
}

// TestDecodeRejectsCorruptArrays: every ordering and tiling rule of the decoded
// arrays is checked over the whole scan, not only its first neighbours: a checksummed
// snapshot whose arrays break one is CodeFormat, naming that rule.
func TestDecodeRejectsCorruptArrays(t *testing.T) {
	// Three records, two non-key fields each.
	snap := scanCSV(t, "k,v,w\n1,a,x\n2,b,y\n3,c,z\n")
	s, err := repo.Decode(snap)
	if err != nil {
		t.Fatalf("good snapshot: %v", err)
	}
	// The value table holds one row per value entry: at least the 3x2 non-key cells.
	if s.ValueTable == nil || s.ValueTable.Len() != len(s.Values)/3 || len(s.Values)/3 < 6 {
		t.Fatalf("value table %v for %d value entries", s.ValueTable, len(s.Values)/3)
	}

	// Records 1 and 2 swapped: records 0, 1 still ordered, 1, 2 not.
	recs := u64s(t, snap, repo.KeyRecords)
	sw := slices.Concat(recs[:4], recs[8:12], recs[4:8], recs[12:])
	wantFormat(t, "records 1 and 2 swapped", withArray(snap, repo.KeyRecords, sw), "records are not sorted")

	// Key offsets 1 and 2 swapped: still from 0 to len(key_words), but decreasing.
	ko := u64s(t, snap, repo.KeyKeyOffsets)
	if len(ko) != 4 || !(ko[0] < ko[1] && ko[1] < ko[2] && ko[2] < ko[3]) {
		t.Fatalf("key offsets %v, want 4 increasing", ko)
	}
	ko[1], ko[2] = ko[2], ko[1]
	wantFormat(t, "key offsets 1 and 2 swapped", withArray(snap, repo.KeyKeyOffsets, ko), "")

	// Key offsets 0 and 1 equal: offsets do not decrease, but key record 0 is empty,
	// which is no C2 record (it has no header).
	ko = u64s(t, snap, repo.KeyKeyOffsets)
	ko[1] = 0
	wantFormat(t, "empty key record", withArray(snap, repo.KeyKeyOffsets, ko), "key record 0")

	// The second value entry of record 1 names the same field as its first: fields are
	// strictly ascending within a record (checked before the value table's row).
	vo := u64s(t, snap, repo.KeyValueOffsets)
	vals := u64s(t, snap, repo.KeyValues)
	lo := vo[1]
	if vo[2]-lo < 2 {
		t.Fatalf("record 1 has %d value entries, want at least 2", vo[2]-lo)
	}
	vals[(lo+1)*3] = vals[lo*3]
	wantFormat(t, "repeated field in record 1", withArray(snap, repo.KeyValues, vals), "value fields not ascending")
	// The same in record 0, whose first entry is entry 0.
	vals = u64s(t, snap, repo.KeyValues)
	vals[3] = vals[0]
	wantFormat(t, "repeated field in record 0", withArray(snap, repo.KeyValues, vals), "value fields not ascending")
}

// TestDecodeEmptyScan: a scan of a table with no rows has one key offset and one value
// offset (both 0) and loads, with no records.
func TestDecodeEmptyScan(t *testing.T) {
	snap := scanCSV(t, "k,v\n")
	s, err := repo.Decode(snap)
	if err != nil {
		t.Fatalf("empty scan: %v", err)
	}
	if s.Len() != 0 || len(s.KeyOffsets) != 1 || len(s.ValueOffsets) != 1 {
		t.Fatalf("empty scan: %d records, key offsets %v, value offsets %v", s.Len(), s.KeyOffsets, s.ValueOffsets)
	}
}
