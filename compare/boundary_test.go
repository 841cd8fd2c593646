package compare

import (
	"slices"
	"testing"
)

// TestMergeStopsAtFirstUnsorted: order is verified within the pass, so visit never sees
// an entry at or after the first one out of order; the error comes as soon as the pass
// reaches it, not after the whole array.
func TestMergeStopsAtFirstUnsorted(t *testing.T) {
	cases := []struct {
		name   string
		a, b   []uint64
		visits []string
	}{
		{"a unsorted before b ends", cat(e(2, 1), e(1, 1), e(3, 1)), cat(e(9, 1)), []string{"removed 0 -1"}},
		{"b unsorted before a ends", cat(e(9, 1)), cat(e(2, 1), e(1, 1), e(3, 1)), []string{"added -1 0"}},
		{"unsorted after a match", cat(e(1, 1), e(3, 1), e(2, 1)), cat(e(1, 1), e(9, 1)), []string{"removed 1 -1"}},
	}
	for _, c := range cases {
		var l visitLog
		_, err := Merge(c.a, c.b, l.visit)
		if err == nil || err.(*Error).Code != CodeRecords {
			t.Errorf("%s: err = %v, want %s", c.name, err, CodeRecords)
		}
		if !slices.Equal(l, visitLog(c.visits)) {
			t.Errorf("%s: visits = %q, want %q", c.name, l, c.visits)
		}
	}
}

// TestMergeEqualNeighbours: entries equal in all four words (a keyless scan of a table
// with duplicate rows) are sorted; they pair one to one.
func TestMergeEqualNeighbours(t *testing.T) {
	got, err := Merge(cat(e(1, 5), e(1, 5), e(1, 5)), cat(e(1, 5), e(1, 5)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Unchanged: 2, Removed: 1, DuplicateKeys: 1}); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
}

// TestMergeKeyHiEndsGroup: a key group ends where the key's high word changes, even when
// the low word and the neighbouring words repeat the key's high word; both sides.
func TestMergeKeyHiEndsGroup(t *testing.T) {
	two := []uint64{5, 1, 9, 1, 5, 2, 9, 1} // keys (5,1) and (5,2); record_hi equals key_hi 1
	one := []uint64{5, 1, 9, 1}
	got, err := Merge(two, one, nil)
	if want := (Counts{Unchanged: 1, Removed: 1}); err != nil || got != want {
		t.Errorf("a two keys: %+v %v, want %+v", got, err, want)
	}
	got, err = Merge(one, two, nil)
	if want := (Counts{Unchanged: 1, Added: 1}); err != nil || got != want {
		t.Errorf("b two keys: %+v %v, want %+v", got, err, want)
	}
}

// TestMergeGroupAfterFirstEntry: a duplicated key group that does not start at entry 0
// pairs its records by both digest words.
func TestMergeGroupAfterFirstEntry(t *testing.T) {
	a := []uint64{0, 0, 5, 5, 1, 0, 9, 1, 1, 0, 9, 2}
	b := []uint64{0, 0, 5, 5, 1, 0, 9, 2, 1, 0, 9, 3}
	var l visitLog
	got, err := Merge(a, b, l.visit)
	if want := (Counts{Unchanged: 2, Removed: 1, Added: 1, DuplicateKeys: 1}); err != nil || got != want {
		t.Errorf("counts %+v %v, want %+v", got, err, want)
	}
	if want := []string{"removed 1 -1", "added -1 2"}; !slices.Equal(l, visitLog(want)) {
		t.Errorf("visits %q, want %q", l, want)
	}
}

// TestMergeGroupVisits: inside a duplicated key group an added entry and a removed
// leftover are visited with -1 for the side they lack.
func TestMergeGroupVisits(t *testing.T) {
	a := []uint64{1, 0, 9, 5, 1, 0, 9, 6}
	b := []uint64{1, 0, 9, 1, 1, 0, 9, 5}
	var l visitLog
	got, err := Merge(a, b, l.visit)
	if want := (Counts{Added: 1, Removed: 1, Unchanged: 1, DuplicateKeys: 1}); err != nil || got != want {
		t.Errorf("counts %+v %v, want %+v", got, err, want)
	}
	if want := []string{"added -1 0", "removed 1 -1"}; !slices.Equal(l, visitLog(want)) {
		t.Errorf("visits %q, want %q", l, want)
	}
}
