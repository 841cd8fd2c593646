package arrays

import (
	"math"
	"math/bits"
)

// Absent is the absent-reference sentinel, UINT64_MAX. It is meaningful only in
// reference columns (parent_id, transform_id); valid ids and local indexes are
// 0 through Absent-1. In payload and fingerprint words it is an ordinary value.
const Absent uint64 = math.MaxUint64

// AddUint64 returns a+b, or a CodeOverflow error if the sum wraps.
func AddUint64(a, b uint64) (uint64, error) {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return 0, &Error{Code: CodeOverflow, Op: "add", Row: -1}
	}
	return s, nil
}

// MulUint64 returns a*b, or a CodeOverflow error if the product wraps.
func MulUint64(a, b uint64) (uint64, error) {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return 0, &Error{Code: CodeOverflow, Op: "multiply", Row: -1}
	}
	return lo, nil
}

// ToInt converts a count, offset or length to int, or fails with CodeRange
// when it does not fit (it never wraps to a negative int).
func ToInt(v uint64) (int, error) {
	if v > math.MaxInt {
		return 0, &Error{Code: CodeRange, Op: "convert", Row: -1}
	}
	return int(v), nil
}

// SliceBounds checks a C1 slice (offset and length in words) against a buffer
// of words words and returns the half-open range [lo, hi) to index it with.
// The rule is offset <= words and length <= words-offset, evaluated without
// any addition that could wrap. An empty slice may start at the end.
func SliceBounds(offset, length uint64, words int) (lo, hi int, err error) {
	code := checkSlice(offset, length, uint64(max(words, 0)))
	if code != "" {
		return 0, 0, &Error{Code: code, Op: "slice", Row: -1}
	}
	return int(offset), int(offset + length), nil
}

// checkSlice returns "" if [offset, offset+length) lies within n words.
func checkSlice(offset, length, n uint64) Code {
	if offset > n {
		return CodeSliceOffset
	}
	if length > n-offset {
		return CodeSliceLength
	}
	return ""
}

// maxSlotBytesPerRow bounds the bytes per row of every structure the uint32-slot paths
// build (idcheck.go, partition.go): a 16-byte (id, row, hash) entry and a bucket table of
// at most four uint32 slots per row (2*m rounded up to a power of two), a direct table
// of fewer than two uint32 slots per row plus 64, or the hash Index that idTable.resolve
// falls back to (at most three 16-byte slots per row: 1.5n rounded up).
const maxSlotBytesPerRow = 64

// slotRows reports whether a table of n rows takes the uint32-slot paths: its rows fit
// the slots (row+1 below MaxUint32) and their tables, sized from counts computed in
// int, cannot wrap below maxInt (math.MaxInt; a parameter so that tests can state the
// 32-bit limit on any platform). Larger tables take the hash Index, whose allocation
// is checked (allocLen).
func slotRows(n int, maxInt uint64) bool {
	return n >= 0 && uint64(n) < math.MaxUint32 && uint64(n) <= maxInt/maxSlotBytesPerRow
}

// allocLen returns n as the length of a slice of width-byte elements, or a CodeOverflow
// error when n*width bytes wrap or exceed maxInt (math.MaxInt outside tests), where
// make would panic or a size computed in int would wrap on a 32-bit platform.
func allocLen(table, column string, n, width, maxInt uint64) (int, error) {
	b, err := MulUint64(n, width)
	if err != nil || b > maxInt {
		return 0, &Error{Code: CodeOverflow, Op: opValidate, Table: table, Column: column, Row: -1}
	}
	return int(n), nil
}
