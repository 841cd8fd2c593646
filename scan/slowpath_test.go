package scan

// This file is a SLOW, independent reference path from Arrow to C2, used only by tests:
// one normalize.Value per cell, then normalize.RecordBatch.Append per row. Scan uses
// the columnar encoder (normalize/columnar); TestColumnarMatchesSlowPath checks the two
// agree record for record on the sample data and on edge values.

import (
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pipewhy/pipewhy/normalize"
)

// cellValue returns the C2 input value of row i of col (slow path). The mapping:
//
//	null                      NULL
//	bool                      BOOL
//	int8..int64, uint8..64    integer (INT64 when negative, else UINT64)
//	float32, float64          FLOAT64 (float32 widened exactly)
//	utf8, large_utf8          TEXT
//	binary, large_binary      BYTES
//	decimal128/256(P,S)       DECIMAL: coefficient |unscaled|, exponent -S (Python's
//	                          Decimal of the same digits: 84.19 is (8,4,1,9) E-2)
//	timestamp(U)              TIMESTAMP naive: the civil fields of the stored instant read as UTC
//	timestamp(U,"UTC")        TIMESTAMP fixed zone offset 0 named "UTC" (timezone.utc)
//	timestamp(U,"±hh:mm")     TIMESTAMP fixed zone, local civil fields, named "UTC±hh:mm"
//	                          (offset zero is timezone.utc, named "UTC")
//	timestamp(U,IANA key)     TIMESTAMP IANA zone: local civil fields; fold 1 on the second
//	                          occurrence of a repeated wall time (PEP 495)
//
// Sub-microsecond nanoseconds are passed on as TimestampValue.Nanosecond, so the
// encoder rejects them (CodePrecision) instead of rounding.
func cellValue(col arrow.Array, i int) (normalize.Value, error) {
	if col.IsNull(i) {
		return normalize.Nil, nil
	}
	switch c := col.(type) {
	case *array.Boolean:
		return normalize.BoolValue(c.Value(i)), nil
	case *array.Int8:
		return normalize.Int(int64(c.Value(i))), nil
	case *array.Int16:
		return normalize.Int(int64(c.Value(i))), nil
	case *array.Int32:
		return normalize.Int(int64(c.Value(i))), nil
	case *array.Int64:
		return normalize.Int(c.Value(i)), nil
	case *array.Uint8:
		return normalize.Uint(uint64(c.Value(i))), nil
	case *array.Uint16:
		return normalize.Uint(uint64(c.Value(i))), nil
	case *array.Uint32:
		return normalize.Uint(uint64(c.Value(i))), nil
	case *array.Uint64:
		return normalize.Uint(c.Value(i)), nil
	case *array.Float32:
		return normalize.Float(float64(c.Value(i))), nil
	case *array.Float64:
		return normalize.Float(c.Value(i)), nil
	case *array.String:
		return normalize.TextValue(c.Value(i)), nil
	case *array.LargeString:
		return normalize.TextValue(c.Value(i)), nil
	case *array.Binary:
		return normalize.BytesValue(append([]byte(nil), c.Value(i)...)), nil
	case *array.LargeBinary:
		return normalize.BytesValue(append([]byte(nil), c.Value(i)...)), nil
	case *array.Decimal128:
		return decimalValue(c.Value(i).BigInt(), c.DataType().(*arrow.Decimal128Type).Scale), nil
	case *array.Decimal256:
		return decimalValue(c.Value(i).BigInt(), c.DataType().(*arrow.Decimal256Type).Scale), nil
	case *array.Timestamp:
		return timestampValue(int64(c.Value(i)), c.DataType().(*arrow.TimestampType))
	}
	return nil, fmt.Errorf("arrow type %s is not supported", col.DataType())
}

func decimalValue(unscaled *big.Int, scale int32) normalize.DecimalValue {
	d := normalize.DecimalValue{Form: normalize.DecimalFinite}
	if unscaled.Sign() < 0 {
		d.Negative = true
		unscaled = new(big.Int).Neg(unscaled)
	}
	d.Digits = unscaled.String()
	if scale > 0 {
		d.ExponentNegative = true
		d.ExponentMagnitude = uint64(scale)
	} else {
		d.ExponentMagnitude = uint64(-int64(scale))
	}
	return d
}

func timestampValue(v int64, t *arrow.TimestampType) (normalize.Value, error) {
	var per int64
	switch t.Unit {
	case arrow.Second:
		per = 1
	case arrow.Millisecond:
		per = 1e3
	case arrow.Microsecond:
		per = 1e6
	case arrow.Nanosecond:
		per = 1e9
	default:
		return nil, fmt.Errorf("unknown timestamp unit")
	}
	sec, frac := v/per, v%per
	if frac < 0 {
		sec--
		frac += per
	}
	nanos := frac * (1e9 / per)
	inst := time.Unix(sec, nanos).UTC()
	zone := normalize.Zone{}
	fold := 0
	switch tz := t.TimeZone; {
	case tz == "":
	case tz == "UTC":
		zone = normalize.FixedZone(0, "UTC")
	case len(tz) == 6 && (tz[0] == '+' || tz[0] == '-') && tz[3] == ':':
		h, err1 := strconv.Atoi(tz[1:3])
		m, err2 := strconv.Atoi(tz[4:6])
		if err1 != nil || err2 != nil || h > 23 || m > 59 {
			return nil, fmt.Errorf("malformed timestamp offset")
		}
		off := int64(h*3600+m*60) * 1e6
		if tz[0] == '-' {
			off = -off
		}
		name := "UTC" + tz
		if off == 0 {
			name = "UTC"
		}
		zone = normalize.FixedZone(off, name)
		inst = inst.Add(time.Duration(off) * time.Microsecond)
	default:
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return nil, fmt.Errorf("unknown time zone")
		}
		local := inst.In(loc)
		_, off := local.Zone()
		if start, _ := local.ZoneBounds(); !start.IsZero() {
			_, prev := start.Add(-time.Nanosecond).In(loc).Zone()
			if prev > off && local.Sub(start) < time.Duration(prev-off)*time.Second {
				fold = 1
			}
		}
		zone = normalize.IANAZone(tz)
		inst = time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(),
			local.Second(), local.Nanosecond(), time.UTC)
	}
	return normalize.TimestampValue{
		Year: inst.Year(), Month: int(inst.Month()), Day: inst.Day(),
		Hour: inst.Hour(), Minute: inst.Minute(), Second: inst.Second(),
		Microsecond: inst.Nanosecond() / 1000, Nanosecond: inst.Nanosecond() % 1000,
		Fold: fold, Zone: zone,
	}, nil
}

// appendBatchSlow encodes every row of rec as one C2 record of b (slow path). ids are
// the field ids of rec's columns, in column order; fields is scratch space. firstRow
// is the 1-based row number of rec's first row, for error messages.
func appendBatchSlow(b *normalize.RecordBatch, rec arrow.RecordBatch, ids []uint64, p normalize.Profile, fields []normalize.Field, firstRow uint64) ([]normalize.Field, error) {
	cols := rec.Columns()
	n := int(rec.NumRows())
	fields = fields[:0]
	for range cols {
		fields = append(fields, normalize.Field{})
	}
	for i := 0; i < n; i++ {
		for c, col := range cols {
			v, err := cellValue(col, i)
			if err != nil {
				return fields, &Error{Code: CodeEncode, Op: "encode", Msg: fmt.Sprintf("row %d column %q: %v", firstRow+uint64(i), rec.ColumnName(c), err)}
			}
			fields[c] = normalize.Field{ID: normalize.FieldID(ids[c]), Value: v}
		}
		if err := b.Append(fields, p); err != nil {
			return fields, &Error{Code: CodeEncode, Op: "encode", Msg: fmt.Sprintf("row %d", firstRow+uint64(i)), Err: err}
		}
	}
	return fields, nil
}
