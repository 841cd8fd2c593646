package normalize_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/normalize"
)

// FuzzExtValues: the extension scalar encoders never panic, reject exactly the
// calendar-invalid fields, and agree with independent computations (the time package
// for dates, plain arithmetic for times, math/big for durations).
func FuzzExtValues(f *testing.F) {
	f.Add(1970, 1, 1, 0, 0, 0, 0, int64(0), uint8(0))
	f.Add(2024, 2, 29, 23, 59, 59, 999999999, int64(-1), uint8(3))
	f.Add(2023, 2, 29, 24, 0, 60, 1000000000, int64(-9223372036854775808), uint8(4))
	f.Add(0, 13, 32, -1, -1, -1, -1, int64(9223372036854775807), uint8(255))
	f.Fuzz(func(t *testing.T, y, mo, d, h, mi, s, ns int, dur int64, unit uint8) {
		p := normalize.StrictV1Ext1
		tc, w, err := normalize.EncodeValue(normalize.DateValue{Year: y, Month: mo, Day: d}, p)
		tm := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		valid := y >= 1 && y <= 9999 && mo >= 1 && mo <= 12 && tm.Year() == y && int(tm.Month()) == mo && tm.Day() == d
		switch {
		case valid && (err != nil || tc != normalize.Date || len(w) != 1 || int64(w[0]) != tm.Unix()/86400):
			t.Fatalf("date %d-%d-%d: %v %v %v", y, mo, d, tc, w, err)
		case !valid && normalize.CodeOf(err) != normalize.CodeInput:
			t.Fatalf("invalid date %d-%d-%d: %v", y, mo, d, err)
		}

		tc, w, err = normalize.EncodeValue(normalize.TimeValue{Hour: h, Minute: mi, Second: s, Nanosecond: ns}, p)
		valid = h >= 0 && h < 24 && mi >= 0 && mi < 60 && s >= 0 && s < 60 && ns >= 0 && ns < 1e9
		switch {
		case valid && (err != nil || tc != normalize.Time || len(w) != 1 || w[0] != uint64(h*3600+mi*60+s)*1e9+uint64(ns)):
			t.Fatalf("time %d:%d:%d.%d: %v %v %v", h, mi, s, ns, tc, w, err)
		case !valid && normalize.CodeOf(err) != normalize.CodeInput:
			t.Fatalf("invalid time %d:%d:%d.%d: %v", h, mi, s, ns, err)
		}

		tc, w, err = normalize.EncodeValue(normalize.DurationValue{Value: dur, Unit: normalize.TimeUnit(unit)}, p)
		if unit > 3 {
			if normalize.CodeOf(err) != normalize.CodeInput {
				t.Fatalf("unit %d: %v", unit, err)
			}
			return
		}
		want := new(big.Int).Mul(big.NewInt(dur), big.NewInt([]int64{1e9, 1e6, 1e3, 1}[unit]))
		want.Mod(want, new(big.Int).Lsh(big.NewInt(1), 128))
		got := new(big.Int).Lsh(new(big.Int).SetUint64(w[1]), 64)
		got.Or(got, new(big.Int).SetUint64(w[0]))
		if err != nil || tc != normalize.Duration || len(w) != 2 || got.Cmp(want) != 0 {
			t.Fatalf("duration %d unit %d: %v %v %v", dur, unit, tc, w, err)
		}
		// v1 profiles reject every extension value.
		if _, _, err := normalize.EncodeValue(normalize.DurationValue{Value: dur}, normalize.LogicalV1); normalize.CodeOf(err) != normalize.CodeUnsupported {
			t.Fatalf("logical-v1 accepted a duration: %v", err)
		}
	})
}

// FuzzNestedValue: NESTED packs exactly the given bytes (checked by unpacking) and
// rejects exactly a missing GFS1 magic or a value not starting with presence 01.
func FuzzNestedValue(f *testing.F) {
	f.Add([]byte("GFS1\x00\x00\x00\x01"), []byte{1, 0, 0})
	f.Add([]byte("GFS"), []byte{1})
	f.Add([]byte("GFS1"), []byte{})
	f.Add([]byte("GFS1"), []byte{0})
	f.Fuzz(func(t *testing.T, typ, val []byte) {
		if len(typ)+len(val) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		tc, w, err := normalize.EncodeValue(normalize.NestedValue{Type: typ, Value: val}, normalize.LogicalV1Ext1)
		valid := len(typ) >= 4 && string(typ[:4]) == "GFS1" && len(val) > 0 && val[0] == 1
		if !valid {
			if normalize.CodeOf(err) != normalize.CodeInput {
				t.Fatalf("%x %x: %v", typ, val, err)
			}
			return
		}
		if err != nil || tc != normalize.Nested {
			t.Fatalf("%x %x: %v %v", typ, val, tc, err)
		}
		unpack := func(w []uint64) ([]byte, []uint64) {
			n := int(w[0])
			b := make([]byte, 0, n)
			for i := 0; i < n; i++ {
				b = append(b, byte(w[1+i/8]>>(8*(i%8))))
			}
			return b, w[1+(n+7)/8:]
		}
		gt, rest := unpack(w)
		gv, rest := unpack(rest)
		if string(gt) != string(typ) || string(gv) != string(val) || len(rest) != 0 {
			t.Fatalf("%x %x: words %v", typ, val, w)
		}
		rec := append([]uint64{1, 2, 1, 0, uint64(tc), uint64(len(w))}, w...)
		if err := normalize.ValidateRecordWordsIn(rec, normalize.StrictV1Ext1); err != nil {
			t.Fatalf("does not validate: %v", err)
		}
	})
}
