package normalize

import (
	"math"
	"math/big"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	cases := []struct {
		in     string
		want   DecimalValue
		bigExp string // ExponentBig, when expected
	}{
		{"0", DecimalValue{Digits: "0"}, ""},
		{"-0", DecimalValue{Negative: true, Digits: "0"}, ""},
		{"+1.50", DecimalValue{Digits: "150", ExponentNegative: true, ExponentMagnitude: 2}, ""},
		{"1e0", DecimalValue{Digits: "1"}, ""},
		{"1E-0", DecimalValue{Digits: "1"}, ""},
		{"12e+0003", DecimalValue{Digits: "12", ExponentMagnitude: 3}, ""},
		{"0.0e2", DecimalValue{Digits: "0", ExponentMagnitude: 1}, ""},
		{"1.5e1", DecimalValue{Digits: "15"}, ""},
		{"000", DecimalValue{Digits: "0"}, ""},
		{"INF", DecimalValue{Form: DecimalInfinity}, ""},
		{"-iNfInItY", DecimalValue{Negative: true, Form: DecimalInfinity}, ""},
		{"nan", DecimalValue{Form: DecimalNaN}, ""},
		{"NaN000", DecimalValue{Form: DecimalNaN}, ""},
		{"-sNaN0100", DecimalValue{Negative: true, Form: DecimalSNaN, Digits: "100"}, ""},
		{"1E+18446744073709551615", DecimalValue{Digits: "1", ExponentMagnitude: math.MaxUint64}, ""},
		{"1E+18446744073709551616", DecimalValue{Digits: "1"}, "18446744073709551616"},
		{"1.0E-18446744073709551615", DecimalValue{Digits: "10"}, "-18446744073709551616"},
		{"1E99999999999999999999999999999", DecimalValue{Digits: "1"}, "99999999999999999999999999999"},
		// 18 exponent digits (computed in int64) and 19 (through math/big).
		{"1.5e-999999999999999999", DecimalValue{Digits: "15", ExponentNegative: true, ExponentMagnitude: 1000000000000000000}, ""},
		{"1.5e999999999999999999", DecimalValue{Digits: "15", ExponentMagnitude: 999999999999999998}, ""},
		{"1.5e+000000000000000001", DecimalValue{Digits: "15"}, ""},
		{"1.5e0000000000000000001", DecimalValue{Digits: "15"}, ""},
		{"1e-1000000000000000000", DecimalValue{Digits: "1", ExponentNegative: true, ExponentMagnitude: 1000000000000000000}, ""},
		{"-0.00e-0", DecimalValue{Negative: true, Digits: "0", ExponentNegative: true, ExponentMagnitude: 2}, ""},
	}
	for _, c := range cases {
		got, err := ParseDecimal(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		gotBig := got.ExponentBig
		got.ExponentBig = nil
		if got != c.want {
			t.Errorf("%q: got %+v, want %+v", c.in, got, c.want)
		}
		switch {
		case c.bigExp == "" && gotBig != nil:
			t.Errorf("%q: unexpected ExponentBig %v", c.in, gotBig)
		case c.bigExp != "":
			want, _ := new(big.Int).SetString(c.bigExp, 10)
			if gotBig == nil || gotBig.Cmp(want) != 0 {
				t.Errorf("%q: ExponentBig %v, want %s", c.in, gotBig, c.bigExp)
			}
		}
	}
	for _, in := range []string{"", "+", "-", ".", "e5", "1e", "1e+", "1e++1", "1..2", "1.2.3", "1,5", "1 ", " 1",
		"1_0", "0x10", "Infinit", "Infinity0", "inf1", "NaN-1", "NaN1e1", "sNaN.5", "Na", "--1", "1e1.5", "١"} {
		if _, err := ParseDecimal(in); CodeOf(err) != CodeDecimal {
			t.Errorf("%q: %v", in, err)
		}
	}
}
