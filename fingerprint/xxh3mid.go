package fingerprint

import (
	"encoding/binary"
	"unsafe"
)

// The field digest of a text or bytes value of 65 to 176 bytes, read where the value
// lies.
//
// Its frame [id, code, 1+w, n, w packed words] (w = ceil(n/8), 9 to 22 words) makes a
// message K_F ‖ frame of 136 to 240 bytes: XXH3-128's 129–240-byte path. keyedShort.sum
// computes that path over a built frame; midText computes the same path without the
// frame: the key's round is the context's (keyedShort), the header's round mixes the
// column's id and code (once per column) with 1+w and n, and every other word is loaded
// from the value's bytes, the last one masked to its bytes (C2's zero padding). Tests
// require it to equal xxh3.Hash128 over the built message for every length 65–176, at
// unaligned starts in the buffer (v2speed_test.go).

const (
	midTextMin = 8*(midMinWords-4) + 1 // 65: the shortest value whose frame takes the 129–240 path
	midTextMax = maxShortBytes         // 176
)

// midText holds the parts of the 129–240-byte path over K_F ‖ [id, code, 1+w, n, ...]
// that depend only on the context and the column's id and code.
type midText struct {
	lo  uint64 // the key round's lo product (added to the length term)
	k23 uint64 // k2 + k3
	c1  uint64 // mulFold64(id^s32, code^s40): the header round's lo product
	hi  uint64 // the key round's hi lane
	idc uint64 // id + code
}

func newMidText(s *keyedShort, id, code uint64) midText {
	return midText{
		lo:  s.midLo,
		k23: s.k[2] + s.k[3],
		c1:  mulFold64(id^sw[32], code^sw[40]),
		hi:  s.midHi,
		idc: id + code,
	}
}

// s<off> is the default secret's little-endian word at byte offset off (sw[off]; tested).
const (
	s3   = 0x81017cbe4ba42339
	s11  = 0x6dd4de1cad21f72c
	s19  = 0xa44072db979083e9
	s27  = 0xe679cb1f67b3b7a4
	s35  = 0xd05a8278e5c0cc4e
	s43  = 0x4608b82172ffcc7d
	s48  = 0x8e2443f7744608b8
	s51  = 0x9035e08e2443f774
	s56  = 0x4c263a81e69035e0
	s59  = 0x52283c4c263a81e6
	s64  = 0xcb00c391bb52283c
	s67  = 0x65d088cb00c391bb
	s72  = 0xa32e531b8b65d088
	s75  = 0x486471a32e531b8b
	s80  = 0x4ef90da297486471
	s83  = 0xef19384ef90da297
	s88  = 0xd8acdea946ef1938
	s91  = 0x76faa8d8acdea946
	s96  = 0x3f349ce33f76faa8
	s103 = 0x4f0bc7c7bbdcf93f
	s104 = 0x1d4f0bc7c7bbdcf9
	s111 = 0x59b4cd4be0518a1d
	s112 = 0x3159b4cd4be0518a
	s119 = 0x7378d9c97e9fc831
	s120 = 0x647378d9c97e9fc8
	s127 = 0xebd33483acc5ea64
)

// le64 is the little-endian word at b[i:].
func le64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// head returns, for a value of n bytes (midTextMin ≤ n ≤ midTextMax), its number of
// payload words w, the message length l and the path's lanes after the key and header
// rounds.
func (m *midText) head(n int) (w int, l, lo, hi uint64) {
	w = (n + 7) >> 3
	l = uint64(64 + 8*w)
	ww, nn := uint64(1+w), uint64(n)
	lo = ((l*xxhPrime64_1 + m.lo) ^ m.k23) + m.c1
	lo ^= ww + nn
	hi = (m.hi + mulFold64(ww^s48, nn^s56)) ^ m.idc
	return w, l, lo, hi
}

// sum returns the field digest of the n-byte value v[:n] (midTextMin ≤ n ≤ midTextMax)
// for len(v) ≥ 8*ceil(n/8): v's bytes after the value are read and masked off.
func (m *midText) sum(v []byte, n int) Digest {
	w, l, lo, hi := m.head(n)
	v = v[: 8*w : 8*w]
	_ = v[71] // w ≥ 9
	// Payload words 0..7: message bytes 64..127, whole words (w ≥ 9).
	{
		i0, i1, i2, i3 := le64(v, 0), le64(v, 8), le64(v, 16), le64(v, 24)
		hi += mulFold64(i2^s80, i3^s88)
		hi ^= i0 + i1
		lo += mulFold64(i0^s64, i1^s72)
		lo ^= i2 + i3
		i0, i1, i2, i3 = le64(v, 32), le64(v, 40), le64(v, 48), le64(v, 56)
		hi += mulFold64(i2^s112, i3^s120)
		hi ^= i0 + i1
		lo += mulFold64(i0^s96, i1^s104)
		lo ^= i2 + i3
	}
	hi, lo = avalanche(hi), avalanche(lo)
	// The last word's bytes: 1 to 8 of its 8.
	mask := ^uint64(0) >> (64 - 8*uint(n-8*(w-1)))
	// Rounds over message bytes 128 .. l&^32 (0 to 3 of them): payload words 8+4r ..
	// 11+4r. Word 11+4r is the last one when w = 12+4r; keep masks it (all ones
	// otherwise) without a branch.
	keep := func(r int) uint64 {
		d := uint64(w - 12 - 4*r)
		return mask | uint64(int64(d|-d)>>63)
	}
	if w >= 12 {
		x := v[64:96]
		i0, i1, i2, i3 := le64(x, 0), le64(x, 8), le64(x, 16), le64(x, 24)&keep(0)
		hi += mulFold64(i2^s19, i3^s27)
		hi ^= i0 + i1
		lo += mulFold64(i0^s3, i1^s11)
		lo ^= i2 + i3
		if w >= 16 {
			x := v[96:128]
			i0, i1, i2, i3 := le64(x, 0), le64(x, 8), le64(x, 16), le64(x, 24)&keep(1)
			hi += mulFold64(i2^s51, i3^s59)
			hi ^= i0 + i1
			lo += mulFold64(i0^s35, i1^s43)
			lo ^= i2 + i3
			if w >= 20 {
				x := v[128:160]
				i0, i1, i2, i3 := le64(x, 0), le64(x, 8), le64(x, 16), le64(x, 24)&keep(2)
				hi += mulFold64(i2^s83, i3^s91)
				hi ^= i0 + i1
				lo += mulFold64(i0^s67, i1^s75)
				lo ^= i2 + i3
			}
		}
	}
	// The last 32 bytes: payload words w-4 .. w-1.
	x := v[8*w-32:]
	i0, i1, i2, i3 := le64(x, 0), le64(x, 8), le64(x, 16), le64(x, 24)&mask
	hi += mulFold64(i0^s119, i1^s127)
	hi ^= i2 + i3
	lo += mulFold64(i2^s103, i3^s111)
	lo ^= i0 + i1
	return finishShort(lo, hi, l)
}

// records2 writes XXH3-128(key ‖ row) for the 4-word rows of words (two field digests
// each) to dst, len(words) ≥ 4*len(dst), and returns their sums: keyedShort.sum's
// 17–128-byte path for a 64-byte message, its key terms precomputed.
func (s *keyedShort) records2(dst []Digest, words []uint64) Digest {
	words = words[:4*len(dst)]
	l := uint64(64)
	lo1 := l*xxhPrime64_1 + s.lo1 // the length and the key's last round
	lo0, k23, k01 := s.lo0, s.k[2]+s.k[3], s.k[0]+s.k[1]
	var sum Digest
	if g := len(dst) / 8; midKernel && g > 0 {
		// Eight rows at a time in the vector routine.
		k := records2Key{lo1, lo0, k23, k01, l * xxhPrime64_2}
		var lanes [16]uint64
		records2AVX512(&dst[0], &words[0], g, &k, &lanes)
		for i := range 8 {
			sum.Lo += lanes[i]
			sum.Hi += lanes[8+i]
		}
		dst, words = dst[8*g:], words[32*g:]
	}
	for r := range dst {
		w := words[4*r : 4*r+4 : 4*r+4]
		w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
		hi := (mulFold64(w0^s48, w1^s56) ^ k23 + mulFold64(w2^sw[16], w3^sw[24])) ^ k01
		lo := ((lo1 ^ (w0 + w1)) + lo0) ^ (w2 + w3)
		d := finishShort(lo, hi, 64)
		dst[r] = d
		sum.Lo += d.Lo
		sum.Hi += d.Hi
	}
	return sum
}

// records2Key is what records2AVX512 needs of the record key: records2's constants.
type records2Key struct{ lo1, lo0, k23, k01, lP2 uint64 }

// midRunArgs is midRunAVX512's argument block (its offsets are in xxh3mid_amd64.s):
// groups of eight values of one length, the lanes after the key and header rounds, what
// the length decides, where the digests go, and their sums.
type midRunArgs struct {
	data      unsafe.Pointer
	offs      [8]int64 // the first group's values' starts in data
	lo, hi    uint64   // midText.head's lanes
	lP2       uint64   // l * PRIME64_2
	rounds    uint64   // rounds over message bytes 128 .. l&^31: 0 to 3
	last      uint64   // byte offset of the last 32 bytes from a value's start: 8w-32
	mask      uint64   // the last word's bytes
	mmask     uint64   // mask of the last middle round's fourth word: mask when it is the last word
	_         uintptr  // out: the routine's place in the digests (set from its out argument): no pointer, as it ends past them
	outStride int64
	groups    int64 // ≥ 1
	step      int64 // bytes from a group's values to the next group's
	pf        int64 // prefetch pfLine lines every 128 bytes from the first value's start + pf
	pfLine    int64
	sums      [16]uint64 // the digests' lane sums, Lo lanes then Hi lanes
}

// run computes the field digests of groups of eight values of n bytes (midTextMin ≤ n ≤
// midTextMax), the first group at a.offs in data, each later one a.step bytes after the
// one before, 8*ceil(n/8) bytes readable from every value's start (checked by the
// caller), into out[0], out[stride], ..., and returns their sums.
func (m *midText) run(a *midRunArgs, data []byte, n int, groups int, step int64, out []Digest, stride int) Digest {
	w, l, lo, hi := m.head(n)
	_ = out[(8*groups-1)*stride]
	a.data = unsafe.Pointer(unsafe.SliceData(data))
	a.lo, a.hi, a.lP2 = lo, hi, l*xxhPrime64_2
	a.rounds = uint64((8+w)/4 - 4)
	a.last = uint64(8*w - 32)
	a.mask = ^uint64(0) >> (64 - 8*uint(n-8*(w-1)))
	a.mmask = ^uint64(0)
	if w%4 == 0 {
		a.mmask = a.mask
	}
	a.outStride = int64(16 * stride)
	a.groups, a.step = int64(groups), step
	// The values of a column lie one after another: prefetch the bytes two groups on
	// (the hardware prefetchers alone leave the routine waiting on memory).
	span := a.offs[7] + int64(n) - a.offs[0]
	a.pf, a.pfLine = 2*span, (span+127)/128
	a.sums = [16]uint64{}
	midRunAVX512(a, &out[0])
	var sum Digest
	for i := range 8 {
		sum.Lo += a.sums[i]
		sum.Hi += a.sums[8+i]
	}
	return sum
}

// oneWordsKey is what oneWordsAVX512 needs: oneWords' head states and constants.
type oneWordsKey struct{ posLo, posHi, dl, dh, x01, lP2 uint64 }
