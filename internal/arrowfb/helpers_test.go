package arrowfb

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
)

// The fixtures are files and streams written by arrow-go's IPC writers; the malformed
// cases damage one field of them, found by walking the flatbuffers with the flatbuffers
// runtime's own vtable lookup and the slot numbers of format/Schema.fbs, Message.fbs and
// File.fbs, independently of the code under test.

// sample returns a schema that exercises every table the check reads (field and schema
// metadata, a timestamp zone, nesting, a union's typeIds, a dictionary encoding) and two
// record batches of it that carry record batch metadata.
func sample(t testing.TB) (*arrow.Schema, []arrow.RecordBatch) {
	t.Helper()
	mem := memory.NewGoAllocator()
	i64 := array.NewInt64Builder(mem)
	i64.AppendValues([]int64{1, 2}, nil)
	ts := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	ts.AppendValues([]arrow.Timestamp{10, 20}, nil)
	lt := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	sb := array.NewStructBuilder(mem, arrow.StructOf(arrow.Field{Name: "l", Type: lt, Nullable: true}))
	lb := sb.FieldBuilder(0).(*array.ListBuilder)
	for range 2 {
		sb.Append(true)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{7, 8}, nil)
	}
	codes := array.NewInt8Builder(mem)
	codes.AppendValues([]int8{5, 5}, nil)
	child := array.NewInt32Builder(mem)
	child.AppendValues([]int32{3, 4}, nil)
	union, err := array.NewSparseUnionFromArraysWithFieldCodes(codes.NewArray(), []arrow.Array{child.NewArray()}, []string{"c"}, []arrow.UnionTypeCode{5})
	if err != nil {
		t.Fatal(err)
	}
	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String})
	db.(*array.BinaryDictionaryBuilder).AppendString("x")
	db.(*array.BinaryDictionaryBuilder).AppendString("y")
	cols := []arrow.Array{i64.NewArray(), ts.NewArray(), sb.NewArray(), union, db.NewArray()}
	fields := []arrow.Field{
		{Name: "i", Type: cols[0].DataType(), Metadata: arrow.NewMetadata([]string{"fk"}, []string{"fv"})},
		{Name: "ts", Type: cols[1].DataType()},
		{Name: "s", Type: cols[2].DataType(), Nullable: true},
		{Name: "u", Type: cols[3].DataType()},
		{Name: "d", Type: cols[4].DataType()},
	}
	md := arrow.NewMetadata([]string{"sk"}, []string{"sv"})
	schema := arrow.NewSchema(fields, &md)
	rmd := arrow.NewMetadata([]string{"rk"}, []string{"rv"})
	rec := array.NewRecordBatchWithMetadata(schema, cols, 2, rmd)
	return schema, []arrow.RecordBatch{rec, rec}
}

// written returns what arrow-go's stream (file=false) or file writer writes.
func written(t testing.TB, file bool, schema *arrow.Schema, recs []arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	} else {
		w = ipc.NewWriter(&buf, ipc.WithSchema(schema))
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// msg is one encapsulated message of a stream: its prefix starts at at, its flatbuffer is
// meta, and its body follows it.
type msg struct {
	at   int
	meta []byte // aliases the input: writes to it damage the input
	body int64
}

func le32(b []byte) int { return int(int32(binary.LittleEndian.Uint32(b))) }

// messages splits data[off:end] into its messages (continuation-marker framing, as
// arrow-go writes it), up to the end-of-stream marker.
func messages(t testing.TB, data []byte, off, end int) []msg {
	t.Helper()
	var out []msg
	for off < end {
		if le32(data[off:]) != -1 {
			t.Fatalf("no continuation marker at %d", off)
		}
		n := le32(data[off+4:])
		if n == 0 {
			break
		}
		meta := data[off+8 : off+8+n]
		m := msg{at: off, meta: meta}
		if p, ok := node(meta).field(3); ok { // bodyLength, 0 when absent
			m.body = int64(binary.LittleEndian.Uint64(meta[p:]))
		}
		out = append(out, m)
		off += 8 + n + int(m.body)
	}
	return out
}

// fb is a table inside a flatbuffer, located with the flatbuffers runtime.
type fb struct {
	b   []byte
	pos int
}

// node returns the root table of the flatbuffer b.
func node(b []byte) fb { return fb{b, int(flatbuffers.GetUOffsetT(b))} }

// field returns the absolute position of field i, if present.
func (f fb) field(i int) (int, bool) {
	tab := flatbuffers.Table{Bytes: f.b, Pos: flatbuffers.UOffsetT(f.pos)}
	o := tab.Offset(flatbuffers.VOffsetT(4 + 2*i))
	return f.pos + int(o), o != 0
}

// slot returns the absolute position of field i, failing the test when it is absent.
func (f fb) slot(t testing.TB, i int) int {
	t.Helper()
	p, ok := f.field(i)
	if !ok {
		t.Fatalf("slot %d of the table at %d is absent", i, f.pos)
	}
	return p
}

// sub returns the table that field i refers to.
func (f fb) sub(t testing.TB, i int) fb {
	p := f.slot(t, i)
	return fb{f.b, p + int(flatbuffers.GetUOffsetT(f.b[p:]))}
}

// vec returns the position of the length of the vector (or string) that field i refers to.
func (f fb) vec(t testing.TB, i int) int {
	p := f.slot(t, i)
	return p + int(flatbuffers.GetUOffsetT(f.b[p:]))
}

// elem returns table k of the vector of tables in field i.
func (f fb) elem(t testing.TB, i, k int) fb {
	e := f.vec(t, i) + 4 + 4*k
	return fb{f.b, e + int(flatbuffers.GetUOffsetT(f.b[e:]))}
}

// vtable returns the position of the table's vtable.
func (f fb) vtable() int { return f.pos - int(flatbuffers.GetSOffsetT(f.b[f.pos:])) }

func put32(b []byte, pos int, v uint32) { binary.LittleEndian.PutUint32(b[pos:], v) }
func put64(b []byte, pos int, v uint64) { binary.LittleEndian.PutUint64(b[pos:], v) }

// schemaField returns field k of the Schema of a schema message.
func schemaField(t testing.TB, m msg, k int) fb { return node(m.meta).sub(t, 2).elem(t, 1, k) }
