package normalize

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func mustEncode(t *testing.T, v Value, p Profile) (TypeCode, []uint64) {
	t.Helper()
	tc, w, err := EncodeValue(v, p)
	if err != nil {
		t.Fatalf("%#v: %v", v, err)
	}
	return tc, w
}

func TestIntBoundaries(t *testing.T) {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	cases := []struct {
		v    IntValue
		tc   TypeCode
		word uint64
		code Code
	}{
		{Int(0), Uint64, 0, ""},
		{Int(-1), Int64, math.MaxUint64, ""},
		{Int(math.MinInt64), Int64, 1 << 63, ""},
		{Int(math.MaxInt64), Uint64, math.MaxInt64, ""},
		{Uint(math.MaxUint64), Uint64, math.MaxUint64, ""},
		{IntValue{}, Uint64, 0, ""},
		{BigInt(big.NewInt(-5)), Int64, math.MaxUint64 - 4, ""},
		{BigInt(new(big.Int).Sub(two64, big.NewInt(1))), Uint64, math.MaxUint64, ""},
		{BigInt(two64), 0, 0, CodeIntRange},
		{BigInt(new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1))), 0, 0, CodeIntRange},
		{BigInt(new(big.Int).Neg(two64)), 0, 0, CodeIntRange},
	}
	for i, c := range cases {
		for _, p := range []Profile{StrictV1, LogicalV1} {
			tc, w, err := EncodeValue(c.v, p)
			if c.code != "" {
				if CodeOf(err) != c.code {
					t.Errorf("case %d: got %v, want %s", i, err, c.code)
				}
				continue
			}
			if err != nil || tc != c.tc || !slices.Equal(w, []uint64{c.word}) {
				t.Errorf("case %d %s: got %s %v %v, want %s [%d]", i, p, tc, w, err, c.tc, c.word)
			}
		}
	}
	// BigInt copies its argument.
	x := big.NewInt(0).Lsh(big.NewInt(1), 70)
	v := BigInt(x)
	x.SetInt64(1)
	if v.Big().Cmp(big.NewInt(1)) == 0 {
		t.Error("BigInt aliases its argument")
	}
}

func TestEncodeValueOwnership(t *testing.T) {
	_, a, _ := EncodeValue(TextValue("hello"), StrictV1)
	_, b, _ := EncodeValue(TextValue("hello"), StrictV1)
	a[0] = 99
	if b[0] != 5 {
		t.Fatal("EncodeValue results share storage")
	}
	if _, w, _ := EncodeValue(Absent, StrictV1); w == nil || len(w) != 0 {
		t.Fatalf("MISSING payload %v, want empty non-nil", w)
	}
}

func TestAppendLeavesDstOnError(t *testing.T) {
	dst := []uint64{7, 8, 9}
	tc, out, err := AppendValue(dst, TextValue("\xed\xa0\x80"), StrictV1)
	if CodeOf(err) != CodeUTF8 || tc != 0 || len(out) != 3 || &out[0] != &dst[0] {
		t.Fatalf("got %v %v %v", tc, out, err)
	}
	rec, err := AppendRecord(dst, []Field{{1, Nil}, {2, DecimalValue{Digits: "x"}}}, StrictV1)
	if CodeOf(err) != CodeDecimal || !slices.Equal(rec, []uint64{7, 8, 9}) {
		t.Fatalf("got %v %v", rec, err)
	}
	// A successful append keeps the prefix.
	_, out, _ = AppendValue(dst, BoolValue(true), StrictV1)
	if !slices.Equal(out, []uint64{7, 8, 9, 1}) {
		t.Fatalf("append: %v", out)
	}
}

func TestUnsupportedValue(t *testing.T) {
	if _, _, err := EncodeValue(nil, StrictV1); CodeOf(err) != CodeUnsupported {
		t.Errorf("nil Value: %v", err)
	}
	var tp *TimestampValue
	if _, _, err := EncodeValue(tp, StrictV1); CodeOf(err) != CodeUnsupported {
		t.Errorf("nil *TimestampValue: %v", err)
	}
	b := BoolValue(true)
	for _, v := range []Value{&TimestampValue{Year: 2000, Month: 1, Day: 1}, &b, &DecimalValue{Digits: "1"}} {
		if _, _, err := EncodeValue(v, StrictV1); CodeOf(err) != CodeUnsupported {
			t.Errorf("%T: %v", v, err)
		}
	}
}

// TestTypedAppend: the typed append functions write exactly what AppendValue writes.
func TestTypedAppend(t *testing.T) {
	prefix := []uint64{5}
	ts := TimestampValue{Year: 2021, Month: 3, Day: 28, Hour: 2, Minute: 30, Fold: 1, Zone: IANAZone("Europe/Berlin")}
	d := DecimalValue{Digits: "12300", ExponentNegative: true, ExponentMagnitude: 2}
	for _, p := range []Profile{StrictV1, LogicalV1} {
		check := func(name string, v Value, got []uint64, err error) {
			t.Helper()
			_, want, werr := AppendValue(slices.Clone(prefix), v, p)
			if err != nil || werr != nil || !slices.Equal(got, want) {
				t.Errorf("%s %s: %v %v, want %v %v", p, name, got, err, want, werr)
			}
		}
		got, err := AppendText(slices.Clone(prefix), "e\u0301", p)
		check("text", TextValue("e\u0301"), got, err)
		check("bytes", BytesValue("123456789"), AppendBytes(slices.Clone(prefix), []byte("123456789")), nil)
		check("float", FloatValue{1 << 63}, AppendFloat64(slices.Clone(prefix), 1<<63, p), nil)
		got, err = AppendDecimal(slices.Clone(prefix), &d, p)
		check("decimal", d, got, err)
		got, err = AppendTimestamp(slices.Clone(prefix), &ts, p)
		check("timestamp", ts, got, err)
	}
	if out, err := AppendText(prefix, "\xff", StrictV1); CodeOf(err) != CodeUTF8 || len(out) != 1 {
		t.Errorf("AppendText error: %v %v", out, err)
	}
	if out, err := AppendDecimal(prefix, &DecimalValue{}, StrictV1); CodeOf(err) != CodeDecimal || len(out) != 1 {
		t.Errorf("AppendDecimal error: %v %v", out, err)
	}
	bad := ts
	bad.Nanosecond = 5
	if out, err := AppendTimestamp(prefix, &bad, StrictV1); CodeOf(err) != CodePrecision || len(out) != 1 {
		t.Errorf("AppendTimestamp error: %v %v", out, err)
	}
	if out, err := AppendTimestamp(prefix, &ts, Profile(9)); CodeOf(err) != CodeInput || len(out) != 1 {
		t.Errorf("invalid profile: %v %v", out, err)
	}
	dst := make([]uint64, 0, 32)
	if n := testing.AllocsPerRun(50, func() { _, _ = AppendTimestamp(dst, &ts, LogicalV1) }); n != 0 {
		t.Errorf("AppendTimestamp: %v allocations", n)
	}
}

// TestFloatProfiles checks the logical-v1 float rule against its definition over many
// bit patterns: zeros to +0, NaNs to 0x7ff8000000000000, all else bit-exact; strict-v1
// is always the identity.
func TestFloatProfiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	specials := []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
		0x7ff0000000000001, 0xffffffffffffffff, 0x7fffffffffffffff, 1, 0x000fffffffffffff}
	for i := 0; i < 20000; i++ {
		var b uint64
		if i < len(specials) {
			b = specials[i]
		} else if i%2 == 0 {
			b = r.Uint64() | 0x7ff0000000000000 // force the NaN/inf exponent half the time
		} else {
			b = r.Uint64()
		}
		f := math.Float64frombits(b)
		want := b
		switch {
		case f == 0:
			want = 0
		case math.IsNaN(f):
			want = 0x7ff8000000000000
		}
		_, w := mustEncode(t, FloatValue{b}, LogicalV1)
		if w[0] != want {
			t.Fatalf("logical %016x -> %016x, want %016x", b, w[0], want)
		}
		_, w = mustEncode(t, FloatValue{b}, StrictV1)
		if w[0] != b {
			t.Fatalf("strict %016x -> %016x", b, w[0])
		}
	}
	if Float(math.Copysign(0, -1)).Bits != 1<<63 || Float(math.Inf(-1)).Bits != 0xfff0000000000000 {
		t.Error("Float does not keep the bit pattern")
	}
}

// TestTextProperties: packing round-trips; logical-v1 of s is strict-v1 of NFC(s);
// strict-v1 preserves every valid string; invalid UTF-8 always fails.
func TestTextProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "é", "e\u0301", "\u1e9b\u0323", "한", "\u1100\u1161", "😀", " ", "A", "\u212b", "\x00", "ﬁ"}
	for i := 0; i < 3000; i++ {
		var sb strings.Builder
		for n := r.IntN(12); n > 0; n-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		_, strict := mustEncode(t, TextValue(s), StrictV1)
		if got := unpack(strict); got != s {
			t.Fatalf("strict %q round-trips to %q", s, got)
		}
		_, logical := mustEncode(t, TextValue(s), LogicalV1)
		_, want := mustEncode(t, TextValue(norm.NFC.String(s)), StrictV1)
		if !slices.Equal(logical, want) {
			t.Fatalf("logical %q != strict NFC", s)
		}
		b := []byte(s)
		if len(b) > 0 {
			b[r.IntN(len(b))] = byte(0x80 + r.IntN(0x80))
			if !utf8.Valid(b) {
				if _, _, err := EncodeValue(TextValue(b), LogicalV1); CodeOf(err) != CodeUTF8 {
					t.Fatalf("invalid %x: %v", b, err)
				}
			}
			// Bytes never fail and never normalize.
			_, wb := mustEncode(t, BytesValue(b), LogicalV1)
			if unpack(wb) != string(b) {
				t.Fatalf("bytes %x", b)
			}
		}
	}
}

// unpack is an independent reading of [byte_count, little-endian words...].
func unpack(w []uint64) string {
	n := int(w[0])
	if len(w)-1 != (n+7)/8 {
		return "<bad word count>"
	}
	b := make([]byte, 0, 8*(len(w)-1))
	for _, x := range w[1:] {
		for i := 0; i < 8; i++ {
			b = append(b, byte(x>>(8*i)))
		}
	}
	for _, c := range b[n:] {
		if c != 0 {
			return "<nonzero padding>"
		}
	}
	return string(b[:n])
}

// TestCoefficientProperty compares the in-place base-2**64 conversion with math/big.
func TestCoefficientProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 3000; i++ {
		n := 1 + r.IntN(120)
		d := make([]byte, n)
		d[0] = byte('1' + r.IntN(9))
		for j := 1; j < n; j++ {
			d[j] = byte('0' + r.IntN(10))
		}
		if i%10 == 0 {
			for j := max(1, n/2); j < n; j++ {
				d[j] = '0'
			}
		}
		w := appendCoefficient([]uint64{42}, string(d))
		x, _ := new(big.Int).SetString(string(d), 10)
		var want []uint64
		for x.Sign() > 0 {
			want = append(want, new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64())
			x.Rsh(x, 64)
		}
		if w[0] != 42 || w[1] != uint64(len(want)) || !slices.Equal(w[2:], want) {
			t.Fatalf("%s: got %v want %v", d, w[1:], want)
		}
	}
	if w := appendCoefficient(nil, ""); !slices.Equal(w, []uint64{1, 0}) {
		t.Fatalf("zero coefficient %v", w)
	}
}

func TestDecimalModel(t *testing.T) {
	cases := []struct {
		d     DecimalValue
		p     Profile
		words []uint64
		code  Code
	}{
		{DecimalValue{Digits: "00120"}, StrictV1, []uint64{0, 0, 0, 0, 3, 1, 120}, ""}, // leading zeros dropped
		{DecimalValue{Digits: "000"}, StrictV1, []uint64{0, 0, 0, 0, 1, 1, 0}, ""},
		{DecimalValue{Digits: "5", ExponentNegative: true}, StrictV1, []uint64{0, 0, 0, 0, 1, 1, 5}, ""}, // -0 exponent is 0
		{DecimalValue{}, StrictV1, nil, CodeDecimal},                                                     // finite needs a digit
		{DecimalValue{Digits: "1a"}, StrictV1, nil, CodeDecimal},
		{DecimalValue{Form: 4}, StrictV1, nil, CodeDecimal},
		{DecimalValue{Form: DecimalInfinity, Digits: "7"}, StrictV1, nil, CodeDecimal},
		{DecimalValue{Form: DecimalInfinity, Digits: "00"}, StrictV1, []uint64{0, 1, 0, 0, 1, 1, 0}, ""},
		{DecimalValue{Form: DecimalNaN, ExponentMagnitude: 1}, StrictV1, nil, CodeDecimal},
		{DecimalValue{Form: DecimalSNaN, Negative: true, Digits: "0012"}, StrictV1, []uint64{1, 3, 0, 0, 2, 1, 12}, ""},
		{DecimalValue{Digits: "500", ExponentNegative: true, ExponentMagnitude: 1}, LogicalV1, []uint64{0, 0, 0, 1, 1, 1, 5}, ""}, // 50.0 -> 5E+1
		{DecimalValue{Digits: "500", ExponentNegative: true, ExponentMagnitude: 2}, LogicalV1, []uint64{0, 0, 0, 0, 1, 1, 5}, ""}, // 5.00 -> 5
		{DecimalValue{Digits: "1", ExponentBig: big.NewInt(3)}, StrictV1, []uint64{0, 0, 0, 3, 1, 1, 1}, ""},
		{DecimalValue{Form: DecimalNaN, ExponentBig: big.NewInt(3)}, StrictV1, nil, CodeDecimal},
	}
	for i, c := range cases {
		_, w, err := EncodeValue(c.d, c.p)
		if c.code != "" {
			if CodeOf(err) != c.code {
				t.Errorf("case %d: got %v %v, want %s", i, w, err, c.code)
			}
			continue
		}
		if err != nil || !slices.Equal(w, c.words) {
			t.Errorf("case %d: got %v %v, want %v", i, w, err, c.words)
		}
	}
}

func TestAppendAllocations(t *testing.T) {
	ts := TimestampValue{Year: 2021, Month: 3, Day: 28, Hour: 2, Minute: 30, Fold: 1, Zone: IANAZone("Europe/Berlin")}
	values := []Value{Absent, Nil, BoolValue(true), Int(-5), Uint(5), Float(1.5), TextValue("hello, world"), TextValue("héllo wörld ✓"),
		BytesValue("bytes!"), DecimalValue{Digits: "1234567890123456789012345", ExponentNegative: true, ExponentMagnitude: 3},
		ts, TimestampValue{Year: 2021, Month: 1, Day: 1, Zone: FixedZone(3600e6, "CET")}}
	dst := make([]uint64, 0, 256)
	for _, p := range []Profile{StrictV1, LogicalV1} {
		for _, v := range values {
			if _, _, err := AppendValue(dst, v, p); err != nil {
				t.Fatal(err)
			}
			n := testing.AllocsPerRun(50, func() { _, _, _ = AppendValue(dst[:0], v, p) })
			if n != 0 {
				t.Errorf("%s %T: %v allocations per AppendValue", p, v, n)
			}
		}
		fields := make([]Field, len(values))
		for i, v := range values {
			fields[i] = Field{ID: FieldID(100 - i), Value: v} // reverse order: forces sorting
		}
		if _, err := AppendRecord(dst[:0], fields, p); err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(50, func() { _, _ = AppendRecord(dst[:0], fields, p) })
		if n != 0 {
			t.Errorf("%s: %v allocations per AppendRecord", p, n)
		}
	}
}
