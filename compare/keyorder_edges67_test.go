package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// TestCompareKeysExactFrames: a record parses only when its frames consume it exactly and
// each payload has its type's shape; otherwise compareKeys reports false, whichever side
// is malformed, even where the frames it can read compare equal.
func TestCompareKeysExactFrames(t *testing.T) {
	// One INT64 field 5 holding 7 (UINT64 tag 4, one payload word), by hand from C2:
	// [version, domain, field count, field id, type, payload count, payload...].
	good := []uint64{1, 2, 1, 5, 4, 1, 7}
	for _, c := range []struct {
		name string
		bad  []uint64
	}{
		{"trailing word", []uint64{1, 2, 1, 5, 4, 1, 7, 0}},
		{"trailing frame past the field count", []uint64{1, 2, 1, 5, 4, 1, 7, 6, 4, 1, 7}},
		{"field count past the frames", []uint64{1, 2, 2, 5, 4, 1, 7}},
		{"payload count short of the record", []uint64{1, 2, 1, 5, 4, 0, 7}},
		{"payload count past the record", []uint64{1, 2, 1, 5, 4, 2, 7}},
		{"header only", []uint64{1, 2, 1}},
		{"short header", []uint64{1, 2}},
		{"UINT64 of two words", []uint64{1, 2, 1, 5, 4, 2, 7, 0}},
		{"NULL with a payload", []uint64{1, 2, 1, 5, 1, 1, 7}},
		{"text count past its words", []uint64{1, 2, 1, 5, 6, 2, 9, 0x61}},
		{"text count short of its words", []uint64{1, 2, 1, 5, 6, 3, 1, 0x61, 0}},
		{"text without a count", []uint64{1, 2, 1, 5, 6, 0}},
		{"huge field count", []uint64{1, 2, math.MaxUint64, 5, 4, 1, 7}},
		{"huge payload count", []uint64{1, 2, 1, 5, 4, math.MaxUint64, 7}},
		{"huge text count", []uint64{1, 2, 1, 5, 6, 2, math.MaxUint64, 0x61}},
	} {
		for _, p := range [][2][]uint64{{c.bad, good}, {good, c.bad}, {c.bad, c.bad}} {
			if _, ok := compareKeys(p[0], p[1]); ok {
				t.Errorf("%s: compareKeys(%v, %v) parses", c.name, p[0], p[1])
			}
		}
		if !lessKey(good, c.bad) || lessKey(c.bad, good) || lessKey(c.bad, c.bad) {
			t.Errorf("%s: lessKey(good, bad) %v, (bad, good) %v, (bad, bad) %v; want true, false, false",
				c.name, lessKey(good, c.bad), lessKey(c.bad, good), lessKey(c.bad, c.bad))
		}
	}
	if c, ok := compareKeys(good, slices.Clone(good)); !ok || c != 0 {
		t.Errorf("compareKeys(good, good) = %d, %v; want 0, true", c, ok)
	}
	// Text "b" sorts before "ab" by words (byte count first) but after it naturally; a
	// malformed "b" with a trailing word lies between them in word order. Falling back to
	// word order pair by pair would make a cycle ab < b < b+0 < ab.
	ab := []uint64{1, 2, 1, 5, 6, 2, 2, 0x6261}
	b := []uint64{1, 2, 1, 5, 6, 2, 1, 0x62}
	bTrail := []uint64{1, 2, 1, 5, 6, 2, 1, 0x62, 0}
	if !lessKey(ab, b) || !lessKey(b, bTrail) || lessKey(bTrail, ab) {
		t.Errorf("ab < b %v, b < b+trailing %v, b+trailing < ab %v; want true, true, false",
			lessKey(ab, b), lessKey(b, bTrail), lessKey(bTrail, ab))
	}
}

// randomKey returns a key record of up to three fields drawn from small domains (so that
// natural ties are common), or one of its malformed variants.
func randomKey(r *rand.Rand) []uint64 {
	ids := []normalize.FieldID{1, 2, 3}
	if r.IntN(8) == 0 {
		ids = []normalize.FieldID{1, 4}
	}
	fields := make([]normalize.Field, 1+r.IntN(len(ids)))
	for i := range fields {
		var v normalize.Value
		switch r.IntN(9) {
		case 0:
			v = normalize.Absent
		case 1:
			v = normalize.Nil
		case 2:
			v = normalize.Int(int64(r.IntN(5) - 2))
		case 3:
			v = normalize.Uint(uint64(math.MaxInt64) + uint64(r.IntN(2)))
		case 4:
			fs := []uint64{0x7ff8000000000000, 0x7ff8000000000001, 0xfff8000000000000,
				math.Float64bits(math.Copysign(0, -1)), 0, math.Float64bits(-1), math.Float64bits(-2)}
			v = normalize.FloatValue{Bits: fs[r.IntN(len(fs))]}
		case 5:
			v = normalize.TextValue([]string{"", "a", "ab", "b", "abcdefgh", "abcdefgha", "a\x00"}[r.IntN(7)])
		case 6:
			v = normalize.BytesValue([]string{"", "\x00", "\xff", "b"}[r.IntN(4)])
		case 7:
			v = normalize.BoolValue(r.IntN(2) == 0)
		default:
			v = normalize.DecimalValue{Digits: []string{"1", "10", "2"}[r.IntN(3)]}
		}
		fields[i] = normalize.Field{ID: ids[i%len(ids)], Value: v}
	}
	w, err := normalize.EncodeRecord(fields, normalize.StrictV1)
	if err != nil {
		panic(err)
	}
	switch r.IntN(6) {
	case 0: // a trailing word
		w = append(w, uint64(r.IntN(3)))
	case 1: // a word short
		w = w[:len(w)-1]
	case 2: // one word changed, the framing words included
		w[r.IntN(len(w))] += uint64(r.IntN(3)) - 1
	}
	return w
}

// TestLessKeyStrictTotalOrder: over random key records, well-formed and malformed, lessKey
// is irreflexive, asymmetric and transitive, and two records neither of which is less
// than the other are equal word for word (so ties never depend on arrival order).
func TestLessKeyStrictTotalOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(67, 1))
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	for range rounds {
		keys := make([][]uint64, 40)
		for i := range keys {
			keys[i] = randomKey(r)
		}
		n := len(keys)
		less := make([]bool, n*n)
		for i, a := range keys {
			for j, b := range keys {
				less[i*n+j] = lessKey(a, b)
			}
		}
		for i := range n {
			if less[i*n+i] {
				t.Fatalf("irreflexive: %v < itself", keys[i])
			}
			for j := range n {
				lij, lji := less[i*n+j], less[j*n+i]
				if lij && lji {
					t.Fatalf("asymmetric: %v and %v each less than the other", keys[i], keys[j])
				}
				if !lij && !lji && !slices.Equal(keys[i], keys[j]) {
					t.Fatalf("tie of different words: %v and %v", keys[i], keys[j])
				}
				if !lij {
					continue
				}
				for k := range n {
					if less[j*n+k] && !less[i*n+k] {
						t.Fatalf("transitive: %v < %v < %v but not %v < %v", keys[i], keys[j], keys[k], keys[i], keys[k])
					}
				}
			}
		}
	}
}
