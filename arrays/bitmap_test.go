package arrays

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBitmapWords(t *testing.T) {
	for rows, want := range map[int]int{0: 0, 1: 1, 63: 1, 64: 1, 65: 2, 128: 2, 129: 3} {
		if got, err := BitmapWords(rows); err != nil || got != want {
			t.Errorf("BitmapWords(%d) = %d, %v; want %d", rows, got, err, want)
		}
	}
	_, err := BitmapWords(-1)
	wantCode(t, err, CodeRange)
	_, err = AllValid(-1)
	wantCode(t, err, CodeRange)
}

func TestBitmapLayout(t *testing.T) {
	// Rows 0, 63 and 64 present out of 66: word 0 has bits 0 and 63, word 1 bit 0.
	valid := make([]bool, 66)
	valid[0], valid[63], valid[64] = true, true, true
	b := NewBitmap(valid)
	want := Bitmap{1 | 1<<63, 1}
	if !slices.Equal(b, want) {
		t.Fatalf("NewBitmap = %#x, want %#x", b, want)
	}
	if err := b.Validate(66); err != nil {
		t.Fatal(err)
	}
	for i, v := range valid {
		if b.Valid(i) != v {
			t.Errorf("Valid(%d) = %v", i, !v)
		}
	}
	if b.Valid(-1) || b.Valid(128) || b.Valid(math.MaxInt) {
		t.Error("out-of-range rows read as present")
	}
	if got := NewBitmap(nil); len(got) != 0 {
		t.Errorf("empty input: %d words", len(got))
	}
	for rows, want := range map[int]Bitmap{0: {}, 1: {1}, 64: {math.MaxUint64}, 65: {math.MaxUint64, 1}, 70: {math.MaxUint64, 0x3F}} {
		got, err := AllValid(rows)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("AllValid(%d) = %#x, %v; want %#x", rows, got, err, want)
		}
	}
}

func TestBitmapValidate(t *testing.T) {
	tests := []struct {
		b    Bitmap
		rows int
		code Code
		row  int
	}{
		{nil, 0, "", 0},
		{Bitmap{}, 0, "", 0},
		{Bitmap{0}, 0, CodeBitmapLength, -1}, // empty input uses zero words
		{nil, 1, CodeBitmapLength, -1},
		{Bitmap{1, 0}, 64, CodeBitmapLength, -1},
		{Bitmap{math.MaxUint64}, 64, "", 0},
		{Bitmap{0b10}, 1, CodeBitmapTail, 1},
		{Bitmap{0, 1 << 63}, 65, CodeBitmapTail, 127},
		{Bitmap{0, 0b1101}, 66, CodeBitmapTail, 66},
		{Bitmap{0, 0b11}, 66, "", 0},
	}
	for _, tt := range tests {
		err := tt.b.Validate(tt.rows)
		if CodeOf(err) != tt.code {
			t.Errorf("Validate(%#x, %d) = %v, want %q", tt.b, tt.rows, err, tt.code)
			continue
		}
		if err != nil {
			if e := err.(*Error); e.Row != tt.row {
				t.Errorf("Validate(%#x, %d) row %d, want %d", tt.b, tt.rows, e.Row, tt.row)
			}
		}
	}
}

// TestBitmapProperty: NewBitmap of any bools validates for its length and
// reads back every bit.
func TestBitmapProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		valid := make([]bool, r.IntN(300))
		for i := range valid {
			valid[i] = r.IntN(2) == 0
		}
		b := NewBitmap(valid)
		if err := b.Validate(len(valid)); err != nil {
			t.Fatalf("len %d: %v", len(valid), err)
		}
		for i, v := range valid {
			if b.Valid(i) != v {
				t.Fatalf("len %d: bit %d", len(valid), i)
			}
		}
	}
}
