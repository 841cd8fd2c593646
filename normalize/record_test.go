package normalize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestParseFieldID(t *testing.T) {
	cases := []struct {
		in   string
		id   FieldID
		code Code
	}{
		{"0", 0, ""},
		{"-0", 0, ""},
		{"007", 7, ""},
		{"18446744073709551614", math.MaxUint64 - 1, ""},
		{"18446744073709551615", 0, CodeFieldID},
		{"18446744073709551616", 0, CodeFieldID},
		{"99999999999999999999999999", 0, CodeFieldID},
		{"-1", 0, CodeFieldID},
		{"-18446744073709551617", 0, CodeFieldID},
		{"", 0, CodeInput},
		{"-", 0, CodeInput},
		{"1.0", 0, CodeInput},
		{" 1", 0, CodeInput},
		{"0x10", 0, CodeInput},
	}
	for _, c := range cases {
		id, err := ParseFieldID(c.in)
		if CodeOf(err) != c.code || (c.code == "" && id != c.id) {
			t.Errorf("ParseFieldID(%q) = %d, %v; want %d, %q", c.in, id, err, c.id, c.code)
		}
	}
}

// TestRecordOrder: the record depends only on the set of (id, value) pairs, never on
// the order of fields, and the caller's slice is not reordered. Covers the stack sort
// (<= 64 fields) and the allocated sort (> 64).
func TestRecordOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 2, 5, 64, 65, 200} {
		fields := make([]Field, n)
		for i := range fields {
			fields[i] = Field{ID: FieldID(i * 3), Value: Int(int64(i) - 7)}
		}
		want, err := EncodeRecord(fields, StrictV1)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateRecordWords(want); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for trial := 0; trial < 5; trial++ {
			shuffled := slices.Clone(fields)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			before := slices.Clone(shuffled)
			got, err := EncodeRecord(shuffled, StrictV1)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("n=%d: order changed the record: %v", n, err)
			}
			if !slices.Equal(shuffled, before) {
				t.Fatalf("n=%d: EncodeRecord reordered the caller's fields", n)
			}
			if n > 1 {
				dup := slices.Clone(shuffled)
				dup[1+r.IntN(n-1)].ID = dup[0].ID
				if _, err := EncodeRecord(dup, StrictV1); CodeOf(err) != CodeFieldID {
					t.Fatalf("n=%d: duplicate not rejected: %v", n, err)
				}
			}
		}
	}
	if _, err := EncodeRecord([]Field{{ID: math.MaxUint64, Value: Nil}}, StrictV1); CodeOf(err) != CodeFieldID {
		t.Errorf("UINT64_MAX id: %v", err)
	}
	w, err := EncodeRecord([]Field{{ID: MaxFieldID, Value: Nil}, {ID: 0, Value: Absent}}, LogicalV1)
	if err != nil || !slices.Equal(w, []uint64{1, 2, 2, 0, 0, 0, math.MaxUint64 - 1, 1, 0}) {
		t.Errorf("got %v %v", w, err)
	}
}
