package pqgo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/zeebo/xxh3"
)

// ErrUnsupported is returned for a column whose type the checksum or the drain
// does not cover (anything but INT64, DOUBLE and BYTE_ARRAY leaves), and for
// nested columns.
var ErrUnsupported = errors.New("pqgo: unsupported column")

// ErrMismatch is returned when two partial sums have different shapes.
var ErrMismatch = errors.New("pqgo: sums of different tables")

// ColSum is the checksum of one column.
type ColSum struct {
	Values int64  // non-null values
	Nulls  int64  // null values
	Acc    uint64 // wrapping sum of the per-value terms (package doc)
}

// Sum is the checksum of a table: one ColSum per top-level column, in schema
// order, and the row count.
type Sum struct {
	Rows int64
	Cols []ColSum
}

// NewSum returns an empty Sum of n columns.
func NewSum(n int) Sum { return Sum{Cols: make([]ColSum, n)} }

// MergeAll merges the workers' sums into total, in worker order; the first worker
// error (errs[w] for sums[w]) is returned instead.
func MergeAll(total Sum, sums []Sum, errs []error) (Sum, error) {
	for w := range sums {
		if errs[w] != nil {
			return total, errs[w]
		}
		if err := total.Merge(sums[w]); err != nil {
			return total, err
		}
	}
	return total, nil
}

// Merge adds o into s. Both must have the same number of columns, except that
// an empty Sum (the zero value: no rows, no columns) takes any shape.
func (s *Sum) Merge(o Sum) error {
	if o.Rows == 0 && len(o.Cols) == 0 {
		return nil
	}
	if s.Rows == 0 && len(s.Cols) == 0 {
		s.Cols = make([]ColSum, len(o.Cols))
	}
	if len(s.Cols) != len(o.Cols) {
		return fmt.Errorf("%w: %d and %d columns", ErrMismatch, len(s.Cols), len(o.Cols))
	}
	s.Rows += o.Rows
	for i := range s.Cols {
		s.Cols[i].Values += o.Cols[i].Values
		s.Cols[i].Nulls += o.Cols[i].Nulls
		s.Cols[i].Acc += o.Cols[i].Acc
	}
	return nil
}

// Check folds the whole Sum into 64 bits: the XXH3 of its fields, little-endian
// in order (rows, then values, nulls, acc of each column).
func (s Sum) Check() uint64 {
	b := make([]byte, 0, 8+24*len(s.Cols))
	b = binary.LittleEndian.AppendUint64(b, uint64(s.Rows))
	for _, c := range s.Cols {
		b = binary.LittleEndian.AppendUint64(b, uint64(c.Values))
		b = binary.LittleEndian.AppendUint64(b, uint64(c.Nulls))
		b = binary.LittleEndian.AppendUint64(b, c.Acc)
	}
	return xxh3.Hash(b)
}

// String is what `duckhash drain` prints: the folded check and the null count.
func (s Sum) String() string {
	var nulls int64
	for _, c := range s.Cols {
		nulls += c.Nulls
	}
	return fmt.Sprintf("check=%016x nulls=%d", s.Check(), nulls)
}

// AddRecord adds every value of rec. Its columns must be, in order, the
// columns of s; each must be Int64, Timestamp, Float64, String, LargeString or
// Binary.
// The zero Sum takes the record's shape.
func (s *Sum) AddRecord(rec arrow.RecordBatch) error {
	if s.Rows == 0 && len(s.Cols) == 0 {
		s.Cols = make([]ColSum, rec.NumCols())
	}
	if int(rec.NumCols()) != len(s.Cols) {
		return fmt.Errorf("%w: record of %d columns, sum of %d", ErrMismatch, rec.NumCols(), len(s.Cols))
	}
	s.Rows += rec.NumRows()
	for i, col := range rec.Columns() {
		if err := s.Cols[i].addArray(col); err != nil {
			return fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
		}
	}
	return nil
}

func (c *ColSum) addArray(a arrow.Array) error {
	nulls := a.NullN()
	c.Nulls += int64(nulls)
	c.Values += int64(a.Len() - nulls)
	switch a := a.(type) {
	case *array.Int64:
		c.Acc += sumInt64(a.Int64Values(), a, nulls)
	case *array.Timestamp:
		var acc uint64
		for i, v := range a.TimestampValues() {
			if nulls == 0 || a.IsValid(i) {
				acc += uint64(v)
			}
		}
		c.Acc += acc
	case *array.Float64:
		var acc uint64
		vs := a.Float64Values()
		for i, v := range vs {
			if nulls == 0 || a.IsValid(i) {
				acc += math.Float64bits(v)
			}
		}
		c.Acc += acc
	case *array.String:
		var acc uint64
		for i := range a.Len() {
			if nulls == 0 || a.IsValid(i) {
				acc += xxh3.HashString(a.Value(i))
			}
		}
		c.Acc += acc
	case *array.LargeString:
		var acc uint64
		for i := range a.Len() {
			if nulls == 0 || a.IsValid(i) {
				acc += xxh3.HashString(a.Value(i))
			}
		}
		c.Acc += acc
	case *array.Binary:
		var acc uint64
		for i := range a.Len() {
			if nulls == 0 || a.IsValid(i) {
				acc += xxh3.Hash(a.Value(i))
			}
		}
		c.Acc += acc
	default:
		return fmt.Errorf("%w: Arrow type %s", ErrUnsupported, a.DataType())
	}
	return nil
}

// sumInt64 is the wrapping sum of the valid values of vs (valid: every value
// when nulls is 0, else those a marks valid).
func sumInt64(vs []int64, a arrow.Array, nulls int) uint64 {
	var acc uint64
	if nulls == 0 {
		for _, v := range vs {
			acc += uint64(v)
		}
		return acc
	}
	for i, v := range vs {
		if a.IsValid(i) {
			acc += uint64(v)
		}
	}
	return acc
}
