package arrays

import (
	"math"
	"testing"
)

func TestCheckedArithmetic(t *testing.T) {
	if s, err := AddUint64(math.MaxUint64-1, 1); err != nil || s != math.MaxUint64 {
		t.Errorf("AddUint64 = %d, %v", s, err)
	}
	_, err := AddUint64(math.MaxUint64, 1)
	wantCode(t, err, CodeOverflow)
	if p, err := MulUint64(1<<32, 1<<31); err != nil || p != 1<<63 {
		t.Errorf("MulUint64 = %d, %v", p, err)
	}
	_, err = MulUint64(1<<32, 1<<32)
	wantCode(t, err, CodeOverflow)
	if n, err := ToInt(math.MaxInt); err != nil || n != math.MaxInt {
		t.Errorf("ToInt = %d, %v", n, err)
	}
	_, err = ToInt(math.MaxInt + 1)
	wantCode(t, err, CodeRange)
}

func TestSliceBounds(t *testing.T) {
	tests := []struct {
		off, n uint64
		words  int
		lo, hi int
		code   Code
	}{
		{0, 0, 0, 0, 0, ""},
		{0, 5, 5, 0, 5, ""},
		{5, 0, 5, 5, 5, ""}, // empty slice at the end
		{2, 3, 5, 2, 5, ""},
		{6, 0, 5, 0, 0, CodeSliceOffset},
		{2, 4, 5, 0, 0, CodeSliceLength},
		{1, math.MaxUint64, 5, 0, 0, CodeSliceLength}, // offset+length wraps
		{math.MaxUint64, 1, 5, 0, 0, CodeSliceOffset},
		{0, 1, -3, 0, 0, CodeSliceLength},
	}
	for _, tt := range tests {
		lo, hi, err := SliceBounds(tt.off, tt.n, tt.words)
		if CodeOf(err) != tt.code || lo != tt.lo || hi != tt.hi {
			t.Errorf("SliceBounds(%d,%d,%d) = %d,%d,%v", tt.off, tt.n, tt.words, lo, hi, err)
		}
	}
}
