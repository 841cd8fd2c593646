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
// second; [id, NULL, 0] where valid marks the row null. Each frame is built in registers
// and hashed where it lies, with no C2 word buffer. It returns their sums, and inRange
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
	frame := fr[:n]
	// Bounds on the raw value outside which the wall time leaves years 1..9999; every
	// int64 count of nanoseconds is inside them.
	xLo, xHi := int64(-1<<63), int64(1<<63-1)
	if factor != 0 {
		xLo, xHi = -(-tsMinUS / factor), tsMaxUS/factor
	}
	out := tileColumn(t, col)
	day, y, m, d := int64(0), int64(1970), int64(1), int64(1)
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
		var us, subNS int64
		if factor == 0 {
			us = x / 1000
			if x%1000 < 0 {
				us--
			}
			subNS = x - us*1000
		} else {
			us = x * factor
		}
		days := us / 86_400_000_000
		rem := us % 86_400_000_000
		if rem < 0 {
			days--
			rem += 86_400_000_000
		}
		if days != day {
			y, m, d = civil.FromDays(days)
			day = days
		}
		sec := rem / 1_000_000
		frac := uint64(rem % 1_000_000)
		tc := uint64(normalize.Timestamp)
		if subNS != 0 {
			frac, tc = frac*1000+uint64(subNS), uint64(normalize.TimestampNS)
		}
		frame[1] = tc
		frame[3], frame[4], frame[5] = uint64(y), uint64(m), uint64(d)
		frame[6], frame[7], frame[8], frame[9] = uint64(sec/3600), uint64(sec/60%60), uint64(sec%60), frac
		dg := k.keys.sField.sum(frame)
		out[r*t.Cols] = dg
		sum.Lo += dg.Lo
		sum.Hi += dg.Hi
	}
	return sum, true, nil
}
