package normalize

import (
	"math"
	"math/big"
)

// Value is one C2 input scalar. It is a closed sum type: the only implementations are
// MissingValue, NullValue, BoolValue, IntValue, FloatValue, TextValue, BytesValue,
// DecimalValue and TimestampValue, and the extension 1 values DateValue, TimeValue,
// DurationValue and NestedValue (encoded only under an extension profile). Anything
// else (containers, other Go types) cannot be a Value, which is how "no nested object
// is accepted as a scalar" holds in Go: a nested value is only ever its canonical
// bytes, under an extension profile.
// Pointers to these types satisfy the interface too (Go method sets), but the encoders
// reject them with CodeUnsupported; the typed Append functions (AppendTimestamp, ...)
// are the allocation-free way to pass large values by pointer.
type Value interface {
	isValue()
}

// MissingValue is the type of MISSING (PW-03.02). It has exactly one value, Absent.
type MissingValue struct{}

// NullValue is Python's None (PW-03.02); distinct from MISSING.
type NullValue struct{}

// Absent is the MISSING singleton: "no value here", encoded with its own type code 0.
var Absent = MissingValue{}

// Nil is the NULL value (Python None), type code 1.
var Nil = NullValue{}

// BoolValue is a boolean: one word, 0 or 1.
type BoolValue bool

// IntValue is an integer of any size. Construct it with Int, Uint or BigInt; the zero
// value is 0. The encoder range-checks it: negative values must be >= -2**63 (INT64),
// nonnegative ones <= 2**64-1 (UINT64); nothing ever wraps or truncates.
type IntValue struct {
	kind intKind
	u    uint64   // intSigned: two's complement int64; intUnsigned: the value
	b    *big.Int // intBig only; never mutated after construction
}

type intKind uint8

const (
	intUnsigned intKind = iota // zero value: Uint(0)
	intSigned
	intBig
)

// Int returns the integer v.
func Int(v int64) IntValue { return IntValue{kind: intSigned, u: uint64(v)} }

// Uint returns the integer v.
func Uint(v uint64) IntValue { return IntValue{kind: intUnsigned, u: v} }

// BigInt returns the integer x, which may lie outside the encodable range (the encoder
// rejects it then). x is copied, so the caller may reuse it.
func BigInt(x *big.Int) IntValue {
	if x.IsUint64() {
		return Uint(x.Uint64())
	}
	if x.IsInt64() {
		return Int(x.Int64())
	}
	return IntValue{kind: intBig, b: new(big.Int).Set(x)}
}

// Big returns the integer as a new big.Int.
func (v IntValue) Big() *big.Int {
	switch v.kind {
	case intSigned:
		return big.NewInt(int64(v.u))
	case intBig:
		return new(big.Int).Set(v.b)
	}
	return new(big.Int).SetUint64(v.u)
}

// FloatValue is a binary64 number given by its exact bit pattern, so NaN payloads,
// signed zeros and infinities survive untouched.
type FloatValue struct{ Bits uint64 }

// Float returns the FloatValue of f (math.Float64bits(f)).
func Float(f float64) FloatValue { return FloatValue{Bits: math.Float64bits(f)} }

// TextValue is text as UTF-8 bytes. The encoder requires strict UTF-8 of Unicode scalar
// values (no surrogates, no overlong forms); a Go string may hold anything, so invalid
// text is representable and rejected with CodeUTF8.
type TextValue string

// BytesValue is raw bytes, never decoded or normalized.
type BytesValue []byte

func (MissingValue) isValue()   {}
func (NullValue) isValue()      {}
func (BoolValue) isValue()      {}
func (IntValue) isValue()       {}
func (FloatValue) isValue()     {}
func (TextValue) isValue()      {}
func (BytesValue) isValue()     {}
func (DecimalValue) isValue()   {}
func (TimestampValue) isValue() {}
