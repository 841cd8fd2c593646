package normalize

import (
	"math/big"
	"math/bits"
)

// DecimalForm is the kind of a decimal; its value is the wire exponent_kind word.
type DecimalForm uint8

// Decimal forms (PW-03.07 exponent kinds).
const (
	DecimalFinite   DecimalForm = 0
	DecimalInfinity DecimalForm = 1
	DecimalNaN      DecimalForm = 2 // quiet NaN
	DecimalSNaN     DecimalForm = 3 // signaling NaN
)

// DecimalValue is a Python decimal.Decimal as its as_tuple(): a sign, a coefficient of
// decimal digits and an exponent (or a special form). There is no context: nothing here
// rounds, and nothing goes through binary floating point.
//
// Digits holds the coefficient as ASCII decimal digits. Leading zeros are dropped on
// encoding, as Python's Decimal constructor drops them; a finite value needs at least one
// digit ("0" for zero). A NaN's Digits is its payload ("" for none, and a payload of only
// zeros counts as none). An infinity's Digits must be "" or zeros; it encodes as
// digit_count 1 with coefficient 0, as as_tuple() reports it. Special forms must have a
// zero exponent. The exponent is ExponentNegative/ExponentMagnitude, so every exponent
// whose magnitude fits in a uint64 is representable; -0 is the same as 0.
type DecimalValue struct {
	Negative          bool
	Form              DecimalForm
	ExponentNegative  bool
	ExponentMagnitude uint64
	Digits            string
	// ExponentBig, when not nil, is the exponent instead of ExponentNegative and
	// ExponentMagnitude. ParseDecimal sets it only for exponents whose magnitude exceeds
	// 2**64-1: strict-v1 rejects those (CodeDecimal), but logical-v1 may bring them back
	// into range by removing trailing zeros (1000E-18446744073709551618 is
	// 1E-18446744073709551615), as Python, whose exponents are unbounded, does.
	ExponentBig *big.Int
}

// ParseDecimal parses Python's decimal string syntax, ASCII form:
//
//	[sign] digits ['.' [digits]] [exponent]  |  [sign] '.' digits [exponent]
//	[sign] ('Inf' | 'Infinity')  |  [sign] ('NaN' | 'sNaN') [digits]
//
// where sign is '+' or '-', exponent is ('e'|'E') [sign] digits, and the special names
// are case-insensitive. Whitespace, underscores and non-ASCII digits are rejected (the
// typed-values contract carries the ASCII form). The exponent may have any number of
// digits; one whose magnitude, after adjusting for the digits behind the point, exceeds
// 2**64-1 is kept in ExponentBig (the encoders decide whether it fits). Every malformed
// string is CodeDecimal.
func ParseDecimal(s string) (DecimalValue, error) {
	fail := func(msg string) (DecimalValue, error) {
		return DecimalValue{}, newErr("parse", CodeDecimal, msg)
	}
	var d DecimalValue
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.Negative = s[i] == '-'
		i++
	}
	rest := s[i:]
	switch {
	case equalFold(rest, "inf") || equalFold(rest, "infinity"):
		d.Form = DecimalInfinity
		return d, nil
	case hasPrefixFold(rest, "nan"):
		d.Form = DecimalNaN
		rest = rest[3:]
	case hasPrefixFold(rest, "snan"):
		d.Form = DecimalSNaN
		rest = rest[4:]
	}
	if d.Form != DecimalFinite {
		if !allDigits(rest) {
			return fail("malformed NaN payload")
		}
		d.Digits = trimLeadingZeros(rest, false)
		return d, nil
	}

	// Finite: integer part, optional fraction, optional exponent.
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	intPart := rest[:j]
	rest = rest[j:]
	frac := ""
	if len(rest) > 0 && rest[0] == '.' {
		rest = rest[1:]
		j = 0
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		frac = rest[:j]
		rest = rest[j:]
	}
	if intPart == "" && frac == "" {
		return fail("no digits")
	}
	expNeg := false
	expDigits := "0"
	if len(rest) > 0 {
		if rest[0] != 'e' && rest[0] != 'E' {
			return fail("unexpected character")
		}
		rest = rest[1:]
		if len(rest) > 0 && (rest[0] == '+' || rest[0] == '-') {
			expNeg = rest[0] == '-'
			rest = rest[1:]
		}
		if rest == "" || !allDigits(rest) {
			return fail("malformed exponent")
		}
		expDigits = rest
	}
	d.Digits = trimLeadingZeros(intPart+frac, true)

	// exponent = ±expDigits - len(frac), computed exactly: in an int64 when expDigits has
	// at most 18 digits (the magnitude is then below 10**18 + len(s)), else with math/big.
	if len(expDigits) <= 18 {
		var e int64
		for i := 0; i < len(expDigits); i++ {
			e = e*10 + int64(expDigits[i]-'0')
		}
		if expNeg {
			e = -e
		}
		e -= int64(len(frac))
		if e < 0 {
			d.ExponentNegative, d.ExponentMagnitude = true, uint64(-e)
		} else {
			d.ExponentMagnitude = uint64(e)
		}
		return d, nil
	}
	e, ok := new(big.Int).SetString(expDigits, 10)
	if !ok {
		return fail("malformed exponent")
	}
	if expNeg {
		e.Neg(e)
	}
	e.Sub(e, big.NewInt(int64(len(frac))))
	neg, mag, fits := splitExponent(e)
	if !fits {
		d.ExponentBig = e
		return d, nil
	}
	d.ExponentNegative, d.ExponentMagnitude = neg, mag
	return d, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// trimLeadingZeros drops leading '0's; keepOne keeps a single "0" for an all-zero string.
func trimLeadingZeros(s string, keepOne bool) string {
	i := 0
	for i < len(s) && s[i] == '0' {
		i++
	}
	if i == len(s) && keepOne && len(s) > 0 {
		return "0"
	}
	return s[i:]
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func equalFold(s, t string) bool { return len(s) == len(t) && hasPrefixFold(s, t) }

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix p, ignoring case.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lower(s[i]) != p[i] {
			return false
		}
	}
	return true
}

// appendDecimal appends the DECIMAL payload of d under profile p.
func appendDecimal(dst []uint64, d DecimalValue, p Profile) ([]uint64, *Error) {
	if !allDigits(d.Digits) {
		return dst, encErr(CodeDecimal, "coefficient has a non-digit")
	}
	sign := uint64(0)
	if d.Negative {
		sign = 1
	}
	switch d.Form {
	case DecimalFinite:
	case DecimalInfinity, DecimalNaN, DecimalSNaN:
		if d.ExponentMagnitude != 0 || (d.ExponentBig != nil && d.ExponentBig.Sign() != 0) {
			return dst, encErr(CodeDecimal, "special value with a nonzero exponent")
		}
		digits := trimLeadingZeros(d.Digits, false)
		if d.Form == DecimalInfinity {
			if digits != "" {
				return dst, encErr(CodeDecimal, "infinity with a nonzero coefficient")
			}
			// as_tuple() of an infinity has digits (0,).
			return append(dst, sign, uint64(DecimalInfinity), 0, 0, 1, 1, 0), nil
		}
		if p.Logical() {
			return append(dst, 0, uint64(DecimalNaN), 0, 0, 0, 1, 0), nil
		}
		dst = append(dst, sign, uint64(d.Form), 0, 0, uint64(len(digits)))
		return appendCoefficient(dst, digits), nil
	default:
		return dst, encErr(CodeDecimal, "unknown decimal form")
	}

	digits := trimLeadingZeros(d.Digits, true)
	if digits == "" {
		return dst, encErr(CodeDecimal, "finite decimal without digits")
	}
	expNeg, expMag, fits := d.ExponentNegative, d.ExponentMagnitude, true
	if d.ExponentBig != nil {
		expNeg, expMag, fits = splitExponent(d.ExponentBig)
	}
	if p.Logical() {
		if digits == "0" {
			return append(dst, 0, uint64(DecimalFinite), 0, 0, 1, 1, 0), nil
		}
		// Strip trailing zeros; each one raises the exponent by one, exactly.
		k := 0
		for digits[len(digits)-1-k] == '0' {
			k++
		}
		digits = digits[:len(digits)-k]
		if d.ExponentBig != nil {
			// Rare path: only exponents beyond uint64 magnitude get here.
			expNeg, expMag, fits = splitExponent(new(big.Int).Add(d.ExponentBig, big.NewInt(int64(k))))
		} else {
			expNeg, expMag, fits = addExponent(expNeg, expMag, uint64(k))
		}
	}
	if !fits {
		return dst, encErr(CodeDecimal, "exponent magnitude exceeds 2**64-1")
	}
	if expMag == 0 {
		expNeg = false
	}
	es := uint64(0)
	if expNeg {
		es = 1
	}
	dst = append(dst, sign, uint64(DecimalFinite), es, expMag, uint64(len(digits)))
	return appendCoefficient(dst, digits), nil
}

// addExponent returns (±mag)+k as sign and magnitude; ok is false on magnitude overflow.
func addExponent(neg bool, mag, k uint64) (bool, uint64, bool) {
	if !neg {
		s, carry := bits.Add64(mag, k, 0)
		return false, s, carry == 0
	}
	if mag >= k {
		r := mag - k
		return r != 0, r, true
	}
	return false, k - mag, true
}

// splitExponent returns e as sign and magnitude; fits is false when |e| > 2**64-1.
func splitExponent(e *big.Int) (neg bool, mag uint64, fits bool) {
	if e.IsUint64() {
		return false, e.Uint64(), true
	}
	if e.Sign() > 0 || e.BitLen() > 64 {
		return false, 0, false
	}
	// -2**64 < e < 0: the magnitude has at most 64 bits.
	return true, new(big.Int).Neg(e).Uint64(), true
}

// pow10 holds 10**0 .. 10**19.
var pow10 = [20]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// appendCoefficient appends [coefficient_word_count, little-endian base-2**64 words...]
// of the decimal digit string digits ("" is zero: one zero word). It converts in place
// in dst, 19 digits at a time, without allocating beyond dst's growth.
func appendCoefficient(dst []uint64, digits string) []uint64 {
	countAt := len(dst)
	dst = append(dst, 1, 0)
	start := countAt + 1
	for len(digits) > 0 {
		n := min(len(digits), 19)
		var chunk uint64
		for _, c := range []byte(digits[:n]) {
			chunk = chunk*10 + uint64(c-'0')
		}
		digits = digits[n:]
		mul, carry := pow10[n], chunk
		for i := start; i < len(dst); i++ {
			hi, lo := bits.Mul64(dst[i], mul)
			var c uint64
			lo, c = bits.Add64(lo, carry, 0)
			dst[i] = lo
			carry = hi + c
		}
		if carry != 0 {
			dst = append(dst, carry)
		}
	}
	dst[countAt] = uint64(len(dst) - start)
	return dst
}
