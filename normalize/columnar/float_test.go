package columnar_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipewhy/pipewhy/normalize/columnar"
)

// TestWiden16Exhaustive checks every binary16 pattern against the math.Ldexp
// reference (and the hand derivation for NaNs).
func TestWiden16Exhaustive(t *testing.T) {
	for b := range 1 << 16 {
		if got, want := columnar.Widen16(uint16(b)), ref16(uint16(b)); got != want {
			t.Fatalf("Widen16(%#04x) = %#016x, want %#016x", b, got, want)
		}
	}
}

// TestWiden32 checks interesting patterns (every exponent with edge fractions, all
// subnormal bit positions, NaN payloads with and without the quiet bit) and a random
// sample against the Go conversion, and NaNs against the hand derivation.
func TestWiden32(t *testing.T) {
	check := func(b uint32) {
		t.Helper()
		if got, want := columnar.Widen32(b), ref32(b); got != want {
			t.Fatalf("Widen32(%#08x) = %#016x, want %#016x", b, got, want)
		}
	}
	for sign := uint32(0); sign < 2; sign++ {
		for exp := uint32(0); exp < 256; exp++ {
			for _, frac := range []uint32{0, 1, 2, 0x400000, 0x3fffff, 0x7fffff, 0x555555, 0x2aaaaa} {
				check(sign<<31 | exp<<23 | frac)
			}
		}
		for k := range 23 {
			check(sign<<31 | 1<<k)
			check(sign<<31 | (1<<(k+1) - 1))
		}
	}
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		check(rng.Uint32())
	}
}

// TestWidenHand pins a few results derived by hand from the IEEE 754 layouts.
func TestWidenHand(t *testing.T) {
	cases := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"f32 1.0", columnar.Widen32(0x3f800000), 0x3ff0000000000000},
		{"f32 -2.5", columnar.Widen32(0xc0200000), 0xc004000000000000},
		{"f32 smallest subnormal 2**-149", columnar.Widen32(0x00000001), 0x36a0000000000000},
		{"f32 largest subnormal", columnar.Widen32(0x007fffff), 0x380fffffc0000000},
		{"f32 signalling NaN keeps quiet bit clear", columnar.Widen32(0x7f800001), 0x7ff0000020000000},
		{"f32 negative quiet NaN with payload", columnar.Widen32(0xffc00123), 0xfff8002460000000},
		{"f32 -inf", columnar.Widen32(0xff800000), 0xfff0000000000000},
		{"f32 -0", columnar.Widen32(0x80000000), 0x8000000000000000},
		{"f16 1.0", columnar.Widen16(0x3c00), 0x3ff0000000000000},
		{"f16 smallest subnormal 2**-24", columnar.Widen16(0x0001), 0x3e70000000000000},
		{"f16 65504", columnar.Widen16(0x7bff), math.Float64bits(65504)},
		{"f16 signalling NaN", columnar.Widen16(0x7c01), 0x7ff0040000000000},
		{"f16 -0", columnar.Widen16(0x8000), 0x8000000000000000},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %#016x, want %#016x", c.name, c.got, c.want)
		}
	}
}
