package snapshot

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
)

// TestUint64Views: WrapUint64 and Uint64sView give the same elements and bytes as the
// copying forms (little-endian bytes by hand), share memory where they promise to, and
// fall back to a copy for misaligned bytes; Uint64sView checks the dtype.
func TestUint64Views(t *testing.T) {
	v := []uint64{0x0102030405060708, 0, ^uint64(0)}
	want := []byte{8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255}
	w := WrapUint64(v)
	if w.DType() != Uint64 || !bytes.Equal(w.Bytes(), want) || !w.Equal(FromUint64(v)) {
		t.Fatalf("WrapUint64 bytes %v, want %v", w.Bytes(), want)
	}
	got, err := w.Uint64sView()
	if err != nil || !slices.Equal(got, v) {
		t.Fatalf("Uint64sView %v %v", got, err)
	}
	if littleEndianHost && &got[0] != &v[0] {
		t.Fatal("view of a wrapped array copied on a little-endian host")
	}
	if e := WrapUint64(nil); e.Len() != 0 || e.DType() != Uint64 {
		t.Fatalf("empty wrap: %d elements of %v", e.Len(), e.DType())
	}
	// Misaligned bytes: a copy with the same elements.
	buf := make([]byte, len(want)+1)
	copy(buf[1:], want)
	mis := Array{dtype: Uint64, data: buf[1:]}
	got, err = mis.Uint64sView()
	if err != nil || !slices.Equal(got, v) {
		t.Fatalf("misaligned view %v %v", got, err)
	}
	if _, err := FromUint8([]byte{1, 2}).Uint64sView(); err == nil {
		t.Fatal("Uint64sView of a Uint8 array did not fail")
	}
}

// TestWrapBytes: the array holds the given bytes themselves (no copy) and checks dtype
// and length like NewArray.
func TestWrapBytes(t *testing.T) {
	le := []byte{1, 0, 2, 0}
	a, err := WrapBytes(Uint16, le)
	if err != nil || a.Len() != 2 || &a.data[0] != &le[0] {
		t.Fatalf("WrapBytes: %v, %d elements, shared %v", err, a.Len(), err == nil && &a.data[0] == &le[0])
	}
	if v, err := a.Uint16s(); err != nil || !slices.Equal(v, []uint16{1, 2}) {
		t.Fatalf("elements %v %v", v, err)
	}
	if _, err := WrapBytes(Uint16, le[:3]); err == nil {
		t.Fatal("odd byte length accepted")
	}
	if _, err := WrapBytes(DType(0), le); err == nil {
		t.Fatal("invalid dtype accepted")
	}
}

// TestItoa: itoa writes x in decimal as strconv does, at the single-digit, carry and
// 64-bit limits.
func TestItoa(t *testing.T) {
	for _, x := range []uint64{0, 1, 9, 10, 19, 99, 100, 1234567890, 1<<64 - 1} {
		if got, want := itoa(x), strconv.FormatUint(x, 10); got != want {
			t.Errorf("itoa(%d) = %q, want %q", x, got, want)
		}
	}
}
