package scan

import (
	"os"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

// direct computes the dataset-resolution fingerprint of Arrow batches under C3 v2
// (XXH3Columnar, Multiset) straight from their buffers, a column at a time, without
// C2-encoding the records: fingerprint.Columnar's kernels hash each value's C2 frame
// built in registers into a tile of field digests, the record digests hash the tile's
// rows, and the column states are the kernels' sums. That is what v2 was designed for
// (contract §13.7), and at dataset resolution nothing else needs the C2 words.
//
// The kernels take the columns whose C2 payload is the Arrow value itself: integers,
// float64 under strict profiles, booleans, date32, and strings whose bytes in the batch
// are all ASCII (so valid UTF-8 and NFC under every profile). Every other column (and
// every column of a dictionary type) is C2-encoded by a columnar.Encoder of those
// columns alone, and its frames are hashed by Columnar.Frames. A batch whose arrays do
// not have the planned types, or whose string columns hold a non-ASCII byte, is refused
// (ok false): the caller then encodes and digests it the general way. Either way the
// digests are the ones the engine computes from the C2 records (tested on random
// batches of every planned kind).
//
// A direct is one encoder goroutine's: not safe for concurrent use.
type direct struct {
	k    *fingerprint.Columnar
	cols []directCol // one per tile column: the schema fields in ascending id
	rest *columnar.Encoder
	// restCols are the tile columns of the fields the rest encoder encodes, ascending:
	// the order of the frames in its records (C2 frames ascend by field id).
	restCols []int

	tile   fingerprint.Tile
	recs   []fingerprint.Digest
	sums   []fingerprint.Digest // per tile column
	batch  normalize.RecordBatch
	frames [][]uint64 // per tile column of the rest encoder: its frames, row after row
}

type directKind uint8

const (
	dRest directKind = iota // C2-encoded by the rest encoder
	dInt8
	dInt16
	dInt32
	dInt64
	dUint8
	dUint16
	dUint32
	dUint64
	dFloat64
	dBool
	dDate32
	dString
	dLargeString
)

type directCol struct {
	arrow int // the Arrow column index
	kind  directKind
}

// newDirect plans the direct path for schema, whose column i is field ids[i], under ctx
// (XXH3Columnar, Multiset) and profile. It returns nil when the path does not apply.
func newDirect(ctx fingerprint.Context, schema *arrow.Schema, ids []uint64, profile normalize.Profile) (*direct, error) {
	if ctx.Algorithm() != fingerprint.XXH3Columnar || ctx.Mode() != fingerprint.Multiset {
		return nil, nil
	}
	fields := ctx.Schema().Fields // ascending id
	if len(fields) == 0 || len(fields) != len(ids) {
		return nil, nil
	}
	arrowOf := map[uint64]int{}
	for i, id := range ids {
		arrowOf[id] = i
	}
	d := &direct{}
	tileIDs := make([]uint64, len(fields))
	restCols := make([]columnar.Column, len(ids))
	for i := range ids {
		restCols[i] = columnar.Column{Index: i, Treatment: columnar.Exclude}
	}
	anyRest := false
	for c, f := range fields {
		ai, ok := arrowOf[f.ID]
		if !ok {
			return nil, nil
		}
		tileIDs[c] = f.ID
		kind := directKindOf(schema.Field(ai).Type, profile)
		d.cols = append(d.cols, directCol{arrow: ai, kind: kind})
		if kind == dRest {
			restCols[ai] = columnar.Column{Index: ai, Field: normalize.FieldID(f.ID), Treatment: columnar.Encode}
			d.restCols = append(d.restCols, c)
			anyRest = true
		}
	}
	k, err := fingerprint.NewColumnar(ctx, tileIDs)
	if err != nil {
		return nil, err
	}
	d.k = k
	if anyRest {
		if d.rest, err = columnar.NewEncoder(schema, restCols, profile); err != nil {
			return nil, err
		}
	}
	d.sums = make([]fingerprint.Digest, len(d.cols))
	d.frames = make([][]uint64, len(d.cols))
	d.batch.ProfileID = profile.ID()
	return d, nil
}

// directKindOf returns the kernel of an Arrow type under profile.
func directKindOf(t arrow.DataType, profile normalize.Profile) directKind {
	switch t.(type) {
	case *arrow.Int8Type:
		return dInt8
	case *arrow.Int16Type:
		return dInt16
	case *arrow.Int32Type:
		return dInt32
	case *arrow.Int64Type:
		return dInt64
	case *arrow.Uint8Type:
		return dUint8
	case *arrow.Uint16Type:
		return dUint16
	case *arrow.Uint32Type:
		return dUint32
	case *arrow.Uint64Type:
		return dUint64
	case *arrow.Float64Type:
		if !profile.Logical() { // logical profiles canonicalize floats (C2 PW-03.08)
			return dFloat64
		}
	case *arrow.BooleanType:
		return dBool
	case *arrow.Date32Type:
		if profile.Extended() {
			return dDate32
		}
	case *arrow.StringType:
		return dString
	case *arrow.LargeStringType:
		return dLargeString
	}
	return dRest
}

// validity returns the validity bitmap of arr (nil bits when it has no nulls).
func validity(arr arrow.Array) fingerprint.Validity {
	if arr.NullN() == 0 {
		return fingerprint.Validity{}
	}
	return fingerprint.Validity{Bits: arr.NullBitmapBytes(), Offset: arr.Data().Offset()}
}

// asciiRange reports whether the bytes of the values lie in data and are all ASCII.
func asciiRange[O int32 | int64](offsets []O, data []byte) bool {
	if len(offsets) == 0 {
		return true
	}
	lo, hi := int64(offsets[0]), int64(offsets[len(offsets)-1])
	if lo < 0 || hi < lo || hi > int64(len(data)) {
		return false
	}
	b := data[lo:hi]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if *(*uint64)(unsafe.Pointer(&b[i]))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= 0x80 {
			return false
		}
	}
	return true
}

// digest fingerprints rec: the number of records, the sum of their record digests and,
// per schema field (ascending id), the sum of their value digests. ok is false when rec
// must take the general path (see direct); encErr is a C2 encoding error of a rest
// column, err a kernel's refusal.
func (d *direct) digest(rec arrow.RecordBatch) (n int, sum fingerprint.Digest, cols []fingerprint.Digest, ok bool, encErr, err error) {
	n = int(rec.NumRows())
	if n == 0 {
		clear(d.sums)
		return 0, sum, d.sums, true, nil, nil
	}
	// First the checks that can send the batch to the general path, before any work.
	for _, c := range d.cols {
		arr := rec.Column(c.arrow)
		switch c.kind {
		case dString:
			a, isA := arr.(*array.String)
			if !isA || !asciiRange(a.ValueOffsets(), stringData(arr)) {
				return 0, sum, nil, false, nil, nil
			}
		case dLargeString:
			a, isA := arr.(*array.LargeString)
			if !isA || !asciiRange(a.ValueOffsets(), stringData(arr)) {
				return 0, sum, nil, false, nil, nil
			}
		case dRest:
		default:
			if !directTypeMatches(c.kind, arr) {
				return 0, sum, nil, false, nil, nil
			}
		}
	}
	if cap(d.tile.Digests) < n*len(d.cols) {
		d.tile = fingerprint.NewTile(n, len(d.cols))
	}
	t := fingerprint.Tile{Digests: d.tile.Digests[:n*len(d.cols)], Cols: len(d.cols)}
	if d.rest != nil {
		if err := d.restFrames(rec); err != nil {
			return 0, sum, nil, true, err, nil
		}
	}
	k := d.k
	for c, dc := range d.cols {
		arr := rec.Column(dc.arrow)
		v := validity(arr)
		var s fingerprint.Digest
		switch dc.kind {
		case dInt8:
			s, err = fingerprint.Ints(k, t, c, arr.(*array.Int8).Int8Values(), v)
		case dInt16:
			s, err = fingerprint.Ints(k, t, c, arr.(*array.Int16).Int16Values(), v)
		case dInt32:
			s, err = fingerprint.Ints(k, t, c, arr.(*array.Int32).Int32Values(), v)
		case dInt64:
			s, err = fingerprint.Ints(k, t, c, arr.(*array.Int64).Int64Values(), v)
		case dUint8:
			s, err = fingerprint.Uints(k, t, c, arr.(*array.Uint8).Uint8Values(), v)
		case dUint16:
			s, err = fingerprint.Uints(k, t, c, arr.(*array.Uint16).Uint16Values(), v)
		case dUint32:
			s, err = fingerprint.Uints(k, t, c, arr.(*array.Uint32).Uint32Values(), v)
		case dUint64:
			s, err = fingerprint.Uints(k, t, c, arr.(*array.Uint64).Uint64Values(), v)
		case dFloat64:
			f := arr.(*array.Float64).Float64Values()
			var bits []uint64
			if len(f) > 0 {
				bits = unsafe.Slice((*uint64)(unsafe.Pointer(&f[0])), len(f))
			}
			s, err = fingerprint.Words(k, t, c, normalize.Float64, bits, v)
		case dDate32:
			s, err = fingerprint.Words(k, t, c, normalize.Date, arr.(*array.Date32).Date32Values(), v)
		case dBool:
			var bits []byte
			if b := arr.Data().Buffers()[1]; b != nil {
				bits = b.Bytes()
			}
			s, err = k.Bools(t, c, n, bits, arr.Data().Offset(), v)
		case dString:
			s, err = fingerprint.Strings(k, t, c, normalize.Text, arr.(*array.String).ValueOffsets(), stringData(arr), v)
		case dLargeString:
			s, err = fingerprint.Strings(k, t, c, normalize.Text, arr.(*array.LargeString).ValueOffsets(), stringData(arr), v)
		case dRest:
			s, err = k.Frames(t, c, n, d.frames[c])
		}
		if err != nil {
			return 0, sum, nil, true, nil, err
		}
		d.sums[c] = s
	}
	if cap(d.recs) < n {
		d.recs = make([]fingerprint.Digest, n)
	}
	sum, err = k.Records(d.recs[:n], t, 0)
	return n, sum, d.sums, true, nil, err
}

// directTypeMatches reports whether arr is the array type kind's kernel reads.
func directTypeMatches(kind directKind, arr arrow.Array) bool {
	var ok bool
	switch kind {
	case dInt8:
		_, ok = arr.(*array.Int8)
	case dInt16:
		_, ok = arr.(*array.Int16)
	case dInt32:
		_, ok = arr.(*array.Int32)
	case dInt64:
		_, ok = arr.(*array.Int64)
	case dUint8:
		_, ok = arr.(*array.Uint8)
	case dUint16:
		_, ok = arr.(*array.Uint16)
	case dUint32:
		_, ok = arr.(*array.Uint32)
	case dUint64:
		_, ok = arr.(*array.Uint64)
	case dFloat64:
		_, ok = arr.(*array.Float64)
	case dDate32:
		_, ok = arr.(*array.Date32)
	case dBool:
		_, ok = arr.(*array.Boolean)
	}
	return ok
}

// stringData returns the data buffer of a string array, which its value offsets index.
func stringData(arr arrow.Array) []byte {
	bufs := arr.Data().Buffers()
	if len(bufs) < 3 || bufs[2] == nil {
		return nil
	}
	return bufs[2].Bytes()
}

// restFrames C2-encodes the rest columns of rec and gathers each one's frames, row
// after row, into d.frames.
func (d *direct) restFrames(rec arrow.RecordBatch) error {
	b := &d.batch
	b.Words, b.Offsets, b.Lengths = b.Words[:0], b.Offsets[:0], b.Lengths[:0]
	if err := d.rest.Append(b, rec); err != nil {
		return err
	}
	for c := range d.frames {
		d.frames[c] = d.frames[c][:0]
	}
	for i := range b.Len() {
		r := b.Record(i)
		f := 3
		for _, c := range d.restCols {
			if f+3 > len(r) || r[f+2] > uint64(len(r)-f-3) {
				break // Frames refuses the column's words then
			}
			end := f + 3 + int(r[f+2])
			d.frames[c] = append(d.frames[c], r[f:end]...) // of another field: Frames refuses it
			f = end
		}
	}
	return nil
}

// directDisabled turns the direct path off (tests compare it with the general path;
// PIPEWHY_SCAN_DIRECT=0 for benchmarks of the general path).
var directDisabled = os.Getenv("PIPEWHY_SCAN_DIRECT") == "0"
