package canonical

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// column encodes the canonical logical values of one Arrow array. Index i is a logical
// index into the array (array offsets are applied inside), so sliced arrays encode only
// their slice. Every value begins with its presence byte.
type column interface {
	// size returns the canonical byte length of value i, presence byte included, and
	// checks nullability and the size limits on the way.
	size(i int) (uint64, error)
	// sizeRange returns the summed size of values lo..hi-1.
	sizeRange(lo, hi int) (uint64, error)
	// appendValue appends the canonical bytes of value i.
	appendValue(dst []byte, i int) ([]byte, error)
}

// base carries the presence state shared by all columns.
type base struct {
	nulls     []byte // validity bitmap, nil when every value is valid
	off       int    // array offset into the bitmap
	nullable  bool
	allNull   bool // the Null type: every value is null
	path      string
	valueSize uint64 // fixed value size after the presence byte, 0 for variable-size columns
}

func newBase(arr arrow.Array, nullable bool, path string) base {
	b := base{off: arr.Data().Offset(), nullable: nullable, path: path}
	if arr.NullN() > 0 {
		b.nulls = arr.NullBitmapBytes()
	}
	return b
}

func (b *base) isNull(i int) bool {
	return b.allNull || (b.nulls != nil && !bitutil.BitIsSet(b.nulls, b.off+i))
}

// appendNull appends the 00 presence byte, or fails when the position is not nullable.
func (b *base) appendNull(dst []byte) ([]byte, error) {
	if !b.nullable {
		return dst, errAt(CodeNullability, b.path)
	}
	return append(dst, 0), nil
}

func (b *base) nullSize() (uint64, error) {
	if !b.nullable {
		return 0, errAt(CodeNullability, b.path)
	}
	return 1, nil
}

// fixedSizeRange sizes a range of a fixed-width column without touching the values.
func (b *base) fixedSizeRange(lo, hi int) (uint64, error) {
	n := uint64(hi - lo)
	if b.nulls == nil && !b.allNull {
		return n * (1 + b.valueSize), nil
	}
	var s uint64
	for i := lo; i < hi; i++ {
		if b.isNull(i) {
			if !b.nullable {
				return 0, errAt(CodeNullability, b.path)
			}
			s++
		} else {
			s += 1 + b.valueSize
		}
	}
	return s, nil
}

func (b *base) fixedSize(i int) (uint64, error) {
	if b.isNull(i) {
		return b.nullSize()
	}
	return 1 + b.valueSize, nil
}

// sizeLoop sums size over a range for variable-size columns.
func sizeLoop(c column, lo, hi int) (uint64, error) {
	var total uint64
	for i := lo; i < hi; i++ {
		n, err := c.size(i)
		if err != nil {
			return 0, err
		}
		var ok bool
		if total, ok = addSize(total, n); !ok {
			return 0, limitErr("", math.MaxUint64, MaxPayloadBytes)
		}
	}
	return total, nil
}

// newColumn builds the encoder of arr. The schema compiler has already checked the type.
func newColumn(arr arrow.Array, nullable bool, path string) (column, error) {
	b := newBase(arr, nullable, path)
	switch a := arr.(type) {
	case *array.Null:
		b.allNull = arr.Len() > 0
		return &nullCol{base: b}, nil
	case *array.Boolean:
		b.valueSize = 1
		return &boolCol{base: b, a: a}, nil
	case *array.Int8:
		return newInt(b, a.Values()), nil
	case *array.Int16:
		return newInt(b, a.Values()), nil
	case *array.Int32:
		return newInt(b, a.Values()), nil
	case *array.Int64:
		return newInt(b, a.Values()), nil
	case *array.Uint8:
		return newInt(b, a.Values()), nil
	case *array.Uint16:
		return newInt(b, a.Values()), nil
	case *array.Uint32:
		return newInt(b, a.Values()), nil
	case *array.Uint64:
		return newInt(b, a.Values()), nil
	case *array.Date32:
		return newInt(b, a.Values()), nil
	case *array.MonthInterval:
		return newInt(b, a.Values()), nil
	case *array.Float16:
		b.valueSize = 2
		return &float16Col{base: b, vals: a.Values()}, nil
	case *array.Float32:
		b.valueSize = 4
		return &float32Col{base: b, vals: a.Values()}, nil
	case *array.Float64:
		b.valueSize = 8
		return &float64Col{base: b, vals: a.Values()}, nil
	case *array.Date64:
		b.valueSize = 4
		return &temporalCol[arrow.Date64]{base: b, vals: a.Values(), kind: kindDate64}, nil
	case *array.Time32:
		f, _ := unitFactor(a.DataType().(*arrow.Time32Type).Unit)
		b.valueSize = 8
		return &temporalCol[arrow.Time32]{base: b, vals: a.Values(), kind: kindTime, factor: f}, nil
	case *array.Time64:
		f, _ := unitFactor(a.DataType().(*arrow.Time64Type).Unit)
		b.valueSize = 8
		return &temporalCol[arrow.Time64]{base: b, vals: a.Values(), kind: kindTime, factor: f}, nil
	case *array.Timestamp:
		f, _ := unitFactor(a.DataType().(*arrow.TimestampType).Unit)
		b.valueSize = 8
		return &temporalCol[arrow.Timestamp]{base: b, vals: a.Values(), kind: kindInstant, factor: f}, nil
	case *array.Duration:
		f, _ := unitFactor(a.DataType().(*arrow.DurationType).Unit)
		b.valueSize = 8
		return &temporalCol[arrow.Duration]{base: b, vals: a.Values(), kind: kindInstant, factor: f}, nil
	case *array.DayTimeInterval:
		b.valueSize = 8
		return &dayTimeCol{base: b, vals: a.DayTimeIntervalValues()}, nil
	case *array.MonthDayNanoInterval:
		b.valueSize = 16
		return &mdnCol{base: b, vals: a.MonthDayNanoIntervalValues()}, nil
	case *array.Decimal128:
		b.valueSize = 16
		return &dec128Col{base: b, vals: a.Values(), prec: a.DataType().(*arrow.Decimal128Type).Precision}, nil
	case *array.Decimal256:
		b.valueSize = 32
		return &dec256Col{base: b, vals: a.Values(), prec: a.DataType().(*arrow.Decimal256Type).Precision}, nil
	case *array.String:
		return newVar(b, offsetsOf(a), arr, true)
	case *array.LargeString:
		return newVar(b, offsetsOf(a), arr, true)
	case *array.Binary:
		return newVar(b, offsetsOf(a), arr, false)
	case *array.LargeBinary:
		return newVar(b, offsetsOf(a), arr, false)
	case *array.FixedSizeBinary:
		w := a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth
		var data []byte
		if bufs := arr.Data().Buffers(); len(bufs) > 1 && bufs[1] != nil {
			data = bufs[1].Bytes()
		}
		if need, ok := mulSize(uint64(b.off+arr.Len()), uint64(w)); !ok || need > uint64(len(data)) {
			return nil, errAt(CodeEncoding, path+" fixed-size binary buffer")
		}
		b.valueSize = uint64(w)
		return &fsbCol{base: b, data: data, w: w}, nil
	case *array.Map:
		return newMap(b, a)
	case *array.List:
		return newList(b, a.Offsets(), a.ListValues(), arr, a.DataType().(*arrow.ListType).ElemField())
	case *array.LargeList:
		return newList(b, a.Offsets(), a.ListValues(), arr, a.DataType().(*arrow.LargeListType).ElemField())
	case *array.FixedSizeList:
		t := a.DataType().(*arrow.FixedSizeListType)
		child, err := newColumn(a.ListValues(), t.ElemField().Nullable, path+".item")
		if err != nil {
			return nil, err
		}
		n := int(t.Len())
		if need, ok := mulSize(uint64(b.off+arr.Len()), uint64(n)); !ok || need > uint64(a.ListValues().Len()) {
			return nil, errAt(CodeEncoding, path+" fixed-size list child length")
		}
		return &fslCol{base: b, child: child, n: n}, nil
	case *array.Struct:
		t := a.DataType().(*arrow.StructType)
		c := &structCol{base: b, children: make([]column, a.NumField())}
		if a.NumField() != t.NumFields() {
			return nil, errAt(CodeEncoding, path+" struct children")
		}
		for j := range c.children {
			f := a.Field(j)
			if f.Len() < arr.Len() {
				return nil, errAt(CodeEncoding, path+" struct child length")
			}
			var err error
			if c.children[j], err = newColumn(f, t.Field(j).Nullable, path+".child["+strconv.Itoa(j)+"]"); err != nil {
				return nil, err
			}
		}
		return c, nil
	case *array.Dictionary:
		dict, err := newColumn(a.Dictionary(), nullable, path)
		if err != nil {
			return nil, err
		}
		n := a.Dictionary().Len()
		switch ix := a.Indices().(type) {
		case *array.Int8:
			return &dictCol[int8]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		case *array.Int16:
			return &dictCol[int16]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		case *array.Int32:
			return &dictCol[int32]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		case *array.Int64:
			return &dictCol[int64]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		case *array.Uint8:
			return &dictCol[uint8]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		case *array.Uint16:
			return &dictCol[uint16]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		case *array.Uint32:
			return &dictCol[uint32]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		case *array.Uint64:
			return &dictCol[uint64]{base: b, idx: ix.Values(), dict: dict, n: n}, nil
		}
		return nil, errAt(CodeArrowType, path+" dictionary index")
	case array.ExtensionArray:
		return newColumn(a.Storage(), nullable, path)
	}
	return nil, errAt(CodeArrowType, path)
}

// present16, present32 and present64 append the 01 presence byte and a big-endian value
// with one capacity check.
func present16(dst []byte, v uint16) []byte {
	dst = append(dst, 1, 0, 0)
	binary.BigEndian.PutUint16(dst[len(dst)-2:], v)
	return dst
}

func present32(dst []byte, v uint32) []byte {
	dst = append(dst, 1, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(dst[len(dst)-4:], v)
	return dst
}

func present64(dst []byte, v uint64) []byte {
	dst = append(dst, 1, 0, 0, 0, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint64(dst[len(dst)-8:], v)
	return dst
}

// ---- null and boolean

type nullCol struct{ base }

func (c *nullCol) size(i int) (uint64, error)           { return c.nullSize() }
func (c *nullCol) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *nullCol) appendValue(dst []byte, i int) ([]byte, error) {
	return c.appendNull(dst)
}

type boolCol struct {
	base
	a *array.Boolean
}

func (c *boolCol) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *boolCol) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *boolCol) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	if c.a.Value(i) {
		return append(dst, 1, 1), nil
	}
	return append(dst, 1, 0), nil
}

// ---- integers (and date32, year-month interval): two's complement big-endian at width

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type intCol[T integer] struct {
	base
	vals []T
}

func newInt[T integer](b base, vals []T) column {
	var z T
	switch any(z).(type) {
	case int8, uint8:
		b.valueSize = 1
	case int16, uint16:
		b.valueSize = 2
	case int32, uint32, arrow.Date32, arrow.MonthInterval:
		b.valueSize = 4
	default:
		b.valueSize = 8
	}
	return &intCol[T]{base: b, vals: vals}
}

func (c *intCol[T]) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *intCol[T]) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *intCol[T]) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	v := uint64(c.vals[i])
	switch c.valueSize {
	case 1:
		return append(dst, 1, byte(v)), nil
	case 2:
		return present16(dst, uint16(v)), nil
	case 4:
		return present32(dst, uint32(v)), nil
	}
	return present64(dst, v), nil
}

// ---- floats: -0 becomes +0, every NaN the positive quiet NaN of its width

type float16Col struct {
	base
	vals []float16.Num
}

func (c *float16Col) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *float16Col) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *float16Col) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	return present16(dst, Float16Bits(c.vals[i].Uint16())), nil
}

type float32Col struct {
	base
	vals []float32
}

func (c *float32Col) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *float32Col) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *float32Col) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	return present32(dst, Float32Bits(math.Float32bits(c.vals[i]))), nil
}

type float64Col struct {
	base
	vals []float64
}

func (c *float64Col) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *float64Col) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *float64Col) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	return present64(dst, Float64Bits(math.Float64bits(c.vals[i]))), nil
}

// Float16Bits applies the float rule to IEEE-754 binary16 bits.
func Float16Bits(b uint16) uint16 {
	switch {
	case b&0x7c00 == 0x7c00 && b&0x03ff != 0:
		return 0x7e00
	case b == 0x8000:
		return 0
	}
	return b
}

// Float32Bits applies the float rule to IEEE-754 binary32 bits.
func Float32Bits(b uint32) uint32 {
	switch {
	case b&0x7f800000 == 0x7f800000 && b&0x007fffff != 0:
		return 0x7fc00000
	case b == 0x80000000:
		return 0
	}
	return b
}

// Float64Bits applies the float rule to IEEE-754 binary64 bits.
func Float64Bits(b uint64) uint64 {
	switch {
	case b&0x7ff0000000000000 == 0x7ff0000000000000 && b&0x000fffffffffffff != 0:
		return 0x7ff8000000000000
	case b == 0x8000000000000000:
		return 0
	}
	return b
}

// ---- temporal values

const (
	kindDate64  = iota // ms since epoch, exact days -> i32 days
	kindTime           // time of day -> u64 microseconds in [0, 86_400_000_000)
	kindInstant        // timestamp or duration -> i64 microseconds
)

const (
	msPerDay    = 86_400_000
	microPerDay = 86_400_000_000
)

type temporalCol[T ~int32 | ~int64] struct {
	base
	vals   []T
	kind   int
	factor int64 // >0: multiply to microseconds; <0: divide by -factor exactly
}

func (c *temporalCol[T]) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *temporalCol[T]) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *temporalCol[T]) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	v := int64(c.vals[i])
	if c.kind == kindDate64 {
		if v%msPerDay != 0 || v/msPerDay < math.MinInt32 || v/msPerDay > math.MaxInt32 {
			return dst, errAt(CodeTemporal, c.path)
		}
		return present32(dst, uint32(int32(v/msPerDay))), nil
	}
	us, ok := ToMicros(v, c.factor)
	if !ok {
		return dst, errAt(CodeTemporal, c.path)
	}
	if c.kind == kindTime && (us < 0 || us >= microPerDay) {
		return dst, errAt(CodeTemporal, c.path)
	}
	return present64(dst, uint64(us)), nil
}

// ToMicros converts a count of a unit to microseconds exactly: factor > 0 multiplies (with
// an overflow check), factor < 0 divides by -factor and requires no remainder.
func ToMicros(v, factor int64) (int64, bool) {
	switch {
	case factor == 1:
		return v, true
	case factor > 1:
		if v > math.MaxInt64/factor || v < math.MinInt64/factor {
			return 0, false
		}
		return v * factor, true
	case factor < 0:
		d := -factor
		if v%d != 0 {
			return 0, false
		}
		return v / d, true
	}
	return 0, false
}

// ---- intervals

type dayTimeCol struct {
	base
	vals []arrow.DayTimeInterval
}

func (c *dayTimeCol) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *dayTimeCol) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *dayTimeCol) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	v := c.vals[i]
	dst = binary.BigEndian.AppendUint32(append(dst, 1), uint32(v.Days))
	return binary.BigEndian.AppendUint32(dst, uint32(v.Milliseconds)), nil
}

type mdnCol struct {
	base
	vals []arrow.MonthDayNanoInterval
}

func (c *mdnCol) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *mdnCol) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *mdnCol) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	v := c.vals[i]
	dst = binary.BigEndian.AppendUint32(append(dst, 1), uint32(v.Months))
	dst = binary.BigEndian.AppendUint32(dst, uint32(v.Days))
	return binary.BigEndian.AppendUint64(dst, uint64(v.Nanoseconds)), nil
}

// ---- decimals: 16 or 32 two's-complement big-endian bytes, within the declared precision

type dec128Col struct {
	base
	vals []decimal128.Num
	prec int32
}

func (c *dec128Col) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *dec128Col) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *dec128Col) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	v := c.vals[i]
	if !v.FitsInPrecision(c.prec) {
		return dst, errAt(CodeEncoding, c.path+" decimal precision")
	}
	dst = binary.BigEndian.AppendUint64(append(dst, 1), uint64(v.HighBits()))
	return binary.BigEndian.AppendUint64(dst, v.LowBits()), nil
}

type dec256Col struct {
	base
	vals []decimal256.Num
	prec int32
}

func (c *dec256Col) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *dec256Col) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *dec256Col) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	v := c.vals[i]
	if !v.FitsInPrecision(c.prec) {
		return dst, errAt(CodeEncoding, c.path+" decimal precision")
	}
	w := v.Array() // little-endian 64-bit words
	dst = append(dst, 1)
	for k := 3; k >= 0; k-- {
		dst = binary.BigEndian.AppendUint64(dst, w[k])
	}
	return dst, nil
}

// ---- UTF-8 and binary: u64 length and the bytes

type varCol[O int32 | int64] struct {
	base
	offs []O    // logical offsets: len = array length + 1
	data []byte // the whole data buffer
	text bool
}

// offsetsOf returns the logical offsets of a variable-size array; an empty array may
// have no offsets buffer at all (IPC writers may omit it), which is not an error.
func offsetsOf[O int32 | int64](a interface {
	arrow.Array
	ValueOffsets() []O
}) []O {
	if a.Len() == 0 {
		return nil
	}
	return a.ValueOffsets()
}

func newVar[O int32 | int64](b base, offs []O, arr arrow.Array, text bool) (column, error) {
	if len(offs) != arr.Len()+1 && !(arr.Len() == 0 && len(offs) == 0) {
		return nil, errAt(CodeEncoding, b.path+" offsets")
	}
	var data []byte
	if bufs := arr.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return &varCol[O]{base: b, offs: offs, data: data, text: text}, nil
}

// value returns the bytes of a non-null value, checking the offsets and the limit.
func (c *varCol[O]) value(i int) ([]byte, error) {
	s, e := c.offs[i], c.offs[i+1]
	if s < 0 || e < s || int64(e) > int64(len(c.data)) {
		return nil, errAt(CodeEncoding, c.path+" offsets")
	}
	n := uint64(e - s)
	if c.text {
		if n > MaxTextBytes {
			return nil, limitErr(c.path, n, MaxTextBytes)
		}
	} else if n > MaxBinaryBytes {
		return nil, limitErr(c.path, n, MaxBinaryBytes)
	}
	return c.data[s:e], nil
}

func (c *varCol[O]) size(i int) (uint64, error) {
	if c.isNull(i) {
		return c.nullSize()
	}
	v, err := c.value(i)
	if err != nil {
		return 0, err
	}
	return 9 + uint64(len(v)), nil
}

func (c *varCol[O]) sizeRange(lo, hi int) (uint64, error) { return sizeLoop(c, lo, hi) }

func (c *varCol[O]) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	v, err := c.value(i)
	if err != nil {
		return dst, err
	}
	if c.text && !utf8.Valid(v) {
		return dst, errAt(CodeUTF8, c.path)
	}
	return append(present64(dst, uint64(len(v))), v...), nil
}

// ---- fixed-size binary: exactly the declared width, no length

type fsbCol struct {
	base
	data []byte
	w    int
}

func (c *fsbCol) size(i int) (uint64, error)           { return c.fixedSize(i) }
func (c *fsbCol) sizeRange(lo, hi int) (uint64, error) { return c.fixedSizeRange(lo, hi) }
func (c *fsbCol) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	s := (c.off + i) * c.w
	return append(append(dst, 1), c.data[s:s+c.w]...), nil
}

// ---- lists: u64 count and the elements in order

type listCol[O int32 | int64] struct {
	base
	offs  []O // full offsets buffer; value i uses offs[off+i], offs[off+i+1]
	child column
	n     int // child length
}

func newList[O int32 | int64](b base, offs []O, values arrow.Array, arr arrow.Array, elem arrow.Field) (column, error) {
	if arr.Len() > 0 && len(offs) < b.off+arr.Len()+1 {
		return nil, errAt(CodeEncoding, b.path+" offsets")
	}
	child, err := newColumn(values, elem.Nullable, b.path+".item")
	if err != nil {
		return nil, err
	}
	return &listCol[O]{base: b, offs: offs, child: child, n: values.Len()}, nil
}

func (c *listCol[O]) bounds(i int) (int, int, error) {
	s, e := c.offs[c.off+i], c.offs[c.off+i+1]
	if s < 0 || e < s || int64(e) > int64(c.n) {
		return 0, 0, errAt(CodeEncoding, c.path+" offsets")
	}
	if uint64(e-s) > MaxElements {
		return 0, 0, limitErr(c.path, uint64(e-s), MaxElements)
	}
	return int(s), int(e), nil
}

func (c *listCol[O]) size(i int) (uint64, error) {
	if c.isNull(i) {
		return c.nullSize()
	}
	s, e, err := c.bounds(i)
	if err != nil {
		return 0, err
	}
	n, err := c.child.sizeRange(s, e)
	if err != nil {
		return 0, err
	}
	return 9 + n, nil
}

func (c *listCol[O]) sizeRange(lo, hi int) (uint64, error) { return sizeLoop(c, lo, hi) }

func (c *listCol[O]) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	s, e, err := c.bounds(i)
	if err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint64(append(dst, 1), uint64(e-s))
	for j := s; j < e; j++ {
		if dst, err = c.child.appendValue(dst, j); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// ---- fixed-size lists: exactly n elements, no count

type fslCol struct {
	base
	child column
	n     int
}

func (c *fslCol) size(i int) (uint64, error) {
	if c.isNull(i) {
		return c.nullSize()
	}
	s := (c.off + i) * c.n
	n, err := c.child.sizeRange(s, s+c.n)
	return 1 + n, err
}

func (c *fslCol) sizeRange(lo, hi int) (uint64, error) { return sizeLoop(c, lo, hi) }

func (c *fslCol) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	s := (c.off + i) * c.n
	dst = append(dst, 1)
	var err error
	for j := s; j < s+c.n; j++ {
		if dst, err = c.child.appendValue(dst, j); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// ---- structs: the children in schema order

type structCol struct {
	base
	children []column
}

func (c *structCol) size(i int) (uint64, error) {
	if c.isNull(i) {
		return c.nullSize()
	}
	total := uint64(1)
	for _, ch := range c.children {
		n, err := ch.size(i)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func (c *structCol) sizeRange(lo, hi int) (uint64, error) {
	if c.nulls != nil {
		return sizeLoop(c, lo, hi)
	}
	total := uint64(hi - lo)
	for _, ch := range c.children {
		n, err := ch.sizeRange(lo, hi)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func (c *structCol) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	dst = append(dst, 1)
	var err error
	for _, ch := range c.children {
		if dst, err = ch.appendValue(dst, i); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// ---- maps: u64 count, entries sorted by their complete canonical key bytes

type mapCol struct {
	base
	offs    []int32
	entries base // the entries struct's validity: a null entry is malformed
	keys    column
	items   column
	n       int
	scratch []byte
	ents    []mapEntry
}

type mapEntry struct{ ks, ke, end int }

func newMap(b base, a *array.Map) (column, error) {
	t := a.DataType().(*arrow.MapType)
	if a.Len() > 0 && len(a.Offsets()) < b.off+a.Len()+1 {
		return nil, errAt(CodeEncoding, b.path+" offsets")
	}
	keys, items := a.Keys(), a.Items()
	keyCol, err := newColumn(keys, false, b.path+".key")
	if err != nil {
		return nil, err
	}
	itemCol, err := newColumn(items, t.ItemField().Nullable, b.path+".value")
	if err != nil {
		return nil, err
	}
	return &mapCol{base: b, offs: a.Offsets(), entries: newBase(a.ListValues(), false, b.path),
		keys: keyCol, items: itemCol, n: min(keys.Len(), items.Len(), a.ListValues().Len())}, nil
}

func (c *mapCol) bounds(i int) (int, int, error) {
	s, e := c.offs[c.off+i], c.offs[c.off+i+1]
	if s < 0 || e < s || int64(e) > int64(c.n) {
		return 0, 0, errAt(CodeEncoding, c.path+" offsets")
	}
	if uint64(e-s) > MaxElements {
		return 0, 0, limitErr(c.path, uint64(e-s), MaxElements)
	}
	for j := s; j < e; j++ {
		if c.entries.isNull(int(j)) {
			return 0, 0, errAt(CodeEncoding, c.path+" null map entry")
		}
	}
	return int(s), int(e), nil
}

func (c *mapCol) size(i int) (uint64, error) {
	if c.isNull(i) {
		return c.nullSize()
	}
	s, e, err := c.bounds(i)
	if err != nil {
		return 0, err
	}
	kn, err := c.keys.sizeRange(s, e)
	if err != nil {
		return 0, err
	}
	vn, err := c.items.sizeRange(s, e)
	if err != nil {
		return 0, err
	}
	return 9 + kn + vn, nil
}

func (c *mapCol) sizeRange(lo, hi int) (uint64, error) { return sizeLoop(c, lo, hi) }

func (c *mapCol) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	s, e, err := c.bounds(i)
	if err != nil {
		return dst, err
	}
	// Encode every entry into scratch, sort the entries by their key bytes, emit. The
	// scratch buffers belong to this column, and a column is used by one goroutine.
	scratch, ents := c.scratch[:0], c.ents[:0]
	for j := s; j < e; j++ {
		ks := len(scratch)
		if scratch, err = c.keys.appendValue(scratch, j); err != nil {
			return dst, err
		}
		ke := len(scratch)
		if scratch, err = c.items.appendValue(scratch, j); err != nil {
			return dst, err
		}
		ents = append(ents, mapEntry{ks, ke, len(scratch)})
	}
	slices.SortFunc(ents, func(x, y mapEntry) int {
		return bytes.Compare(scratch[x.ks:x.ke], scratch[y.ks:y.ke])
	})
	for k := 1; k < len(ents); k++ {
		if bytes.Equal(scratch[ents[k-1].ks:ents[k-1].ke], scratch[ents[k].ks:ents[k].ke]) {
			return dst, errAt(CodeMapKey, c.path+".key")
		}
	}
	dst = binary.BigEndian.AppendUint64(append(dst, 1), uint64(len(ents)))
	for _, x := range ents {
		dst = append(dst, scratch[x.ks:x.end]...)
	}
	c.scratch, c.ents = scratch, ents
	return dst, nil
}

// ---- dictionaries: decoded logically, the physical dictionary never participates

type dictCol[T integer] struct {
	base
	idx  []T
	dict column // the dictionary values, with the field's nullability
	n    int
}

func (c *dictCol[T]) index(i int) (int, error) {
	k := c.idx[i]
	if k < 0 || uint64(k) >= uint64(c.n) {
		return 0, errAt(CodeEncoding, c.path+" dictionary index")
	}
	return int(k), nil
}

func (c *dictCol[T]) size(i int) (uint64, error) {
	if c.isNull(i) {
		return c.nullSize()
	}
	k, err := c.index(i)
	if err != nil {
		return 0, err
	}
	return c.dict.size(k)
}

func (c *dictCol[T]) sizeRange(lo, hi int) (uint64, error) { return sizeLoop(c, lo, hi) }

func (c *dictCol[T]) appendValue(dst []byte, i int) ([]byte, error) {
	if c.isNull(i) {
		return c.appendNull(dst)
	}
	k, err := c.index(i)
	if err != nil {
		return dst, err
	}
	return c.dict.appendValue(dst, k)
}
