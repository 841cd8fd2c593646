package canonical_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// Logical table data for property tests: one []any per column, nil is null.
var kinds = []string{"i64", "f64", "bool", "utf8", "bin", "list", "struct", "map", "ts"}

type tableData struct {
	rows int
	cols [][]any
}

func randomString(rng *rand.Rand) string {
	alphabet := []string{"a", "b", "é", "e\u0301", "", "zz", "\u00ff", "日"}
	var s string
	for range rng.IntN(4) {
		s += alphabet[rng.IntN(len(alphabet))]
	}
	return s
}

func randomValue(rng *rand.Rand, kind string) any {
	if rng.IntN(5) == 0 {
		return nil
	}
	switch kind {
	case "i64":
		return int64(rng.Uint64())
	case "f64":
		specials := []uint64{0x8000000000000000, 0x7ff0000000000001, 0xfff8000000000000, 0x7ff0000000000000, 0}
		if rng.IntN(3) == 0 {
			return specials[rng.IntN(len(specials))]
		}
		return math.Float64bits(rng.NormFloat64())
	case "bool":
		return rng.IntN(2) == 0
	case "utf8":
		return randomString(rng)
	case "bin":
		b := make([]byte, rng.IntN(5))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	case "list":
		l := make([]any, rng.IntN(4))
		for i := range l {
			if rng.IntN(4) > 0 {
				l[i] = int32(rng.Uint32())
			}
		}
		return l
	case "struct":
		var s any
		if rng.IntN(3) > 0 {
			s = randomString(rng)
		}
		return [2]any{int16(rng.Uint32()), s}
	case "map":
		seen := map[string]bool{}
		var m [][2]any
		for range rng.IntN(5) {
			k := randomString(rng)
			if seen[k] {
				continue
			}
			seen[k] = true
			var v any
			if rng.IntN(4) > 0 {
				v = int64(rng.IntN(100))
			}
			m = append(m, [2]any{k, v})
		}
		return m
	case "ts":
		return rng.Int64N(1<<32) - 1<<31 // Int64N: 1<<32 overflows a 32-bit int
	}
	panic(kind)
}

func randomData(rng *rand.Rand, rows int) tableData {
	d := tableData{rows: rows, cols: make([][]any, len(kinds))}
	for c, k := range kinds {
		d.cols[c] = make([]any, rows)
		for r := range rows {
			d.cols[c][r] = randomValue(rng, k)
		}
	}
	return d
}

// variant selects physical forms that must not change the canonical bytes.
type variant struct {
	large    bool // large_utf8, large_binary, large_list
	dict     bool // utf8 column dictionary-encoded with a shuffled dictionary
	pad      bool // every column is a slice of a longer array
	tsUnit   arrow.TimeUnit
	tz       string
	mapOrder bool // map entries reversed
}

func dataType(kind string, v variant) arrow.DataType {
	switch kind {
	case "i64":
		return arrow.PrimitiveTypes.Int64
	case "f64":
		return arrow.PrimitiveTypes.Float64
	case "bool":
		return arrow.FixedWidthTypes.Boolean
	case "utf8":
		if v.dict {
			return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
		}
		if v.large {
			return arrow.BinaryTypes.LargeString
		}
		return arrow.BinaryTypes.String
	case "bin":
		if v.large {
			return arrow.BinaryTypes.LargeBinary
		}
		return arrow.BinaryTypes.Binary
	case "list":
		if v.large {
			return arrow.LargeListOf(arrow.PrimitiveTypes.Int32)
		}
		return arrow.ListOf(arrow.PrimitiveTypes.Int32)
	case "struct":
		return arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int16},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	case "map":
		return arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	case "ts":
		return &arrow.TimestampType{Unit: v.tsUnit, TimeZone: v.tz}
	}
	panic(kind)
}

var tsScale = map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1000, arrow.Microsecond: 1_000_000, arrow.Nanosecond: 1_000_000_000}

func appendAny(b array.Builder, kind string, x any, v variant) {
	if x == nil {
		b.AppendNull()
		return
	}
	switch kind {
	case "i64":
		b.(*array.Int64Builder).Append(x.(int64))
	case "f64":
		b.(*array.Float64Builder).Append(math.Float64frombits(x.(uint64)))
	case "bool":
		b.(*array.BooleanBuilder).Append(x.(bool))
	case "utf8":
		switch bb := b.(type) {
		case *array.StringBuilder:
			bb.Append(x.(string))
		case *array.LargeStringBuilder:
			bb.Append(x.(string))
		}
	case "bin":
		b.(*array.BinaryBuilder).Append(x.([]byte))
	case "list":
		switch bb := b.(type) {
		case *array.ListBuilder:
			bb.Append(true)
		case *array.LargeListBuilder:
			bb.Append(true)
		}
		vb := b.(array.ListLikeBuilder).ValueBuilder().(*array.Int32Builder)
		for _, e := range x.([]any) {
			if e == nil {
				vb.AppendNull()
			} else {
				vb.Append(e.(int32))
			}
		}
	case "struct":
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		s := x.([2]any)
		sb.FieldBuilder(0).(*array.Int16Builder).Append(s[0].(int16))
		appendAny(sb.FieldBuilder(1), "utf8", s[1], variant{})
	case "map":
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		m := x.([][2]any)
		for i := range m {
			e := m[i]
			if v.mapOrder {
				e = m[len(m)-1-i]
			}
			mb.KeyBuilder().(*array.StringBuilder).Append(e[0].(string))
			appendAny(mb.ItemBuilder(), "i64", e[1], v)
		}
	case "ts":
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(x.(int64) * tsScale[v.tsUnit]))
	}
}

func buildColumn(mem memory.Allocator, rng *rand.Rand, kind string, vals []any, v variant) arrow.Array {
	if kind == "utf8" && v.dict {
		uniq := map[string]int{}
		var dictVals []string
		for _, x := range vals {
			if s, ok := x.(string); ok && uniq[s] == 0 {
				uniq[s] = 1
				dictVals = append(dictVals, s)
			}
		}
		rng.Shuffle(len(dictVals), func(i, j int) { dictVals[i], dictVals[j] = dictVals[j], dictVals[i] })
		db := array.NewStringBuilder(mem)
		defer db.Release()
		db.Append("unused slot")
		for i, s := range dictVals {
			uniq[s] = i + 1
			db.Append(s)
		}
		ib := array.NewInt16Builder(mem)
		defer ib.Release()
		for _, x := range vals {
			if x == nil {
				ib.AppendNull()
			} else {
				ib.Append(int16(uniq[x.(string)]))
			}
		}
		dict, idx := db.NewArray(), ib.NewArray()
		defer dict.Release()
		defer idx.Release()
		return array.NewDictionaryArray(dataType(kind, v), idx, dict)
	}
	b := array.NewBuilder(mem, dataType(kind, v))
	defer b.Release()
	before, after := 0, 0
	if v.pad {
		before, after = rng.IntN(3), rng.IntN(3)
	}
	for range before {
		appendAny(b, kind, randomValue(rng, kind), v)
	}
	for _, x := range vals {
		appendAny(b, kind, x, v)
	}
	for range after {
		appendAny(b, kind, randomValue(rng, kind), v)
	}
	a := b.NewArray()
	if !v.pad {
		return a
	}
	defer a.Release()
	return array.NewSlice(a, int64(before), int64(before+len(vals)))
}

func buildTable(mem memory.Allocator, rng *rand.Rand, d tableData, v variant, nullableStruct bool) (*arrow.Schema, arrow.RecordBatch) {
	fields := make([]arrow.Field, len(kinds))
	cols := make([]arrow.Array, len(kinds))
	for c, k := range kinds {
		fields[c] = arrow.Field{Name: k, Type: dataType(k, v), Nullable: true}
		cols[c] = buildColumn(mem, rng, k, d.cols[c], v)
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, cols, int64(d.rows))
	for _, c := range cols {
		c.Release()
	}
	return schema, rec
}

// split cuts rec into random record-batch slices.
func split(rng *rand.Rand, rec arrow.RecordBatch) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	n := rec.NumRows()
	for i := int64(0); i < n; {
		j := min(n, i+1+rng.Int64N(n))
		out = append(out, rec.NewSlice(i, j))
		i = j
	}
	if len(out) == 0 {
		out = append(out, rec.NewSlice(0, 0))
	}
	return out
}

func randomTable(mem memory.Allocator, rng *rand.Rand, rows int) (*arrow.Schema, []arrow.RecordBatch) {
	d := randomData(rng, rows)
	schema, rec := buildTable(mem, rng, d, variant{tsUnit: arrow.Microsecond, pad: true}, true)
	defer rec.Release()
	return schema, split(rng, rec)
}

func encodeAll(t *testing.T, schema *arrow.Schema, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	b, err := canonical.TableBytes(schema, recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Physical forms that the contract says do not participate give identical bytes:
// batch boundaries, slices, offset width (utf8/large_utf8, binary/large_binary,
// list/large_list all share one tag), dictionary encoding with any dictionary order,
// map insertion order, every timestamp unit for exact values, every UTC spelling.
func TestConvergence(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 11))
	iterations := 40
	if testing.Short() {
		iterations = 8
	}
	for it := range iterations {
		d := randomData(rng, rng.IntN(60))
		baseSchema, base := buildTable(mem, rng, d, variant{tsUnit: arrow.Microsecond}, true)
		want := encodeAll(t, baseSchema, base)
		base.Release()
		variants := []variant{
			{tsUnit: arrow.Microsecond, large: true},
			{tsUnit: arrow.Microsecond, dict: true},
			{tsUnit: arrow.Microsecond, pad: true},
			{tsUnit: arrow.Microsecond, mapOrder: true},
			{tsUnit: arrow.Second, tz: ""},
			{tsUnit: arrow.Millisecond, large: true, pad: true},
			{tsUnit: arrow.Nanosecond, dict: true, pad: true, mapOrder: true},
		}
		for vi, v := range variants {
			schema, rec := buildTable(mem, rng, d, v, true)
			recs := split(rng, rec)
			got := encodeAll(t, schema, recs...)
			for _, r := range recs {
				r.Release()
			}
			rec.Release()
			if !bytes.Equal(got, want) {
				t.Fatalf("iteration %d variant %d (%+v): bytes differ at %d", it, vi, v, diffAt(got, want))
			}
		}
		// Every UTC spelling gives the same bytes; they differ from the naive timestamp
		// only in the timezone_kind byte.
		var utc []byte
		for _, tz := range []string{"UTC", "Etc/UTC", "Z", "+00:00"} {
			schema, rec := buildTable(mem, rng, d, variant{tsUnit: arrow.Microsecond, tz: tz}, true)
			got := encodeAll(t, schema, rec)
			rec.Release()
			if utc == nil {
				utc = got
			} else if !bytes.Equal(got, utc) {
				t.Fatalf("timezone %q differs", tz)
			}
		}
		if len(utc) != len(want) || diffCount(utc, want) != 1 {
			t.Fatalf("UTC and naive timestamps must differ only in timezone_kind")
		}
	}
}

func diffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func diffCount(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// Different logical values, or the same values in another row order, give different bytes.
func TestOrderAndValuesMatter(t *testing.T) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(3, 4))
	d := randomData(rng, 10)
	for c := range d.cols {
		for r := range d.cols[c] {
			if d.cols[c][r] == nil {
				d.cols[c][r] = randomValue(rng, kinds[c])
			}
		}
	}
	s1, r1 := buildTable(mem, rng, d, variant{tsUnit: arrow.Microsecond}, true)
	a := encodeAll(t, s1, r1)
	d.cols[0][0], d.cols[0][1] = int64(1), int64(2)
	s2, r2 := buildTable(mem, rng, d, variant{tsUnit: arrow.Microsecond}, true)
	b := encodeAll(t, s2, r2)
	d.cols[0][0], d.cols[0][1] = int64(2), int64(1)
	s3, r3 := buildTable(mem, rng, d, variant{tsUnit: arrow.Microsecond}, true)
	c := encodeAll(t, s3, r3)
	if bytes.Equal(a, b) || bytes.Equal(b, c) {
		t.Fatal("row order or values did not change the bytes")
	}
	if len(b) != len(c) || diffCount(b, c) == 0 {
		t.Fatal("swapping two int64 values must keep the length and change bytes")
	}
}
