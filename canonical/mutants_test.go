package canonical_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// Error's text names each set field in a fixed order (errors.go's field comments);
// an unset field must leave no trace.
func TestErrorTextFields(t *testing.T) {
	cases := []struct {
		e    canonical.Error
		want string
	}{
		{canonical.Error{Code: canonical.CodeLimit}, "canonical: GF_CANONICAL_LIMIT"},
		{canonical.Error{Code: canonical.CodeLimit, Op: "schema"}, "canonical: GF_CANONICAL_LIMIT in schema"},
		{canonical.Error{Code: canonical.CodeEncoding, Domain: "gf.x"}, "canonical: GF_CANONICAL_ENCODING domain gf.x"},
		{canonical.Error{Code: canonical.CodeUnsupportedVersion, Version: 2}, "canonical: GF_UNSUPPORTED_CONTRACT_VERSION version 2"},
		{canonical.Error{Code: canonical.CodeLimit, Path: "p", Limit: 7}, "canonical: GF_CANONICAL_LIMIT at p (observed 0, limit 7)"},
		{canonical.Error{Code: canonical.CodeLimit, Observed: 9}, "canonical: GF_CANONICAL_LIMIT (observed 9, limit 0)"},
		{canonical.Error{Code: canonical.CodeEncoding, Err: errors.New("io")}, "canonical: GF_CANONICAL_ENCODING: io"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

// nest wraps inner in n containers of one kind; list<int64> is depth 1 (limits.go, spec §limits).
func nest(kind string, n int) arrow.DataType {
	var t arrow.DataType = arrow.PrimitiveTypes.Int64
	for i := 0; i < n; i++ {
		switch kind {
		case "list":
			t = arrow.ListOf(t)
		case "large_list":
			t = arrow.LargeListOf(t)
		case "fixed_list":
			t = arrow.FixedSizeListOf(2, t)
		case "struct":
			t = arrow.StructOf(arrow.Field{Name: "c", Type: t, Nullable: true})
		case "map":
			t = arrow.MapOf(arrow.BinaryTypes.String, t)
		}
	}
	return t
}

// Exactly MaxDepth nested containers are allowed, one more is GF_CANONICAL_LIMIT.
func TestDepthLimitEachContainer(t *testing.T) {
	for _, kind := range []string{"list", "large_list", "fixed_list", "struct", "map"} {
		for _, n := range []int{canonical.MaxDepth, canonical.MaxDepth + 1} {
			s := arrow.NewSchema([]arrow.Field{{Name: "f", Type: nest(kind, n), Nullable: true}}, nil)
			_, err := canonical.SchemaBytes(s, nil)
			if n <= canonical.MaxDepth && err != nil {
				t.Errorf("%s depth %d: %v, want accepted", kind, n, err)
			}
			if n > canonical.MaxDepth && canonical.CodeOf(err) != canonical.CodeLimit {
				t.Errorf("%s depth %d: %v, want %s", kind, n, err, canonical.CodeLimit)
			}
		}
	}
}

func wantOK(t *testing.T, what string, s *arrow.Schema) {
	t.Helper()
	if _, err := canonical.SchemaBytes(s, nil); err != nil {
		t.Errorf("%s: %v, want accepted", what, err)
	}
}

func wantLimit(t *testing.T, what string, s *arrow.Schema) {
	t.Helper()
	if _, err := canonical.SchemaBytes(s, nil); canonical.CodeOf(err) != canonical.CodeLimit {
		t.Errorf("%s: %v, want %s", what, err, canonical.CodeLimit)
	}
}

func fields(n int) []arrow.Field {
	fs := make([]arrow.Field, n)
	for i := range fs {
		fs[i] = arrow.Field{Name: "f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)), Type: arrow.PrimitiveTypes.Int8}
	}
	return fs
}

// Every limit is inclusive: a count or length equal to it is accepted (spec: "exceeds").
func TestSchemaLimitsInclusive(t *testing.T) {
	wantOK(t, "MaxFields fields", arrow.NewSchema(fields(canonical.MaxFields), nil))
	wantLimit(t, "MaxFields+1 fields", arrow.NewSchema(fields(canonical.MaxFields+1), nil))
	st := func(n int) *arrow.Schema {
		return arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.StructOf(fields(n)...)}}, nil)
	}
	wantOK(t, "struct of MaxFields", st(canonical.MaxFields))
	wantLimit(t, "struct of MaxFields+1", st(canonical.MaxFields+1))

	long := strings.Repeat("a", canonical.MaxTextBytes)
	wantOK(t, "name of MaxTextBytes", arrow.NewSchema([]arrow.Field{{Name: long, Type: arrow.PrimitiveTypes.Int8}}, nil))
	wantLimit(t, "name of MaxTextBytes+1", arrow.NewSchema([]arrow.Field{{Name: long + "a", Type: arrow.PrimitiveTypes.Int8}}, nil))

	md := func(n int, k, v string) *arrow.Schema {
		keys, vals := make([]string, n), make([]string, n)
		for i := range keys {
			keys[i], vals[i] = k+strings.Repeat("k", i), v
		}
		m := arrow.NewMetadata(keys, vals)
		return arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Int8, Metadata: m}}, nil)
	}
	wantOK(t, "MaxMetadataEntries entries", md(canonical.MaxMetadataEntries, "k", "v"))
	wantLimit(t, "MaxMetadataEntries+1 entries", md(canonical.MaxMetadataEntries+1, "k", "v"))
	wantOK(t, "metadata key of MaxTextBytes", md(1, long, "v"))
	wantLimit(t, "metadata key of MaxTextBytes+1", md(1, long+"a", "v"))
	wantOK(t, "metadata value of MaxTextBytes", md(1, "k", long))
	wantLimit(t, "metadata value of MaxTextBytes+1", md(1, "k", long+"a"))

	fsb := func(w int) *arrow.Schema {
		return arrow.NewSchema([]arrow.Field{{Name: "b", Type: &arrow.FixedSizeBinaryType{ByteWidth: w}}}, nil)
	}
	wantOK(t, "fixed binary of MaxBinaryBytes", fsb(canonical.MaxBinaryBytes))
	wantLimit(t, "fixed binary of MaxBinaryBytes+1", fsb(canonical.MaxBinaryBytes+1))
	wantOK(t, "fixed binary of width 0", fsb(0))
	fsl := func(n int32) *arrow.Schema {
		return arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.FixedSizeListOf(n, arrow.PrimitiveTypes.Int8)}}, nil)
	}
	wantOK(t, "fixed list of MaxElements", fsl(canonical.MaxElements))
	wantLimit(t, "fixed list of MaxElements+1", fsl(canonical.MaxElements+1))
}

// A registry key of exactly MaxTextBytes is checked for its prefix, not rejected as too long.
func TestRegistryKeyLengthInclusive(t *testing.T) {
	k := "graphforge." + strings.Repeat("a", canonical.MaxTextBytes-len("graphforge."))
	r := canonical.MetadataRegistry{Semantic: []string{k}}
	if err := r.Validate(); err != nil {
		t.Errorf("key of MaxTextBytes: %v, want accepted", err)
	}
	r = canonical.MetadataRegistry{Semantic: []string{k + "a"}}
	if err := r.Validate(); canonical.CodeOf(err) != canonical.CodeLimit {
		t.Errorf("key of MaxTextBytes+1: %v, want %s", err, canonical.CodeLimit)
	}
}

// A depth error reports the depth reached and the limit (Observed, Limit), and a map key
// nests like any other child.
func TestDepthLimitObserved(t *testing.T) {
	for _, kind := range []string{"list", "large_list", "fixed_list", "struct", "map"} {
		s := arrow.NewSchema([]arrow.Field{{Name: "f", Type: nest(kind, canonical.MaxDepth+1), Nullable: true}}, nil)
		_, err := canonical.SchemaBytes(s, nil)
		var e *canonical.Error
		if !errors.As(err, &e) || e.Code != canonical.CodeLimit || e.Observed != canonical.MaxDepth+1 || e.Limit != canonical.MaxDepth {
			t.Errorf("%s depth %d: %#v, want observed %d limit %d", kind, canonical.MaxDepth+1, err, canonical.MaxDepth+1, canonical.MaxDepth)
		}
	}
	key := func(n int) *arrow.Schema { // map<list^n<int64>, int64>: depth n+1
		return arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(nest("list", n), arrow.PrimitiveTypes.Int64)}}, nil)
	}
	wantOK(t, "map key at MaxDepth", key(canonical.MaxDepth-1))
	wantLimit(t, "map key past MaxDepth", key(canonical.MaxDepth))
}

// The metadata form of an extension is found whatever the order of the two Arrow keys,
// and the version is any u32 in decimal ("0" and the 10-digit maximum included).
func TestExtensionMetadataForm(t *testing.T) {
	for _, c := range []struct {
		keys, vals []string
		version    uint32
	}{
		{[]string{"ARROW:extension:metadata", "ARROW:extension:name"}, []string{"1", "graphforge.id"}, 1},
		{[]string{"ARROW:extension:name", "ARROW:extension:metadata"}, []string{"graphforge.id", "0"}, 0},
		{[]string{"ARROW:extension:name", "ARROW:extension:metadata"}, []string{"graphforge.id", "4294967295"}, 4294967295},
	} {
		reg := &canonical.Options{Extensions: []canonical.Extension{{Name: "graphforge.id", Version: c.version, Storage: arrow.BinaryTypes.String}}}
		md := arrow.NewMetadata(c.keys, c.vals)
		s := arrow.NewSchema([]arrow.Field{{Name: "e", Type: arrow.BinaryTypes.String, Metadata: md}}, nil)
		got, err := canonical.SchemaBytes(s, reg)
		if err != nil {
			t.Errorf("%v: %v, want accepted", c.vals, err)
			continue
		}
		// ... 70, text "graphforge.id", u32 version, storage tag 30, md 0; schema md 0
		tail := []byte{0, 0, 0, 0, 0, 0, 0, 13}
		tail = append(tail, "graphforge.id"...)
		tail = append(tail, byte(c.version>>24), byte(c.version>>16), byte(c.version>>8), byte(c.version), 0x30, 0, 0, 0, 0, 0, 0, 0, 0)
		if !strings.HasSuffix(string(got), string(tail)) {
			t.Errorf("%v: %x, want suffix %x", c.vals, got, tail)
		}
	}
}

// Options.Validate rejects a registered extension whose storage cannot be canonicalised.
func TestOptionsValidateExtensionStorage(t *testing.T) {
	o := &canonical.Options{Extensions: []canonical.Extension{{Name: "graphforge.x", Version: 1, Storage: nest("list", canonical.MaxDepth+1)}}}
	if err := o.Validate(); canonical.CodeOf(err) != canonical.CodeLimit {
		t.Errorf("storage past MaxDepth: %v, want %s", err, canonical.CodeLimit)
	}
}

// Validate accepts more volatile than semantic keys.
func TestRegistryVolatileOnly(t *testing.T) {
	r := canonical.MetadataRegistry{Volatile: []string{"graphforge.a", "graphforge.b"}}
	if err := r.Validate(); err != nil {
		t.Errorf("volatile only: %v", err)
	}
}

// The digit 9 is a hex digit (RFC 9562 hyphenated form).
func TestParseUUIDDigitNine(t *testing.T) {
	got, err := canonical.ParseUUID("99999999-9999-8999-9999-999999999999")
	want := canonical.UUID{0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x89, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99}
	if err != nil || got != want {
		t.Errorf("ParseUUID: %x, %v, want %x", got, err, want)
	}
}

// ToMicros at the exact edges of its contract: the most negative multiple that still fits,
// and a factor of 0, which is neither a multiplier nor a divisor (rejected, no panic).
func TestToMicrosEdges(t *testing.T) {
	for _, c := range []struct {
		v, factor, want int64
		ok              bool
	}{
		{-9223372036854775, 1000, -9223372036854775000, true}, // MinInt64/1000 truncated, times 1000
		{-9223372036854776, 1000, 0, false},
		{9223372036854775, 1000, 9223372036854775000, true},
		{9223372036854776, 1000, 0, false},
		{5, 0, 0, false},
	} {
		got, ok := canonical.ToMicros(c.v, c.factor)
		if got != c.want || ok != c.ok {
			t.Errorf("ToMicros(%d, %d) = %d, %v, want %d, %v", c.v, c.factor, got, ok, c.want, c.ok)
		}
	}
}

// A list value of exactly MaxElements elements is accepted (the limit is inclusive), for
// 32- and 64-bit offsets; nulls keep the child cheap.
func TestListAtElementLimit(t *testing.T) {
	nulls := array.NewNull(canonical.MaxElements)
	offs32 := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, canonical.MaxElements}))
	l32 := array.MakeFromData(array.NewData(arrow.ListOf(arrow.Null), 1, []*memory.Buffer{nil, offs32}, []arrow.ArrayData{nulls.Data()}, 0, 0))
	offs64 := memory.NewBufferBytes(arrow.Int64Traits.CastToBytes([]int64{0, canonical.MaxElements}))
	l64 := array.MakeFromData(array.NewData(arrow.LargeListOf(arrow.Null), 1, []*memory.Buffer{nil, offs64}, []arrow.ArrayData{nulls.Data()}, 0, 0))
	for _, l := range []arrow.Array{l32, l64} {
		schema, rec := oneColumn("l", l, false)
		if err := sizeErr(schema, rec); err != nil {
			t.Errorf("%s of MaxElements: %v, want accepted", l.DataType(), err)
		}
	}
}

// A dictionary index equal to the dictionary's length is out of range: GF_CANONICAL_ENCODING.
func TestDictionaryIndexAtLength(t *testing.T) {
	mem := memory.NewGoAllocator()
	db := array.NewStringBuilder(mem)
	db.AppendValues([]string{"a", "b"}, nil)
	dict := db.NewArray()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{0, 2}, nil)
	idx := ib.NewArray()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	arr := array.NewDictionaryArray(dt, idx, dict)
	schema, rec := oneColumn("d", arr, false)
	_, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil)
	// The index itself is reported, not whatever reading past the dictionary would hit.
	var e *canonical.Error
	if !errors.As(err, &e) || e.Code != canonical.CodeEncoding || !strings.HasSuffix(e.Path, "dictionary index") {
		t.Errorf("index 2 of 2 values: %v, want %s at the dictionary index", err, canonical.CodeEncoding)
	}
}

// A list over the element limit reports its own element count, also when its offsets do
// not start at 0.
func TestListElementLimitObserved(t *testing.T) {
	nulls := array.NewNull(canonical.MaxElements + 2)
	offs := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 1, canonical.MaxElements + 2}))
	l := array.MakeFromData(array.NewData(arrow.ListOf(arrow.Null), 2, []*memory.Buffer{nil, offs}, []arrow.ArrayData{nulls.Data()}, 0, 0))
	schema, rec := oneColumn("l", l, false)
	var e *canonical.Error
	if err := sizeErr(schema, rec); !errors.As(err, &e) || e.Code != canonical.CodeLimit || e.Observed != canonical.MaxElements+1 {
		t.Errorf("list of MaxElements+1 at offset 1: %v, want observed %d", err, canonical.MaxElements+1)
	}
}

// Slicing never changes canonical bytes: a sliced fixed-size list encodes like the same
// values built unsliced.
func TestSlicedFixedSizeList(t *testing.T) {
	mem := memory.NewGoAllocator()
	build := func(vals []int8) arrow.Array {
		b := array.NewFixedSizeListBuilder(mem, 2, arrow.PrimitiveTypes.Int8)
		vb := b.ValueBuilder().(*array.Int8Builder)
		for i := 0; i < len(vals); i += 2 {
			b.Append(true)
			vb.AppendValues(vals[i:i+2], nil)
		}
		return b.NewArray()
	}
	full := build([]int8{1, 2, 3, 4, 5, 6, 7, 8})
	want := build([]int8{5, 6, 7, 8})
	s1, r1 := oneColumn("l", array.NewSlice(full, 2, 4), false)
	s2, r2 := oneColumn("l", want, false)
	got, err1 := canonical.TableBytes(s1, []arrow.RecordBatch{r1}, nil)
	exp, err2 := canonical.TableBytes(s2, []arrow.RecordBatch{r2}, nil)
	if err1 != nil || err2 != nil || string(got) != string(exp) {
		t.Errorf("sliced fixed-size list: %x, %v; unsliced %x, %v", got, err1, exp, err2)
	}
}

// The sizing pass of a sliced fixed-size list measures the sliced rows' own children:
// variable-size children, plain and inside a struct without nulls, make any misplaced
// child range visible in the size.
func TestSlicedFixedSizeListSize(t *testing.T) {
	mem := memory.NewGoAllocator()
	size := func(a arrow.Array) uint64 {
		schema, rec := oneColumn("l", a, false)
		enc, err := canonical.NewEncoder(schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, _, err := enc.Size(canonical.Records(rec))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		dt         arrow.DataType
		full, tail string
	}{
		{arrow.FixedSizeListOf(2, arrow.BinaryTypes.String),
			`[["a","b"],["cc","dd"],["eeeeeeeee","fffffffffffff"],["g","hhhhhhhhhhhhhhhhhhhh"]]`,
			`[["eeeeeeeee","fffffffffffff"],["g","hhhhhhhhhhhhhhhhhhhh"]]`},
		{arrow.FixedSizeListOf(2, arrow.StructOf(arrow.Field{Name: "s", Type: arrow.BinaryTypes.String})),
			`[[{"s":"a"},{"s":"b"}],[{"s":"c"},{"s":"d"}],[{"s":"eeeeeeeeeeee"},{"s":"ffffffffff"}],[{"s":"gggggggg"},{"s":"hhhhhhhhhhhhhhhh"}]]`,
			`[[{"s":"eeeeeeeeeeee"},{"s":"ffffffffff"}],[{"s":"gggggggg"},{"s":"hhhhhhhhhhhhhhhh"}]]`},
	} {
		full, _, err := array.FromJSON(mem, c.dt, strings.NewReader(c.full))
		if err != nil {
			t.Fatal(err)
		}
		tail, _, err := array.FromJSON(mem, c.dt, strings.NewReader(c.tail))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := size(array.NewSlice(full, 2, 4)), size(tail); got != want {
			t.Errorf("%s sliced: size %d, want %d (the same values unsliced)", c.dt, got, want)
		}
	}
}

// A binary value of exactly MaxBinaryBytes is accepted (the limit is inclusive).
func TestBinaryAtLimit(t *testing.T) {
	b := array.NewBinaryBuilder(memory.NewGoAllocator(), arrow.BinaryTypes.Binary)
	b.Append(make([]byte, canonical.MaxBinaryBytes))
	schema, rec := oneColumn("b", b.NewArray(), false)
	if err := sizeErr(schema, rec); err != nil {
		t.Errorf("binary of MaxBinaryBytes: %v, want accepted", err)
	}
}

// An empty list or map column may have no offsets at all (Arrow allows it); a non-empty one
// needs len+1 offsets past its slice offset, else GF_CANONICAL_ENCODING (never a panic).
func TestListAndMapOffsetsLength(t *testing.T) {
	ints := array.NewInt32Builder(memory.NewGoAllocator())
	ints.AppendValues([]int32{1, 2, 3}, nil)
	child := ints.NewArray()
	mt := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32)
	entries := array.NewStructData(array.NewData(mt.Elem(), 3, []*memory.Buffer{nil}, []arrow.ArrayData{child.Data(), child.Data()}, 0, 0))
	for _, c := range []struct {
		dt    arrow.DataType
		child arrow.ArrayData
	}{
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), child.Data()},
		{mt, entries.Data()},
	} {
		empty := array.MakeFromData(array.NewData(c.dt, 0, []*memory.Buffer{nil, nil}, []arrow.ArrayData{c.child}, 0, 0))
		schema, rec := oneColumn("l", empty, false)
		if _, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil); err != nil {
			t.Errorf("%s empty without offsets: %v, want accepted", c.dt, err)
		}
		short := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 1, 2}))
		for _, off := range []int{0, 1} { // 3 rows need 4 offsets; 2 rows at offset 1 too
			n := 3 - off
			a := array.MakeFromData(array.NewData(c.dt, n, []*memory.Buffer{nil, short}, []arrow.ArrayData{c.child}, 0, off))
			schema, rec := oneColumn("l", a, false)
			if _, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil); canonical.CodeOf(err) != canonical.CodeEncoding {
				t.Errorf("%s %d rows at offset %d with 3 offsets: %v, want %s", c.dt, n, off, err, canonical.CodeEncoding)
			}
		}
	}
}

// A value error found while encoding a table carries the operation "table".
func TestTableErrorOp(t *testing.T) {
	b := array.NewInt32Builder(memory.NewGoAllocator())
	b.AppendValues([]int32{1, 2}, []bool{true, false})
	schema, rec := oneColumn("x", b.NewArray(), false)
	_, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil)
	var e *canonical.Error
	if !errors.As(err, &e) || e.Code != canonical.CodeNullability || e.Op != "table" {
		t.Errorf("null in a non-nullable column: %#v, want %s with Op table", err, canonical.CodeNullability)
	}
}
