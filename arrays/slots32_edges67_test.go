package arrays

import (
	"math"
	"strconv"
	"testing"
)

// TestSlotRows32Bit: the uint32-slot paths take a table only when its tables, sized in
// int, cannot wrap: under a 32-bit int (math.MaxInt32) that is at most MaxInt32/64 rows,
// where 2*n+64 and the bucket size of 2*n rounded up still fit; a billion rows, whose
// 2*n+64 wraps a 32-bit int negative, take the checked hash Index instead. Under a
// 64-bit int the bound is the uint32 slots' (below MaxUint32).
func TestSlotRows32Bit(t *testing.T) {
	const max32 = math.MaxInt32
	for _, c := range []struct {
		n    int
		want bool
	}{
		{0, true},
		{1, true},
		{max32 / 64, true},
		{max32/64 + 1, false},
		{1 << 30, false}, // int32(2*n+64) < 0
		{max32, false},
		{-1, false},
	} {
		if got := slotRows(c.n, max32); got != c.want {
			t.Errorf("slotRows(%d, MaxInt32) = %v, want %v", c.n, got, c.want)
		}
		// Any table slotRows admits sizes its structures without wrapping an int32.
		if slotRows(c.n, max32) && int64(maxSlotBytesPerRow)*int64(c.n) > max32 {
			t.Errorf("slotRows(%d, MaxInt32) admits %d bytes of slot tables", c.n, maxSlotBytesPerRow*int64(c.n))
		}
	}
	if strconv.IntSize == 64 {
		n := int(min(uint64(math.MaxInt), math.MaxUint32)) // MaxUint32 as an int, on 64-bit only
		if !slotRows(n-1, math.MaxInt) || slotRows(n, math.MaxInt) {
			t.Errorf("slotRows at MaxUint32-1 = %v, at MaxUint32 = %v; want true, false",
				slotRows(n-1, math.MaxInt), slotRows(n, math.MaxInt))
		}
	}
}

// TestAllocLenOverflow: a slice length whose bytes wrap uint64, or exceed the int of the
// platform (here stated as 32-bit), is CodeOverflow naming the column, never a wrapped
// or truncated length; lengths that fit come back unchanged.
func TestAllocLenOverflow(t *testing.T) {
	for _, c := range []struct {
		n, width, maxInt uint64
		ok               bool
	}{
		{0, 16, math.MaxInt32, true},
		{1<<27 - 1, 16, math.MaxInt32, true},
		{1 << 27, 16, math.MaxInt32, false},  // 2**31 bytes: one past MaxInt32
		{1 << 32, 16, math.MaxInt32, false},  // size itself past a 32-bit int
		{1 << 60, 16, math.MaxUint64, false}, // the product wraps uint64
		{1<<59 - 1, 16, math.MaxInt64, true},
		{1 << 59, 16, math.MaxInt64, false}, // 2**63 bytes: one past MaxInt64
	} {
		got, err := allocLen("t", "c", c.n, c.width, c.maxInt)
		if c.ok {
			if err != nil || uint64(got) != c.n {
				t.Errorf("allocLen(%d, %d, %d) = %d, %v; want %d", c.n, c.width, c.maxInt, got, err, c.n)
			}
			continue
		}
		e, isErr := err.(*Error)
		if !isErr || e.Code != CodeOverflow || e.Column != "c" || got != 0 {
			t.Errorf("allocLen(%d, %d, %d) = %d, %v; want CodeOverflow on column c", c.n, c.width, c.maxInt, got, err)
		}
	}
}
