package normalize

import (
	"math"
	"math/big"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// EncodeValue returns the type code and payload words of v under profile p. The words
// are a new slice owned by the caller.
func EncodeValue(v Value, p Profile) (TypeCode, []uint64, error) {
	tc, words, err := AppendValue(nil, v, p)
	if err != nil {
		return 0, nil, err
	}
	if words == nil {
		words = []uint64{}
	}
	return tc, words, nil
}

// AppendValue appends the payload words of v under profile p to dst and returns the
// type code and the extended slice. On error it returns dst unchanged in length (words
// beyond it may have been written). It allocates only to grow dst, except that
// logical-v1 text which is not already NFC is normalized into a temporary string and an
// IANA zone is loaded once per key (then cached; *time.Location is immutable).
func AppendValue(dst []uint64, v Value, p Profile) (TypeCode, []uint64, error) {
	tc, out, err := appendValue(dst, v, p)
	if err != nil {
		return 0, dst, err
	}
	return tc, out, nil
}

func appendValue(dst []uint64, v Value, p Profile) (TypeCode, []uint64, *Error) {
	if !p.Valid() {
		return 0, dst, encErr(CodeInput, "invalid profile")
	}
	switch v := v.(type) {
	case MissingValue:
		return Missing, dst, nil
	case NullValue:
		return Null, dst, nil
	case BoolValue:
		if v {
			return Bool, append(dst, 1), nil
		}
		return Bool, append(dst, 0), nil
	case IntValue:
		return appendInt(dst, v)
	case FloatValue:
		return Float64, append(dst, floatWord(v.Bits, p)), nil
	case TextValue:
		out, err := appendText(dst, string(v), p)
		return Text, out, err
	case BytesValue:
		return Bytes, appendPacked(dst, v), nil
	case DecimalValue:
		out, err := appendDecimal(dst, v, p)
		return Decimal, out, err
	case TimestampValue:
		out, err := appendTimestamp(dst, &v, p)
		return timestampCode(&v, p), out, err
	case DateValue, TimeValue, DurationValue, NestedValue:
		if !p.Extended() {
			return 0, dst, encErr(CodeUnsupported, "date, time, duration and nested values need an extension profile")
		}
		return appendExt(dst, v)
	}
	return 0, dst, encErr(CodeUnsupported, "unsupported value type")
}

var (
	minInt64Big = big.NewInt(math.MinInt64)
)

func appendInt(dst []uint64, v IntValue) (TypeCode, []uint64, *Error) {
	switch v.kind {
	case intSigned:
		if int64(v.u) < 0 {
			return Int64, append(dst, v.u), nil
		}
		return Uint64, append(dst, v.u), nil
	case intUnsigned:
		return Uint64, append(dst, v.u), nil
	}
	// intBig: BigInt only builds it outside [MinInt64, MaxUint64], but stay exact anyway.
	b := v.b
	if b.Sign() >= 0 {
		if b.IsUint64() {
			return Uint64, append(dst, b.Uint64()), nil
		}
		return 0, dst, encErr(CodeIntRange, "integer above 2**64-1")
	}
	if b.Cmp(minInt64Big) >= 0 {
		return Int64, append(dst, uint64(b.Int64())), nil
	}
	return 0, dst, encErr(CodeIntRange, "integer below -2**63")
}

const (
	float64SignBit = 1 << 63
	float64ExpMask = 0x7ff0000000000000
	float64Frac    = 0x000fffffffffffff
	canonicalNaN   = 0x7ff8000000000000
)

func floatWord(bits uint64, p Profile) uint64 {
	if !p.Logical() {
		return bits
	}
	if bits&^float64SignBit == 0 {
		return 0 // -0.0 and +0.0 become +0.0
	}
	if bits&float64ExpMask == float64ExpMask && bits&float64Frac != 0 {
		return canonicalNaN
	}
	return bits
}

func appendText(dst []uint64, s string, p Profile) ([]uint64, *Error) {
	if !utf8.ValidString(s) {
		return dst, encErr(CodeUTF8, "text is not strict UTF-8 of Unicode scalar values")
	}
	// QuickSpanString covers the whole string exactly when s is already NFC (the
	// common case), and unlike IsNormalString it does not allocate.
	if p.Logical() && norm.NFC.QuickSpanString(s) != len(s) {
		s = norm.NFC.String(s)
	}
	return appendPacked(dst, s), nil
}

// appendPacked appends [byte_count, ceil(byte_count/8) little-endian words...] with zero
// tail padding.
func appendPacked[S ~string | ~[]byte](dst []uint64, s S) []uint64 {
	dst = append(dst, uint64(len(s)))
	for len(s) >= 8 {
		dst = append(dst, uint64(s[0])|uint64(s[1])<<8|uint64(s[2])<<16|uint64(s[3])<<24|
			uint64(s[4])<<32|uint64(s[5])<<40|uint64(s[6])<<48|uint64(s[7])<<56)
		s = s[8:]
	}
	if len(s) > 0 {
		var w uint64
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
		dst = append(dst, w)
	}
	return dst
}

// Typed append functions for hot loops (columnar encoders): they take the value's own
// type, so no interface boxing happens, and append exactly what AppendValue would.
// On error they return dst with its original length.

// AppendText appends the TEXT payload of s under p (CodeUTF8 unless strict UTF-8).
func AppendText(dst []uint64, s string, p Profile) ([]uint64, error) {
	if !p.Valid() {
		return dst, encErr(CodeInput, "invalid profile")
	}
	out, err := appendText(dst, s, p)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// AppendBytes appends the BYTES payload of b (the same under every profile).
func AppendBytes(dst []uint64, b []byte) []uint64 { return appendPacked(dst, b) }

// AppendFloat64 appends the FLOAT64 payload of the binary64 bit pattern bits under p.
func AppendFloat64(dst []uint64, bits uint64, p Profile) []uint64 {
	return append(dst, floatWord(bits, p))
}

// AppendDecimal appends the DECIMAL payload of *d under p.
func AppendDecimal(dst []uint64, d *DecimalValue, p Profile) ([]uint64, error) {
	if !p.Valid() {
		return dst, encErr(CodeInput, "invalid profile")
	}
	out, err := appendDecimal(dst, *d, p)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// AppendTimestamp appends the TIMESTAMP payload of *t under p; under an extension
// profile a value with a nonzero Nanosecond gets the TIMESTAMP_NS payload instead (its
// type code is TimestampNS exactly then).
func AppendTimestamp(dst []uint64, t *TimestampValue, p Profile) ([]uint64, error) {
	if !p.Valid() {
		return dst, encErr(CodeInput, "invalid profile")
	}
	out, err := appendTimestamp(dst, t, p)
	if err != nil {
		return dst, err
	}
	return out, nil
}
