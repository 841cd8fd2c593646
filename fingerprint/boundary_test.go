package fingerprint

import "testing"

// TestRecordWalkStopsAtTheEnd pins the record walk's bound (issue 22: mutants of
// `n > len(rec)-f-3` in v2Hasher.record lived): a frame whose length reaches exactly the
// end of the record is hashed; one whose length runs one word past it ends the walk
// without reading out of range, and the digest is then that of the frames before it
// (contract §13's record digest over the frames that lie inside the record). The
// expected digests come from the §13 reference in v2_helpers_test.go.
func TestRecordWalkStopsAtTheEnd(t *testing.T) {
	c := v2Context(t, Multiset)
	h := newV2Hasher(c)
	head := []uint64{1, 1, 2}     // wire version, record domain, two fields (not checked here)
	f1 := []uint64{0, 3, 2, 7, 8} // [field 0, type 3, 2 payload words]
	f2 := []uint64{1, 3, 1, 9}    // [field 1, type 3, 1 payload word]
	inside := append(append(append([]uint64{}, head...), f1...), f2...)
	want := refRecordDigest(c, false, 0, inside)
	if got := h.record(false, 0, inside); got != want {
		t.Fatalf("record ending exactly at the last frame: %x, want %x", got, want)
	}
	// The second frame claims two payload words; only one is there.
	past := append([]uint64{}, inside...)
	past[len(head)+len(f1)+2] = 2
	first := append(append([]uint64{}, head...), f1...)
	want = refRecordDigest(c, false, 0, first)
	if got := h.record(false, 0, past); got != want {
		t.Fatalf("record with a frame one word past the end: %x, want the digest of the first frame %x", got, want)
	}
}
