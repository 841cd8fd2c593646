package c2text_test

import (
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
)

func TestValue(t *testing.T) {
	for _, c := range []struct {
		tc   normalize.TypeCode
		p    []uint64
		want string
	}{
		{normalize.Null, nil, "null"},
		{normalize.Bool, []uint64{1}, "true"},
		{normalize.Int64, []uint64{^uint64(41)}, "-42"},
		{normalize.Uint64, []uint64{18446744073709551615}, "18446744073709551615"},
		{normalize.Float64, []uint64{0x3ff8000000000000}, "1.5"},
		{normalize.Text, []uint64{9, 0x6867666564636261, 0x69}, `"abcdefghi"`},
		{normalize.Bytes, []uint64{2, 0x0b0a}, "0x0a0b"},
		// DECIMAL [sign, kind, exp_sign, exp_mag, digits, words, coef]: 84.19, -0.05, 1E+3, -Infinity.
		{normalize.Decimal, []uint64{0, 0, 1, 2, 4, 1, 8419}, "84.19"},
		{normalize.Decimal, []uint64{1, 0, 1, 2, 1, 1, 5}, "-0.05"},
		{normalize.Decimal, []uint64{0, 0, 0, 3, 1, 1, 1}, "1E+3"},
		{normalize.Decimal, []uint64{1, 1, 0, 0, 1, 1, 0}, "-Infinity"},
		// TIMESTAMP [y, mo, d, h, mi, s, us, fold, tz_kind, offset_us, name_len, name...]
		{normalize.Timestamp, []uint64{2026, 11, 1, 8, 37, 0, 0, 0, 0, 0, 0}, "2026-11-01 08:37:00"},
		{normalize.Timestamp, []uint64{2026, 11, 1, 8, 37, 0, 5, 0, 1, 5400e6, 9, 0x333a31302b435455, 0x30}, "2026-11-01 08:37:00.000005+01:30"},
		{normalize.Text, []uint64{9, 1}, "?"}, // malformed payload renders, never panics
	} {
		if got := c2text.Value(c.tc, c.p); got != c.want {
			t.Errorf("Value(%v, %v) = %q, want %q", c.tc, c.p, got, c.want)
		}
	}
}

// TestRecordShort: long texts are cut with "…" (before quoting, so an escape is
// never split), numbers never; fields that do not fit are counted; chosen fields come
// first; short records are Record's.
func TestRecordShort(t *testing.T) {
	names := map[uint64]string{1: "a", 2: "name", 3: "note", 4: "z"}
	name := func(id uint64) string { return names[id] }
	rec := func(fields ...normalize.Field) []uint64 {
		r, err := normalize.EncodeRecord(fields, normalize.StrictV1)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	short := rec(normalize.Field{ID: 1, Value: normalize.Int(7)}, normalize.Field{ID: 2, Value: normalize.TextValue("x")})
	long := rec(
		normalize.Field{ID: 1, Value: normalize.Int(-1234567890123)},
		normalize.Field{ID: 2, Value: normalize.TextValue("BARKSDALE AIR FORCE BASE ARPT")},
		normalize.Field{ID: 3, Value: normalize.TextValue("tab\there and more")},
		normalize.Field{ID: 4, Value: normalize.TextValue("zzz")},
	)
	for _, c := range []struct {
		rec          []uint64
		width, value int
		want         string
	}{
		{short, 80, 20, c2text.Record(short, name)},
		{short, 80, 20, `a=7 name="x"`},
		{long, 200, 10, `a=-1234567890123 name="BARKSDALE…" note="tab\there …" z="zzz"`},
		{long, 34, 10, `a=-1234567890123 name="BARKSDALE…" … +2 fields`},
		{long, 5, 10, `a=-1234567890123 … +3 fields`}, // the first field always shows; numbers are never cut
		{rec(normalize.Field{ID: 1, Value: normalize.BytesValue{1, 2, 3, 4, 5, 6, 7, 8}}), 80, 10, `a=0x0102030…`},
		{[]uint64{1, 2, 1}, 80, 20, "?"},
	} {
		if got := c2text.RecordShort(c.rec, name, nil, c.width, c.value); got != c.want {
			t.Errorf("RecordShort(width %d, value %d) = %s, want %s", c.width, c.value, got, c.want)
		}
	}
	// Fields first accepts come first, then the others, each in id order.
	first := func(id uint64) bool { return id == 4 || id == 3 }
	if got, want := c2text.RecordShort(long, name, first, 40, 10), `note="tab\there …" z="zzz" … +2 fields`; got != want {
		t.Errorf("first 3, 4: %s, want %s", got, want)
	}
}
