package compare

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

func keyOf(t testing.TB, vs ...normalize.Value) []uint64 {
	t.Helper()
	fields := make([]normalize.Field, len(vs))
	for i, v := range vs {
		fields[i] = normalize.Field{ID: normalize.FieldID(i + 1), Value: v}
	}
	w, err := normalize.EncodeRecord(fields, normalize.StrictV1)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestLessKeyNaturalOrder lists keys in the order a person expects them; every earlier
// key must sort before every later one.
func TestLessKeyNaturalOrder(t *testing.T) {
	big2p63 := new(big.Int).Lsh(big.NewInt(1), 63)
	for name, seq := range map[string][][]normalize.Value{
		"text": {
			{normalize.Nil},
			{normalize.TextValue("")},
			{normalize.TextValue("2026-11-03")},
			{normalize.TextValue("2026-11-10")},
			{normalize.TextValue("2026-11-10x")},
			{normalize.TextValue("a")},
			{normalize.TextValue("ab")},
			{normalize.TextValue("abcdefgh")},
			{normalize.TextValue("abcdefgha")},
			{normalize.TextValue("b")},
			{normalize.TextValue("é")},
		},
		"integers": {
			{normalize.Int(math.MinInt64)},
			{normalize.Int(-5)},
			{normalize.Int(-1)},
			{normalize.Int(0)},
			{normalize.Int(3)},
			{normalize.BigInt(big2p63)},
			{normalize.Uint(math.MaxUint64)},
		},
		"floats": {
			{normalize.Float(math.Inf(-1))},
			{normalize.Float(-1.5)},
			{normalize.Float(math.Copysign(0, -1))},
			{normalize.Float(0)},
			{normalize.Float(2)},
			{normalize.Float(math.NaN())},
		},
		"composite": {
			{normalize.Int(1), normalize.TextValue("b")},
			{normalize.Int(1), normalize.TextValue("ba")},
			{normalize.Int(2), normalize.TextValue("a")},
		},
	} {
		for i := range seq {
			for j := range seq {
				a, b := keyOf(t, seq[i]...), keyOf(t, seq[j]...)
				if got := lessKey(a, b); got != (i < j) {
					t.Errorf("%s: lessKey(#%d, #%d) = %v, want %v", name, i, j, got, i < j)
				}
			}
		}
	}
}

// TestLessKeyTextMatchesStrings: for text keys the order is the byte order of the strings.
func TestLessKeyTextMatchesStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab\x00\xffé-0"
	gen := func() string {
		var sb strings.Builder
		for range r.IntN(20) {
			sb.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	for range 20000 {
		x, y := gen(), gen()
		a := keyOf(t, normalize.BytesValue(x))
		b := keyOf(t, normalize.BytesValue(y))
		if got, want := lessKey(a, b), x < y; got != want {
			t.Fatalf("lessKey(%q, %q) = %v, want %v", x, y, got, want)
		}
	}
}

// Malformed or mismatched frames fall back to word order instead of failing.
func TestLessKeyFallback(t *testing.T) {
	a, b := []uint64{1, 2, 1, 9}, []uint64{1, 2, 1, 10} // truncated frames
	if !lessKey(a, b) || lessKey(b, a) {
		t.Fatal("fallback is not word order")
	}
}
