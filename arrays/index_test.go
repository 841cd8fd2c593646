package arrays

import (
	"math/rand/v2"
	"testing"
)

func TestIndexModes(t *testing.T) {
	dense := []uint64{10, 12, 11, 15}
	sparse := []uint64{1 << 40, 3, 1 << 62, Absent - 1, 0}
	for name, ids := range map[string][]uint64{"dense": dense, "sparse": sparse} {
		x, err := NewIndex(ids)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (x.dense != nil) != (name == "dense") {
			t.Errorf("%s: wrong mode", name)
		}
		if x.Len() != len(ids) {
			t.Errorf("%s: Len %d", name, x.Len())
		}
		for i, id := range ids {
			if r, ok := x.Row(id); !ok || r != i {
				t.Errorf("%s: Row(%d) = %d, %v", name, id, r, ok)
			}
		}
		for _, id := range []uint64{13, 9, 16, 1, 2, 1<<40 + 1, Absent} {
			if x.Contains(id) {
				t.Errorf("%s: Contains(%d)", name, id)
			}
		}
	}
	empty, err := NewIndex(nil)
	if err != nil || empty.Contains(0) || empty.Contains(Absent) {
		t.Errorf("empty index: %v", err)
	}
}

func TestIndexRejects(t *testing.T) {
	for _, ids := range [][]uint64{{1, 2, 1}, {1 << 50, 7, 1 << 50}} {
		_, err := NewIndex(ids)
		wantCode(t, err, CodeDuplicateID)
		if err.(*Error).Row != 2 {
			t.Errorf("duplicate reported at row %d", err.(*Error).Row)
		}
	}
	_, err := NewIndex([]uint64{4, Absent})
	wantCode(t, err, CodeSentinelID)
	_, err = NewIDSet(1, 2, Absent)
	wantCode(t, err, CodeSentinelID)
	s, err := NewIDSet(5, 5, 1<<60)
	if err != nil || s.Len() != 2 || !s.Contains(5) || !s.Contains(1<<60) || s.Contains(6) {
		t.Errorf("NewIDSet: %v", err)
	}
}

// TestIndexProperty compares Index with a Go map over random id sets, in both
// the dense and the hash mode.
func TestIndexProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 300 {
		n := r.IntN(500)
		spread := max(uint64(1)<<(1+r.IntN(63)), uint64(4*n+4)) // room for n distinct ids
		want := map[uint64]int{}
		var ids []uint64
		for len(ids) < n {
			id := r.Uint64N(spread)
			if _, dup := want[id]; dup || id == Absent {
				continue
			}
			want[id] = len(ids)
			ids = append(ids, id)
		}
		x, err := NewIndex(ids)
		if err != nil {
			t.Fatal(err)
		}
		for id, row := range want {
			if got, ok := x.Row(id); !ok || got != row {
				t.Fatalf("iter %d: Row(%d) = %d, %v; want %d", iter, id, got, ok, row)
			}
		}
		for range 50 {
			id := r.Uint64N(spread)
			_, in := want[id]
			if x.Contains(id) != in {
				t.Fatalf("iter %d: Contains(%d) = %v", iter, id, !in)
			}
		}
	}
}
