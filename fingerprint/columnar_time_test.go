package fingerprint

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/normalize"
)

// tsUnits are the Arrow timestamp units as counts per second.
var tsUnits = []int64{1, 1_000, 1_000_000, 1_000_000_000}

// tsBounds returns the first and last count of unit perSecond whose instant lies in
// 0001-01-01T00:00 .. 9999-12-31T23:59:59.999999999, from the time package.
func tsBounds(perSecond int64) (lo, hi int64) {
	first := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	last := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix() // exclusive
	if perSecond == 1_000_000_000 {
		return math.MinInt64, math.MaxInt64 // int64 nanoseconds span 1677..2262
	}
	return first * perSecond, last*perSecond - 1
}

// randTimestamps returns n counts of unit perSecond in the C2 range: uniform over it,
// and a share of the values C2 treats specially (the range limits, the epoch and
// negative counts around it, leap days, the last instant of a day, counts with every
// digit of the fraction set).
func randTimestamps(r *rand.Rand, n int, perSecond int64) []int64 {
	lo, hi := tsBounds(perSecond)
	at := func(y, mo, d, h, mi, s, ns int) int64 {
		t := time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC)
		return t.Unix()*perSecond + int64(t.Nanosecond())/(1_000_000_000/perSecond)
	}
	special := []int64{
		0, -1, 1, -perSecond, perSecond - 1,
		at(2000, 2, 29, 12, 0, 0, 0), at(2024, 2, 29, 23, 59, 59, 999_999_999), at(1900, 2, 28, 23, 59, 59, 999_999_999),
		at(1600, 2, 29, 0, 0, 0, 1), at(1969, 12, 31, 23, 59, 59, 123_456_789), at(1970, 1, 1, 0, 0, 0, 1_000),
	}
	if perSecond != 1_000_000_000 {
		special = append(special, lo, lo+1, hi, hi-1, at(1, 1, 1, 0, 0, 0, 0), at(9999, 12, 31, 23, 59, 59, 999_999_999))
	} else {
		special = append(special, lo, lo+1, hi, hi-1, lo+999, hi-999)
	}
	vals := make([]int64, n)
	for i := range vals {
		switch r.IntN(4) {
		case 0:
			vals[i] = special[r.IntN(len(special))]
		case 1: // around the epoch, both signs
			vals[i] = r.Int64N(2_000_000_000*perSecond/1000+1) - 1_000_000_000*perSecond/1000
		default:
			if perSecond == 1_000_000_000 {
				vals[i] = int64(r.Uint64()) // every count is in range
			} else {
				vals[i] = lo + r.Int64N(hi-lo+1)
			}
		}
	}
	return vals
}

// clusteredTimestamps returns n ascending counts of unit perSecond a few hours apart at
// most, so that runs of values share a day and others cross midnight (the kernel's
// per-day cache), starting anywhere in the C2 range; nanosecond counts get sub-microsecond
// parts on some values and not on others.
func clusteredTimestamps(r *rand.Rand, n int, perSecond int64) []int64 {
	lo, hi := tsBounds(perSecond)
	step := 3 * 3600 * perSecond
	x := lo + int64(r.Uint64N(uint64(hi-lo)/2)) // hi-lo wraps for nanoseconds; as uint64 it is exact
	if r.IntN(2) == 0 {                         // around the epoch: negative days
		x = -r.Int64N(3 * 86400 * perSecond)
	}
	vals := make([]int64, n)
	for i := range vals {
		if x > hi-step { // stay in range
			x = hi - step
		}
		x += r.Int64N(step)
		if perSecond == 1_000_000_000 && r.IntN(2) == 0 {
			x -= x % 1000
		}
		vals[i] = x
	}
	return vals
}

// scalarTimestamp returns the C2 frame of count x of unit perSecond in field id, naive
// or UTC, from the time package's calendar and the scalar encoder under profile.
func scalarTimestamp(t *testing.T, id uint64, x, perSecond int64, utc bool, profile normalize.Profile) []uint64 {
	t.Helper()
	sec, sub := x/perSecond, x%perSecond
	if sub < 0 {
		sec, sub = sec-1, sub+perSecond
	}
	tm := time.Unix(sec, sub*(1_000_000_000/perSecond)).UTC()
	v := normalize.TimestampValue{
		Year: tm.Year(), Month: int(tm.Month()), Day: tm.Day(),
		Hour: tm.Hour(), Minute: tm.Minute(), Second: tm.Second(),
		Microsecond: tm.Nanosecond() / 1000, Nanosecond: tm.Nanosecond() % 1000,
	}
	if utc {
		v.Zone = normalize.FixedZone(0, "UTC")
	}
	code, words, err := normalize.EncodeValue(v, profile)
	if err != nil {
		t.Fatal(err)
	}
	return append([]uint64{id, uint64(code), uint64(len(words))}, words...)
}

// TestColumnarTimestamps checks the Timestamps kernel against the scalar C2 encoder on
// random counts of every unit, naive and UTC, with nulls, over the whole C2 range; the
// frames are the same under the strict and the logical profile.
func TestColumnarTimestamps(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 9))
	for _, mode := range []Mode{Multiset, Ordered} {
		c := v2Context(t, mode)
		k, err := NewColumnar(c, kernelFields)
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 40 {
			rows := r.IntN(400)
			tile := NewTile(rows, len(kernelFields))
			for _, unit := range tsUnits {
				for _, zone := range []TimestampZone{TimestampNaive, TimestampUTC} {
					vals := randTimestamps(r, rows, unit)
					if trial%3 == 0 {
						vals = clusteredTimestamps(r, rows, unit)
					}
					valid := randValidity(r, rows)
					profile := []normalize.Profile{normalize.StrictV1Ext1, normalize.LogicalV1Ext1}[trial%2]
					sum, inRange, err := Timestamps(k, tile, colTime, vals, unit, zone, valid)
					if !inRange && err == nil {
						t.Fatalf("unit %d zone %d: a value in range refused", unit, zone)
					}
					kernelCheck(t, "Timestamps", c, tile, colTime, rows, sum, err, func(i int) []uint64 {
						if !isValid(valid, i) {
							return frame(11, normalize.Null)
						}
						return scalarTimestamp(t, 11, vals[i], unit, zone == TimestampUTC, profile)
					})
				}
			}
		}
	}
}

// TestColumnarTimestampsRange checks that a valid count just outside the C2 range is
// refused (inRange false, as C2 refuses it) and that the same count in a null row is not
// looked at.
func TestColumnarTimestampsRange(t *testing.T) {
	c := v2Context(t, Multiset)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	tile := NewTile(3, len(kernelFields))
	for _, unit := range tsUnits[:3] {
		lo, hi := tsBounds(unit)
		for _, x := range []int64{lo - 1, hi + 1, math.MinInt64, math.MaxInt64} {
			vals := []int64{0, x, 5}
			if _, inRange, err := Timestamps(k, tile, colTime, vals, unit, TimestampNaive, Validity{}); err != nil || inRange {
				t.Errorf("unit %d value %d: inRange %v err %v, want a refusal", unit, x, inRange, err)
			}
			null := Validity{Bits: []byte{0b101}}
			sum, inRange, err := Timestamps(k, tile, colTime, vals, unit, TimestampUTC, null)
			kernelCheck(t, "Timestamps null out of range", c, tile, colTime, 3, sum, err, func(i int) []uint64 {
				if i == 1 {
					return frame(11, normalize.Null)
				}
				return scalarTimestamp(t, 11, vals[i], unit, true, normalize.StrictV1Ext1)
			})
			if !inRange {
				t.Errorf("unit %d: a null row's value refused", unit)
			}
		}
	}
	for name, err := range map[string]error{
		"unit":  third(Timestamps(k, tile, colTime, []int64{0}, 60, TimestampNaive, Validity{})),
		"zone":  third(Timestamps(k, tile, colTime, []int64{0}, 1, TimestampZone(2), Validity{})),
		"field": third(Timestamps(k, tile, colInt, []int64{0}, 1, TimestampNaive, Validity{})),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestTSHash checks the timestamp frame hash against XXH3-128 of the built message
// (zeebo/xxh3 over K_F ‖ frame, refField) for every frame length it serves and both type
// codes, with every word random or at a limit (not only civil times: the hash does not
// depend on what the words mean), and the secret words it names against the default
// secret.
func TestTSHash(t *testing.T) {
	for off, w := range map[int]uint64{56: secret56, 64: secret64, 72: secret72, 80: secret80, 88: secret88, 96: secret96, 104: secret104} {
		if w != sw[off] {
			t.Fatalf("secret%d = %#x, default secret %#x", off, w, sw[off])
		}
	}
	r := rand.New(rand.NewPCG(21, 11))
	edge := []uint64{0, 1, 2, 12, 1 << 63, math.MaxUint64, math.MaxUint64 - 1, 1<<32 - 1, 1 << 32}
	word := func() uint64 {
		if r.IntN(3) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Uint64()
	}
	for _, c := range []Context{v2Context(t, Multiset), v2Context(t, Ordered)} {
		keys := newV2Keys(c)
		for n := tsMinFrame; n < tsMaxFrame; n++ {
			for range 3000 {
				fr := make([]uint64, n)
				for i := range fr {
					fr[i] = word()
				}
				h := newTSHash(&keys.sField, fr)
				tc := r.IntN(2)
				fr[1] = []uint64{uint64(normalize.Timestamp), uint64(normalize.TimestampNS)}[tc]
				dp := h.day(fr[3], fr[4], fr[5])
				if got, want := h.sum(tc, &dp, fr[6], fr[7], fr[8], fr[9]), refField(c, fr); got != want {
					t.Fatalf("frame %v: %x, XXH3-128 %x", fr, got, want)
				}
			}
		}
		for _, n := range []int{tsMinFrame - 1, tsMaxFrame} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("newTSHash accepted a frame of %d words", n)
					}
				}()
				newTSHash(&keys.sField, make([]uint64, n))
			}()
		}
	}
}

// FuzzTimestamps: the Timestamps kernel on three arbitrary counts of any unit, naive or
// UTC, some rows null, gives exactly XXH3-128 (zeebo/xxh3) of the frame the time package
// and the scalar C2 encoder make of each value, and refuses the column exactly when a
// valid count lies outside years 1..9999.
func FuzzTimestamps(f *testing.F) {
	for _, unit := range tsUnits {
		lo, hi := tsBounds(unit)
		f.Add(lo, hi, int64(0), uint8(len(f.Name())%4), false, uint8(0))
		f.Add(lo-1, hi+1, int64(-1), uint8(0), true, uint8(3))
		f.Add(int64(951_782_400)*unit, int64(-unit), unit-1, uint8(0), true, uint8(0)) // 2000-02-29
	}
	f.Add(int64(-1), int64(1), int64(1_000), uint8(3), false, uint8(0))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int64(-999), uint8(3), true, uint8(2))
	c := v2Context(f, Multiset)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		f.Fatal(err)
	}
	tile := NewTile(3, len(kernelFields))
	f.Fuzz(func(t *testing.T, a, b, x int64, unitIx uint8, utc bool, nulls uint8) {
		unit := tsUnits[unitIx%4]
		vals := []int64{a, b, x}
		valid := Validity{Bits: []byte{^nulls}}
		zone := TimestampNaive
		if utc {
			zone = TimestampUTC
		}
		sum, inRange, err := Timestamps(k, tile, colTime, vals, unit, zone, valid)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := tsBounds(unit)
		out := false
		for i, v := range vals {
			out = out || isValid(valid, i) && (v < lo || v > hi)
		}
		if inRange == out {
			t.Fatalf("values %v unit %d nulls %b: inRange %v", vals, unit, nulls, inRange)
		}
		if !inRange {
			return
		}
		var want Digest
		for i, v := range vals {
			fr := frame(kernelFields[colTime], normalize.Null)
			if isValid(valid, i) {
				fr = scalarTimestamp(t, kernelFields[colTime], v, unit, utc, normalize.StrictV1Ext1)
			}
			d := refField(c, fr)
			if got := tile.Digests[i*tile.Cols+colTime]; got != d {
				t.Fatalf("value %d unit %d: %x, XXH3-128 of %v %x", v, unit, got, fr, d)
			}
			want.Lo += d.Lo
			want.Hi += d.Hi
		}
		if sum != want {
			t.Fatalf("sum %x, want %x", sum, want)
		}
	})
}

func third[A, B any](_ A, _ B, err error) error { return err }
