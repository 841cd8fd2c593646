package scan

import (
	"context"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/source"
)

// keyedRec is the batch the test-keyed: source returns, set by the test that uses it.
var (
	keyedRec      arrow.RecordBatch
	registerKeyed sync.Once
)

// keyedSource is a one-batch source with a primary key, like a server table.
type keyedSource struct {
	rec  arrow.RecordBatch
	done bool
	pk   []string
}

func (s *keyedSource) Schema() *arrow.Schema { return s.rec.Schema() }
func (s *keyedSource) Next(context.Context) (arrow.RecordBatch, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	s.rec.Retain()
	return s.rec, nil
}
func (s *keyedSource) Evidence() source.Evidence {
	n := uint64(s.rec.NumRows())
	return source.Evidence{Adapter: "test", Namespace: "test:keyed", Version: "v1", Consistency: "test",
		Coverage: source.Coverage{Status: source.StatusComplete, Expected: n, ExpectedKnown: true, Returned: n}}
}
func (s *keyedSource) Close() error         { return nil }
func (s *keyedSource) PrimaryKey() []string { return s.pk }

func TestPrimaryKeyIsTheDefaultKey(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b", "c"}, nil)
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{3, 1, 2}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	keyedRec = rec // the registration is process-wide and happens once (-count=N)
	registerKeyed.Do(func() {
		source.Register("test-keyed:", func(context.Context, string, source.Options) (source.Source, error) {
			return &keyedSource{rec: keyedRec, pk: []string{"id"}}, nil
		})
	})

	reg, err := source.OpenRegistry(t.TempDir() + "/sources.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Observe(context.Background(), reg, Options{Address: "test-keyed:x", Name: "keyed", Profile: normalize.StrictV1, Resolution: "record"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Scan.Descriptor
	if len(d.KeyFields) != 1 || !slices.Contains(d.Choices, "key=primary-key") {
		t.Fatalf("key fields %v, choices %v: the primary key was not taken as the key", d.KeyFields, d.Choices)
	}
	var idField uint64
	for _, f := range d.Fields {
		if f.Name == "id" {
			idField = uint64(f.ID)
		}
	}
	if uint64(d.KeyFields[0]) != idField {
		t.Fatalf("key field %d, want the id column's field %d", d.KeyFields[0], idField)
	}

	// An explicit --key wins, and dataset resolution takes no key at all.
	res, err = Observe(context.Background(), reg, Options{Address: "test-keyed:x", Name: "keyed", Profile: normalize.StrictV1, Resolution: "record", Key: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Scan.Descriptor.Choices, "key=primary-key") || uint64(res.Scan.Descriptor.KeyFields[0]) == idField {
		t.Fatalf("explicit key overridden: %+v", res.Scan.Descriptor)
	}
	res, err = Observe(context.Background(), reg, Options{Address: "test-keyed:x", Name: "keyed", Profile: normalize.StrictV1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scan.Descriptor.KeyFields) != 0 {
		t.Fatalf("dataset resolution took key fields %v", res.Scan.Descriptor.KeyFields)
	}
}
