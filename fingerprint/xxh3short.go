package fingerprint

import (
	"encoding/binary"
	"math/bits"
)

// The XXH3-128 short-input path without building the message.
//
// Value and column digests hash key ‖ one field frame (48–128 bytes for most fields) and
// a typical scan record makes a 129–240-byte message: XXH3's 17–128 and 129–240-byte
// algorithms. Both read the message in 16-byte pairs at fixed offsets and mix them with
// the secret; the first 32 message bytes are always the context key, so their part of the
// mixing is the same for every message of the context and is computed once
// (newKeyedShort). keyedShort.sum reads the remaining words where they are, with no copy.
//
// It implements XXH3's published algorithm for messages key ‖ words with 2 ≤ len(words) ≤
// 26 (48 to 240 bytes), nothing else: tests require it to equal xxh3.Hash128 over the
// built message for every such length and random contents (xxh3short_test.go), and the
// fixture's digests are checked against `xxhsum -H2`.

const (
	shortMinWords = 2                       // 48-byte message: above XXH3's 17–32-byte case
	shortMaxWords = (240 - keySize) / 8     // 26 words: 240 bytes
	midMinWords   = (129 - keySize + 7) / 8 // 13 words: 136 bytes, the first 129–240 length
	xxhPrime64_1  = 0x9e3779b185ebca87      // PRIME64_1
	xxhPrime64_2  = 0xc2b2ae3d27d4eb4f      // PRIME64_2
	xxhPrime64_4  = 0x85ebca77c2b2ae63      // PRIME64_4
	xxhAvalanche  = 0x165667919e3779f9      // XXH3_avalanche's multiplier
)

// sw[off] is the default secret's little-endian word at byte offset off.
var sw = func() (t [xxhSecretSize - 7]uint64) {
	for i := range t {
		t[i] = binary.LittleEndian.Uint64(xxhSecret[i:])
	}
	return t
}()

// keyedShort holds one context key and the parts of XXH3's short-input mixing that
// depend only on it.
type keyedShort struct {
	k [4]uint64
	// 17–128 bytes: the key is in1 of the last two mix32B rounds.
	lo0, lo1 uint64 // mulFold64(k0^s0, k1^s8), mulFold64(k2^s32, k3^s40)
	// 129–240 bytes: the key is the whole first mix32B round.
	midLo, midHi uint64 // mulFold64(k0^s0, k1^s8), mulFold64(k2^s16, k3^s24) ^ (k0+k1)
}

func newKeyedShort(key *[keySize]byte) keyedShort {
	var s keyedShort
	for i := range s.k {
		s.k[i] = binary.LittleEndian.Uint64(key[8*i:])
	}
	k := &s.k
	s.lo0 = mulFold64(k[0]^sw[0], k[1]^sw[8])
	s.lo1 = mulFold64(k[2]^sw[32], k[3]^sw[40])
	s.midLo = s.lo0
	s.midHi = mulFold64(k[2]^sw[16], k[3]^sw[24]) ^ (k[0] + k[1])
	return s
}

// sum returns XXH3-128(key ‖ words as 8-byte little-endian words) for
// shortMinWords ≤ len(words) ≤ shortMaxWords.
func (s *keyedShort) sum(w []uint64) Digest {
	n := len(w)
	l := uint64(keySize + 8*n)
	var lo, hi uint64
	if n < midMinWords {
		// 17–128 bytes (here 48–128): rounds from the outside in; message word j from the
		// end is w[n-j], or a key word when the record is short.
		back := func(j int) uint64 {
			if j <= n {
				return w[n-j]
			}
			return s.k[4+n-j]
		}
		lo = l * xxhPrime64_1
		if l > 64 {
			if l > 96 {
				in8, in7 := back(8), back(7)
				i6, i7 := w[2], w[3]
				hi += mulFold64(in8^sw[112], in7^sw[120])
				hi ^= i6 + i7
				lo += mulFold64(i6^sw[96], i7^sw[104])
				lo ^= in8 + in7
			}
			in6, in5 := back(6), back(5)
			i4, i5 := w[0], w[1]
			hi += mulFold64(in6^sw[80], in5^sw[88])
			hi ^= i4 + i5
			lo += mulFold64(i4^sw[64], i5^sw[72])
			lo ^= in6 + in5
		}
		in4, in3 := back(4), back(3)
		hi += mulFold64(in4^sw[48], in3^sw[56])
		hi ^= s.k[2] + s.k[3]
		lo += s.lo1
		lo ^= in4 + in3

		in2, in1 := w[n-2], w[n-1]
		hi += mulFold64(in2^sw[16], in1^sw[24])
		hi ^= s.k[0] + s.k[1]
		lo += s.lo0
		lo ^= in2 + in1
		return finishShort(lo, hi, l)
	}

	// 129–240 bytes: the key round, three data rounds, avalanche, the rounds after 128
	// bytes, then the last 32 bytes.
	lo = (l*xxhPrime64_1 + s.midLo) ^ (s.k[2] + s.k[3])
	hi = s.midHi
	for r := 0; r < 3; r++ {
		i0, i1, i2, i3 := w[4*r], w[4*r+1], w[4*r+2], w[4*r+3]
		o := 32 * (r + 1)
		hi += mulFold64(i2^sw[o+16], i3^sw[o+24])
		hi ^= i0 + i1
		lo += mulFold64(i0^sw[o], i1^sw[o+8])
		lo ^= i2 + i3
	}
	hi, lo = avalanche(hi), avalanche(lo)
	for i := 128; i < int(l)&^31; i += 32 {
		d := i/8 - 4
		i0, i1, i2, i3 := w[d], w[d+1], w[d+2], w[d+3]
		hi += mulFold64(i2^sw[i-109], i3^sw[i-101])
		hi ^= i0 + i1
		lo += mulFold64(i0^sw[i-125], i1^sw[i-117])
		lo ^= i2 + i3
	}
	i0, i1, i2, i3 := w[n-4], w[n-3], w[n-2], w[n-1]
	hi += mulFold64(i0^sw[119], i1^sw[127])
	hi ^= i2 + i3
	lo += mulFold64(i2^sw[103], i3^sw[111])
	lo ^= i0 + i1
	return finishShort(lo, hi, l)
}

// finishShort is the common end of XXH3-128's 17–240-byte paths.
func finishShort(lo, hi, l uint64) Digest {
	h := lo*xxhPrime64_1 + hi*xxhPrime64_4 + l*xxhPrime64_2
	return Digest{Lo: avalanche(lo + hi), Hi: -avalanche(h)}
}

func avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= xxhAvalanche
	return h ^ h>>32
}

func mulFold64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
