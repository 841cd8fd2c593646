package source

import (
	"bytes"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// maxJSONExponent bounds the exponent a JSON number may write to be read as a number: a
// decimal(P,S) column (P <= 76) holds no larger one anyway, and an inferred number column
// keeps every exponent (less the fraction digits, at most MaxLineBytes) far inside what
// C2 DECIMAL holds (a magnitude below 2**64) under every profile, so its values encode
// without error.
const maxJSONExponent = 1 << 20

// jsonNumber is a JSON number literal as a decimal: the value is (-1 if neg) × digits ×
// 10^exp, where digits are the literal's integer and fraction digits without leading
// zeros (empty for zero) and exp is the exponent less the number of fraction digits.
type jsonNumber struct {
	neg    bool
	digits []byte // borrowed from the literal
	exp    int
}

// splitJSONNumber reads a literal of the JSON number grammar (already checked by the
// parser: -?int[.frac][(e|E)[+-]digits]). ok is false when the exponent is beyond
// ±maxJSONExponent.
func splitJSONNumber(lit []byte) (n jsonNumber, ok bool) {
	e, at, ok := jsonExponent(lit)
	if !ok {
		return n, false
	}
	mant := lit[:at]
	if len(mant) > 0 && mant[0] == '-' {
		n.neg = true
		mant = mant[1:]
	}
	intPart, frac := mant, []byte(nil)
	if dot := bytes.IndexByte(mant, '.'); dot >= 0 {
		intPart, frac = mant[:dot], mant[dot+1:]
	}
	// The digits of int and frac are contiguous in the literal unless a '.' separates
	// them; join them without allocating when there is no fraction.
	if len(frac) == 0 {
		n.digits = intPart
	} else {
		n.digits = append(append(make([]byte, 0, len(intPart)+len(frac)), intPart...), frac...)
	}
	for len(n.digits) > 0 && n.digits[0] == '0' {
		n.digits = n.digits[1:]
	}
	n.exp = e - len(frac)
	return n, true
}

// jsonExponent returns the exponent a JSON number literal writes (0 without one) and
// the index of its 'e' or 'E' (len(lit) without one). ok is false when the exponent is
// beyond ±maxJSONExponent.
func jsonExponent(lit []byte) (e, at int, ok bool) {
	at = bytes.IndexAny(lit, "eE")
	if at < 0 {
		return 0, len(lit), true
	}
	i := at + 1
	neg := false
	if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
		neg = lit[i] == '-'
		i++
	}
	for ; i < len(lit); i++ {
		e = e*10 + int(lit[i]-'0')
		if e > maxJSONExponent {
			return 0, at, false
		}
	}
	if neg {
		e = -e
	}
	return e, at, true
}

// parseJSONDecimal converts a JSON number literal into a decimal column exactly: the
// value must need at most the column's scale of fraction digits and at most
// precision-scale integer digits; nothing is rounded. Exponents are allowed.
func (t *colType) parseJSONDecimal(lit []byte, c *cell) (Code, string) {
	n, ok := splitJSONNumber(lit)
	if !ok {
		return CodeType, "more integer digits than " + t.spell + " allows"
	}
	shift := n.exp + int(t.scale) // the stored integer is digits × 10^shift
	digits := n.digits
	if shift < 0 {
		cut := len(digits) + shift
		if cut < 0 {
			cut = 0
		}
		for _, d := range digits[cut:] {
			if d != '0' {
				return CodeType, "more fractional digits than the scale of " + t.spell
			}
		}
		digits, shift = digits[:cut], 0
	}
	if len(digits) == 0 { // zero, at any exponent
		digits, shift = nil, 0
	}
	if len(digits)+shift > int(t.prec) {
		return CodeType, "more integer digits than " + t.spell + " allows"
	}
	if len(digits)+shift <= 18 {
		var v int64
		for _, d := range digits {
			v = v*10 + int64(d-'0')
		}
		for ; shift > 0; shift-- {
			v *= 10
		}
		if n.neg {
			v = -v
		}
		if t.prec <= 38 {
			c.d128 = decimal128.FromI64(v)
		} else {
			c.d256 = decimal256.FromI64(v)
		}
		return "", ""
	}
	v := new(big.Int)
	v.SetString(string(digits), 10)
	v.Mul(v, new(big.Int).Exp(bigTen, big.NewInt(int64(shift)), nil))
	if n.neg {
		v.Neg(v)
	}
	t.setDecimal(c, v)
	return "", ""
}

// parseJSONInteger parses a JSON integer literal (grammar already checked:
// optional '-', digits without leading zeros) into an integer column
// without converting it to a string.
func (t *colType) parseJSONInteger(b []byte, c *cell) (Code, string) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var u uint64
	for _, d := range b {
		if u > (math.MaxUint64-uint64(d-'0'))/10 {
			return CodeType, "out of range for " + t.spell
		}
		u = u*10 + uint64(d-'0')
	}
	if t.kind == kUint {
		if neg { // as in text: an unsigned column takes no sign, not even -0
			return CodeType, "not a base-10 " + t.spell
		}
		if t.bits < 64 && u > 1<<t.bits-1 {
			return CodeType, "out of range for " + t.spell
		}
		c.u = u
		return "", ""
	}
	limit := uint64(1) << (t.bits - 1) // |min|; max is limit-1
	if (!neg && u >= limit) || (neg && u > limit) {
		return CodeType, "out of range for " + t.spell
	}
	if neg {
		c.i = int64(-u) // two's complement: exact for u == limit too
	} else {
		c.i = int64(u)
	}
	return "", ""
}
