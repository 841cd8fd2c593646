package source

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/pipewhy/pipewhy/internal/hugemem"
)

// maxGroupRows bounds the rows of one row group that the fast path accepts:
// a row group's rows index Arrow arrays (int) and validity bitmaps.
const maxGroupRows = math.MaxInt32

// maxPrealloc bounds how many values are allocated up front for a row group
// (the footer's row count is not trusted for memory: a damaged count only
// fails when the pages do not add up to it).
const maxPrealloc = 1 << 22

// maxPreallocBytes bounds the byte-array data allocated up front.
const maxPreallocBytes = 1 << 28

// pgBuf holds one column of the decoded row group in Arrow layout. Batches
// share its value memory (see array); it is reset and reused for a later row
// group only when its groupMem is released by every batch.
//
// A row group whose column chunk is one page without nulls and without
// dictionary indexes (as DuckDB writes them), of a kind that parquet-go
// already holds in Arrow's layout (INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY),
// is not copied: page is that page, retained until reset, and pvals (fixed
// width) or pdata and poffs (byte arrays) are its values. Otherwise the
// values are copied into the own buffers (i32 ... dec, offs and data).
type pgBuf struct {
	rows  int      // rows decoded so far
	page  releaser // the retained page holding every row, or nil
	pvals []byte   // page: fixed-width values, one per row
	pdata []byte   // page: BYTE_ARRAY data
	poffs []uint32 // page: BYTE_ARRAY offsets into pdata, rows+1 of them (checked)
	o32   []int32  // the batches' rebased 32-bit offsets (pgBytes), cut in turn
	o64   []int64  // the same, 64-bit (pgLarge)
	valid []byte   // validity bitmap, nil until the first null (then it covers every row so far)
	spare []byte   // the previous row group's validity bitmap, reused by ensureValid
	bits  []byte   // BOOLEAN values, bit-packed like Arrow's (LSB first)
	i8    []int8
	i16   []int16
	i32   []int32 // INT32 values; the scratch of narrowed columns
	i64   []int64
	f32   []float32
	f64   []float64
	offs  []int64 // BYTE_ARRAY offsets into data, offs[0] = 0
	data  []byte
	dec   []uint64 // decimal128 values as (low, high) word pairs, Arrow's layout
}

// releaser is a page whose memory parquet-go reference-counts: after Retain
// it is not reused for another page until Release. Only such pages are
// referred to instead of copied.
type releaser interface {
	Retain()
	Release()
}

func (b *pgBuf) reset(k pgKind, n int, hint int64) {
	old := *b
	if old.page != nil {
		old.page.Release()
	}
	*b = pgBuf{spare: old.spare, o32: old.o32[:0], o64: old.o64[:0]}
	if old.valid != nil {
		b.spare = old.valid
	}
	c := min(n, maxPrealloc)
	switch k {
	case pgBool:
		b.bits = reuse(old.bits, int(bitutil.BytesForBits(int64(c))))
	case pgInt8, pgInt16:
		b.i32, b.i8, b.i16 = reuse(old.i32, c), old.i8, old.i16
	case pgInt32:
		b.i32 = reuse(old.i32, c)
	case pgInt64:
		b.i64 = reuse(old.i64, c)
	case pgFloat32:
		b.f32 = reuse(old.f32, c)
	case pgFloat64:
		b.f64 = reuse(old.f64, c)
	case pgDec32, pgDec64, pgDecFixed:
		b.dec = reuse(old.dec, 2*c)
	case pgBytes, pgLarge:
		b.offs = append(reuse(old.offs, c+1), 0)
		b.data = reuse(old.data, int(min(max(hint, 0), maxPreallocBytes)))
	}
}

// reuse returns s emptied when it can hold c values, else a new slice of
// capacity c: a row group's buffers are allocated only when the previous row
// group's are too small. New ones are advised for huge pages: a row group's
// columns are megabytes each, written once from start to end.
func reuse[T any](s []T, c int) []T {
	if cap(s) >= c {
		return s[:0]
	}
	s = make([]T, 0, c)
	hugemem.Advise(s)
	return s
}

// pageHeaderWindow is how many bytes checkPages reads first for a page
// header (headers are tens of bytes; statistics can make them longer, and
// the window then grows up to the rest of the chunk).
const pageHeaderWindow = 1 << 10

// errPageHeader marks the failures of checkPages.
var errPageHeader = errors.New("page header inconsistent with the file")

// checkPages walks the page headers of the column chunk described by cm,
// which must hold rows rows of column c, in the file r of size bytes,
// before parquet-go decodes any of its pages. parquet-go sizes buffers by
// the header fields before it decodes (definition levels and byte-array
// offsets by num_values, a dictionary by its num_values, the decompression
// buffer by uncompressed_page_size, a statistics value by its length
// prefix) and tolerates some inconsistencies, so a damaged header would cost
// up to gigabytes and seconds for a file of a few hundred bytes. Every check
// holds for a valid file of the fast path's scope (flat columns, where each
// value of a data page is one row):
//   - the chunk lies inside the file and every page inside the chunk;
//   - the data pages' values add up to the row group's rows (v2: the nulls
//     are at most the values, the levels fit in the page);
//   - a dictionary page's entries fit in its bytes (PLAIN: at least the
//     type's width each, 4 bytes for a byte array's length);
//   - with a compression codec, the pages' uncompressed sizes add up to at
//     most the chunk's total_uncompressed_size (which also counts headers).
//
// It reads the chunk's extent the way parquet-go does (from the dictionary
// page offset when it is set, else the data page offset, for
// total_compressed_size bytes) and decodes headers with parquet-go's own
// Thrift decoder, but from a bounded byte window: a length prefix larger
// than the bytes left fails instead of allocating. buf is scratch, reused.
func checkPages(r io.ReaderAt, size int64, cm *format.ColumnMetaData, c pgCol, rows int, buf *[]byte) error {
	base, total := cm.DataPageOffset, cm.TotalCompressedSize
	if cm.DictionaryPageOffset != 0 {
		base = cm.DictionaryPageOffset
	}
	if base < 0 || total < 0 || base > size || total > size-base {
		return fmt.Errorf("%w: the column chunk lies outside the file", errPageHeader)
	}
	compressed := cm.Codec != format.Uncompressed
	var values, uncompressed int64
	proto := new(thrift.CompactProtocol)
	for pos, page := int64(0), 1; pos < total; page++ {
		var h format.PageHeader
		var hlen int64
		for window := min(total-pos, pageHeaderWindow); ; window = min(16*window, total-pos) {
			if int64(cap(*buf)) < window {
				*buf = make([]byte, window)
			}
			b := (*buf)[:window]
			if _, err := r.ReadAt(b, base+pos); err != nil {
				return fmt.Errorf("page %d: %w", page, err)
			}
			h = format.PageHeader{}
			tr := proto.NewReaderFromBytes(b)
			err := thrift.NewDecoder(tr).Decode(&h)
			if err == nil {
				hlen = int64(tr.BytesRead())
				break
			}
			if window == total-pos {
				return fmt.Errorf("%w: page %d: unreadable header", errPageHeader, page)
			}
		}
		if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 || int64(h.CompressedPageSize) > total-pos-hlen {
			return fmt.Errorf("%w: page %d: sizes outside the column chunk", errPageHeader, page)
		}
		switch {
		case h.Type == format.DataPage && h.DataPageHeader.Valid:
			v := &h.DataPageHeader.V
			if v.NumValues < 0 {
				return fmt.Errorf("%w: page %d: negative value count", errPageHeader, page)
			}
			values += int64(v.NumValues)
		case h.Type == format.DataPageV2 && h.DataPageHeaderV2.Valid:
			v := &h.DataPageHeaderV2.V
			if v.NumValues < 0 || v.NumNulls < 0 || v.NumNulls > v.NumValues {
				return fmt.Errorf("%w: page %d: value or null count", errPageHeader, page)
			}
			if v.RepetitionLevelsByteLength < 0 || v.DefinitionLevelsByteLength < 0 ||
				int64(v.RepetitionLevelsByteLength)+int64(v.DefinitionLevelsByteLength) > int64(h.CompressedPageSize) {
				return fmt.Errorf("%w: page %d: levels larger than the page", errPageHeader, page)
			}
			values += int64(v.NumValues)
		case h.Type == format.DictionaryPage && h.DictionaryPageHeader.Valid:
			n := int64(h.DictionaryPageHeader.V.NumValues)
			bytes := int64(h.CompressedPageSize)
			if compressed {
				bytes = int64(h.UncompressedPageSize)
			}
			if n < 0 || n > 8*bytes/minValueBits(c) {
				return fmt.Errorf("%w: page %d: %d dictionary entries in %d bytes", errPageHeader, page, n, bytes)
			}
		default:
			return fmt.Errorf("%w: page %d: page type %d or its header missing", errPageHeader, page, h.Type)
		}
		if values > int64(rows) {
			return fmt.Errorf("%w: page %d: the pages hold more values than the row group's %d rows", errPageHeader, page, rows)
		}
		if compressed {
			uncompressed += int64(h.UncompressedPageSize)
			if uncompressed > cm.TotalUncompressedSize {
				return fmt.Errorf("%w: page %d: uncompressed sizes past the chunk's total", errPageHeader, page)
			}
		}
		pos += hlen + int64(h.CompressedPageSize)
	}
	if values != int64(rows) {
		return fmt.Errorf("%w: the pages hold %d values, the row group %d rows", errPageHeader, values, rows)
	}
	return nil
}

// minValueBits is the fewest bits one PLAIN-encoded value of column c
// takes.
func minValueBits(c pgCol) int64 {
	switch c.kind {
	case pgBool:
		return 1
	case pgInt64, pgFloat64, pgDec64:
		return 64
	case pgDecFixed:
		return 8 * int64(max(c.size, 1))
	}
	return 32 // INT32, FLOAT, and a BYTE_ARRAY's 4-byte length
}

// decode reads every page of column chunk cc, which must hold n rows.
func (b *pgBuf) decode(cc parquet.ColumnChunk, c pgCol, n int, hint int64) error {
	b.reset(c.kind, n, hint)
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		err = b.addPage(p, c, n)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
	if b.rows != n {
		return fmt.Errorf("the pages hold %d rows, the row group %d", b.rows, n)
	}
	switch c.kind {
	case pgInt8:
		b.i8 = reuse(b.i8, len(b.i32))[:len(b.i32)]
		for i, v := range b.i32 {
			b.i8[i] = int8(v) // pqarrow narrows with the same conversion
		}
	case pgInt16:
		b.i16 = reuse(b.i16, len(b.i32))[:len(b.i32)]
		for i, v := range b.i32 {
			b.i16[i] = int16(v)
		}
	}
	return nil
}

var pgValueKind = map[pgKind]encoding.Kind{
	pgBool: encoding.Boolean, pgInt8: encoding.Int32, pgInt16: encoding.Int32, pgInt32: encoding.Int32,
	pgInt64: encoding.Int64, pgFloat32: encoding.Float, pgFloat64: encoding.Double,
	pgBytes: encoding.ByteArray, pgLarge: encoding.ByteArray,
	pgDec32: encoding.Int32, pgDec64: encoding.Int64, pgDecFixed: encoding.FixedLenByteArray,
}

// addPage appends the rows of page p. Every count and index is checked
// before use: parquet-go hands over dictionary indexes as stored.
func (b *pgBuf) addPage(p parquet.Page, c pgCol, n int) error {
	rows64 := p.NumValues()
	if rows64 < 0 || rows64 > int64(n-b.rows) {
		return fmt.Errorf("a page of %d values past the row group's %d rows", rows64, n)
	}
	rows := int(rows64)
	defs := p.DefinitionLevels()
	dense := rows // non-null values
	if c.optional {
		if len(defs) != rows {
			return fmt.Errorf("%d definition levels for %d values", len(defs), rows)
		}
		n, bad := countDefs(defs)
		if bad > 1 {
			return fmt.Errorf("definition level %d above the maximum 1", bad)
		}
		dense = n
	} else if len(defs) != 0 {
		return fmt.Errorf("definition levels on a required column")
	}
	vals := p.Data()
	var idx []int32
	if d := p.Dictionary(); d != nil {
		if vals.Kind() != encoding.Int32 {
			return fmt.Errorf("dictionary indexes of kind %s", vals.Kind())
		}
		idx = vals.Int32()
		vals = d.Page().Data()
		if len(idx) != dense {
			return fmt.Errorf("%d dictionary indexes for %d values", len(idx), dense)
		}
	}
	if want := pgValueKind[c.kind]; vals.Kind() != want {
		return fmt.Errorf("values of kind %s, want %s", vals.Kind(), want)
	}
	var have int // values (or dictionary entries) in vals
	var data []byte
	var offs []uint32
	switch vals.Kind() {
	case encoding.Boolean:
		if idx != nil {
			return fmt.Errorf("a dictionary on a BOOLEAN column")
		}
		have = 8 * len(vals.Boolean())
	case encoding.Int32:
		have = len(vals.Int32())
	case encoding.Int64:
		have = len(vals.Int64())
	case encoding.Float:
		have = len(vals.Float())
	case encoding.Double:
		have = len(vals.Double())
	case encoding.FixedLenByteArray:
		fixed, size := vals.FixedLenByteArray()
		if size != c.size || size <= 0 {
			return fmt.Errorf("fixed-length values of %d bytes, the column's are %d", size, c.size)
		}
		have = len(fixed) / size
	case encoding.ByteArray:
		data, offs = vals.ByteArray()
		have = max(len(offs)-1, 0)
		if err := checkOffsets(offs, len(data)); err != nil {
			return err
		}
	}
	if idx != nil {
		for _, i := range idx {
			if uint32(i) >= uint32(have) {
				return fmt.Errorf("dictionary index %d of %d entries", i, have)
			}
		}
	} else if have < dense {
		return fmt.Errorf("%d values for %d non-null rows", have, dense)
	}
	if dense < rows {
		b.ensureValid(b.rows + rows)
		for r, d := range defs {
			if d == 0 {
				bitutil.ClearBit(b.valid, b.rows+r)
			}
		}
	} else if b.valid != nil {
		b.ensureValid(b.rows + rows)
	}
	// A dense page that holds the whole row group (one page per column
	// chunk, as DuckDB writes them) is referred to instead of copied. Pages
	// of a chunk of several are copied: retaining each would take a
	// decompression buffer per page (parquet-go's pool, not advised for huge
	// pages, so faulted in page by page), where one serves them all.
	if dense == rows && idx == nil && rows == n && b.rows == 0 {
		if r, ok := p.(releaser); ok && b.refer(r, vals, c.kind, rows) {
			b.rows += rows
			return nil
		}
	}
	switch c.kind {
	case pgBool:
		b.addBools(vals.Boolean(), defs, rows, dense)
	case pgInt8, pgInt16, pgInt32:
		b.i32 = appendFixed(b.i32, vals.Int32(), idx, defs, rows, dense)
	case pgInt64:
		b.i64 = appendFixed(b.i64, vals.Int64(), idx, defs, rows, dense)
	case pgFloat32:
		b.f32 = appendFixed(b.f32, vals.Float(), idx, defs, rows, dense)
	case pgFloat64:
		b.f64 = appendFixed(b.f64, vals.Double(), idx, defs, rows, dense)
	case pgBytes, pgLarge:
		if err := b.addBytes(data, offs, idx, defs, rows, dense); err != nil {
			return err
		}
	case pgDec32:
		v := vals.Int32()
		b.addDecimals(func(x int) (uint64, uint64) { return uint64(int64(v[x])), uint64(int64(v[x]) >> 63) }, idx, defs, rows, dense)
	case pgDec64:
		v := vals.Int64()
		b.addDecimals(func(x int) (uint64, uint64) { return uint64(v[x]), uint64(v[x] >> 63) }, idx, defs, rows, dense)
	case pgDecFixed:
		fixed, size := vals.FixedLenByteArray()
		b.addDecimals(func(x int) (uint64, uint64) { return bigEndian128(fixed[x*size : (x+1)*size]) }, idx, defs, rows, dense)
	}
	b.rows += rows
	return nil
}

// refer makes page p, whose rows values vals are dense (no nulls, no
// dictionary; checked by addPage) and hold the whole row group, the column's
// memory when the column's kind stores them as parquet-go holds them, and
// reports whether it did. The page is retained until reset.
func (b *pgBuf) refer(p releaser, vals encoding.Values, k pgKind, rows int) bool {
	switch k {
	case pgInt32:
		b.pvals = arrow.Int32Traits.CastToBytes(vals.Int32()[:rows])
	case pgInt64:
		b.pvals = arrow.Int64Traits.CastToBytes(vals.Int64()[:rows])
	case pgFloat32:
		b.pvals = arrow.Float32Traits.CastToBytes(vals.Float()[:rows])
	case pgFloat64:
		b.pvals = arrow.Float64Traits.CastToBytes(vals.Double()[:rows])
	case pgBytes, pgLarge:
		data, offs := vals.ByteArray()
		b.pdata, b.poffs = data, offs[:rows+1]
	default:
		return false
	}
	p.Retain()
	b.page = p
	return true
}

// checkOffsets checks that parquet-go's byte-array offsets are
// non-decreasing and within data, so that slicing by them cannot fail.
func checkOffsets(offs []uint32, n int) error {
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			return fmt.Errorf("byte-array offsets decrease")
		}
	}
	if len(offs) > 0 && int64(offs[len(offs)-1]) > int64(n) {
		return fmt.Errorf("byte-array offsets past the page's data")
	}
	return nil
}

// countDefs returns how many of the definition levels defs are 1 (the
// non-null values of a column of maximum level 1), or the first level above
// 1 as bad (bad is 0 otherwise). Eight levels at a time: one test for a bit
// above the lowest in any of them, one population count.
func countDefs(defs []byte) (ones int, bad byte) {
	i := 0
	for ; i+8 <= len(defs); i += 8 {
		x := binary.LittleEndian.Uint64(defs[i:])
		if x&0xfefefefefefefefe != 0 {
			break // a level above 1: the loop below finds the first
		}
		ones += bits.OnesCount64(x)
	}
	for _, d := range defs[i:] {
		if d > 1 {
			return 0, d
		}
		ones += int(d)
	}
	return ones, 0
}

// ensureValid extends the validity bitmap with set bits to cover rows rows.
func (b *pgBuf) ensureValid(rows int) {
	if b.valid == nil {
		b.valid = b.spare[:0]
	}
	for need := int(bitutil.BytesForBits(int64(rows))); len(b.valid) < need; {
		b.valid = append(b.valid, 0xff)
	}
}

// appendFixed appends one page of a fixed-width column to dst: the dense
// values vals (or the dictionary vals gathered by idx) spread over rows rows
// by the definition levels defs, nulls as zero.
func appendFixed[T any](dst, vals []T, idx []int32, defs []byte, rows, dense int) []T {
	if dense == rows {
		if idx == nil {
			return append(dst, vals[:rows]...)
		}
		// Gather by index into the grown slice rather than append per
		// value, so the loop has no capacity check (addPage checked every
		// index against len(vals)).
		n0 := len(dst)
		dst = slices.Grow(dst, len(idx))[:n0+len(idx)]
		out := dst[n0:]
		for k, i := range idx {
			out[k] = vals[i]
		}
		return dst
	}
	var zero T
	j := 0
	for _, d := range defs[:rows] {
		if d == 0 {
			dst = append(dst, zero)
			continue
		}
		x := j
		if idx != nil {
			x = int(idx[j])
		}
		j++
		dst = append(dst, vals[x])
	}
	return dst
}

// addDecimals appends a page of decimals, at(x) giving dense value x (or
// dictionary entry x) as its low and high words.
func (b *pgBuf) addDecimals(at func(x int) (lo, hi uint64), idx []int32, defs []byte, rows, dense int) {
	j := 0
	for r := range rows {
		if dense < rows && defs[r] == 0 {
			b.dec = append(b.dec, 0, 0)
			continue
		}
		x := j
		if idx != nil {
			x = int(idx[j])
		}
		j++
		lo, hi := at(x)
		b.dec = append(b.dec, lo, hi)
	}
}

// bigEndian128 sign-extends a big-endian two's complement integer of 1 to 16
// bytes to 128 bits.
func bigEndian128(v []byte) (lo, hi uint64) {
	var buf [16]byte
	if v[0]&0x80 != 0 {
		for i := range 16 - len(v) {
			buf[i] = 0xff
		}
	}
	copy(buf[16-len(v):], v)
	return binary.BigEndian.Uint64(buf[8:]), binary.BigEndian.Uint64(buf[:8])
}

// addBools appends a page of bit-packed BOOLEAN values.
func (b *pgBuf) addBools(bits []byte, defs []byte, rows, dense int) {
	for need := int(bitutil.BytesForBits(int64(b.rows + rows))); len(b.bits) < need; {
		b.bits = append(b.bits, 0)
	}
	j := 0
	for r := range rows {
		if dense < rows && defs[r] == 0 {
			continue
		}
		if bitutil.BitIsSet(bits, j) {
			bitutil.SetBit(b.bits, b.rows+r)
		}
		j++
	}
}

// addBytes appends a page of BYTE_ARRAY values (offsets already checked).
func (b *pgBuf) addBytes(data []byte, offs []uint32, idx []int32, defs []byte, rows, dense int) error {
	add := func(v []byte) {
		b.data = append(b.data, v...)
		b.offs = append(b.offs, int64(len(b.data)))
	}
	switch {
	case dense == rows && idx == nil:
		if rows > 0 {
			// One copy of the page's data and its offsets rebased.
			base := int64(len(b.data)) - int64(offs[0])
			b.data = append(b.data, data[offs[0]:offs[rows]]...)
			n0 := len(b.offs)
			b.offs = slices.Grow(b.offs, rows)[:n0+rows]
			out := b.offs[n0:]
			for k, o := range offs[1 : rows+1] {
				out[k] = base + int64(o)
			}
		}
	case dense == rows:
		for _, i := range idx {
			add(data[offs[i]:offs[i+1]])
		}
	default:
		j := 0
		for _, d := range defs[:rows] {
			if d == 0 {
				b.offs = append(b.offs, int64(len(b.data)))
				continue
			}
			x := j
			if idx != nil {
				x = int(idx[j])
			}
			j++
			add(data[offs[x]:offs[x+1]])
		}
	}
	return nil
}

// array returns rows [lo, hi) of the column as an Arrow array of type t. The
// values (fixed-width values, byte-array data) are not copied: they are
// buffers over b's memory (or its page's) that hold references to g, which
// owns b (see groupMem). Byte-array offsets are rebased to start at 0 into
// row group memory cut for this batch (cut); the validity bitmap and
// bit-packed booleans are small and made for the batch. So every buffer
// starts at the batch's first row and holds only its rows (the scan's
// read-ahead budget counts buffer lengths).
func (b *pgBuf) array(g *groupMem, t arrow.DataType, k pgKind, lo, hi int) (arrow.Array, error) {
	n := hi - lo
	var valid *memory.Buffer
	nulls := 0
	if b.valid != nil {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		bitutil.CopyBitmap(b.valid, lo, n, bm, 0)
		if nulls = n - bitutil.CountSetBits(bm, 0, n); nulls > 0 {
			valid = memory.NewBufferBytes(bm)
		}
	}
	var bufs []*memory.Buffer
	switch k {
	case pgBool:
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		bitutil.CopyBitmap(b.bits, lo, n, bm, 0)
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(bm)}
	case pgInt8:
		bufs = []*memory.Buffer{valid, g.buffer(arrow.Int8Traits.CastToBytes(b.i8[lo:hi]))}
	case pgInt16:
		bufs = []*memory.Buffer{valid, g.buffer(arrow.Int16Traits.CastToBytes(b.i16[lo:hi]))}
	case pgInt32:
		bufs = []*memory.Buffer{valid, g.buffer(b.fixed(arrow.Int32Traits.CastToBytes(b.i32), 4, lo, hi))}
	case pgInt64:
		bufs = []*memory.Buffer{valid, g.buffer(b.fixed(arrow.Int64Traits.CastToBytes(b.i64), 8, lo, hi))}
	case pgFloat32:
		bufs = []*memory.Buffer{valid, g.buffer(b.fixed(arrow.Float32Traits.CastToBytes(b.f32), 4, lo, hi))}
	case pgFloat64:
		bufs = []*memory.Buffer{valid, g.buffer(b.fixed(arrow.Float64Traits.CastToBytes(b.f64), 8, lo, hi))}
	case pgDec32, pgDec64, pgDecFixed:
		bufs = []*memory.Buffer{valid, g.buffer(arrow.Uint64Traits.CastToBytes(b.dec[2*lo : 2*hi]))}
	case pgBytes, pgLarge:
		var data []byte
		if b.page != nil {
			data = b.pdata[b.poffs[lo]:b.poffs[hi]]
		} else {
			data = b.data[b.offs[lo]:b.offs[hi]]
		}
		var offs []byte
		if k == pgBytes {
			if len(data) > math.MaxInt32 {
				return nil, fmt.Errorf("more than 2 GiB of values in one batch")
			}
			offs = arrow.Int32Traits.CastToBytes(batchOffsets(b, &b.o32, lo, hi))
		} else {
			offs = arrow.Int64Traits.CastToBytes(batchOffsets(b, &b.o64, lo, hi))
		}
		bufs = []*memory.Buffer{valid, g.buffer(offs), g.buffer(data)}
	default:
		return nil, fmt.Errorf("no layout for column kind %d", k)
	}
	d := array.NewData(t, n, bufs, nil, nulls, 0)
	defer d.Release()
	for _, buf := range bufs {
		if buf != nil {
			buf.Release() // d holds its own references
		}
	}
	return array.MakeFromData(d), nil
}

// fixed returns the bytes of rows [lo, hi) of a fixed-width column of w
// bytes a value whose own buffer is own: the page's memory when the column
// refers to one.
func (b *pgBuf) fixed(own []byte, w, lo, hi int) []byte {
	if b.page != nil {
		return b.pvals[lo*w : hi*w]
	}
	return own[lo*w : hi*w]
}

// batchOffsets returns the offsets of rows [lo, hi) of a byte-array column,
// rebased to start at 0, cut from arena. The caller has checked that they
// fit O.
func batchOffsets[O int32 | int64](b *pgBuf, arena *[]O, lo, hi int) []O {
	o := cut(arena, hi-lo+1, b.rows)
	if b.page != nil {
		rebase(o, b.poffs[lo:hi+1])
	} else {
		rebase(o, b.offs[lo:hi+1])
	}
	return o
}

// rebase writes the offsets in, less in[0], to out (as many). The caller has
// checked that they fit O.
func rebase[O int32 | int64, I uint32 | int64](out []O, in []I) {
	o0 := in[0]
	for i, o := range in[:len(out)] {
		out[i] = O(o - o0)
	}
}

// cut returns n entries of *arena, row group memory for one batch's offsets
// (rebased for the batch, so not shareable between batches). The arena is
// emptied by reset and sized for a row group of rows rows in batches; it is
// replaced by a larger one when full (batches of a few rows each), the old
// one staying with the batches that use it.
func cut[O int32 | int64](arena *[]O, n, rows int) []O {
	a := *arena
	if cap(a)-len(a) < n {
		a = make([]O, 0, max(n, rows+rows/8+64, 2*cap(a)))
	}
	*arena = a[:len(a)+n]
	return a[len(a) : len(a)+n : len(a)+n]
}

// newRecord builds a record of cols and releases them (the record holds
// its own references).
func newRecord(sc *arrow.Schema, cols []arrow.Array, rows int64) arrow.RecordBatch {
	rec := array.NewRecordBatch(sc, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}
