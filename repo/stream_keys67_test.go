package repo_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
)

// TestEntriesRejectCorruptKeyRecords: key words whose offsets still tile them but whose
// slices are not C2 records (a field count past the frames, a payload count past the
// record, a trailing word, an unknown type code, another wire version) end the entry
// stream with CodeFormat naming the key record, at that entry, as Decode rejects them;
// the entries before it are read, none after.
func TestEntriesRejectCorruptKeyRecords(t *testing.T) {
	snap := scanCSV(t, "k,v\n1,a\n2,b\n3,c\n4,d\n")
	kw := u64s(t, snap, repo.KeyKeyWords)
	ko := u64s(t, snap, repo.KeyKeyOffsets)
	if len(ko) != 5 || ko[1]-ko[0] < 7 || kw[ko[0]+2] != 1 {
		t.Fatalf("key offsets %v, words %v: want 4 records of one field with a payload", ko, kw)
	}
	set := func(i uint64, d uint64) []uint64 { w := slices.Clone(kw); w[i] += d; return w }
	// A word inserted at the end of record 1, the later offsets moved past it.
	trailW := slices.Insert(slices.Clone(kw), int(ko[2]), 0)
	trailO := slices.Clone(ko)
	for i := 2; i < len(trailO); i++ {
		trailO[i]++
	}
	for _, c := range []struct {
		name   string
		words  []uint64
		offs   []uint64 // nil: unchanged
		record int
	}{
		{"field count past the frames", set(ko[1]+2, 1), nil, 1},
		{"payload count past the record", set(ko[2]+5, 1), nil, 2},
		{"payload count short of the record", set(ko[3]+5, ^uint64(0)), nil, 3},
		{"trailing word", trailW, trailO, 1},
		{"unknown type code", set(ko[0]+4, 200), nil, 0},
		{"other wire version", set(ko[3], 1), nil, 3},
	} {
		bad := withArray(snap, repo.KeyKeyWords, c.words)
		if c.offs != nil {
			bad = withArray(bad, repo.KeyKeyOffsets, c.offs)
		}
		rule := "key record " + string(rune('0'+c.record))
		wantFormat(t, c.name, bad, rule)
		got, err := streamed(t, bad)
		var e *repo.Error
		if repo.CodeOf(err) != repo.CodeFormat || !errors.As(err, &e) || !strings.HasPrefix(e.Msg, rule+" (entry stream of ") {
			t.Errorf("%s: the entry stream ends with %v, want %s naming %q", c.name, err, repo.CodeFormat, rule)
			continue
		}
		if len(got) != c.record {
			t.Errorf("%s: %d entries read before the error, want %d", c.name, len(got), c.record)
		}
		if e.Unwrap() == nil {
			t.Errorf("%s: the error wraps no validation error", c.name)
		}
	}
}
