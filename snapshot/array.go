package snapshot

import (
	"encoding/binary"
	"regexp"
	"unsafe"
)

// DType is one of the eight integer element types a snapshot stores.
type DType uint8

// The supported dtypes. Their names ("int8" … "uint64") are the manifest spelling.
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

var dtypeNames = [...]string{Int8: "int8", Int16: "int16", Int32: "int32", Int64: "int64",
	Uint8: "uint8", Uint16: "uint16", Uint32: "uint32", Uint64: "uint64"}

var dtypeWidths = [...]int{Int8: 1, Int16: 2, Int32: 4, Int64: 8, Uint8: 1, Uint16: 2, Uint32: 4, Uint64: 8}

// String returns the manifest name of d, or "dtype(N)" for an invalid value.
func (d DType) String() string {
	if d.valid() {
		return dtypeNames[d]
	}
	return "dtype(" + itoa(uint64(d)) + ")"
}

// Width is the size of one element in bytes, or 0 for an invalid dtype.
func (d DType) Width() int {
	if d.valid() {
		return dtypeWidths[d]
	}
	return 0
}

func (d DType) valid() bool { return d >= Int8 && d <= Uint64 }

// ParseDType parses a manifest dtype name.
func ParseDType(s string) (DType, error) {
	for d := Int8; d <= Uint64; d++ {
		if dtypeNames[d] == s {
			return d, nil
		}
	}
	return 0, &Error{Code: CodeUnsupported, Op: "parse dtype", Msg: "dtype is not one of int8, int16, int32, int64, uint8, uint16, uint32, uint64"}
}

// Array is an immutable one-dimensional integer array: a dtype and the exact
// little-endian bytes of its elements, Len()*Width() bytes with no header or padding.
// Constructors copy their input and accessors return copies, so no caller can change an
// Array after it is made, and mutating a slice given to a constructor changes nothing.
// The zero Array is invalid.
type Array struct {
	dtype DType
	data  []byte
}

// NewArray copies le, the little-endian bytes of len(le)/d.Width() elements of type d.
func NewArray(d DType, le []byte) (Array, error) {
	if !d.valid() {
		return Array{}, &Error{Code: CodeInvalidArray, Op: "new array", Msg: "unsupported dtype"}
	}
	if len(le)%d.Width() != 0 {
		return Array{}, &Error{Code: CodeInvalidArray, Op: "new array", Msg: "byte length is not a multiple of the dtype width"}
	}
	return Array{dtype: d, data: append(make([]byte, 0, len(le)), le...)}, nil
}

// WrapBytes is NewArray without the copy: the array takes le itself. It is for byte
// buffers that their owner has just built and hands over; le must not be modified
// afterwards, since an Array is immutable.
func WrapBytes(d DType, le []byte) (Array, error) {
	if !d.valid() {
		return Array{}, &Error{Code: CodeInvalidArray, Op: "wrap array", Msg: "unsupported dtype"}
	}
	if len(le)%d.Width() != 0 {
		return Array{}, &Error{Code: CodeInvalidArray, Op: "wrap array", Msg: "byte length is not a multiple of the dtype width"}
	}
	return Array{dtype: d, data: le}, nil
}

// DType returns the element type.
func (a Array) DType() DType { return a.dtype }

// Len returns the number of elements.
func (a Array) Len() int {
	if !a.dtype.valid() {
		return 0
	}
	return len(a.data) / a.dtype.Width()
}

// ByteLen returns the number of stored bytes, Len()*DType().Width().
func (a Array) ByteLen() int { return len(a.data) }

// Bytes returns a copy of the little-endian element bytes.
func (a Array) Bytes() []byte { return append(make([]byte, 0, len(a.data)), a.data...) }

// AppendBytes appends the little-endian element bytes to dst.
func (a Array) AppendBytes(dst []byte) []byte { return append(dst, a.data...) }

// Equal reports whether a and b have the same dtype and bytes.
func (a Array) Equal(b Array) bool { return a.dtype == b.dtype && string(a.data) == string(b.data) }

var keyPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ValidKey reports whether key can name an array: [a-z][a-z0-9_]{0,63}. The file name
// is "array-" + key + ".bin", which avoids case and path aliasing and Windows reserved
// base names.
func ValidKey(key string) bool { return keyPattern.MatchString(key) }

func arrayFile(key string) string { return "array-" + key + ".bin" }

// integer is the set of element types.
type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

var littleEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func fromInts[T integer](d DType, v []T) Array {
	w := d.Width()
	out := make([]byte, len(v)*w)
	if littleEndianHost && len(v) > 0 {
		copy(out, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(out)))
		return Array{dtype: d, data: out}
	}
	for i, x := range v {
		putLE(out[i*w:], w, uint64(x))
	}
	return Array{dtype: d, data: out}
}

func putLE(b []byte, w int, x uint64) {
	switch w {
	case 1:
		b[0] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(x))
	default:
		binary.LittleEndian.PutUint64(b, x)
	}
}

func toInts[T integer](a Array, d DType) ([]T, error) {
	if a.dtype != d {
		return nil, &Error{Code: CodeInvalidArray, Op: "array " + d.String() + "s", Msg: "array dtype is " + a.dtype.String()}
	}
	w := d.Width()
	n := len(a.data) / w
	out := make([]T, n)
	if littleEndianHost && n > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(a.data)), a.data)
		return out, nil
	}
	for i := range out {
		b := a.data[i*w:]
		switch w {
		case 1:
			out[i] = T(b[0])
		case 2:
			out[i] = T(binary.LittleEndian.Uint16(b))
		case 4:
			out[i] = T(binary.LittleEndian.Uint32(b))
		default:
			out[i] = T(binary.LittleEndian.Uint64(b))
		}
	}
	return out, nil
}

// FromInt8 returns an Array holding a copy of v.
func FromInt8(v []int8) Array { return fromInts(Int8, v) }

// FromInt16 returns an Array holding a copy of v.
func FromInt16(v []int16) Array { return fromInts(Int16, v) }

// FromInt32 returns an Array holding a copy of v.
func FromInt32(v []int32) Array { return fromInts(Int32, v) }

// FromInt64 returns an Array holding a copy of v.
func FromInt64(v []int64) Array { return fromInts(Int64, v) }

// FromUint8 returns an Array holding a copy of v.
func FromUint8(v []uint8) Array { return fromInts(Uint8, v) }

// FromUint16 returns an Array holding a copy of v.
func FromUint16(v []uint16) Array { return fromInts(Uint16, v) }

// FromUint32 returns an Array holding a copy of v.
func FromUint32(v []uint32) Array { return fromInts(Uint32, v) }

// FromUint64 returns an Array holding a copy of v.
func FromUint64(v []uint64) Array { return fromInts(Uint64, v) }

// WrapUint64 returns a Uint64 array over v's memory, without the copy FromUint64 makes
// (it copies on big-endian hosts). It is for arrays of hundreds of megabytes that their
// owner publishes and drops: v must not be modified while the array is in use, since an
// Array is immutable.
func WrapUint64(v []uint64) Array {
	if !littleEndianHost || len(v) == 0 {
		return FromUint64(v)
	}
	return Array{dtype: Uint64, data: unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 8*len(v))}
}

// Uint64sView returns the elements of a Uint64 array without the copy Uint64s makes,
// where the host is little-endian and the bytes are 8-byte aligned (the arrays of a
// loaded snapshot are: each is read into its own allocation); a copy otherwise. The
// result shares the array's memory: it must not be modified, since an Array is
// immutable. It fails unless the dtype is Uint64.
func (a Array) Uint64sView() ([]uint64, error) {
	if a.dtype != Uint64 || !littleEndianHost || len(a.data) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(a.data)))%8 != 0 {
		return a.Uint64s()
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(a.data))), len(a.data)/8), nil
}

// Int8s returns a copy of the elements; it fails unless the dtype is Int8.
func (a Array) Int8s() ([]int8, error) { return toInts[int8](a, Int8) }

// Int16s returns a copy of the elements; it fails unless the dtype is Int16.
func (a Array) Int16s() ([]int16, error) { return toInts[int16](a, Int16) }

// Int32s returns a copy of the elements; it fails unless the dtype is Int32.
func (a Array) Int32s() ([]int32, error) { return toInts[int32](a, Int32) }

// Int64s returns a copy of the elements; it fails unless the dtype is Int64.
func (a Array) Int64s() ([]int64, error) { return toInts[int64](a, Int64) }

// Uint8s returns a copy of the elements; it fails unless the dtype is Uint8.
func (a Array) Uint8s() ([]uint8, error) { return toInts[uint8](a, Uint8) }

// Uint16s returns a copy of the elements; it fails unless the dtype is Uint16.
func (a Array) Uint16s() ([]uint16, error) { return toInts[uint16](a, Uint16) }

// Uint32s returns a copy of the elements; it fails unless the dtype is Uint32.
func (a Array) Uint32s() ([]uint32, error) { return toInts[uint32](a, Uint32) }

// Uint64s returns a copy of the elements; it fails unless the dtype is Uint64.
func (a Array) Uint64s() ([]uint64, error) { return toInts[uint64](a, Uint64) }

func itoa(x uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
		if x == 0 {
			return string(b[i:])
		}
	}
}
