package columnar

import "math/bits"

// u256 is a 256-bit unsigned magnitude, little-endian 64-bit limbs.
type u256 [4]uint64

// neg256 returns the two's-complement negation of m.
func neg256(m u256) u256 {
	var c uint64 = 1
	for i := range m {
		m[i], c = bits.Add64(^m[i], 0, c)
	}
	return m
}

func (m *u256) isZero() bool { return m[0]|m[1]|m[2]|m[3] == 0 }

// limbs returns the number of significant limbs (at least one).
func (m *u256) limbs() int {
	n := 4
	for n > 1 && m[n-1] == 0 {
		n--
	}
	return n
}

// divSmall divides m by d in place and returns the remainder.
func (m *u256) divSmall(d uint64) uint64 {
	var r uint64
	for i := 3; i >= 0; i-- {
		m[i], r = bits.Div64(r, m[i], d)
	}
	return r
}

// digits returns the number of decimal digits of m (1 for zero).
func (m u256) digits() uint64 {
	n := uint64(0)
	for m[1]|m[2]|m[3] != 0 || m[0] >= 1e19 {
		m.divSmall(1e19)
		n += 19
	}
	d := uint64(1)
	for v := m[0]; v >= 10; v /= 10 {
		d++
	}
	return n + d
}

// stripZeros divides m by 10 while it is a nonzero multiple of 10 and returns how many
// times it did.
func (m *u256) stripZeros() uint64 {
	if m.isZero() {
		return 0
	}
	k := uint64(0)
	for {
		t := *m
		if t.divSmall(10) != 0 {
			return k
		}
		*m = t
		k++
	}
}

// decimalPayload computes the DECIMAL payload of the value neg·mag·10**-scale (as Python's
// Decimal holds an Arrow decimal: coefficient |v|, exponent -scale) under the profile's
// equivalences, without allocating. It returns the header words and the coefficient.
func decimalPayload(neg bool, mag u256, scale int64, logical bool) (hdr [6]uint64, coef u256) {
	exp := -scale
	if logical {
		if mag.isZero() {
			return [6]uint64{0, 0, 0, 0, 1, 1}, mag
		}
		exp += int64(mag.stripZeros())
	}
	var sign, es, em uint64
	if neg {
		sign = 1
	}
	if exp < 0 {
		es, em = 1, uint64(-exp)
	} else {
		em = uint64(exp)
	}
	return [6]uint64{sign, 0, es, em, mag.digits(), uint64(mag.limbs())}, mag
}
