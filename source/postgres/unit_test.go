package postgres

import (
	"encoding/binary"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/source"
)

// These tests need no server.

func TestParseAddress(t *testing.T) {
	cases := []struct {
		in            string
		schema, table string
		redacted      string
	}{
		{"postgres://u:pw@h:5433/db#s.t", "s", "t", "postgres://u:xxxxx@h:5433/db#s.t"},
		{"postgresql://h/db#T", "", "t", "postgresql://h/db#t"},
		{`postgres://h/db#"My.Schema"."Tab""le"`, "My.Schema", `Tab"le`, `postgres://h/db#"My.Schema"."Tab""le"`},
		{"postgres://h/db#Public.Orders", "public", "orders", "postgres://h/db#public.orders"},
		{"postgres://h/db?password=pw&sslmode=disable#t", "", "t", "postgres://h/db?password=xxxxx&sslmode=disable#t"},
		{"postgres://h/db#s.%22A%20b%22", "s", "A b", `postgres://h/db#s."A b"`},
		{"postgres://u:pw@h/db", "", "", "postgres://u:xxxxx@h/db"},
	}
	for _, c := range cases {
		a, err := ParseAddress(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if a.Schema != c.schema || a.Table != c.table || a.Redacted() != c.redacted {
			t.Errorf("%s: schema %q table %q redacted %q", c.in, a.Schema, a.Table, a.Redacted())
		}
		if strings.Contains(a.Redacted(), "pw@") || strings.Contains(a.Redacted(), "=pw") {
			t.Errorf("%s: password kept in %q", c.in, a.Redacted())
		}
	}
	for _, bad := range []string{"", "mysql://h/db#t", "postgres://h/db#", "postgres://h/db#a.b.c", `postgres://h/db#"a`, "postgres://h/db#a..b", `postgres://h/db#"a"b`, "postgres://h/db#.t", "postgres://u:pw@h/db#%zz", "postgres://u:secretpw@[::1/db#t", "postgres://h/db\x00#t"} {
		_, err := ParseAddress(bad)
		if !errors.Is(err, source.ErrAddress) {
			t.Errorf("%q: %v, want PW_SOURCE_ADDRESS", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "secretpw") {
			t.Errorf("%q: password in %v", bad, err)
		}
	}
}

// numericWire builds PostgreSQL's binary numeric by hand.
func numericWire(weight int16, sign uint16, dscale uint16, digits ...uint16) []byte {
	b := make([]byte, 8+2*len(digits))
	binary.BigEndian.PutUint16(b[0:], uint16(len(digits)))
	binary.BigEndian.PutUint16(b[2:], uint16(weight))
	binary.BigEndian.PutUint16(b[4:], sign)
	binary.BigEndian.PutUint16(b[6:], dscale)
	for i, d := range digits {
		binary.BigEndian.PutUint16(b[8+2*i:], d)
	}
	return b
}

func TestDecodeNumeric(t *testing.T) {
	cases := []struct {
		wire        []byte
		prec, scale int32
		want        string // coefficient, or "!" + detail fragment
	}{
		{numericWire(0, numPos, 0), 5, 2, "0"},                     // 0
		{numericWire(0, numPos, 2, 12, 3400), 5, 2, "1234"},        // 12.34
		{numericWire(0, numNeg, 2, 12, 3400), 5, 2, "-1234"},       // -12.34
		{numericWire(1, numPos, 0, 1), 9, 0, "10000"},              // 10000 (trailing zero groups dropped)
		{numericWire(-1, numPos, 4, 1), 10, 4, "1"},                // 0.0001
		{numericWire(-2, numPos, 8, 1), 10, 4, "!fractional"},      // 0.00000001
		{numericWire(0, numPos, 3, 1, 2340), 10, 2, "!fractional"}, // 1.234 at scale 2
		{numericWire(0, numPos, 3, 1, 2300), 10, 2, "123"},         // 1.230 at scale 2 is exact
		{numericWire(2, numPos, 0, 1, 0, 0), 8, 0, "!precision"},   // 10^8 needs 9 digits
		{numericWire(1, numPos, 0, 9999, 9999), 8, 0, "99999999"},  // 99999999
		{numericWire(4, numPos, 0, 1), 38, 0, "10000000000000000"}, // 10^16
		{numericWire(9, numPos, 0, 9999, 9999, 9999, 9999, 9999, 9999, 9999, 9999, 9999, 99), 38, 0, "!precision"},
		{numericWire(9, numPos, 0, 99, 9999, 9999, 9999, 9999, 9999, 9999, 9999, 9999, 9999), 38, 0, "99" + strings.Repeat("9", 36)},
		{numericWire(0, numNaN, 0), 10, 2, "!NaN"},
		{numericWire(0, numPInf, 0), 10, 2, "!Infinity"},
		{numericWire(0, numNInf, 0), 10, 2, "!Infinity"},
		{numericWire(0, 0x1234, 0), 10, 2, "!sign"},
		{numericWire(0, numPos, 0, 10000), 10, 2, "!digit"},
		{numericWire(0, numPos, 0, 1)[:9], 10, 2, "!length"},
		{[]byte{0, 0, 0}, 10, 2, "!length"},
		{numericWire(12, numPos, 0, 1), 76, 0, "1" + strings.Repeat("0", 48)}, // 10^48, decimal256
		{numericWire(-3, numNeg, 12, 5), 60, 12, "-5"},                        // -0.000000000005
	}
	for i, c := range cases {
		var cl cell
		code, detail := decodeNumeric(c.wire, c.prec, c.scale, &cl)
		if strings.HasPrefix(c.want, "!") {
			if code == "" || !strings.Contains(detail, c.want[1:]) {
				t.Errorf("case %d: code %q detail %q, want failure %q", i, code, detail, c.want[1:])
			}
			continue
		}
		if code != "" {
			t.Errorf("case %d: failed %s %s", i, code, detail)
			continue
		}
		var got *big.Int
		if c.prec <= 38 {
			got = cl.d128.BigInt()
		} else {
			got = cl.d256.BigInt()
		}
		if got.String() != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}

func TestNumericTypmod(t *testing.T) {
	// typmod = ((p << 16) | (s & 0x7ff)) + 4
	for _, c := range []struct{ p, s int32 }{{10, 2}, {1, 0}, {1000, 1000}, {5, -3}, {3, 5}} {
		tm := (c.p<<16 | c.s&0x7ff) + 4
		if p, s := numericTypmod(tm); p != c.p || s != c.s {
			t.Errorf("numeric(%d,%d): got (%d,%d)", c.p, c.s, p, s)
		}
	}
}

func TestFormatUUID(t *testing.T) {
	b := []byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	if got := formatUUID(b); got != "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" {
		t.Errorf("got %s", got)
	}
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"postgres://u:pw@h:5433/db#s.t", `postgres://h/db#"a""b".c`, "postgres://h/db#", "postgresql://[::1]:5432/db?sslmode=disable#t", "postgres://h/db#a.b.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		a, err := ParseAddress(s)
		if err != nil {
			if source.CodeOf(err) != source.CodeAddress {
				t.Fatalf("code %v", err)
			}
			return
		}
		if a.Table == "" {
			return
		}
		// The redacted relation parses back to the same names.
		_, rel, _ := strings.Cut(a.Redacted(), "#")
		parts, ok := splitIdent(rel)
		if !ok || parts[len(parts)-1] != a.Table || (a.Schema != "" && parts[0] != a.Schema) {
			t.Fatalf("%q: relation %q does not round-trip (%q %q)", s, rel, a.Schema, a.Table)
		}
	})
}

// FuzzDecodeNumeric: arbitrary bytes never panic, and an accepted value
// equals the wire value exactly (checked with big.Rat).
func FuzzDecodeNumeric(f *testing.F) {
	f.Add(numericWire(0, numPos, 2, 12, 3400), int8(10), int8(2))
	f.Add(numericWire(-1, numNeg, 4, 1), int8(40), int8(4))
	f.Add(numericWire(9, numPos, 0, 99, 9999, 9999, 9999, 9999, 9999, 9999, 9999, 9999, 9999), int8(38), int8(0))
	f.Fuzz(func(t *testing.T, wire []byte, p, s int8) {
		if len(wire) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		prec, scale := int32(p)&0x7f%76+1, int32(s)&0x7f
		if scale > prec {
			scale = prec
		}
		var c cell
		code, _ := decodeNumeric(wire, prec, scale, &c)
		if code != "" {
			return
		}
		var coef *big.Int
		if prec <= 38 {
			coef = c.d128.BigInt()
		} else {
			coef = c.d256.BigInt()
		}
		got := new(big.Rat).SetFrac(coef, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
		nd := int(int16(binary.BigEndian.Uint16(wire)))
		weight := int(int16(binary.BigEndian.Uint16(wire[2:])))
		want := new(big.Rat)
		for i := 0; i < nd; i++ {
			d := int64(binary.BigEndian.Uint16(wire[8+2*i:]))
			e := weight - i
			term := new(big.Rat).SetInt64(d)
			pw := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10000), big.NewInt(int64(abs(e))), nil))
			if e >= 0 {
				term.Mul(term, pw)
			} else {
				term.Quo(term, pw)
			}
			want.Add(want, term)
		}
		if binary.BigEndian.Uint16(wire[4:]) == numNeg {
			want.Neg(want)
		}
		if got.Cmp(want) != 0 {
			t.Fatalf("decoded %s, wire value %s", got.RatString(), want.RatString())
		}
		if coef.CmpAbs(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(prec)), nil)) >= 0 {
			t.Fatalf("coefficient %s exceeds precision %d", coef, prec)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// FuzzDecode: any bytes given to any decoder either decode or fail with a
// code; they never panic, and an accepted value appends to its builder.
func FuzzDecode(f *testing.F) {
	f.Add(uint8(dTimestamp), []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(dInterval), make([]byte, 16))
	f.Add(uint8(dJSONB), []byte{1, '{', '}'})
	f.Add(uint8(dText), []byte{0xff})
	f.Add(uint8(dNumeric), numericWire(0, numPos, 2, 12, 3400))
	f.Fuzz(func(t *testing.T, k uint8, v []byte) {
		if len(v) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		kind := dkind(k%uint8(dInterval) + 1)
		col := column{name: "c", kind: kind, prec: 20, scale: 4}
		// Pick an OID that maps to kind, to get its Arrow type.
		for oid := range map[uint32]bool{oidBool: true, oidInt2: true, oidInt4: true, oidInt8: true, oidOID: true, oidFloat4: true, oidFloat8: true, oidText: true, oidJSONB: true, oidBytea: true, oidUUID: true, oidDate: true, oidTime: true, oidTimestamp: true, oidTimestampTZ: true, oidInterval: true} {
			c := column{oid: oid}
			mapType(&c)
			if c.kind == kind {
				col.typ = c.typ
			}
		}
		switch kind {
		case dServerText:
			col.typ = arrow.BinaryTypes.String
		case dNumeric:
			setDecimal(&col, 20, 4)
		}
		var c cell
		if code, detail := col.decode(v, &c); code != "" {
			if detail == "" {
				t.Fatal("failure without detail")
			}
			return
		}
		b := array.NewBuilder(memory.DefaultAllocator, col.typ)
		defer b.Release()
		col.appendCell(b, &c)
		a := b.NewArray()
		defer a.Release()
		if a.Len() != 1 || a.NullN() != 0 {
			t.Fatal("value not appended")
		}
	})
}
