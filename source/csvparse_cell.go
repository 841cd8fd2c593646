package source

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pipewhy/pipewhy/internal/civil"
)

// parseCell is parseText for a CSV cell held as bytes of the parser's
// buffer: the same values, the same codes and details, without turning every
// cell into a heap string. Text cells alias b (c.tb), which the caller
// appends before the buffer moves on; the other kinds either parse b in
// place or pass a copy to parseText.
func (t *colType) parseCell(b []byte, c *cell) (Code, string) {
	switch t.kind {
	case kText:
		c.tb = b
		if b == nil {
			c.tb = []byte{}
		}
		return "", ""
	case kBool:
		return parseBool(string(b), c) // the copy does not escape
	case kInt:
		v, ok, syntax := smallInt(b)
		if !ok {
			// Many digits (or not an integer at all): strconv decides, on a
			// copy that does not escape (no heap allocation up to 32 bytes).
			return t.parseNumber(string(b), c)
		}
		if syntax {
			return CodeType, "not a base-10 " + t.spell
		}
		if t.bits < 64 && (v < -1<<(t.bits-1) || v > 1<<(t.bits-1)-1) {
			return CodeType, "out of range for " + t.spell
		}
		c.i = v
		return "", ""
	case kFloat:
		if t.bits == 64 {
			if v, ok := fastFloat(b); ok {
				c.f = v
				return "", ""
			}
		}
		return t.parseNumber(string(b), c) // the copy does not escape
	case kUint:
		return t.parseNumber(string(b), c) // the copy does not escape
	case kTimestamp:
		if v, ok := t.fastTimestamp(b); ok {
			c.i = v
			return "", ""
		}
		return t.parseTimestamp(string(b), c)
	}
	// Hex, base64, decimal: rarer, parsed from a string copy.
	return t.parseText(string(b), c)
}

// smallInt parses an optional sign and 1 to 18 ASCII digits, which always
// fit an int64. ok is false for a longer or empty digit string (the caller
// falls back to strconv); syntax is true when a non-digit follows the sign.
func smallInt(b []byte) (v int64, ok, syntax bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false, false
	}
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, true, true
		}
		v = v*10 + int64(ch-'0')
	}
	if neg {
		v = -v
	}
	return v, true, false
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses the common decimal form [+-]digits[.digits] (no exponent) of at most
// 19 digits whose value m·10^-k has m ≤ 2^53 and k ≤ 22, as float64(m) / 10^k. Both
// operands are exact and IEEE division rounds correctly, so the result is the correctly
// rounded value strconv.ParseFloat returns (Clinger's fast path, which strconv also
// takes for these inputs). ok is false for anything else, and strconv decides.
func fastFloat(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for _, ch := range b {
		switch {
		case ch >= '0' && ch <= '9':
			if digits == 19 {
				return 0, false
			}
			m = m*10 + uint64(ch-'0')
			digits++
			if dot {
				frac++
			}
		case ch == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || m > 1<<53 || frac >= len(exactPow10) {
		return 0, false
	}
	f := float64(m) / exactPow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// fastTimestamp parses the common exact forms "YYYY-MM-DDTHH:MM:SS" (or a
// space for T) with an optional '.' and 1 to 9 fraction digits, followed by
// "Z" exactly when the column has a zone, into the column's unit. ok is
// false for anything else (other offsets, out-of-range fields, a fraction
// finer than the unit, overflow): parseTimestamp then decides, so results
// and errors are the same as time.Parse's (FuzzCSVCell checks it).
func (t *colType) fastTimestamp(b []byte) (int64, bool) {
	var day csvDay
	return t.fastTimestampDay(b, &day)
}

// csvDay is the date of the timestamp cell a column parsed last: its ten
// bytes "YYYY-MM-DD" (as two little-endian words) and its days since the
// epoch. Timestamps in files come mostly in order, many rows a day, so that
// most cells repeat the previous one's date.
type csvDay struct {
	lo   uint64 // bytes 0–7
	hi   uint16 // bytes 8–9
	days int64
	ok   bool // lo, hi and days are set
}

// fastTimestampDay is fastTimestamp, which takes the days of the cell's date
// from day when its ten bytes are those of day's date, and otherwise parses
// and checks the date and stores it in day. The result is the same either
// way: day only ever holds a date whose bytes passed every check.
func (t *colType) fastTimestampDay(b []byte, day *csvDay) (int64, bool) {
	if t.loc != nil {
		if len(b) == 0 || b[len(b)-1] != 'Z' {
			return 0, false
		}
		b = b[:len(b)-1]
	}
	if len(b) < 19 || len(b) == 20 || len(b) > 29 || (b[10] != 'T' && b[10] != ' ') ||
		b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	lo, hi := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint16(b[8:])
	if !day.ok || lo != day.lo || hi != day.hi {
		if b[4] != '-' || b[7] != '-' {
			return 0, false
		}
		for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
			if b[i]-'0' > 9 {
				return 0, false
			}
		}
		y := d2(b, 0)*100 + d2(b, 2)
		mo, d := d2(b, 5), d2(b, 8)
		if mo < 1 || mo > 12 || d < 1 || d > civil.DaysInMonth(y, mo) {
			return 0, false
		}
		*day = csvDay{lo: lo, hi: hi, days: civil.DaysFromCivil(y, mo, d), ok: true}
	}
	for _, i := range [...]int{11, 12, 14, 15, 17, 18} {
		if b[i]-'0' > 9 {
			return 0, false
		}
	}
	h, mi, s := d2(b, 11), d2(b, 14), d2(b, 17)
	if h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	ns := int64(0)
	if len(b) > 19 {
		if b[19] != '.' {
			return 0, false
		}
		for _, ch := range b[20:] {
			if ch-'0' > 9 {
				return 0, false
			}
			ns = ns*10 + int64(ch-'0')
		}
		ns *= fracScale[len(b)-20]
	}
	sec := day.days*86400 + h*3600 + mi*60 + s
	// One case per unit, so that every division is by a constant.
	switch t.unit {
	case arrow.Second:
		return scaleTimestamp(sec, ns, 1e9)
	case arrow.Millisecond:
		return scaleTimestamp(sec, ns, 1e6)
	case arrow.Microsecond:
		return scaleTimestamp(sec, ns, 1e3)
	default:
		return scaleTimestamp(sec, ns, 1)
	}
}

// fracScale[n] turns n fraction digits into nanoseconds.
var fracScale = [...]int64{1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

// d2 is the two-digit number at b[i:i+2] (digits checked by the caller).
func d2(b []byte, i int) int64 { return int64(b[i]-'0')*10 + int64(b[i+1]-'0') }

// scaleTimestamp returns sec seconds and ns nanoseconds in units of per nanoseconds, or
// false when ns is finer than the unit or the result overflows int64. Small enough to
// inline, so that per is a constant at each call.
func scaleTimestamp(sec, ns, per int64) (int64, bool) {
	mul := 1e9 / per
	if ns%per != 0 || sec > math.MaxInt64/mul || sec < math.MinInt64/mul {
		return 0, false
	}
	v, add := sec*mul, ns/per
	if add > 0 && v > math.MaxInt64-add {
		return 0, false
	}
	return v + add, true
}
