package fingerprint

import (
	"github.com/pipewhy/pipewhy/internal/civil"
	"github.com/pipewhy/pipewhy/normalize"
)

// TimestampZone is the zone of a timestamp column whose field digests the Timestamps
// kernel computes: the two zones whose C2 payload is the same for every value of a
// column and under every profile.
type TimestampZone uint8

const (
	// TimestampNaive is a timestamp without tzinfo: fold 0, zone kind 0, offset 0 and
	// an empty zone name.
	TimestampNaive TimestampZone = iota
	// TimestampUTC is datetime.timezone.utc (Arrow timezone "UTC", "+00:00" or
	// "-00:00"): fold 0, zone kind 1 (fixed), offset 0, name "UTC". Logical profiles
	// convert aware timestamps to exactly this zone, so the payload is the same.
	TimestampUTC
)

// Python's datetime range, 0001-01-01 .. 9999-12-31, in days and microseconds since
// 1970-01-01: C2 refuses wall times outside it.
var (
	tsMinDay = civil.DaysFromCivil(1, 1, 1)
	tsMaxDay = civil.DaysFromCivil(9999, 12, 31)
	tsMinUS  = tsMinDay * 86_400_000_000
	tsMaxUS  = (tsMaxDay+1)*86_400_000_000 - 1
)

// Timestamps fills tile column col with the field digests of timestamps counted in units
// of 1/perSecond second since 1970-01-01T00:00 (perSecond 1, 1e3, 1e6 or 1e9: Arrow's
// s, ms, us and ns; CodeColumn otherwise), in zone: the C2 TIMESTAMP frame (PW-03.06)
// [id, TIMESTAMP, 10+w, year, month, day, hour, minute, second, microsecond, fold 0,
// zone kind, offset 0, the zone name packed in w words], and, for perSecond 1e9, a value
// with nanoseconds below the microsecond as TIMESTAMP_NS, word 6 the nanosecond of the
// second; [id, NULL, 0] where valid marks the row null. No frame is built: the digest
// mixes only the words that change with the value into a hash of the column's constant
// words (tsHash), and a day's words are converted and mixed once per run of values on
// that day. It returns their sums, and inRange
// false (the tile column then partly written) when a valid value lies outside years
// 1..9999, which C2 refuses with an error the caller gets by encoding the column.
func Timestamps[T ~int64](k *Columnar, t Tile, col int, vals []T, perSecond int64, zone TimestampZone, valid Validity) (sum Digest, inRange bool, err error) {
	codes := []normalize.TypeCode{normalize.Timestamp}
	var factor int64 // microseconds per unit; 0 for nanoseconds
	switch perSecond {
	case 1:
		factor = 1_000_000
	case 1_000:
		factor = 1_000
	case 1_000_000:
		factor = 1
	case 1_000_000_000:
		codes = append(codes, normalize.TimestampNS)
	default:
		return Digest{}, false, newErr("columnar", CodeColumn, "timestamp unit is not s, ms, us or ns")
	}
	if zone != TimestampNaive && zone != TimestampUTC {
		return Digest{}, false, newErr("columnar", CodeColumn, "timestamp zone is not naive or UTC")
	}
	c, err := k.start(t, col, len(vals), valid, codes...)
	if err != nil {
		return Digest{}, false, err
	}
	// The frame: words 1 and 3..9 change with the value, the others are the column's.
	var fr [15]uint64
	n := 14
	fr[0], fr[2] = c.id, 11
	if zone == TimestampUTC {
		n = 15
		fr[2], fr[11], fr[13], fr[14] = 12, uint64(normalize.ZoneFixed), 3, 'U'|'T'<<8|'C'<<16
	}
	h := newTSHash(&k.keys.sField, fr[:n])
	// Bounds on the raw value outside which the wall time leaves years 1..9999; every
	// int64 count of nanoseconds is inside them.
	xLo, xHi := int64(-1<<63), int64(1<<63-1)
	if factor != 0 {
		xLo, xHi = -(-tsMinUS / factor), tsMaxUS/factor
	}
	out := tileColumn(t, col)
	// The day of the previous value and its part of the digest: sorted or clustered
	// instants skip the civil conversion and two of the four multiplications.
	day := ^uint64(0)
	var dp tsDayPart
	for r, v := range vals {
		if valid.Bits != nil && !valid.valid(r) {
			out[r*t.Cols] = c.absent[1]
			sum.Lo += c.absent[1].Lo
			sum.Hi += c.absent[1].Hi
			continue
		}
		x := int64(v)
		if x < xLo || x > xHi {
			return Digest{}, false, nil
		}
		var us int64
		var subNS uint64
		if factor == 0 {
			us = x / 1000
			sub := x % 1000
			if sub < 0 {
				us--
				sub += 1000
			}
			subNS = uint64(sub)
		} else {
			us = x * factor
		}
		// Counted from 0001-01-01T00:00, a whole number of days before the epoch, the
		// instant is nonnegative: unsigned division, no flooring.
		u := uint64(us - tsMinUS)
		days := u / 86_400_000_000
		rem := u - days*86_400_000_000
		if days != day {
			y, m, d := civil.FromDays(int64(days) + tsMinDay)
			dp = h.day(uint64(y), uint64(m), uint64(d))
			day = days
		}
		sec := uint32(rem / 1_000_000) // < 86,400
		frac := rem - uint64(sec)*1_000_000
		hour, mins := sec/3600, sec/60
		tc := 0
		if subNS != 0 {
			frac, tc = frac*1000+subNS, 1
		}
		dg := h.sum(tc, &dp, uint64(hour), uint64(mins-hour*60), uint64(sec-mins*60), frac)
		out[r*t.Cols] = dg
		sum.Lo += dg.Lo
		sum.Hi += dg.Hi
	}
	return sum, true, nil
}

// tsHash is XXH3-128 of K_F ‖ a timestamp frame of the Timestamps kernel, specialized to
// one column: keyedShort.sum's 129–240-byte path with everything that reads only the
// column's words (the key, words 0, 2 and 10 on, and word 1's two possible type codes)
// mixed once, here. A value then costs the mixing of its varying words: round 1's word 3
// (year), round 2 (month, day, hour, minute), round 3's words 8 and 9 (second, fraction),
// the avalanches and the final mix. Exact for frames of 14..19 words, whose message
// (144..184 bytes) has no round between byte 128 and its last 32 bytes and whose last 32
// bytes are the column's words 10 on (tested against zeebo/xxh3 over built frames).
type tsHash struct {
	l        uint64
	lo0, x01 [2]uint64 // per type code (0 TIMESTAMP, 1 TIMESTAMP_NS): lo after round 1's multiplication, words 0 + 1
	hi0      uint64    // hi after the key round
	w2, w2s  uint64    // word 2, and word 2 ^ secret[48]
	r3hi     uint64    // round 3's multiplication of words 10, 11
	r3x      uint64    // words 10 + 11
	endHi    uint64    // last 32 bytes: hi += endHi; hi ^= endHiX; lo += endLo; lo ^= endLoX
	endHiX   uint64
	endLo    uint64
	endLoX   uint64
}

// tsMinFrame and tsMaxFrame bound the frames tsHash is exact for.
const (
	tsMinFrame = 14
	tsMaxFrame = (160 - keySize) / 8 // 20 words would make a 192-byte message: one round more
)

// newTSHash returns the hash of the frames shaped like frame (tsMinFrame ≤ len(frame) ≤
// tsMaxFrame; words 1 and 3..9 are ignored) under the field key s.
func newTSHash(s *keyedShort, frame []uint64) tsHash {
	n := len(frame)
	if n < tsMinFrame || n >= tsMaxFrame {
		panic("fingerprint: timestamp frame of an unsupported length")
	}
	w := frame
	h := tsHash{l: uint64(keySize + 8*n), w2: w[2], w2s: w[2] ^ sw[48]}
	lo := (h.l*xxhPrime64_1 + s.midLo) ^ (s.k[2] + s.k[3])
	h.hi0 = s.midHi
	for i, tc := range []uint64{uint64(normalize.Timestamp), uint64(normalize.TimestampNS)} {
		h.lo0[i] = lo + mulFold64(w[0]^sw[32], tc^sw[40])
		h.x01[i] = w[0] + tc
	}
	h.r3hi = mulFold64(w[10]^sw[112], w[11]^sw[120])
	h.r3x = w[10] + w[11]
	i0, i1, i2, i3 := w[n-4], w[n-3], w[n-2], w[n-1]
	h.endHi, h.endHiX = mulFold64(i0^sw[119], i1^sw[127]), i2+i3
	h.endLo, h.endLoX = mulFold64(i2^sw[103], i3^sw[111]), i0+i1
	return h
}

// tsDayPart is what a day (words 3..5) contributes before the time of day joins.
type tsDayPart struct {
	hi  uint64 // hi after round 1's multiplication
	y   uint64 // words 2 + 3, which round 1 xors into lo
	md  uint64 // round 2's multiplication of words 4, 5 (into lo)
	mdx uint64 // words 4 + 5 (xored into hi)
}

// The default secret's words that tsHash mixes with a value's words (sw[56] … sw[104];
// tested).
const (
	secret56  = 0x4c263a81e69035e0
	secret64  = 0xcb00c391bb52283c
	secret72  = 0xa32e531b8b65d088
	secret80  = 0x4ef90da297486471
	secret88  = 0xd8acdea946ef1938
	secret96  = 0x3f349ce33f76faa8
	secret104 = 0x1d4f0bc7c7bbdcf9
)

func (h *tsHash) day(year, month, day uint64) tsDayPart {
	return tsDayPart{
		hi:  h.hi0 + mulFold64(h.w2s, year^secret56),
		y:   h.w2 + year,
		md:  mulFold64(month^secret64, day^secret72),
		mdx: month + day,
	}
}

// sum returns the digest of the frame of type code tc (0 TIMESTAMP, 1 TIMESTAMP_NS),
// the day dp, and the time of day hour, minute, second, fraction (words 6..9).
func (h *tsHash) sum(tc int, dp *tsDayPart, hour, minute, second, frac uint64) Digest {
	tc &= 1
	lo := (h.lo0[tc] ^ dp.y + dp.md) ^ (hour + minute)
	lo = (lo + mulFold64(second^secret96, frac^secret104)) ^ h.r3x
	hi := (dp.hi ^ h.x01[tc] + mulFold64(hour^secret80, minute^secret88)) ^ dp.mdx
	hi = (hi + h.r3hi) ^ (second + frac)
	lo, hi = avalanche(lo), avalanche(hi)
	lo = (lo + h.endLo) ^ h.endLoX
	hi = (hi + h.endHi) ^ h.endHiX
	return finishShort(lo, hi, h.l)
}
