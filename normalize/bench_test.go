package normalize

import (
	"testing"
)

var benchValues = []struct {
	name string
	v    Value
}{
	{"missing", Absent},
	{"bool", BoolValue(true)},
	{"int64", Int(-1234567)},
	{"uint64", Uint(1234567)},
	{"float64", Float(3.25)},
	{"text16", TextValue("hello, pipewhy!!")},
	{"text16_nonascii", TextValue("héllo, wörld ✓✓")},
	{"bytes32", BytesValue("0123456789abcdef0123456789abcdef")},
	{"decimal", DecimalValue{Digits: "1234567", ExponentNegative: true, ExponentMagnitude: 2}},
	{"decimal40", DecimalValue{Digits: "1234567890123456789012345678901234567890", ExponentNegative: true, ExponentMagnitude: 10}},
	{"timestamp_naive", TimestampValue{Year: 2024, Month: 2, Day: 29, Hour: 12, Minute: 34, Second: 56, Microsecond: 789}},
	{"timestamp_fixed", TimestampValue{Year: 2024, Month: 2, Day: 29, Hour: 12, Zone: FixedZone(3600e6, "CET")}},
	{"timestamp_iana", TimestampValue{Year: 2024, Month: 2, Day: 29, Hour: 12, Zone: IANAZone("Europe/Berlin")}},
}

// BenchmarkAppendValue measures one value per op; values/s = 1e9 / (ns/op).
func BenchmarkAppendValue(b *testing.B) {
	for _, p := range []Profile{StrictV1, LogicalV1} {
		for _, bv := range benchValues {
			b.Run(p.Name()+"/"+bv.name, func(b *testing.B) {
				dst := make([]uint64, 0, 64)
				b.ReportAllocs()
				for b.Loop() {
					_, dst, _ = AppendValue(dst[:0], bv.v, p)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
			})
		}
	}
}

// benchRecord is a typical 10-field record.
func benchRecord() []Field {
	return []Field{
		{1, Int(42)}, {2, Uint(7)}, {3, TextValue("customer-000123")}, {4, Float(19.99)},
		{5, BoolValue(false)}, {6, DecimalValue{Digits: "1999", ExponentNegative: true, ExponentMagnitude: 2}},
		{7, TimestampValue{Year: 2024, Month: 5, Day: 1, Hour: 8, Zone: FixedZone(0, "UTC")}},
		{8, Nil}, {9, BytesValue("\x00\x01\x02\x03")}, {10, TextValue("DE")},
	}
}

// BenchmarkAppendRecord10 measures one 10-field record per op; records/s = 1e9 / (ns/op).
func BenchmarkAppendRecord10(b *testing.B) {
	for _, sorted := range []bool{true, false} {
		fields := benchRecord()
		name := "sorted"
		if !sorted {
			name = "reversed"
			for i, j := 0, len(fields)-1; i < j; i, j = i+1, j-1 {
				fields[i], fields[j] = fields[j], fields[i]
			}
		}
		for _, p := range []Profile{StrictV1, LogicalV1} {
			b.Run(p.Name()+"/"+name, func(b *testing.B) {
				dst := make([]uint64, 0, 256)
				b.ReportAllocs()
				for b.Loop() {
					dst, _ = AppendRecord(dst[:0], fields, p)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}

// BenchmarkBatchValidate measures validating a batch of 1024 10-field records.
func BenchmarkBatchValidate(b *testing.B) {
	fields := benchRecord()
	batch := &RecordBatch{ProfileID: StrictV1.ID()}
	for i := 0; i < 1024; i++ {
		off := len(batch.Words)
		batch.Words, _ = AppendRecord(batch.Words, fields, StrictV1)
		batch.Offsets = append(batch.Offsets, uint64(off))
		batch.Lengths = append(batch.Lengths, uint64(len(batch.Words)-off))
	}
	b.SetBytes(int64(8 * len(batch.Words)))
	b.ReportAllocs()
	for b.Loop() {
		if err := batch.Validate(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkParseDecimal parses and encodes the decimal texts a JSON number column holds,
// as the columnar encoder does for each value of a decimal text column.
func BenchmarkParseDecimal(b *testing.B) {
	for _, s := range []string{"123.45", "7", "-2.5e-3", "12345678901234567890123.5"} {
		b.Run(s, func(b *testing.B) {
			var dst []uint64
			b.ReportAllocs()
			for b.Loop() {
				d, err := ParseDecimal(s)
				if err != nil {
					b.Fatal(err)
				}
				if dst, err = AppendDecimal(dst[:0], &d, StrictV1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
