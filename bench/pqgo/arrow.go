package pqgo

import (
	"fmt"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// DrainArrow reads the file at path with parquet-go's page API, builds one
// Arrow record per row group from the pages (the work a parquet-go based
// source adapter would add: dictionary values gathered, definition levels
// turned into validity bitmaps, text offsets rebased), and adds each record
// to the Sum with AddRecord, as the pqarrow and DuckDB drains do. INT64
// columns become Arrow int64 whatever their logical type (the checksum is the
// same for timestamps); BYTE_ARRAY columns become Arrow binary. With
// workers > 1, goroutines read disjoint row groups as in Drain.
func DrainArrow(path string, workers int) (Sum, error) {
	pf, closer, err := Open(path)
	if err != nil {
		return Sum{}, err
	}
	defer closer.Close()
	cols, err := leaves(pf)
	if err != nil {
		return Sum{}, err
	}
	fields := make([]arrow.Field, len(cols))
	kinds := make([]parquet.Kind, len(cols))
	for i, c := range cols {
		kinds[i] = c.Type().Kind()
		fields[i] = arrow.Field{Name: c.Name(), Nullable: c.MaxDefinitionLevel() > 0}
		switch kinds[i] {
		case parquet.Int64:
			fields[i].Type = arrow.PrimitiveTypes.Int64
		case parquet.Double:
			fields[i].Type = arrow.PrimitiveTypes.Float64
		case parquet.ByteArray:
			fields[i].Type = arrow.BinaryTypes.Binary
		default:
			return Sum{}, fmt.Errorf("%w: %q is %s", ErrUnsupported, c.Name(), kinds[i])
		}
	}
	schema := arrow.NewSchema(fields, nil)
	groups := pf.RowGroups()
	workers = max(1, min(workers, len(groups)))
	sums := make([]Sum, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		sums[w] = NewSum(len(cols))
		wg.Go(func() {
			bufs := make([]colBuf, len(cols)) // reused from row group to row group
			for g := w; g < len(groups); g += workers {
				if errs[w] = arrowGroup(groups[g], schema, kinds, bufs, &sums[w]); errs[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return MergeAll(NewSum(len(cols)), sums, errs)
}

// colBuf accumulates one column of one row group in Arrow layout.
type colBuf struct {
	n     int // rows of the row group
	rows  int // rows appended so far
	nulls int
	valid []byte // validity bitmap; only set once a null is seen
	i64   []int64
	f64   []float64
	offs  []int32
	data  []byte
}

func (b *colBuf) reset(kind parquet.Kind, rows int) {
	b.n, b.rows, b.nulls, b.valid = rows, 0, 0, nil
	b.i64, b.f64, b.data = b.i64[:0], b.f64[:0], b.data[:0]
	b.offs = append(b.offs[:0], 0)
	switch kind {
	case parquet.Int64:
		b.i64 = grow(b.i64, rows)
	case parquet.Double:
		b.f64 = grow(b.f64, rows)
	case parquet.ByteArray:
		b.offs = grow(b.offs, rows+1)
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, len(s), n)
	}
	return s
}

func (b *colBuf) null() {
	if b.valid == nil {
		b.valid = make([]byte, bitutil.BytesForBits(int64(b.n)))
		bitutil.SetBitsTo(b.valid, 0, int64(b.n), true)
	}
	bitutil.ClearBit(b.valid, b.rows)
	b.nulls++
}

func arrowGroup(rg parquet.RowGroup, schema *arrow.Schema, kinds []parquet.Kind, bufs []colBuf, s *Sum) error {
	chunks := rg.ColumnChunks()
	if len(chunks) != len(kinds) {
		return fmt.Errorf("%w: row group of %d columns, schema of %d", ErrMismatch, len(chunks), len(kinds))
	}
	n := int(rg.NumRows())
	arrays := make([]arrow.Array, len(kinds))
	defer func() {
		for _, a := range arrays {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, cc := range chunks {
		b := &bufs[i]
		b.reset(kinds[i], n)
		err := Pages(cc, func(p parquet.Page) error { return b.addPage(kinds[i], p) })
		if err != nil {
			return fmt.Errorf("parquet-go: column %d: %w", i, err)
		}
		if b.rows != n {
			return fmt.Errorf("%w: column %d has %d rows, row group %d", ErrCorrupt, i, b.rows, n)
		}
		arrays[i] = b.array(schema.Field(i).Type)
	}
	rec := array.NewRecordBatch(schema, arrays, int64(n))
	defer rec.Release()
	return s.AddRecord(rec)
}

// array wraps the column's Go slices as an Arrow array (no copy: the buffers
// are Go memory, reused for the next row group after the record is released).
func (b *colBuf) array(t arrow.DataType) arrow.Array {
	var valid *memory.Buffer
	if b.valid != nil {
		valid = memory.NewBufferBytes(b.valid)
	}
	var d *array.Data
	switch t.ID() {
	case arrow.INT64:
		d = array.NewData(t, b.rows, []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(b.i64))}, nil, b.nulls, 0)
	case arrow.FLOAT64:
		d = array.NewData(t, b.rows, []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(b.f64))}, nil, b.nulls, 0)
	default:
		d = array.NewData(t, b.rows, []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(b.offs)), memory.NewBufferBytes(b.data)}, nil, b.nulls, 0)
	}
	defer d.Release()
	return array.MakeFromData(d)
}

// addPage appends page p's rows to b.
func (b *colBuf) addPage(k parquet.Kind, p parquet.Page) error {
	v, err := View(p)
	if err != nil {
		return err
	}
	rows := int(p.NumValues())
	if rows < 0 || rows > b.n-b.rows {
		return fmt.Errorf("%w: page of %d rows past the row group's %d", ErrCorrupt, rows, b.n)
	}
	want := map[parquet.Kind]encoding.Kind{parquet.Int64: encoding.Int64, parquet.Double: encoding.Double, parquet.ByteArray: encoding.ByteArray}[k]
	if err := v.checkKind(want); err != nil {
		return err
	}
	// dense is the number of non-null values: indexes, or plain values.
	var dense int
	var data []byte
	var offs []uint32
	switch {
	case v.Idx != nil:
		dense = len(v.Idx)
	case k == parquet.Int64:
		dense = len(v.Values.Int64())
	case k == parquet.Double:
		dense = len(v.Values.Double())
	default:
		data, offs = v.Values.ByteArray()
		dense = max(len(offs)-1, 0)
	}
	if k == parquet.ByteArray && v.Idx != nil {
		data, offs = v.Values.ByteArray()
	}
	if dense > rows || (dense < rows && len(v.Defs) != rows) {
		return fmt.Errorf("%w: %d values, %d rows, %d levels", ErrCorrupt, dense, rows, len(v.Defs))
	}
	if v.Idx != nil {
		var ndict int
		switch k {
		case parquet.Int64:
			ndict = len(v.Values.Int64())
		case parquet.Double:
			ndict = len(v.Values.Double())
		default:
			ndict = max(len(offs)-1, 0)
		}
		for _, i := range v.Idx {
			if uint32(i) >= uint32(ndict) {
				return fmt.Errorf("%w: dictionary index %d of %d", ErrCorrupt, i, ndict)
			}
		}
	}
	if dense == rows { // no nulls in this page: bulk copies and gathers
		switch {
		case k == parquet.Int64 && v.Idx == nil:
			b.i64 = append(b.i64, v.Values.Int64()...)
		case k == parquet.Int64:
			dict := v.Values.Int64()
			for _, i := range v.Idx {
				b.i64 = append(b.i64, dict[i])
			}
		case k == parquet.Double && v.Idx == nil:
			b.f64 = append(b.f64, v.Values.Double()...)
		case k == parquet.Double:
			dict := v.Values.Double()
			for _, i := range v.Idx {
				b.f64 = append(b.f64, dict[i])
			}
		case v.Idx == nil:
			if rows > 0 {
				base := int64(len(b.data)) - int64(offs[0])
				if int64(len(b.data))+int64(offs[rows]-offs[0]) > math.MaxInt32 {
					return fmt.Errorf("%w: more than 2 GiB of text in a row group", ErrUnsupported)
				}
				b.data = append(b.data, data[offs[0]:offs[rows]]...)
				for _, o := range offs[1 : rows+1] {
					b.offs = append(b.offs, int32(base+int64(o)))
				}
			}
		default:
			for _, i := range v.Idx {
				if err := b.appendBytes(data[offs[i]:offs[i+1]]); err != nil {
					return err
				}
			}
		}
		b.rows += rows
		return nil
	}
	j := 0 // next dense value
	for r := range rows {
		if v.Defs[r] == 0 {
			b.null()
			switch k {
			case parquet.Int64:
				b.i64 = append(b.i64, 0)
			case parquet.Double:
				b.f64 = append(b.f64, 0)
			default:
				b.offs = append(b.offs, int32(len(b.data)))
			}
			b.rows++
			continue
		}
		if j >= dense {
			return fmt.Errorf("%w: more levels than values", ErrCorrupt)
		}
		x := j
		if v.Idx != nil {
			x = int(v.Idx[j])
		}
		j++
		switch k {
		case parquet.Int64:
			b.i64 = append(b.i64, v.Values.Int64()[x])
		case parquet.Double:
			b.f64 = append(b.f64, v.Values.Double()[x])
		default:
			if err := b.appendBytes(data[offs[x]:offs[x+1]]); err != nil {
				return err
			}
		}
		b.rows++
	}
	if j != dense {
		return fmt.Errorf("%w: %d values for %d non-null levels", ErrCorrupt, dense, j)
	}
	return nil
}

func (b *colBuf) appendBytes(v []byte) error {
	if len(b.data)+len(v) > math.MaxInt32 {
		return fmt.Errorf("%w: more than 2 GiB of text in a row group", ErrUnsupported)
	}
	b.data = append(b.data, v...)
	b.offs = append(b.offs, int32(len(b.data)))
	return nil
}
