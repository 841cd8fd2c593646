package source

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// perValue is the reference: every value valid on its own.
func perValue(data []byte, offs []int64) bool {
	for i := 0; i+1 < len(offs); i++ {
		if !utf8.Valid(data[offs[i]-offs[0] : offs[i+1]-offs[0]]) {
			return false
		}
	}
	return true
}

// TestAllValidUTF8: the bulk check never says valid when a value is invalid (a rune cut
// between two values included), and says valid for valid values.
func TestAllValidUTF8(t *testing.T) {
	pieces := []string{"", "a", "é", "\xc3", "\xa9", "€", "\xe2\x82", "\xac", "𝄞", "\xf0\x9d", "\x84\x9e", "\xff", "\xed\xa0\x80", "ascii text", "日本"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := r.IntN(6)
		var data []byte
		offs := []int64{int64(r.IntN(3))} // a nonzero base, as in a sliced array
		for range n {
			data = append(data, pieces[r.IntN(len(pieces))]...)
			offs = append(offs, offs[0]+int64(len(data)))
		}
		want := perValue(data, offs)
		got := allValidUTF8(data, offs)
		if got && !want {
			t.Fatalf("values %q at %v: bulk says valid, one value is not", data, offs)
		}
		// The bulk check may only fall back (false) where a value is invalid.
		if want && !got {
			t.Fatalf("values %q at %v: bulk refuses valid values", data, offs)
		}
		o32 := make([]int32, len(offs))
		for i, o := range offs {
			o32[i] = int32(o)
		}
		if allValidUTF8(data, o32) != got {
			t.Fatal("int32 and int64 offsets disagree")
		}
	}
	// Offsets that do not describe data are not trusted.
	if allValidUTF8([]byte("abc"), []int32{0, 2}) || allValidUTF8([]byte("abc"), []int32{0, 5, 3}) || allValidUTF8([]byte("abc"), []int32{1, 0, 4}) {
		t.Error("inconsistent offsets accepted")
	}
	if !allValidUTF8[int32](nil, nil) || !allValidUTF8(nil, []int32{4}) {
		t.Error("no values are valid")
	}
}
