package arrays

// DType is a fixed-width little-endian integer element type. The zero DType is invalid.
type DType uint8

// The eight C1 integer dtypes.
const (
	Int8 DType = iota + 1
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
)

var dtypeNames = [...]string{"", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}

// Valid reports whether d is one of the eight integer dtypes.
func (d DType) Valid() bool { return d >= Int8 && d <= Uint64 }

// Size returns the element width in bytes (1, 2, 4 or 8), or 0 for an invalid DType.
func (d DType) Size() int {
	switch d {
	case Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32:
		return 4
	case Int64, Uint64:
		return 8
	}
	return 0
}

// Signed reports whether d is a signed (two's complement) dtype.
func (d DType) Signed() bool { return d >= Int8 && d <= Int64 }

// String returns the dtype name ("int8" … "uint64"), or "invalid".
func (d DType) String() string {
	if !d.Valid() {
		return "invalid"
	}
	return dtypeNames[d]
}

// ParseDType returns the dtype named s ("int8" … "uint64"; exact, lower case).
// Names of non-integer types ("float32", "float64", "bool", …) fail with
// CodeNotInteger; anything else with CodeDType.
func ParseDType(s string) (DType, error) {
	for d := Int8; d <= Uint64; d++ {
		if dtypeNames[d] == s {
			return d, nil
		}
	}
	code := CodeDType
	switch s {
	case "float16", "float32", "float64", "bool", "string", "bytes", "complex64", "complex128", "decimal":
		code = CodeNotInteger
	}
	return 0, &Error{Code: code, Op: "parse dtype", Row: -1}
}
