package columnar

import "math/bits"

// Widening on the bits: float32 and float16 values are all exactly representable in
// binary64, so the widened pattern is unique. Unlike the hardware conversion, which
// quiets a signalling NaN (sets the top fraction bit), these keep the NaN's sign,
// signalling bit and payload: the fraction moves to the top of the binary64 fraction.

const (
	f64ExpMask  = 0x7ff0000000000000
	f64FracMask = 0x000fffffffffffff
)

// Widen32 returns the binary64 bit pattern of the binary32 value with bit pattern b:
// sign kept, exponent rebiased (127 -> 1023), fraction shifted left by 29, subnormals
// normalised, infinities and NaNs (payload and signalling bit included) carried over.
func Widen32(b uint32) uint64 {
	sign := uint64(b>>31) << 63
	exp := (b >> 23) & 0xff
	frac := uint64(b & 0x7fffff)
	switch exp {
	case 0xff:
		return sign | f64ExpMask | frac<<29
	case 0:
		if frac == 0 {
			return sign
		}
		// frac * 2**-149 with its top bit at position k: 1.f * 2**(k-149).
		k := uint64(bits.Len64(frac) - 1)
		return sign | (k+874)<<52 | (frac<<(52-k))&f64FracMask
	}
	return sign | uint64(exp+896)<<52 | frac<<29
}

// Widen16 returns the binary64 bit pattern of the binary16 value with bit pattern b, by
// the same rules (exponent bias 15 -> 1023, fraction shifted left by 42).
func Widen16(b uint16) uint64 {
	sign := uint64(b>>15) << 63
	exp := uint64(b>>10) & 0x1f
	frac := uint64(b & 0x3ff)
	switch exp {
	case 0x1f:
		return sign | f64ExpMask | frac<<42
	case 0:
		if frac == 0 {
			return sign
		}
		// frac * 2**-24 with its top bit at position k: 1.f * 2**(k-24).
		k := uint64(bits.Len64(frac) - 1)
		return sign | (k+999)<<52 | (frac<<(52-k))&f64FracMask
	}
	return sign | (exp+1008)<<52 | frac<<42
}

// logicalFloat applies logical-v1's float equivalences: zeros to +0, NaNs to the
// canonical quiet NaN.
func logicalFloat(w uint64) uint64 {
	if w<<1 == 0 {
		return 0
	}
	if w&f64ExpMask == f64ExpMask && w&f64FracMask != 0 {
		return 0x7ff8000000000000
	}
	return w
}
