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
// types (decimals, negative dates) sort by type code, then by their payload words, which
// is total and deterministic but not always natural. Examples are chosen and printed in
// this order; the merge pass itself uses key digests and never depends on it.
//
// lessKey is a strict total order whose equivalence is word equality: of two different
// records exactly one is less. Values that are equal in the natural order but not word
// for word (NaNs of different payloads) are ordered by their words. Records whose frames
// do not parse (see wellFormedKey) cannot be placed in the natural order, and falling
// back to word order pair by pair would not be transitive (text "ab" < "b" naturally, but
// "b" < "b"+trailing word < "ab" by words), so they sort after every well-formed record,
// among themselves in word order.
func lessKey(a, b []uint64) bool {
	if c, ok := compareKeys(a, b); ok {
		return c < 0
	}
	if wa, wb := wellFormedKey(a), wellFormedKey(b); wa != wb {
		return wa
	}
	return lessWords(a, b)
}

// compareKeys returns the order of two well-formed key records, and false when either
// does not parse exactly (wellFormedKey). Records of different headers or field ids are
// ordered by those words first, then the values field by field, so that records of one
// key projection (the only ones a diff compares) are ordered by their values alone.
func compareKeys(a, b []uint64) (int, bool) {
	if !wellFormedKey(a) || !wellFormedKey(b) {
		return 0, false
	}
	if c := slices.Compare(a[:3], b[:3]); c != 0 { // version, domain, field count
		return c, true
	}
	// The field ids, in id order; equal counts make the frames pair up.
	for pa, pb := 3, 3; pa < len(a); {
		if c := cmp.Compare(a[pa], b[pb]); c != 0 {
			return c, true
		}
		pa += 3 + int(a[pa+2])
		pb += 3 + int(b[pb+2])
	}
	for pa, pb := 3, 3; pa < len(a); {
		na, nb := int(a[pa+2]), int(b[pb+2])
		va, vb := a[pa+3:pa+3+na], b[pb+3:pb+3+nb]
		if c := compareValue(a[pa+1], va, b[pb+1], vb); c != 0 {
			return c, true
		}
		pa += 3 + na
		pb += 3 + nb
	}
	return 0, true
}

// wellFormedKey reports whether k parses as a C2 record whose frames consume it exactly:
// a three-word header, then as many [field id, type, payload count, payload...] frames as
// the header's field count, with nothing after the last; and whose payloads have the
// shape their type requires (none for MISSING and NULL, one word for integers and floats,
// a byte count and exactly the words that hold it for text and bytes). Only then is
// compareValue's order total.
func wellFormedKey(k []uint64) bool {
	if len(k) < 3 {
		return false
	}
	p := 3
	for f := uint64(0); f < k[2]; f++ { // each frame takes at least 3 words: bounded by len(k)
		if len(k)-p < 3 {
			return false
		}
		n := k[p+2]
		if n > uint64(len(k)-p-3) {
			return false
		}
		if !payloadShape(k[p+1], k[p+3:p+3+int(n)]) {
			return false
		}
		p += 3 + int(n)
	}
	return p == len(k)
}

// payloadShape reports whether v has the number of words type code tag requires.
func payloadShape(tag uint64, v []uint64) bool {
	switch tag {
	case 0, 1: // MISSING, NULL
		return len(v) == 0
	case 3, 4, 5: // INT64 (negative), UINT64, FLOAT64
		return len(v) == 1
	case 6, 7: // TEXT, BYTES: [byte_count, packed LE words...]
		if len(v) == 0 {
			return false
		}
		words := v[0] / 8 // without overflow for any count
		if v[0]%8 != 0 {
			words++
		}
		return uint64(len(v)-1) == words
	}
	return true
}

// typeRank orders type codes: absence first, then integers, floats, text, bytes, the rest
// (which compareValue orders by type code).
func typeRank(tag uint64) int {
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
	return 5
}

// compareValue orders two values of well-formed shape (payloadShape): a total order in
// which only equal type codes and payload words compare 0.
func compareValue(ta uint64, a []uint64, tb uint64, b []uint64) int {
	ra, rb := typeRank(ta), typeRank(tb)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch {
	case ta != tb && (ra == 0 || ra == 5):
		return cmp.Compare(ta, tb) // MISSING before NULL; other types by code
	case ta == 3 || ta == 4:
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
	case ta == 5:
		x, y := math.Float64frombits(a[0]), math.Float64frombits(b[0])
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			if c := cmpBool(math.IsNaN(x), math.IsNaN(y)); c != 0 {
				return c
			}
			return cmp.Compare(a[0], b[0]) // NaNs of different payloads: by their bits
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return cmpBool(!math.Signbit(x), !math.Signbit(y)) // -0 before +0
	case ta == 6 || ta == 7:
		return compareBytes(a, b)
	}
	return slices.Compare(a, b)
}

// compareBytes compares two TEXT/BYTES payloads [byte_count, packed LE words...] by their
// bytes: byte-reversing each word turns little-endian packing into numeric order. The
// payloads are of well-formed shape, so words equal as far as the shorter goes leave the
// byte counts to decide, and equal counts mean equal words.
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
