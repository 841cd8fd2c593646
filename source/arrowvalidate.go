package source

import (
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// validateRecord checks the structure of every column, so that offsets or
// lengths damaged on disk cannot cause out-of-range reads later. Text
// columns are checked for offsets only: invalid UTF-8 is a per-row failure
// (see screen), and arrow-go's full string validation would quote the value.
func validateRecord(rec arrow.RecordBatch) error {
	for _, c := range rec.Columns() {
		if int64(c.Len()) != rec.NumRows() {
			return fmt.Errorf("column length differs from the batch length")
		}
		if err := validateArray(c, 0); err != nil {
			return err
		}
	}
	return nil
}

// validateArray checks one array and, for nested arrays, their children
// (arrow-go's struct arrays validate nothing themselves; list arrays check
// their offsets but not their values).
func validateArray(c arrow.Array, depth int) error {
	if depth > maxNestedDepth {
		return fmt.Errorf("nesting too deep")
	}
	var err error
	switch c := c.(type) {
	case *array.String:
		if err = c.Validate(); err == nil {
			err = monotonic(c.ValueOffsets())
		}
	case *array.LargeString:
		if err = c.Validate(); err == nil {
			err = monotonic(c.ValueOffsets())
		}
	case *array.Struct:
		for i := 0; i < c.NumField(); i++ {
			// Field(i) is already sliced to c's rows (arrow-go cuts it at c's offset
			// and length, or at the child's end): compare lengths, not c's offset too,
			// or a valid sliced struct would fail.
			f := c.Field(i)
			if f.Len() < c.Len() {
				return fmt.Errorf("struct child shorter than its parent")
			}
			if err := validateArray(f, depth+1); err != nil {
				return err
			}
		}
	case *array.Map:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case *array.List:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case *array.LargeList:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case *array.FixedSizeList:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case interface{ ValidateFull() error }:
		err = c.ValidateFull()
	}
	return err
}

func monotonic[T int32 | int64](offs []T) error {
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] || offs[i-1] < 0 {
			return fmt.Errorf("offsets are not non-decreasing")
		}
	}
	return nil
}

// screen counts rows whose text columns hold invalid UTF-8 as failures and
// drops them (Arrow utf8 requires valid UTF-8, but readers do not check it).
// It takes ownership of rec.
func (b *fileBase) screen(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	first := b.t.Returned + b.t.FailedRecords() // rows before this batch
	bad := map[int]bool{}
	for ci, c := range rec.Columns() {
		var valid func(i int) bool
		switch c := c.(type) {
		case *array.String:
			if c.Len() == 0 || allValidUTF8(c.ValueBytes(), c.ValueOffsets()) {
				continue // one bulk pass; value by value only when it fails
			}
			valid = func(i int) bool { return utf8.ValidString(c.Value(i)) }
		case *array.LargeString:
			if c.Len() == 0 || allValidUTF8(c.ValueBytes(), c.ValueOffsets()) {
				continue
			}
			valid = func(i int) bool { return utf8.ValidString(c.Value(i)) }
		default:
			continue
		}
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) && !valid(i) && !bad[i] {
				bad[i] = true
				b.t.Fail(Failure{Code: CodeUTF8, Line: first + uint64(i) + 1, Column: b.schema.Field(ci).Name, Detail: "text is not valid UTF-8"}, true)
			}
		}
	}
	if len(bad) == 0 {
		b.t.Returned += uint64(rec.NumRows())
		return rec, nil
	}
	out, err := DropRows(rec, b.schema, bad, b.opts.Allocator)
	if err != nil {
		return nil, b.fatal(&Error{Code: CodeIO, Op: "screen", Source: b.a.String(), Msg: "cannot drop invalid rows", Err: err})
	}
	b.t.Returned += uint64(out.NumRows())
	return out, nil
}
