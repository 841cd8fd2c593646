package scan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

// tsPerSecond returns an Arrow timestamp unit as counts per second.
func tsPerSecond(u arrow.TimeUnit) int64 {
	return map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[u]
}

// randTimestamp returns a count of unit perSecond whose instant lies in C2's range,
// 0001-01-01 .. 9999-12-31 (from the time package): uniform over it, or one of its
// limits, a leap day, a count around the epoch (both signs), a count with a fraction in
// every digit. With margin it stays two days inside the limits, so that a zone's offset
// cannot move the wall time out of them.
func randTimestamp(r *rand.Rand, perSecond int64, margin bool) int64 {
	lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix() * perSecond
	hi := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()*perSecond - 1
	if perSecond == 1e9 {
		lo, hi = math.MinInt64, math.MaxInt64 // int64 nanoseconds span 1677..2262
	}
	if margin && perSecond != 1e9 { // nanoseconds are years from any limit
		lo, hi = lo+2*86400*perSecond, hi-2*86400*perSecond
	}
	at := func(tm time.Time) int64 {
		return tm.Unix()*perSecond + int64(tm.Nanosecond())/(1e9/perSecond)
	}
	switch r.IntN(6) {
	case 0:
		return []int64{lo, hi, lo + 1, hi - 1}[r.IntN(4)]
	case 1:
		return at(time.Date([]int{1600, 1904, 2000, 2024}[r.IntN(4)], 2, 29, r.IntN(24), 59, 59, 999_999_999, time.UTC))
	case 2:
		return r.Int64N(2e6*perSecond+1) - 1e6*perSecond
	case 3:
		return at(time.Date(1969, 12, 31, 23, 59, 59, 123_456_789, time.UTC))
	}
	if perSecond == 1e9 {
		return int64(r.Uint64())
	}
	return lo + r.Int64N(hi-lo+1)
}

// tsSchema returns timestamp columns of every unit and zone the direct path takes
// (naive, "UTC", "+00:00", "-00:00"; nanoseconds under extension profiles only) and of
// zones it leaves to the rest encoder (IANA, Etc/UTC, fixed offsets), with the kinds
// they are planned as, and an int64 column.
func tsSchema(ext bool) (*arrow.Schema, []directKind) {
	ts := func(u arrow.TimeUnit, tz string) *arrow.TimestampType {
		return &arrow.TimestampType{Unit: u, TimeZone: tz}
	}
	fields := []arrow.Field{
		{Name: "s", Type: ts(arrow.Second, "")},
		{Name: "ms", Type: ts(arrow.Millisecond, "")},
		{Name: "us", Type: ts(arrow.Microsecond, "")},
		{Name: "s_utc", Type: ts(arrow.Second, "UTC")},
		{Name: "ms_plus0", Type: ts(arrow.Millisecond, "+00:00")},
		{Name: "us_minus0", Type: ts(arrow.Microsecond, "-00:00")},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "us_berlin", Type: ts(arrow.Microsecond, "Europe/Berlin")},
		{Name: "ms_etc", Type: ts(arrow.Millisecond, "Etc/UTC")},
		{Name: "s_fixed", Type: ts(arrow.Second, "+05:30")},
	}
	kinds := []directKind{dTimestamp, dTimestamp, dTimestamp, dTimestamp, dTimestamp, dTimestamp, dInt64, dRest, dRest, dRest}
	if ext {
		fields = append(fields,
			arrow.Field{Name: "ns", Type: ts(arrow.Nanosecond, "")},
			arrow.Field{Name: "ns_utc", Type: ts(arrow.Nanosecond, "UTC")},
			arrow.Field{Name: "ns_tokyo", Type: ts(arrow.Nanosecond, "Asia/Tokyo")})
		kinds = append(kinds, dTimestamp, dTimestamp, dRest)
	}
	for i := range fields {
		fields[i].Nullable = true
	}
	return arrow.NewSchema(fields, nil), kinds
}

// randTSBatch returns n random rows of schema (about one value in five null), then a
// slice of it from a random row on (arrays with offsets).
func randTSBatch(r *rand.Rand, mem memory.Allocator, schema *arrow.Schema, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for range n {
		for _, f := range b.Fields() {
			if r.IntN(5) == 0 {
				f.AppendNull()
				continue
			}
			switch fb := f.(type) {
			case *array.Int64Builder:
				fb.Append(int64(r.Uint64()))
			case *array.TimestampBuilder:
				ts := fb.Type().(*arrow.TimestampType)
				fb.Append(arrow.Timestamp(randTimestamp(r, tsPerSecond(ts.Unit), ts.TimeZone != "" && ts.TimeZone != "UTC")))
			}
		}
	}
	rec := b.NewRecordBatch()
	if n < 2 {
		return rec
	}
	defer rec.Release()
	return rec.NewSlice(int64(r.IntN(n/2)), int64(n))
}

// TestDirectTimestamps: naive and UTC timestamp columns of every unit are planned for
// the Timestamps kernel, other zones for the rest encoder, and random batches over the
// whole C2 range (limits, leap days, both sides of the epoch, nulls, slices) digest as
// the engine digests the encoder's C2 records, under every profile.
func TestDirectTimestamps(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 21))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	profiles := []normalize.Profile{normalize.StrictV1, normalize.LogicalV1, normalize.StrictV1Ext1, normalize.LogicalV1Ext1}
	for round := range 24 {
		profile := profiles[round%len(profiles)]
		schema, kinds := tsSchema(profile.Extended())
		ids := make([]uint64, schema.NumFields())
		for i := range ids {
			ids[i] = uint64(i + 1)
		}
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		d, err := newDirect(directContext(t, schema, ids, profile), schema, ids, profile)
		if err != nil || d == nil {
			t.Fatalf("newDirect: %v %v", d, err)
		}
		for _, c := range d.cols {
			if c.kind != kinds[c.arrow] {
				t.Fatalf("%s: column %s planned as %d, want %d", profile.Name(), schema.Field(c.arrow).Name, c.kind, kinds[c.arrow])
			}
		}
		rec := randTSBatch(r, mem, schema, r.IntN(400))
		what := fmt.Sprintf("round %d (%s, %d rows)", round, profile.Name(), rec.NumRows())
		ok := checkDirect(t, what, schema, ids, profile, rec)
		rec.Release()
		if !ok {
			t.Fatalf("%s: the direct path refused a batch in range", what)
		}
	}
}

// TestDirectTimestampOutOfRange: a batch with a naive or UTC timestamp outside years
// 1..9999 goes to the general path, whose encoder refuses it as C2 does; the same
// count in a null row does not matter.
func TestDirectTimestampOutOfRange(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tz := range []string{"", "UTC"} {
		for _, unit := range []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond} {
			typ := &arrow.TimestampType{Unit: unit, TimeZone: tz}
			schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: typ, Nullable: true}}, nil)
			perSecond := tsPerSecond(unit)
			first := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix() * perSecond
			end := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix() * perSecond
			for _, x := range []int64{first - 1, end, math.MinInt64, math.MaxInt64} {
				what := fmt.Sprintf("%s %q %d", unit, tz, x)
				for _, null := range []bool{false, true} {
					b := array.NewTimestampBuilder(mem, typ)
					b.Append(0)
					if null {
						b.AppendValues([]arrow.Timestamp{arrow.Timestamp(x)}, []bool{false})
					} else {
						b.Append(arrow.Timestamp(x))
					}
					arr := b.NewArray()
					b.Release()
					rec := array.NewRecordBatch(schema, []arrow.Array{arr}, 2)
					arr.Release()
					ok := checkDirect(t, what, schema, []uint64{1}, normalize.StrictV1, rec)
					if ok != null {
						t.Errorf("%s (null %v): direct path took it: %v", what, null, ok)
					}
					if !null {
						enc, err := columnar.NewEncoder(schema, []columnar.Column{{Index: 0, Field: 1, Treatment: columnar.Encode}}, normalize.StrictV1)
						if err != nil {
							t.Fatal(err)
						}
						if err := enc.Append(&normalize.RecordBatch{ProfileID: normalize.StrictV1.ID()}, rec); err == nil {
							t.Errorf("%s: the encoder takes it", what)
						}
					}
					rec.Release()
				}
			}
		}
	}
}
