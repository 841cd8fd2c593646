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

func oneColumn(name string, a arrow.Array, nullable bool) (*arrow.Schema, arrow.RecordBatch) {
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: a.DataType(), Nullable: nullable}}, nil)
	return schema, array.NewRecordBatch(schema, []arrow.Array{a}, int64(a.Len()))
}

func sizeErr(schema *arrow.Schema, recs ...arrow.RecordBatch) error {
	enc, err := canonical.NewEncoder(schema, nil)
	if err != nil {
		return err
	}
	_, _, err = enc.Size(canonical.Records(recs...))
	return err
}

// Real arrays at and over the value limits; the sizing pass rejects them before any
// output is allocated.
func TestValueLimitsOnRealArrays(t *testing.T) {
	mem := memory.NewGoAllocator()

	sb := array.NewStringBuilder(mem)
	sb.Append(strings.Repeat("a", canonical.MaxTextBytes))
	sb.Append(strings.Repeat("a", canonical.MaxTextBytes+1))
	texts := sb.NewArray()
	schema, rec := oneColumn("t", array.NewSlice(texts, 0, 1), false)
	if err := sizeErr(schema, rec); err != nil {
		t.Errorf("text at the limit: %v", err)
	}
	schema, rec = oneColumn("t", array.NewSlice(texts, 1, 2), false)
	var ce *canonical.Error
	if err := sizeErr(schema, rec); !errors.As(err, &ce) || ce.Code != canonical.CodeLimit || ce.Observed != canonical.MaxTextBytes+1 {
		t.Errorf("text over the limit: %v", err)
	}

	// A list of 10,000,001 nulls: the null child has no buffers, so this is cheap.
	nulls := array.NewNull(canonical.MaxElements + 1)
	offs := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, canonical.MaxElements + 1, canonical.MaxElements + 1}))
	lt := arrow.ListOf(arrow.Null)
	ld := array.NewData(lt, 2, []*memory.Buffer{nil, offs}, []arrow.ArrayData{nulls.Data()}, 0, 0)
	list := array.MakeFromData(ld)
	schema, rec = oneColumn("l", list, false)
	if err := sizeErr(schema, rec); !errors.Is(err, canonical.ErrLimit) {
		t.Errorf("list over the element limit: %v", err)
	}
	schema, rec = oneColumn("l", array.NewSlice(list, 1, 2), false)
	if err := sizeErr(schema, rec); err != nil {
		t.Errorf("the empty second list alone (a slice) is fine: %v", err)
	}

	// 100,000,001 rows of a zero-column table: no buffers at all.
	empty := arrow.NewSchema(nil, nil)
	big := array.NewRecordBatch(empty, nil, canonical.MaxRows+1)
	if err := sizeErr(empty, big); !errors.Is(err, canonical.ErrLimit) {
		t.Errorf("rows over the limit: %v", err)
	}
	half := array.NewRecordBatch(empty, nil, canonical.MaxRows/2+1)
	if err := sizeErr(empty, half, half); !errors.Is(err, canonical.ErrLimit) {
		t.Errorf("rows over the limit across batches: %v", err)
	}
	if err := sizeErr(empty, array.NewRecordBatch(empty, nil, canonical.MaxRows)); err != nil {
		t.Errorf("rows at the limit: %v", err)
	}

	// A payload over 2 GiB from a 16 MiB dictionary value referenced 129 times: the
	// sizing pass fails before anything the size of the payload is allocated.
	db := array.NewStringBuilder(mem)
	db.Append(strings.Repeat("x", canonical.MaxTextBytes))
	dict := db.NewArray()
	ib := array.NewInt8Builder(mem)
	for range 129 {
		ib.Append(0)
	}
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	da := array.NewDictionaryArray(dt, ib.NewArray(), dict)
	schema, rec = oneColumn("d", da, false)
	enc, err := canonical.NewEncoder(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.AppendTable(nil, canonical.Records(rec)); !errors.Is(err, canonical.ErrLimit) {
		t.Errorf("payload over 2 GiB: %v", err)
	}
	if _, err := enc.Fingerprint(canonical.DomainArrowResult, canonical.Records(rec)); !errors.Is(err, canonical.ErrLimit) {
		t.Errorf("payload over 2 GiB streamed: %v", err)
	}
}

// makeArray builds an array from data, reporting false when arrow-go itself rejects the
// layout by panicking (a reader path that package arrowio guards).
func makeArray(d arrow.ArrayData) (a arrow.Array, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return array.MakeFromData(d), true
}

// Malformed physical layouts (as a corrupt reader could produce) are errors, not panics:
// either arrow-go rejects them when the array is made, or the encoder returns
// GF_CANONICAL_ENCODING.
func TestMalformedArrays(t *testing.T) {
	reached := 0
	data := memory.NewBufferBytes([]byte("ab"))
	badOffsets := map[string][]int32{
		"beyond data": {0, 5},
		"decreasing":  {2, 1},
		"negative":    {-1, 1},
	}
	for name, o := range badOffsets {
		offs := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(o))
		d := array.NewData(arrow.BinaryTypes.String, 1, []*memory.Buffer{nil, offs, data}, nil, 0, 0)
		a, ok := makeArray(d)
		if !ok {
			continue
		}
		reached++
		schema, rec := oneColumn("s", a, false)
		_, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil)
		if canonical.CodeOf(err) != canonical.CodeEncoding {
			t.Errorf("string offsets %s: %v", name, err)
		}
	}
	// A list whose offsets point past its child.
	child := array.NewNull(1)
	offs := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 3}))
	ld := array.NewData(arrow.ListOf(arrow.Null), 1, []*memory.Buffer{nil, offs}, []arrow.ArrayData{child.Data()}, 0, 0)
	if a, ok := makeArray(ld); ok {
		reached++
		schema, rec := oneColumn("l", a, false)
		if _, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil); canonical.CodeOf(err) != canonical.CodeEncoding {
			t.Errorf("list offsets past the child: %v", err)
		}
	}
	t.Logf("%d of 4 malformed layouts reached the encoder", reached)
}
