package source

import (
	"fmt"

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
			f := c.Field(i)
			if f.Len() < c.Offset()+c.Len() {
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
