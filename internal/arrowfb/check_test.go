package arrowfb

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

const depth = 64

func check(data []byte, format Format, partial bool) error {
	return Check(bytes.NewReader(data), int64(len(data)), Options{Format: format, MaxDepth: depth, PartialTail: partial})
}

// What arrow-go's writers write passes, in every mode, and arrow-go reads it back.
func TestWrittenInputsPass(t *testing.T) {
	schema, recs := sample(t)
	for _, file := range []bool{false, true} {
		for _, rs := range [][]arrow.RecordBatch{nil, recs} {
			data := written(t, file, schema, rs)
			format := map[bool]Format{false: Stream, true: File}[file]
			for _, partial := range []bool{false, true} {
				if err := check(data, format, partial); err != nil {
					t.Errorf("file %v, %d batches, partial %v: %v", file, len(rs), partial, err)
				}
			}
			if err := readWithArrow(data, format, false); err != nil {
				t.Fatalf("arrow-go cannot read the fixture: %v", err)
			}
		}
	}
	value := parquetSchema(t, schema)
	if err := CheckParquetSchema(value, Options{MaxDepth: depth}); err != nil {
		t.Errorf("ARROW:schema of a pqarrow file: %v", err)
	}
}

// parquetSchema returns the ARROW:schema value that pqarrow stores for schema's Parquet
// mappable columns.
func parquetSchema(t testing.TB, schema *arrow.Schema) string {
	t.Helper()
	var fields []arrow.Field
	for _, f := range schema.Fields() {
		if f.Type.ID() != arrow.SPARSE_UNION && f.Type.ID() != arrow.DICTIONARY {
			fields = append(fields, f)
		}
	}
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(arrow.NewSchema(fields, nil), &buf, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	v := r.MetaData().KeyValueMetadata().FindValue(ParquetSchemaKey)
	if v == nil {
		t.Fatal("pqarrow stored no ARROW:schema")
	}
	return *v
}

// readWithArrow reads data with arrow-go's IPC readers, every batch (of a stream, only
// the schema when schemaOnly, as pqarrow reads an ARROW:schema), bounding metadata and
// bodies by the input as the callers do; panics are returned as errors.
func readWithArrow(data []byte, format Format, schemaOnly bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	opts := []ipc.Option{ipc.WithAllocator(memory.NewGoAllocator()), ipc.WithMetadataSizeLimit(int64(len(data))), ipc.WithBodySizeLimit(int64(len(data)))}
	if format == File {
		fr, err := ipc.NewFileReader(bytes.NewReader(data), opts...)
		if err != nil {
			return err
		}
		defer fr.Close()
		for i := range fr.NumRecords() {
			rec, err := fr.RecordBatchAt(i)
			if err != nil {
				return err
			}
			rec.Release()
		}
		return nil
	}
	r, err := ipc.NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		return err
	}
	defer r.Release()
	for !schemaOnly && r.Next() {
	}
	return r.Err()
}

const outside = "a table, vector or string lies outside the flatbuffer"

// Each case damages one field of a written stream or file and names the exact error.
func TestMalformed(t *testing.T) {
	schema, recs := sample(t)
	type tc struct {
		name    string
		partial bool
		damage  func(t *testing.T, data []byte) (out []byte, want string)
	}
	huge := uint32(0x7fffffff)
	// Streams: the schema message, a dictionary batch, then the record batches.
	streamCases := []tc{
		{name: "schema field count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, node(m.meta).sub(t, 2).vec(t, 1), huge)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "schema metadata key length", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, node(m.meta).sub(t, 2).elem(t, 2, 0).vec(t, 0), huge)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "field metadata count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, schemaField(t, m, 0).vec(t, 6), huge)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "field name length", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, schemaField(t, m, 1).vec(t, 0), huge)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "timestamp zone length", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, schemaField(t, m, 1).sub(t, 3).vec(t, 1), huge)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "child field count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, schemaField(t, m, 2).elem(t, 5, 0).vec(t, 5), huge) // s.l's children
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "union typeIds count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, schemaField(t, m, 3).sub(t, 3).vec(t, 1), huge)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "dictionary index type offset", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			put32(m.meta, schemaField(t, m, 4).sub(t, 4).slot(t, 1), huge)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "odd vtable size cutting the fields slot", damage: func(t *testing.T, d []byte) ([]byte, string) {
			// The flatbuffers runtime reads slot 1 (bytes 6-7 of the vtable) when the
			// vtable size is 7: the damaged count behind it must still be found.
			m := messages(t, d, 0, len(d))[0]
			s := node(m.meta).sub(t, 2)
			put32(m.meta, s.vec(t, 1), huge)
			binary.LittleEndian.PutUint16(m.meta[s.vtable():], 7)
			return d, "Arrow IPC message at byte 0: " + outside
		}},
		{name: "dictionary batch buffer count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[1]
			put32(m.meta, node(m.meta).sub(t, 2).sub(t, 1).vec(t, 2), huge)
			return d, fmt.Sprintf("Arrow IPC message at byte %d: %s", m.at, outside)
		}},
		{name: "record batch node count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[2]
			put32(m.meta, node(m.meta).sub(t, 2).vec(t, 1), huge)
			return d, fmt.Sprintf("Arrow IPC message at byte %d: %s", m.at, outside)
		}},
		{name: "record batch metadata count", partial: true, damage: func(t *testing.T, d []byte) ([]byte, string) {
			// The count arrow-go's record batch reader passes to make() (a fatal
			// out-of-memory error before this check covered every message).
			ms := messages(t, d, 0, len(d))
			m := ms[len(ms)-1]
			put32(m.meta, node(m.meta).vec(t, 4), huge)
			return d, fmt.Sprintf("Arrow IPC message at byte %d: %s", m.at, outside)
		}},
		{name: "metadata length past the end", damage: func(t *testing.T, d []byte) ([]byte, string) {
			put32(d, 4, huge)
			return d, fmt.Sprintf("Arrow IPC message at byte 0: claims 2147483647 bytes of metadata, %d remain", len(d)-8)
		}},
		{name: "metadata length below 4", damage: func(t *testing.T, d []byte) ([]byte, string) {
			put32(d, 4, 2)
			return d, "Arrow IPC message at byte 0: metadata length 2 is invalid"
		}},
		{name: "negative metadata length", damage: func(t *testing.T, d []byte) ([]byte, string) {
			put32(d, 4, 0xfffffffe)
			return d, "Arrow IPC message at byte 0: metadata length -2 is invalid"
		}},
		{name: "body past the end", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[2]
			put64(m.meta, node(m.meta).slot(t, 3), 1<<40)
			return d, fmt.Sprintf("Arrow IPC message at byte %d: claims a 1099511627776-byte body, %d bytes remain", m.at, len(d)-m.at-8-len(m.meta))
		}},
		{name: "body longer than the input, partial tail", partial: true, damage: func(t *testing.T, d []byte) ([]byte, string) {
			// Left to arrow-go, whose stream reader ignores its size limits (v18.8.0), the
			// claimed body would be allocated: a tail is left to it only when no length it
			// claims is longer than the input.
			ms := messages(t, d, 0, len(d))
			m := ms[len(ms)-1]
			put64(m.meta, node(m.meta).slot(t, 3), uint64(len(d)+1))
			return d, fmt.Sprintf("Arrow IPC message at byte %d: claims a %d-byte body, %d bytes remain", m.at, len(d)+1, len(d)-m.at-8-len(m.meta))
		}},
		{name: "metadata longer than the input, partial tail", partial: true, damage: func(t *testing.T, d []byte) ([]byte, string) {
			ms := messages(t, d, 0, len(d))
			m := ms[len(ms)-1]
			put32(d, m.at+4, uint32(len(d)+1))
			return d, fmt.Sprintf("Arrow IPC message at byte %d: claims %d bytes of metadata, %d remain", m.at, len(d)+1, len(d)-m.at-8)
		}},
		{name: "negative body", damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[1]
			put64(m.meta, node(m.meta).slot(t, 3), ^uint64(7)) // -8
			return d, fmt.Sprintf("Arrow IPC message at byte %d: body length -8 is negative", m.at)
		}},
		{name: "too few bytes for a length", damage: func(t *testing.T, d []byte) ([]byte, string) {
			return d[:2], "Arrow IPC message at byte 0: 2 bytes remain, too few for a message length"
		}},
		{name: "first message cut, partial tail", partial: true, damage: func(t *testing.T, d []byte) ([]byte, string) {
			m := messages(t, d, 0, len(d))[0]
			return d[:20], fmt.Sprintf("Arrow IPC message at byte 0: claims %d bytes of metadata, 12 remain", len(m.meta))
		}},
		{name: "last body cut", damage: func(t *testing.T, d []byte) ([]byte, string) {
			ms := messages(t, d, 0, len(d))
			m := ms[len(ms)-1]
			cut := m.at + 8 + len(m.meta) + 8
			return d[:cut], fmt.Sprintf("Arrow IPC message at byte %d: claims a %d-byte body, 8 bytes remain", m.at, m.body)
		}},
		{name: "last body cut, partial tail", partial: true, damage: func(t *testing.T, d []byte) ([]byte, string) {
			ms := messages(t, d, 0, len(d))
			m := ms[len(ms)-1]
			return d[:m.at+8+len(m.meta)+8], ""
		}},
		{name: "last metadata cut, partial tail", partial: true, damage: func(t *testing.T, d []byte) ([]byte, string) {
			ms := messages(t, d, 0, len(d))
			return d[:ms[len(ms)-1].at+10], ""
		}},
	}
	// Files: the leading magic, the stream, the footer, its length and the trailing magic.
	footer := func(t *testing.T, d []byte) (fb, int) {
		n := le32(d[len(d)-10:])
		at := len(d) - 10 - n
		return node(d[at : at+n]), at
	}
	fileCases := []tc{
		{name: "file too short", damage: func(t *testing.T, d []byte) ([]byte, string) {
			return []byte("ARROW1"), "Arrow IPC file at byte 0: 6 bytes are too few for an IPC file"
		}},
		{name: "no trailing magic", damage: func(t *testing.T, d []byte) ([]byte, string) {
			d[len(d)-1] = 'X'
			return d, fmt.Sprintf("Arrow IPC file at byte %d: no ARROW1 magic at the end", len(d)-6)
		}},
		{name: "footer length", damage: func(t *testing.T, d []byte) ([]byte, string) {
			put32(d, len(d)-10, huge)
			return d, fmt.Sprintf("Arrow IPC footer at byte %d: footer length 2147483647 does not fit the file", len(d)-10)
		}},
		{name: "footer record batch count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			f, at := footer(t, d)
			put32(f.b, f.vec(t, 3), huge)
			return d, fmt.Sprintf("Arrow IPC footer at byte %d: %s", at, outside)
		}},
		{name: "footer schema field count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			f, at := footer(t, d)
			put32(f.b, f.sub(t, 1).vec(t, 1), huge)
			return d, fmt.Sprintf("Arrow IPC footer at byte %d: %s", at, outside)
		}},
		{name: "record batch block outside the file", damage: func(t *testing.T, d []byte) ([]byte, string) {
			f, at := footer(t, d)
			b := f.vec(t, 3) + 4 // block 0: offset, metaDataLength, padding, bodyLength
			put64(f.b, b, 1<<40)
			meta, body := le32(f.b[b+8:]), binary.LittleEndian.Uint64(f.b[b+16:])
			return d, fmt.Sprintf("Arrow IPC record batch block 0 at byte 1099511627776: %d bytes of metadata and %d of body do not fit before the footer at byte %d", meta, body, at)
		}},
		{name: "dictionary block body outside the file", damage: func(t *testing.T, d []byte) ([]byte, string) {
			f, at := footer(t, d)
			b := f.vec(t, 2) + 4
			put64(f.b, b+16, 1<<40)
			off, meta := binary.LittleEndian.Uint64(f.b[b:]), le32(f.b[b+8:])
			return d, fmt.Sprintf("Arrow IPC dictionary block 0 at byte %d: %d bytes of metadata and 1099511627776 of body do not fit before the footer at byte %d", off, meta, at)
		}},
		{name: "block metadata below 8", damage: func(t *testing.T, d []byte) ([]byte, string) {
			f, _ := footer(t, d)
			b := f.vec(t, 3) + 4
			put32(f.b, b+8, 4)
			return d, fmt.Sprintf("Arrow IPC record batch block 0 at byte %d: metadata length 4 is below 8", binary.LittleEndian.Uint64(f.b[b:]))
		}},
		{name: "block message longer than the block", damage: func(t *testing.T, d []byte) ([]byte, string) {
			f, _ := footer(t, d)
			b := f.vec(t, 3) + 4
			off := int(binary.LittleEndian.Uint64(f.b[b:]))
			put32(f.b, b+8, 8)
			return d, fmt.Sprintf("Arrow IPC record batch block 0 at byte %d: a message of %d bytes does not fit the block's 8 bytes of metadata", off, le32(d[off+4:]))
		}},
		{name: "block message metadata count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			f, _ := footer(t, d)
			off := int(binary.LittleEndian.Uint64(f.b[f.vec(t, 3)+4+24:])) // block 1
			m := messages(t, d, off, len(d))[0]
			put32(m.meta, node(m.meta).vec(t, 4), huge)
			return d, fmt.Sprintf("Arrow IPC record batch block 1 at byte %d: %s", off, outside)
		}},
		{name: "stream schema field count", damage: func(t *testing.T, d []byte) ([]byte, string) {
			// The schema message at byte 8 is named by no block: the stream walk finds it.
			m := messages(t, d, 8, len(d))[0]
			put32(m.meta, node(m.meta).sub(t, 2).vec(t, 1), huge)
			return d, "Arrow IPC message at byte 8: " + outside
		}},
	}
	run := func(file bool, cases []tc) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				format := map[bool]Format{false: Stream, true: File}[file]
				data, want := c.damage(t, written(t, file, schema, recs))
				err := check(data, format, c.partial)
				if want == "" {
					if err != nil {
						t.Fatalf("rejected: %v", err)
					}
					return
				}
				var e *Error
				if !errors.As(err, &e) || err.Error() != want {
					t.Fatalf("got  %v\nwant %s", err, want)
				}
			})
		}
	}
	run(false, streamCases)
	run(true, fileCases)
}

// The nesting bound: ListOf^5(int64) has fields at depths 0 to 5.
func TestNestingBound(t *testing.T) {
	dt := arrow.DataType(arrow.PrimitiveTypes.Int64)
	for range 5 {
		dt = arrow.ListOf(dt)
	}
	data := written(t, false, arrow.NewSchema([]arrow.Field{{Name: "l", Type: dt}}, nil), nil)
	for _, file := range []bool{false, true} {
		data := data
		format := Stream
		if file {
			data, format = written(t, true, arrow.NewSchema([]arrow.Field{{Name: "l", Type: dt}}, nil), nil), File
		}
		r := bytes.NewReader(data)
		if err := Check(r, r.Size(), Options{Format: format, MaxDepth: 5}); err != nil {
			t.Errorf("file %v: depth 5 rejected at MaxDepth 5: %v", file, err)
		}
		err := Check(r, r.Size(), Options{Format: format, MaxDepth: 4})
		part, at := "message", 0
		if file {
			part, at = "footer", len(data)-10-le32(data[len(data)-10:])
		}
		if want := fmt.Sprintf("Arrow IPC %s at byte %d: fields nest deeper than 4 levels", part, at); err == nil || err.Error() != want {
			t.Errorf("file %v: got %v, want %s", file, err, want)
		}
	}
}

func TestParquetSchema(t *testing.T) {
	schema, _ := sample(t)
	value := parquetSchema(t, schema)
	good, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{MaxDepth: depth}
	if err := CheckParquetSchema(base64.RawStdEncoding.EncodeToString(good), o); err != nil {
		t.Errorf("unpadded: %v", err)
	}
	// Only the first message is pqarrow's: bytes after it are not read.
	first := messages(t, good, 0, len(good))[0]
	tail := append(bytes.Clone(good[:8+len(first.meta)]), 0xff, 0xff, 0xff, 0xff, 9, 0, 0, 0)
	if err := CheckParquetSchema(base64.StdEncoding.EncodeToString(tail), o); err != nil {
		t.Errorf("bytes after the schema message: %v", err)
	}
	// Not base64: left to pqarrow, which rejects it.
	if err := CheckParquetSchema("not base64!", o); err != nil {
		t.Errorf("not base64: %v", err)
	}
	bad := bytes.Clone(good)
	m := messages(t, bad, 0, len(bad))[0]
	put32(m.meta, node(m.meta).sub(t, 2).vec(t, 1), 0x7fffffff)
	want := "Arrow IPC ARROW:schema message at byte 0: " + outside
	for name, v := range map[string]string{
		"padded":   base64.StdEncoding.EncodeToString(bad),
		"unpadded": base64.RawStdEncoding.EncodeToString(bad),
	} {
		if err := CheckParquetSchema(v, o); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", name, err, want)
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bytes.Reader
	n int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += n
	return n, err
}

// The check reads metadata, never bodies: an 8 MB batch costs a few hundred bytes.
func TestReadsNoBodies(t *testing.T) {
	b := array.NewInt64Builder(memory.NewGoAllocator())
	b.AppendValues(make([]int64, 1<<20), nil)
	col := b.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: col.DataType()}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	for _, file := range []bool{false, true} {
		data := written(t, file, schema, []arrow.RecordBatch{rec, rec})
		r := &countingReader{r: bytes.NewReader(data)}
		format := map[bool]Format{false: Stream, true: File}[file]
		if err := Check(r, int64(len(data)), Options{Format: format, MaxDepth: depth}); err != nil {
			t.Fatal(err)
		}
		if r.n > 4096 {
			t.Errorf("file %v: read %d of %d bytes", file, r.n, len(data))
		}
	}
}

// Every 32-bit word of a written stream and file set to extremes, and every truncation:
// the check returns nil or an *Error, and arrow-go reads whatever it accepts without a
// fatal error (a missed count would make it allocate without bound and kill the test).
func TestMutations(t *testing.T) {
	schema, recs := sample(t)
	for _, mode := range []struct {
		format  Format
		partial bool
	}{{Stream, false}, {Stream, true}, {File, false}} {
		seed := written(t, mode.format == File, schema, recs)
		try := func(what string, data []byte) {
			err := check(data, mode.format, mode.partial)
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("%+v %s: error of type %T: %v", mode, what, err, err)
			}
			if err == nil {
				readWithArrow(data, mode.format, false) // an error or a recovered panic is fine
			}
		}
		for p := 0; p+4 <= len(seed); p++ {
			for _, v := range []uint32{0x7fffffff, 0xffffffff, 0x80000000} {
				data := bytes.Clone(seed)
				put32(data, p, v)
				try(fmt.Sprintf("word %d = %#x", p, v), data)
			}
		}
		for n := range len(seed) {
			try(fmt.Sprintf("cut at %d", n), seed[:n])
		}
	}
}

// FuzzCheck: any input, as a stream, a file or a Parquet ARROW:schema (given decoded),
// is accepted or rejected with an *Error, never a panic; arrow-go reads whatever is
// accepted without a fatal error. The seeds are arrow-go's writers' output and the
// damaged inputs of testdata/fuzz/FuzzCheck, taken from the fuzz corpora of the source
// adapter (see testdata/README.md).
func FuzzCheck(f *testing.F) {
	schema, recs := sample(f)
	f.Add(written(f, false, schema, recs), uint8(Stream))
	f.Add(written(f, true, schema, recs), uint8(File))
	f.Add(mustDecodeF(f, parquetSchema(f, schema)), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		var err error
		format, schemaOnly := Format(kind%3), kind%3 == 2
		if schemaOnly {
			err = CheckParquetSchema(base64.StdEncoding.EncodeToString(data), Options{MaxDepth: depth})
			format = Stream
		} else {
			err = Check(bytes.NewReader(data), int64(len(data)), Options{Format: format, MaxDepth: depth, PartialTail: kind&4 != 0})
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error of type %T: %v", err, err)
		}
		if err == nil {
			readWithArrow(data, format, schemaOnly)
		}
	})
}

func mustDecodeF(f *testing.F, s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
