package columnar_test

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

var benchColumns = []columnar.Column{
	{Name: "id", Field: 1}, {Name: "qty", Field: 2}, {Name: "price", Field: 3},
	{Name: "sku", Field: 4}, {Name: "at", Field: 5},
}

// benchRecord is the 5-column batch of the issue: int64, int64, float64, ~12-char
// text, timestamp[us, UTC]; no nulls.
func benchRecord(n int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(7, 7))
	ib, qb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	fb, sb := array.NewFloat64Builder(mem), array.NewStringBuilder(mem)
	tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	for i := range n {
		ib.Append(int64(i))
		qb.Append(rng.Int64N(2000) - 1000)
		fb.Append(rng.Float64() * 1000)
		sb.Append("SKU-" + strconv.Itoa(10000000+rng.IntN(89999999)))
		tb.Append(arrow.Timestamp(1_700_000_000_000_000 + rng.Int64N(1e14)))
	}
	schema := arrow.NewSchema([]arrow.Field{
		field("id", arrow.PrimitiveTypes.Int64), field("qty", arrow.PrimitiveTypes.Int64),
		field("price", arrow.PrimitiveTypes.Float64), field("sku", arrow.BinaryTypes.String),
		field("at", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}),
	}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{ib.NewArray(), qb.NewArray(), fb.NewArray(), sb.NewArray(), tb.NewArray()}, int64(n))
}

// scalarRows converts rec to scalar fields once (outside the timed loop).
func scalarRows(rec arrow.RecordBatch) [][]normalize.Field {
	n := int(rec.NumRows())
	rows := make([][]normalize.Field, n)
	ids, qty := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
	price, sku := rec.Column(2).(*array.Float64), rec.Column(3).(*array.String)
	at := rec.Column(4).(*array.Timestamp)
	for r := range n {
		us := int64(at.Value(r))
		days, rem := us/86_400_000_000, us%86_400_000_000
		y, m, d := civil(days)
		rows[r] = []normalize.Field{
			{ID: 1, Value: normalize.Int(ids.Value(r))}, {ID: 2, Value: normalize.Int(qty.Value(r))},
			{ID: 3, Value: normalize.Float(price.Value(r))}, {ID: 4, Value: normalize.TextValue(sku.Value(r))},
			{ID: 5, Value: normalize.TimestampValue{Year: y, Month: m, Day: d, Hour: int(rem / 3_600_000_000),
				Minute: int(rem / 60_000_000 % 60), Second: int(rem / 1_000_000 % 60), Microsecond: int(rem % 1_000_000),
				Zone: normalize.FixedZone(0, "UTC")}},
		}
	}
	return rows
}

func civil(days int64) (int, int, int) {
	t := days * 86400
	y, m, d := timeUnixUTC(t)
	return y, m, d
}

func reportRates(b *testing.B, rows, words int) {
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(rows)*float64(b.N)/s, "rows/s")
	b.ReportMetric(float64(words)*float64(b.N)/s, "words/s")
}

// BenchmarkColumnar encodes a 64Ki-row, 5-column batch per op.
func BenchmarkColumnar(b *testing.B) {
	const n = 1 << 16
	rec := benchRecord(n)
	for _, p := range []normalize.Profile{normalize.StrictV1, normalize.LogicalV1} {
		b.Run(p.Name(), func(b *testing.B) {
			enc, err := columnar.NewEncoder(rec.Schema(), benchColumns, p)
			if err != nil {
				b.Fatal(err)
			}
			var dst normalize.RecordBatch
			b.ReportAllocs()
			for b.Loop() {
				dst = normalize.RecordBatch{Words: dst.Words[:0], Offsets: dst.Offsets[:0], Lengths: dst.Lengths[:0]}
				if err := enc.Append(&dst, rec); err != nil {
					b.Fatal(err)
				}
			}
			reportRates(b, n, len(dst.Words))
		})
	}
}

// BenchmarkScalar encodes the same rows through normalize.RecordBatch.Append (the
// scalar reference path), from values converted beforehand.
func BenchmarkScalar(b *testing.B) {
	const n = 1 << 16
	rows := scalarRows(benchRecord(n))
	for _, p := range []normalize.Profile{normalize.StrictV1, normalize.LogicalV1} {
		b.Run(p.Name(), func(b *testing.B) {
			var dst normalize.RecordBatch
			b.ReportAllocs()
			for b.Loop() {
				dst = normalize.RecordBatch{Words: dst.Words[:0], Offsets: dst.Offsets[:0], Lengths: dst.Lengths[:0]}
				for _, f := range rows {
					if err := dst.Append(f, p); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportRates(b, n, len(dst.Words))
		})
	}
}

// BenchmarkScalarFromArrow is the scalar path as an adapter without the columnar
// encoder would run it: read each row's values from the Arrow arrays, convert them to
// normalize.Values (boxed in the Field slice) and append the record.
func BenchmarkScalarFromArrow(b *testing.B) {
	const n = 1 << 16
	rec := benchRecord(n)
	ids, qty := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
	price, sku := rec.Column(2).(*array.Float64), rec.Column(3).(*array.String)
	at := rec.Column(4).(*array.Timestamp)
	for _, p := range []normalize.Profile{normalize.StrictV1, normalize.LogicalV1} {
		b.Run(p.Name(), func(b *testing.B) {
			var dst normalize.RecordBatch
			fields := make([]normalize.Field, 5)
			b.ReportAllocs()
			for b.Loop() {
				dst = normalize.RecordBatch{Words: dst.Words[:0], Offsets: dst.Offsets[:0], Lengths: dst.Lengths[:0]}
				for r := range n {
					tm := time.UnixMicro(int64(at.Value(r))).UTC()
					fields[0] = normalize.Field{ID: 1, Value: normalize.Int(ids.Value(r))}
					fields[1] = normalize.Field{ID: 2, Value: normalize.Int(qty.Value(r))}
					fields[2] = normalize.Field{ID: 3, Value: normalize.Float(price.Value(r))}
					fields[3] = normalize.Field{ID: 4, Value: normalize.TextValue(sku.Value(r))}
					fields[4] = normalize.Field{ID: 5, Value: normalize.TimestampValue{Year: tm.Year(), Month: int(tm.Month()), Day: tm.Day(),
						Hour: tm.Hour(), Minute: tm.Minute(), Second: tm.Second(), Microsecond: tm.Nanosecond() / 1000,
						Zone: normalize.FixedZone(0, "UTC")}}
					if err := dst.Append(fields, p); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportRates(b, n, len(dst.Words))
		})
	}
}

// BenchmarkColumnarType encodes one 64Ki-row column of each type (random values, about
// one in seven null) under strict-v1+ext1, to show where the time goes per type.
func BenchmarkColumnarType(b *testing.B) {
	const n = 1 << 16
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float32, arrow.BinaryTypes.String,
		&arrow.Decimal128Type{Precision: 38, Scale: 10},
		&arrow.TimestampType{Unit: arrow.Microsecond},
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Berlin"},
		&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"},
		arrow.FixedWidthTypes.Date32,
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String},
		arrow.ListOf(arrow.PrimitiveTypes.Int64),
	}
	for _, typ := range types {
		rng := rand.New(rand.NewPCG(1, 1))
		arr, _ := genColumn(rng, typ, n)
		schema := arrow.NewSchema([]arrow.Field{field("x", typ)}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{arr}, n)
		b.Run(typ.String(), func(b *testing.B) {
			enc, err := columnar.NewEncoder(schema, []columnar.Column{{Index: 0, Field: 1}}, normalize.StrictV1Ext1)
			if err != nil {
				b.Fatal(err)
			}
			var dst normalize.RecordBatch
			for b.Loop() {
				dst = normalize.RecordBatch{Words: dst.Words[:0], Offsets: dst.Offsets[:0], Lengths: dst.Lengths[:0]}
				if err := enc.Append(&dst, rec); err != nil {
					b.Fatal(err)
				}
			}
			reportRates(b, n, len(dst.Words))
		})
	}
}
