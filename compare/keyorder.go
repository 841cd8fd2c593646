package compare

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// lessKey orders two key records (C2 record words projected onto the key fields) the way
// a person reads keys: field by field, NULL first, integers by value (negative INT64
// before UINT64), text and bytes by their bytes, floats by value with NaN last. Other
// types, and frames that do not parse, fall back to word order, which is total and
// deterministic but not always natural (decimals, negative dates). Examples are chosen and
// printed in this order; the merge pass itself uses key digests and never depends on it.
func lessKey(a, b []uint64) bool {
	if c, ok := compareKeys(a, b); ok {
		return c < 0
	}
	return lessWords(a, b)
}

// compareKeys returns the natural order of a and b, and false when either frame does not
// parse as a record of the same field ids.
func compareKeys(a, b []uint64) (int, bool) {
	if len(a) < 3 || len(b) < 3 || a[2] != b[2] {
		return 0, false
	}
	pa, pb := 3, 3
	for f := uint64(0); f < a[2]; f++ {
		if len(a)-pa < 3 || len(b)-pb < 3 || a[pa] != b[pb] {
			return 0, false
		}
		ta, tb := a[pa+1], b[pb+1]
		na, nb := a[pa+2], b[pb+2]
		if na > uint64(len(a)-pa-3) || nb > uint64(len(b)-pb-3) {
			return 0, false
		}
		va, vb := a[pa+3:pa+3+int(na)], b[pb+3:pb+3+int(nb)]
		if c := compareValue(ta, va, tb, vb); c != 0 {
			return c, true
		}
		pa += 3 + int(na)
		pb += 3 + int(nb)
	}
	return 0, true
}

// typeRank orders type codes: absence first, then integers, floats, text, bytes, the rest.
func typeRank(tag uint64) uint64 {
	switch tag {
	case 0, 1: // MISSING, NULL
		return 0
	case 3, 4: // INT64 (negative), UINT64
		return 1
	case 5:
		return 2
	case 6:
		return 3
	case 7:
		return 4
	}
	return 5 + tag
}

func compareValue(ta uint64, a []uint64, tb uint64, b []uint64) int {
	if ra, rb := typeRank(ta), typeRank(tb); ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch {
	case ta <= 1 && tb <= 1:
		return cmp.Compare(ta, tb)
	case (ta == 3 || ta == 4) && len(a) == 1 && len(b) == 1:
		if ta != tb { // a negative INT64 sorts before every UINT64
			if ta == 3 {
				return -1
			}
			return 1
		}
		if ta == 3 {
			return cmp.Compare(int64(a[0]), int64(b[0]))
		}
		return cmp.Compare(a[0], b[0])
	case ta == 5 && tb == 5 && len(a) == 1 && len(b) == 1:
		x, y := math.Float64frombits(a[0]), math.Float64frombits(b[0])
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return cmpBool(math.IsNaN(x), math.IsNaN(y))
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return cmpBool(!math.Signbit(x), !math.Signbit(y)) // -0 before +0
	case (ta == 6 || ta == 7) && ta == tb && len(a) >= 1 && len(b) >= 1:
		return compareBytes(a, b)
	}
	return slices.Compare(a, b)
}

// compareBytes compares two TEXT/BYTES payloads [byte_count, packed LE words...] by their
// bytes: byte-reversing each word turns little-endian packing into numeric order.
func compareBytes(a, b []uint64) int {
	na, nb := a[0], b[0]
	for i := 1; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return cmp.Compare(bits.ReverseBytes64(a[i]), bits.ReverseBytes64(b[i]))
		}
	}
	return cmp.Compare(na, nb)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
