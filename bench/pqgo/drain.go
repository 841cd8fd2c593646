package pqgo

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/zeebo/xxh3"
)

// ErrCorrupt is returned when a page's dictionary index is out of range
// (parquet-go hands the indexes over as stored).
var ErrCorrupt = errors.New("pqgo: corrupt page")

// Open opens the Parquet file at path with parquet-go. The returned closer
// closes the underlying os.File. Bloom filters are not read (the drain never
// probes them); everything else is parquet-go's default.
func Open(path string) (*parquet.File, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("parquet-go: open %s: %w", path, err)
	}
	return pf, f, nil
}

// leaves returns the file's top-level columns, which must all be flat leaves
// (no nesting, no repetition).
func leaves(pf *parquet.File) ([]*parquet.Column, error) {
	cols := pf.Root().Columns()
	for _, c := range cols {
		if !c.Leaf() || c.MaxRepetitionLevel() != 0 || c.MaxDefinitionLevel() > 1 {
			return nil, fmt.Errorf("%w: %q is nested or repeated", ErrUnsupported, c.Name())
		}
	}
	return cols, nil
}

// PageView is one decoded parquet-go page reduced to what a consumer reads:
// the definition levels and the dense non-null values, either plain or as
// dictionary indexes into Values. Every slice aliases parquet-go's page
// buffers: it is valid until the page is released.
type PageView struct {
	// Defs has one definition level per row (1: a value, 0: null) when the
	// column is optional; nil when it is required.
	Defs []byte
	// Idx holds the dictionary index of each non-null value, in row order,
	// for a dictionary-encoded page; nil for a plain page.
	Idx []int32
	// Values holds the page's non-null values in row order (plain page) or the
	// dictionary (Idx != nil). Its kind is the column's physical type.
	Values encoding.Values
}

// View returns the PageView of p. encoding.Values' typed accessors panic on a
// kind mismatch, so View and its callers check Values.Kind first.
func View(p parquet.Page) (PageView, error) {
	v := PageView{Defs: p.DefinitionLevels(), Values: p.Data()}
	if d := p.Dictionary(); d != nil {
		// An indexed page's Data is its int32 indexes (parquet-go's indexedPage);
		// the values are the dictionary page's.
		if k := v.Values.Kind(); k != encoding.Int32 {
			return v, fmt.Errorf("%w: dictionary indexes of kind %s", ErrCorrupt, k)
		}
		v.Idx = v.Values.Int32()
		v.Values = d.Page().Data()
	}
	return v, nil
}

// checkKind returns an error unless v's values are of kind k.
func (v PageView) checkKind(k encoding.Kind) error {
	if got := v.Values.Kind(); got != k {
		return fmt.Errorf("%w: values of kind %s, want %s", ErrCorrupt, got, k)
	}
	return nil
}

// Pages calls fn with every page of the column chunk cc, in order, and
// releases each page to parquet-go's buffer pool after fn returns.
func Pages(cc parquet.ColumnChunk, fn func(parquet.Page) error) error {
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

// Drain reads every value of the Parquet file at path through parquet-go's
// page API and returns their Sum. With workers > 1, that many goroutines read
// disjoint row groups (group g on goroutine g mod workers), each through its
// own page readers over the one opened file.
func Drain(path string, workers int) (Sum, error) { return drain(path, workers, true) }

// DrainUntouched is Drain without reading the values: every page is read,
// decompressed and decoded by parquet-go and released. The Sum counts rows
// only. It is the reader's cost alone, for comparison with Drain.
func DrainUntouched(path string, workers int) (Sum, error) { return drain(path, workers, false) }

func drain(path string, workers int, touch bool) (Sum, error) {
	pf, closer, err := Open(path)
	if err != nil {
		return Sum{}, err
	}
	defer closer.Close()
	cols, err := leaves(pf)
	if err != nil {
		return Sum{}, err
	}
	kinds := make([]parquet.Kind, len(cols))
	for i, c := range cols {
		kinds[i] = c.Type().Kind()
		switch kinds[i] {
		case parquet.Int64, parquet.Double, parquet.ByteArray:
		default:
			return Sum{}, fmt.Errorf("%w: %q is %s", ErrUnsupported, c.Name(), kinds[i])
		}
	}
	groups := pf.RowGroups()
	workers = max(1, min(workers, len(groups)))
	sums := make([]Sum, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		sums[w] = NewSum(len(cols))
		wg.Go(func() {
			for g := w; g < len(groups); g += workers {
				if errs[w] = drainGroup(groups[g], kinds, &sums[w], touch); errs[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return MergeAll(NewSum(len(cols)), sums, errs)
}

func drainGroup(rg parquet.RowGroup, kinds []parquet.Kind, s *Sum, touch bool) error {
	chunks := rg.ColumnChunks()
	if len(chunks) != len(kinds) {
		return fmt.Errorf("%w: row group of %d columns, schema of %d", ErrMismatch, len(chunks), len(kinds))
	}
	s.Rows += rg.NumRows()
	for i, cc := range chunks {
		c := &s.Cols[i]
		err := Pages(cc, func(p parquet.Page) error {
			if !touch {
				return nil
			}
			return c.addPage(kinds[i], p)
		})
		if err != nil {
			return fmt.Errorf("parquet-go: column %d: %w", i, err)
		}
	}
	return nil
}

// addPage adds the values of page p, of physical kind k, to c.
func (c *ColSum) addPage(k parquet.Kind, p parquet.Page) error {
	v, err := View(p)
	if err != nil {
		return err
	}
	var dense int
	var acc uint64
	switch k {
	case parquet.Int64:
		if err := v.checkKind(encoding.Int64); err != nil {
			return err
		}
		vs := v.Values.Int64()
		if v.Idx == nil {
			dense = len(vs)
			for _, x := range vs {
				acc += uint64(x)
			}
			break
		}
		dense = len(v.Idx)
		for _, i := range v.Idx {
			if uint32(i) >= uint32(len(vs)) {
				return fmt.Errorf("%w: dictionary index %d of %d", ErrCorrupt, i, len(vs))
			}
			acc += uint64(vs[i])
		}
	case parquet.Double:
		if err := v.checkKind(encoding.Double); err != nil {
			return err
		}
		vs := v.Values.Double()
		if v.Idx == nil {
			dense = len(vs)
			for _, x := range vs {
				acc += math.Float64bits(x)
			}
			break
		}
		dense = len(v.Idx)
		for _, i := range v.Idx {
			if uint32(i) >= uint32(len(vs)) {
				return fmt.Errorf("%w: dictionary index %d of %d", ErrCorrupt, i, len(vs))
			}
			acc += math.Float64bits(vs[i])
		}
	case parquet.ByteArray:
		if err := v.checkKind(encoding.ByteArray); err != nil {
			return err
		}
		data, offs := v.Values.ByteArray()
		n := max(len(offs)-1, 0)
		if v.Idx == nil {
			dense = n
			for j := range n {
				acc += xxh3.Hash(data[offs[j]:offs[j+1]])
			}
			break
		}
		dense = len(v.Idx)
		for _, i := range v.Idx {
			if uint32(i) >= uint32(n) {
				return fmt.Errorf("%w: dictionary index %d of %d", ErrCorrupt, i, n)
			}
			acc += xxh3.Hash(data[offs[i]:offs[i+1]])
		}
	default:
		return fmt.Errorf("%w: kind %s", ErrUnsupported, k)
	}
	rows := int(p.NumValues()) // flat column: one value slot per row
	if dense > rows {
		return fmt.Errorf("%w: %d values in a page of %d rows", ErrCorrupt, dense, rows)
	}
	c.Values += int64(dense)
	c.Nulls += int64(rows - dense)
	c.Acc += acc
	return nil
}

// BenchRow is one row of bench/gen's file, for DrainRows. Its columns are
// optional in the file (arrow-go writes nullable fields); the file has no
// nulls, and a null would read as the zero value here.
//
// The struct's schema must equal the file's node for node: where it does not,
// GenericReader converts values. `at` is therefore tagged local
// (isAdjustedToUTC=false, as arrow-go writes a zone-less timestamp): with the
// default (utc) tag parquet-go converts each timestamp through nanoseconds
// and returns wrong values outside 1677..2262 (TestRowReaderConvertsTimestamps).
type BenchRow struct {
	ID    int64   `parquet:"id,optional"`
	Qty   int64   `parquet:"qty,optional"`
	Price float64 `parquet:"price,optional"`
	Name  string  `parquet:"name,optional"`
	At    int64   `parquet:"at,optional,timestamp(microsecond:local)"`
}

// benchColumns is bench/gen's schema as DrainRows requires it: GenericReader
// reads a column the file lacks as zeros, silently.
var benchColumns = []struct {
	name string
	kind parquet.Kind
}{{"id", parquet.Int64}, {"qty", parquet.Int64}, {"price", parquet.Double}, {"name", parquet.ByteArray}, {"at", parquet.Int64}}

// DrainRows reads bench/gen's file row by row into BenchRow structs with
// parquet-go's GenericReader (reflection-built decoders, one Go string per
// text value) and returns the Sum of the values, as Drain computes it. It is
// the slow path measured beside Drain; it reads no nulls.
func DrainRows(path string) (s Sum, err error) {
	pf, closer, err := Open(path)
	if err != nil {
		return Sum{}, err
	}
	defer closer.Close()
	cols, err := leaves(pf)
	if err != nil {
		return Sum{}, err
	}
	if len(cols) != len(benchColumns) {
		return Sum{}, fmt.Errorf("%w: %d columns, not bench/gen's %d", ErrUnsupported, len(cols), len(benchColumns))
	}
	for i, c := range cols {
		if c.Name() != benchColumns[i].name || c.Type().Kind() != benchColumns[i].kind {
			return Sum{}, fmt.Errorf("%w: column %d is %q %s, not bench/gen's %q %s", ErrUnsupported, i,
				c.Name(), c.Type().Kind(), benchColumns[i].name, benchColumns[i].kind)
		}
	}
	// GenericReader panics when the file's schema cannot be converted to the
	// struct's: turn that into an error.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: parquet-go row reader: %v", ErrUnsupported, r)
		}
	}()
	s = NewSum(5)
	buf := make([]BenchRow, 1024)
	for _, rg := range pf.RowGroups() {
		r := parquet.NewGenericRowGroupReader[BenchRow](rg)
		for {
			n, rerr := r.Read(buf)
			for _, row := range buf[:n] {
				s.Cols[0].Acc += uint64(row.ID)
				s.Cols[1].Acc += uint64(row.Qty)
				s.Cols[2].Acc += math.Float64bits(row.Price)
				s.Cols[3].Acc += xxh3.HashString(row.Name)
				s.Cols[4].Acc += uint64(row.At)
			}
			s.Rows += int64(n)
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				_ = r.Close() // the read error is the one to report
				return s, rerr
			}
		}
		if err := r.Close(); err != nil {
			return s, err
		}
	}
	for i := range s.Cols {
		s.Cols[i].Values = s.Rows
	}
	return s, nil
}
