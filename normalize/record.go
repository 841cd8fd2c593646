package normalize

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// FieldID is a stable field id. Ids are unsigned, so a negative id cannot be built in
// Go; ParseFieldID is where negative and oversized decimal ids are rejected.
// MaxFieldID+1 (UINT64_MAX) is reserved and rejected by the record encoder.
type FieldID uint64

// MaxFieldID is the largest usable field id, 2**64-2.
const MaxFieldID FieldID = math.MaxUint64 - 1

// ParseFieldID parses a decimal field id. A negative id, UINT64_MAX or anything larger
// is CodeFieldID; a string that is not an optionally signed run of ASCII digits is
// CodeInput.
func ParseFieldID(s string) (FieldID, error) {
	digits := s
	neg := false
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	if digits == "" || !allDigits(digits) {
		return 0, newErr("parse", CodeInput, "field id is not a decimal integer")
	}
	digits = trimLeadingZeros(digits, true)
	if neg && digits != "0" {
		return 0, newErr("parse", CodeFieldID, "negative field id")
	}
	u, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || u == math.MaxUint64 {
		return 0, newErr("parse", CodeFieldID, "field id is UINT64_MAX or larger")
	}
	return FieldID(u), nil
}

// Field is one record field: a stable id and its value.
type Field struct {
	ID    FieldID
	Value Value
}

// EncodeRecord returns the framed C2 record of fields under profile p:
//
//	[WireVersion=1, RecordDomain=2, field_count, (field_id, type_code, payload_word_count, payload...)...]
//
// with fields sorted by id (fields itself is not reordered). Duplicate ids and
// UINT64_MAX are CodeFieldID. The words are a new slice owned by the caller.
func EncodeRecord(fields []Field, p Profile) ([]uint64, error) {
	return AppendRecord(nil, fields, p)
}

// AppendRecord appends the framed record of fields to dst (see EncodeRecord). On error
// it returns dst unchanged in length. When fields are already in id order and number at
// most 64 it allocates only to grow dst.
func AppendRecord(dst []uint64, fields []Field, p Profile) ([]uint64, error) {
	out, err := appendRecord(dst, fields, p)
	if err != nil {
		return dst, err
	}
	return out, nil
}

func appendRecord(dst []uint64, fields []Field, p Profile) ([]uint64, *Error) {
	// order lists field indexes in id order. Sorted input (the common case, e.g. from a
	// columnar encoder) needs none; up to 64 fields are sorted on the stack.
	var stack [64]int32
	var order []int32
	if !fieldsSorted(fields) {
		if len(fields) <= len(stack) {
			order = stack[:len(fields)]
		} else {
			order = make([]int32, len(fields))
		}
		for i := range order {
			order[i] = int32(i)
		}
		if len(order) <= len(stack) {
			for i := 1; i < len(order); i++ { // stable insertion sort
				for j := i; j > 0 && fields[order[j]].ID < fields[order[j-1]].ID; j-- {
					order[j], order[j-1] = order[j-1], order[j]
				}
			}
		} else {
			slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(fields[a].ID, fields[b].ID) })
		}
	}
	dst = append(dst, WireVersion, RecordDomain, uint64(len(fields)))
	var prev FieldID
	for k := range fields {
		f := &fields[k]
		if order != nil {
			f = &fields[order[k]]
		}
		if f.ID > MaxFieldID {
			return dst, fieldErr(k, "field id UINT64_MAX is reserved")
		}
		if k > 0 && prev == f.ID {
			return dst, fieldErr(k, "duplicate field id")
		}
		prev = f.ID
		hdr := len(dst)
		dst = append(dst, uint64(f.ID), 0, 0)
		tc, out, err := appendValue(dst, f.Value, p)
		if err != nil {
			err.Msg = "field " + strconv.Itoa(k) + " (in id order): " + err.Msg
			return dst, err
		}
		dst = out
		dst[hdr+1] = uint64(tc)
		dst[hdr+2] = uint64(len(dst) - hdr - 3)
	}
	return dst, nil
}

func fieldsSorted(fields []Field) bool {
	for i := 1; i < len(fields); i++ {
		if fields[i].ID <= fields[i-1].ID {
			return false
		}
	}
	return true
}

func fieldErr(k int, msg string) *Error {
	return encErr(CodeFieldID, "field "+strconv.Itoa(k)+" (in id order): "+msg)
}
