package arrays

import (
	"encoding/binary"
	"io"
	"math"
	"reflect"
	"strconv"
	"sync/atomic"
	"unsafe"
)

// Device is the kind of memory a buffer lives in.
type Device string

// Device kinds. Only DeviceCPU buffers can be borrowed by this package; CUDA
// views need the separate qualified adapter of PW-10.
const (
	DeviceCPU  Device = "cpu"
	DeviceCUDA Device = "cuda"
)

// AccessByteSafe is the access contract of every CPU view: scalars are read
// byte by byte in little-endian order, so any byte alignment is accepted and
// no aligned (SIMD) load is implied.
const AccessByteSafe = "byte-safe-scalar"

// LogicalID is an optional logical buffer identity. The zero value is "none"
// (an anonymous view). Identity is never derived from a memory address.
type LogicalID struct {
	v  uint64
	ok bool
}

// ID returns the logical id v. v must not be Absent; constructors reject it.
func ID(v uint64) LogicalID { return LogicalID{v: v, ok: true} }

// Get returns the id and whether one is set.
func (l LogicalID) Get() (uint64, bool) { return l.v, l.ok }

// Options are the caller-declared properties of a borrowed buffer.
type Options struct {
	ReadOnly  bool      // the view refuses to hand out writable memory
	LogicalID LogicalID // optional logical identity; zero value: anonymous
}

// Descriptor is the C7 buffer descriptor of a view (PW-02.11). It is plain
// metadata: it holds no pointer or address. The owner-retaining handle is the
// *View itself.
type Descriptor struct {
	LogicalID   LogicalID
	DType       DType
	Len         int    // logical length in elements
	Device      Device // always DeviceCPU for views of this package
	DeviceID    int    // meaningful only when HasDeviceID; CPU views have none
	HasDeviceID bool
	ReadOnly    bool
	Access      string // AccessByteSafe
	Alignment   int    // guaranteed byte alignment: 1, no stronger claim
}

// View borrows a one-dimensional, contiguous, little-endian integer buffer
// without copying. Holding the View keeps the underlying allocation alive (Go
// slices retain their backing array). Metadata (Len, DType, ReadOnly,
// Descriptor) stays available after Release; every buffer operation then fails
// with CodeReleased. Release must not race with other methods of the same View;
// concurrent reads are safe while nobody writes through another alias.
type View struct {
	data     []byte
	dtype    DType
	n        int
	readOnly bool
	id       LogicalID
	released atomic.Bool
}

// Integer is the set of Go element types a View can borrow. Platform-width
// int, uint and uintptr are excluded: they have no fixed wire width.
type Integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// littleEndianHost is computed once; tests override it to exercise the
// big-endian rejection.
var littleEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func newView(op string, data []byte, dt DType, o Options) (*View, error) {
	if !littleEndianHost {
		return nil, &Error{Code: CodeBigEndianHost, Op: op, Row: -1}
	}
	if !dt.Valid() {
		return nil, &Error{Code: CodeDType, Op: op, Row: -1}
	}
	if id, ok := o.LogicalID.Get(); ok && id == Absent {
		return nil, &Error{Code: CodeLogicalID, Op: op, Row: -1}
	}
	size := dt.Size()
	if len(data)%size != 0 {
		return nil, &Error{Code: CodeLengthMisaligned, Op: op, Row: -1}
	}
	return &View{data: data, dtype: dt, n: len(data) / size, readOnly: o.ReadOnly, id: o.LogicalID}, nil
}

// FromBytes borrows data as little-endian elements of dt. len(data) must be a
// multiple of dt.Size(); data may start at any address.
func FromBytes(data []byte, dt DType, o Options) (*View, error) {
	return newView("borrow", data, dt, o)
}

// FromSlice borrows a typed slice without copying.
func FromSlice[T Integer](s []T, o Options) (*View, error) {
	dt := dtypeOfKind(reflect.TypeFor[T]().Kind())
	return newView("borrow", sliceBytes(s), dt, o)
}

func sliceBytes[T Integer](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

func dtypeOfKind(k reflect.Kind) DType {
	switch k {
	case reflect.Int8:
		return Int8
	case reflect.Int16:
		return Int16
	case reflect.Int32:
		return Int32
	case reflect.Int64:
		return Int64
	case reflect.Uint8:
		return Uint8
	case reflect.Uint16:
		return Uint16
	case reflect.Uint32:
		return Uint32
	case reflect.Uint64:
		return Uint64
	}
	return 0
}

// FromAny borrows v, which must be a slice of a fixed-width integer type
// (named types included). It is the entry point for values of unknown type:
// a nested slice or array element (multi-dimensional) fails with
// CodeNotOneDim, a scalar with CodeNotOneDim, int/uint/uintptr elements with
// CodeNotFixedWidth, and any other element type with CodeNotInteger.
func FromAny(v any, o Options) (*View, error) {
	const op = "borrow"
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, &Error{Code: CodeNotInteger, Op: op, Row: -1}
	}
	if rv.Kind() != reflect.Slice {
		if dtypeOfKind(rv.Kind()) != 0 || isPlatformInt(rv.Kind()) {
			return nil, &Error{Code: CodeNotOneDim, Op: op, Row: -1}
		}
		if rv.Kind() == reflect.Array {
			return nil, &Error{Code: CodeNotContiguous, Op: op, Row: -1, Err: errArrayValue}
		}
		return nil, &Error{Code: CodeNotInteger, Op: op, Row: -1}
	}
	ek := rv.Type().Elem().Kind()
	switch {
	case ek == reflect.Slice || ek == reflect.Array:
		return nil, &Error{Code: CodeNotOneDim, Op: op, Row: -1}
	case isPlatformInt(ek):
		return nil, &Error{Code: CodeNotFixedWidth, Op: op, Row: -1}
	}
	dt := dtypeOfKind(ek)
	if dt == 0 {
		return nil, &Error{Code: CodeNotInteger, Op: op, Row: -1}
	}
	var data []byte
	if n := rv.Len(); n > 0 {
		data = unsafe.Slice((*byte)(rv.UnsafePointer()), n*dt.Size())
	}
	return newView(op, data, dt, o)
}

type constError string

func (e constError) Error() string { return string(e) }

const errArrayValue = constError("a Go array value is a copy, not a borrowable buffer; pass a slice")

func isPlatformInt(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Uint || k == reflect.Uintptr
}

// Buffer describes a buffer exported by a foreign producer, the Go analogue of
// a buffer-protocol export: raw bytes plus format, shape, strides, byte order
// and device. Borrow accepts exactly the one-dimensional, C-contiguous,
// little-endian, CPU-resident integer case and rejects everything else; other
// layouts need an explicit normalization copy first (PW-02.13).
type Buffer struct {
	Data      []byte
	Format    string // dtype name, e.g. "int32"; "float64" etc. are rejected
	Shape     []int  // nil: one dimension of len(Data)/size elements
	Strides   []int  // byte strides; nil: C-contiguous
	BigEndian bool   // element byte order; ignored for one-byte dtypes
	Device    Device // "" or DeviceCPU
	Options
}

// Borrow checks b and returns a View over b.Data. Checks run in a fixed order:
// device, host byte order, format, element byte order, shape, strides, length.
func Borrow(b Buffer) (*View, error) {
	const op = "borrow"
	if b.Device != "" && b.Device != DeviceCPU {
		return nil, &Error{Code: CodeDevice, Op: op, Row: -1}
	}
	if !littleEndianHost {
		return nil, &Error{Code: CodeBigEndianHost, Op: op, Row: -1}
	}
	dt, err := ParseDType(b.Format)
	if err != nil {
		e := err.(*Error)
		e.Op = op
		return nil, e
	}
	size := dt.Size()
	if b.BigEndian && size > 1 {
		return nil, &Error{Code: CodeForeignEndian, Op: op, Row: -1}
	}
	if b.Shape != nil {
		if len(b.Shape) != 1 {
			return nil, &Error{Code: CodeNotOneDim, Op: op, Row: -1}
		}
		n := b.Shape[0]
		nb, err := MulUint64(uint64(max(n, 0)), uint64(size))
		if n < 0 || err != nil || nb != uint64(len(b.Data)) {
			return nil, &Error{Code: CodeLengthMisaligned, Op: op, Row: -1}
		}
	}
	if b.Strides != nil {
		if len(b.Strides) != 1 {
			return nil, &Error{Code: CodeNotOneDim, Op: op, Row: -1}
		}
		if b.Strides[0] != size && len(b.Data) > size {
			return nil, &Error{Code: CodeNotContiguous, Op: op, Row: -1}
		}
	}
	return newView(op, b.Data, dt, b.Options)
}

// Len returns the logical length in elements.
func (v *View) Len() int { return v.n }

// DType returns the element dtype.
func (v *View) DType() DType { return v.dtype }

// ReadOnly reports the read-only capability declared when borrowing. It
// describes this view, not every alias of the memory.
func (v *View) ReadOnly() bool { return v.readOnly }

// Released reports whether Release was called.
func (v *View) Released() bool { return v.released.Load() }

// Descriptor returns the view's C7 descriptor.
func (v *View) Descriptor() Descriptor {
	return Descriptor{
		LogicalID: v.id,
		DType:     v.dtype,
		Len:       v.n,
		Device:    DeviceCPU,
		ReadOnly:  v.readOnly,
		Access:    AccessByteSafe,
		Alignment: 1,
	}
}

// String describes the view without its contents or address.
func (v *View) String() string {
	s := "arrays.View{" + v.dtype.String() + " len=" + strconv.Itoa(v.n)
	if id, ok := v.id.Get(); ok {
		s += " id=" + strconv.FormatUint(id, 10)
	}
	if v.readOnly {
		s += " read-only"
	}
	if v.Released() {
		s += " released"
	}
	return s + "}"
}

// Release ends the borrow: it drops the reference to the owner and makes every
// later buffer operation fail with CodeReleased. It is idempotent.
func (v *View) Release() {
	if v.released.Swap(true) {
		return
	}
	v.data = nil
}

func (v *View) live(op string) error {
	if v.released.Load() {
		return &Error{Code: CodeReleased, Op: op, Row: -1}
	}
	return nil
}

// raw returns element i's bits, sign-extended for signed dtypes.
func (v *View) raw(i int) uint64 {
	switch v.dtype {
	case Int8:
		return uint64(int64(int8(v.data[i])))
	case Uint8:
		return uint64(v.data[i])
	case Int16:
		return uint64(int64(int16(binary.LittleEndian.Uint16(v.data[2*i:]))))
	case Uint16:
		return uint64(binary.LittleEndian.Uint16(v.data[2*i:]))
	case Int32:
		return uint64(int64(int32(binary.LittleEndian.Uint32(v.data[4*i:]))))
	case Uint32:
		return uint64(binary.LittleEndian.Uint32(v.data[4*i:]))
	default:
		return binary.LittleEndian.Uint64(v.data[8*i:])
	}
}

func (v *View) at(op string, i int) (uint64, error) {
	if err := v.live(op); err != nil {
		return 0, err
	}
	if i < 0 || i >= v.n {
		return 0, &Error{Code: CodeIndex, Op: op, Row: i}
	}
	return v.raw(i), nil
}

// Uint64At returns element i as a uint64. A negative element of a signed
// dtype fails with CodeRange (never a two's-complement wrap).
func (v *View) Uint64At(i int) (uint64, error) {
	x, err := v.at("read", i)
	if err != nil {
		return 0, err
	}
	if v.dtype.Signed() && int64(x) < 0 {
		return 0, &Error{Code: CodeRange, Op: "read", Row: i}
	}
	return x, nil
}

// Int64At returns element i as an int64. A uint64 element above MaxInt64
// fails with CodeRange.
func (v *View) Int64At(i int) (int64, error) {
	x, err := v.at("read", i)
	if err != nil {
		return 0, err
	}
	if v.dtype == Uint64 && x > math.MaxInt64 {
		return 0, &Error{Code: CodeRange, Op: "read", Row: i}
	}
	return int64(x), nil
}

// AppendUint64s appends every element, as by Uint64At, to dst.
func (v *View) AppendUint64s(dst []uint64) ([]uint64, error) {
	if err := v.live("read"); err != nil {
		return dst, err
	}
	if v.dtype == Uint64 {
		start := len(dst)
		dst = append(dst, make([]uint64, v.n)...)
		copy(sliceBytes(dst[start:]), v.data)
		return dst, nil
	}
	for i := range v.n {
		x := v.raw(i)
		if v.dtype.Signed() && int64(x) < 0 {
			return dst, &Error{Code: CodeRange, Op: "read", Row: i}
		}
		dst = append(dst, x)
	}
	return dst, nil
}

// AppendBytes appends the buffer's little-endian bytes to dst (a copy).
func (v *View) AppendBytes(dst []byte) ([]byte, error) {
	if err := v.live("read"); err != nil {
		return dst, err
	}
	return append(dst, v.data...), nil
}

// WriteTo writes the buffer's little-endian bytes to w without copying; it
// implements io.WriterTo. Per the io.Writer contract w must not retain or
// modify the bytes, which keeps read-only views read-only.
func (v *View) WriteTo(w io.Writer) (int64, error) {
	if err := v.live("read"); err != nil {
		return 0, err
	}
	n, err := w.Write(v.data)
	return int64(n), err
}

// Bytes returns the borrowed bytes themselves, for writable views only; a
// read-only view fails with CodeReadOnly (use AppendBytes or WriteTo).
func (v *View) Bytes() ([]byte, error) {
	if err := v.live("read"); err != nil {
		return nil, err
	}
	if v.readOnly {
		return nil, &Error{Code: CodeReadOnly, Op: "read", Row: -1}
	}
	return v.data, nil
}
