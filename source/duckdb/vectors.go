//go:build cgo

package duckdb

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bindings "github.com/duckdb/duckdb-go-bindings"
)

// The vector decoder turns one DuckDB data chunk into Arrow arrays by
// reading the engine's vectors directly (duckdb_vector_get_data and
// duckdb_vector_get_validity), so the adapter needs neither DuckDB's Arrow
// export nor its build tag.
//
// What it relies on, from DuckDB's C API and storage format:
//
//   - duckdb_fetch_chunk returns flattened chunks: every vector is a flat
//     array of Size() values of the column's physical type (no constant or
//     dictionary vectors).
//   - A validity mask is nil when every row is valid, otherwise uint64
//     words, bit i%64 of word i/64 set when row i is valid. On a
//     little-endian machine that is byte for byte Arrow's LSB-first
//     validity bitmap. Values under invalid rows are undefined and never
//     read as text (a duckdb_string_t there may hold a dangling pointer).
//   - Fixed-width values have Arrow's layout (two's complement integers,
//     IEEE 754 floats, int64 timestamps since 1970-01-01 in the column's
//     unit, hugeint as lower uint64 then upper int64, which is Arrow's
//     decimal128 layout), so they are copied in bulk; float bits (-0.0,
//     NaN payloads) are copied, never converted.
//   - BOOLEAN is one byte per value (0 or 1); Arrow needs a bitmap.
//   - DECIMAL(P,S) is stored as int16 (P <= 4), int32 (P <= 9), int64
//     (P <= 18) or hugeint (P <= 38) holding the unscaled value; it becomes
//     decimal128(P,S), sign-extended.
//   - VARCHAR and BLOB are duckdb_string_t, 16 bytes: a uint32 length, then
//     the bytes inline when length <= 12, else a 4-byte prefix and a
//     pointer to the bytes (valid while the chunk lives).
//
// The package's tests compare this decoder with DuckDB's own Arrow export,
// array by array and bit by bit, in builds with the duckdb_arrow tag.

// vecKind says how a column's vector is laid out.
type vecKind uint8

const (
	vecFixed  vecKind = iota + 1 // bulk copy of width bytes per value
	vecBool                      // one byte per value -> bitmap
	vecDec16                     // DECIMAL stored as int16 -> decimal128
	vecDec32                     // DECIMAL stored as int32 -> decimal128
	vecDec64                     // DECIMAL stored as int64 -> decimal128
	vecString                    // duckdb_string_t -> utf8 or binary, int32 offsets
)

// vecCol is the decoding plan of one column.
type vecCol struct {
	kind  vecKind
	width int // bytes per value for vecFixed
	dt    arrow.DataType
}

// errVector reports a chunk the decoder cannot turn into Arrow arrays.
var errVector = errors.New("duckdb vector decoder")

// planColumn returns how to decode a column of a supported DuckDB type into
// its Arrow type dt (exportType's result). ok is false for every type the
// adapter does not support.
func planColumn(t typeInfo, dt arrow.DataType) (vecCol, bool) {
	switch t.id {
	case bindings.TypeBoolean:
		return vecCol{kind: vecBool, dt: dt}, true
	case bindings.TypeTinyInt, bindings.TypeUTinyInt:
		return vecCol{kind: vecFixed, width: 1, dt: dt}, true
	case bindings.TypeSmallInt, bindings.TypeUSmallInt:
		return vecCol{kind: vecFixed, width: 2, dt: dt}, true
	case bindings.TypeInteger, bindings.TypeUInteger, bindings.TypeFloat:
		return vecCol{kind: vecFixed, width: 4, dt: dt}, true
	case bindings.TypeBigInt, bindings.TypeUBigInt, bindings.TypeDouble,
		bindings.TypeTimestampS, bindings.TypeTimestampMS, bindings.TypeTimestamp,
		bindings.TypeTimestampNS, bindings.TypeTimestampTZ:
		return vecCol{kind: vecFixed, width: 8, dt: dt}, true
	case bindings.TypeVarchar, bindings.TypeBlob:
		return vecCol{kind: vecString, dt: dt}, true
	case bindings.TypeDecimal:
		// DuckDB's storage width by precision (DecimalType::GetInternalType).
		switch {
		case t.width == 0 || t.width > 38:
			return vecCol{}, false
		case t.width <= 4:
			return vecCol{kind: vecDec16, dt: dt}, true
		case t.width <= 9:
			return vecCol{kind: vecDec32, dt: dt}, true
		case t.width <= 18:
			return vecCol{kind: vecDec64, dt: dt}, true
		default:
			return vecCol{kind: vecFixed, width: 16, dt: dt}, true
		}
	}
	return vecCol{}, false
}

// decodeChunk turns the n rows of chunk into one record of schema sc, one
// column per plan. The record owns its memory (allocated from mem); the
// chunk can be destroyed right after.
func decodeChunk(mem memory.Allocator, sc *arrow.Schema, plan []vecCol, chunk bindings.DataChunk) (arrow.RecordBatch, error) {
	n := int(bindings.DataChunkGetSize(chunk))
	if got := int(bindings.DataChunkGetColumnCount(chunk)); got != len(plan) {
		return nil, fmt.Errorf("%w: chunk has %d columns, want %d", errVector, got, len(plan))
	}
	cols := make([]arrow.Array, len(plan))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, p := range plan {
		c, err := decodeVector(mem, p, bindings.DataChunkGetVector(chunk, bindings.IdxT(i)), n)
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", i+1, err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(sc, cols, int64(n)), nil
}

// decodeVector decodes the first n rows of vec.
func decodeVector(mem memory.Allocator, p vecCol, vec bindings.Vector, n int) (arrow.Array, error) {
	if n == 0 {
		return array.MakeArrayOfNull(mem, p.dt, 0), nil
	}
	data := bindings.VectorGetData(vec)
	if data == nil {
		return nil, fmt.Errorf("%w: vector without data", errVector)
	}
	mask := validityWords(bindings.VectorGetValidity(vec), n)
	valid, nulls := validityBitmap(mem, mask, n)
	if valid != nil {
		defer valid.Release()
	}
	var bufs []*memory.Buffer
	switch p.kind {
	case vecFixed:
		b := newBuffer(mem, n*p.width)
		copy(b.Bytes(), unsafe.Slice((*byte)(data), n*p.width))
		bufs = []*memory.Buffer{valid, b}
	case vecBool:
		b := newBuffer(mem, bitmapBytes(n))
		packBools(b.Bytes(), unsafe.Slice((*byte)(data), n))
		bufs = []*memory.Buffer{valid, b}
	case vecDec16:
		b := newBuffer(mem, n*16)
		widenDecimals(b.Bytes(), unsafe.Slice((*int16)(data), n))
		bufs = []*memory.Buffer{valid, b}
	case vecDec32:
		b := newBuffer(mem, n*16)
		widenDecimals(b.Bytes(), unsafe.Slice((*int32)(data), n))
		bufs = []*memory.Buffer{valid, b}
	case vecDec64:
		b := newBuffer(mem, n*16)
		widenDecimals(b.Bytes(), unsafe.Slice((*int64)(data), n))
		bufs = []*memory.Buffer{valid, b}
	case vecString:
		offs, vals, err := decodeStrings(mem, unsafe.Slice((*duckString)(data), n), mask)
		if err != nil {
			return nil, err
		}
		bufs = []*memory.Buffer{valid, offs, vals}
	default:
		return nil, fmt.Errorf("%w: no plan for Arrow type %s", errVector, p.dt)
	}
	for _, b := range bufs[1:] {
		defer b.Release()
	}
	d := array.NewData(p.dt, n, bufs, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// validityWords returns the first ceil(n/64) words of a DuckDB validity
// mask, or nil when the vector has none (all rows valid).
func validityWords(p unsafe.Pointer, n int) []uint64 {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*uint64)(p), (n+63)/64)
}

// validityBitmap copies mask into an Arrow validity bitmap and counts the
// invalid rows among the first n. It returns no bitmap when every row is
// valid. Bits past n are cleared, so the bitmap does not depend on what the
// engine left there.
func validityBitmap(mem memory.Allocator, mask []uint64, n int) (*memory.Buffer, int) {
	if mask == nil {
		return nil, 0
	}
	validN := 0
	full := n / 64
	for _, w := range mask[:full] {
		validN += bits.OnesCount64(w)
	}
	var last uint64
	if r := n % 64; r != 0 {
		last = mask[full] & (1<<r - 1)
		validN += bits.OnesCount64(last)
	}
	if validN == n {
		return nil, 0
	}
	b := newBuffer(mem, bitmapBytes(n))
	out := b.Bytes()
	copy(out, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mask))), full*8))
	for i := full * 8; i < len(out); i++ {
		out[i] = byte(last >> (8 * (i - full*8)))
	}
	return b, n - validN
}

// rowValid reports whether row i is valid under mask (nil: all valid).
func rowValid(mask []uint64, i int) bool {
	return mask == nil || mask[i>>6]&(1<<(uint(i)&63)) != 0
}

func bitmapBytes(n int) int { return (n + 7) / 8 }

// newBuffer allocates a buffer of size bytes from mem. Its bytes are not
// cleared: every caller writes all size bytes (zeroing them first cost a
// tenth of the decoder's time).
func newBuffer(mem memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(size)
	return b
}

// packBools writes bit i of dst (LSB first) as src[i] != 0, for all
// len(dst) bytes of dst: bits past len(src) are zero.
func packBools(dst []byte, src []byte) {
	for j := range dst {
		var v byte
		for k, b := range src[j*8 : min(j*8+8, len(src))] {
			if b != 0 {
				v |= 1 << k
			}
		}
		dst[j] = v
	}
}

// widenDecimals writes each unscaled value of src as a little-endian
// 128-bit two's complement integer (Arrow decimal128) into dst.
func widenDecimals[T int16 | int32 | int64](dst []byte, src []T) {
	out := unsafe.Slice((*[2]uint64)(unsafe.Pointer(unsafe.SliceData(dst))), len(src))
	for i, v := range src {
		lo := int64(v)
		out[i] = [2]uint64{uint64(lo), uint64(lo >> 63)}
	}
}

// duckString is duckdb_string_t: a uint32 length, then 12 bytes that hold
// the value when length <= 12, else a 4-byte prefix and a char pointer at
// offset 8. The pointer is read only for such long values, so no inline
// bytes are ever taken for a pointer.
type duckString struct {
	length uint32
	inline [12]byte
}

const maxInline = 12

// bytes returns the value of s, aliasing engine memory.
func (s *duckString) bytes() []byte {
	if s.length <= maxInline {
		return s.inline[:s.length]
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&s.inline[4]))
	return unsafe.Slice((*byte)(p), s.length)
}

// decodeStrings builds the int32 offsets and the value bytes of an Arrow
// utf8 or binary array. Invalid rows are empty. A chunk holding more than
// math.MaxInt32 bytes of text cannot be one such array and fails, as
// DuckDB's own Arrow export does with arrow_large_buffer_size=false.
func decodeStrings(mem memory.Allocator, src []duckString, mask []uint64) (offs, vals *memory.Buffer, err error) {
	total := 0
	for i := range src {
		if rowValid(mask, i) {
			total += int(src[i].length)
		}
	}
	if total > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%w: a chunk holds %d bytes of text or blobs, more than an Arrow utf8/binary array (int32 offsets) can", errVector, total)
	}
	offs = newBuffer(mem, (len(src)+1)*4)
	vals = newBuffer(mem, total)
	o := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(offs.Bytes()))), len(src)+1)
	v := vals.Bytes()
	at := 0
	for i := range src {
		o[i] = int32(at)
		if rowValid(mask, i) {
			at += copy(v[at:], src[i].bytes())
		}
	}
	o[len(src)] = int32(at)
	return offs, vals, nil
}

// readCount returns the sum of the non-null BIGINT values of the first column
// of res.
func readCount(res bindings.Result) (int64, error) {
	vals, err := readBigInts(res)
	var sum int64
	for _, v := range vals {
		sum += v
	}
	return sum, err
}

// readBigInts returns the non-null values of the first column of res, which
// must be BIGINT, in result order.
func readBigInts(res bindings.Result) ([]int64, error) {
	var out []int64
	for {
		chunk := bindings.FetchChunk(res)
		if chunk.Ptr == nil {
			return out, nil
		}
		n := int(bindings.DataChunkGetSize(chunk))
		if n > 0 {
			vec := bindings.DataChunkGetVector(chunk, 0)
			lt := bindings.VectorGetColumnType(vec)
			id := bindings.GetTypeId(lt)
			bindings.DestroyLogicalType(&lt)
			if id != bindings.TypeBigInt {
				bindings.DestroyDataChunk(&chunk)
				return nil, fmt.Errorf("%w: the result is %s, not BIGINT", errVector, typeSpelling(typeInfo{id: id}))
			}
			vals := unsafe.Slice((*int64)(bindings.VectorGetData(vec)), n)
			mask := validityWords(bindings.VectorGetValidity(vec), n)
			for i, v := range vals {
				if rowValid(mask, i) {
					out = append(out, v)
				}
			}
		}
		bindings.DestroyDataChunk(&chunk)
	}
}
