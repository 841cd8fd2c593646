package source

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipewhy/pipewhy/internal/arrowfb"
)

// parquetSource reads a Parquet file through arrow-go's pqarrow: the files the
// parquet-go reader (parquetgo.go) leaves to it, or every file when
// ParquetReaderEnv asks for it.
type parquetSource struct {
	fileBase
	fr *pqarrow.FileReader
	rr pqarrow.RecordReader
	// asDuration lists the output columns stored as Parquet INT64 with a duration
	// type in the file's Arrow schema (as pyarrow writes them): pqarrow cannot decode
	// them as durations, so they are read as int64 and retyped without a copy.
	asDuration []int
}

func openParquet(ctx context.Context, a Address, opts Options) (_ Source, err error) {
	const op = "parquet open"
	f, st, version, err := openFile(op, a, opts)
	if err != nil {
		return nil, err
	}
	defer CloseOnError(&err, f)
	defer recoverPanic(op, a, &err)
	defer func() {
		// arrow-go v18.8.0 panics with "invalid logical type" on a logical type
		// newer than itself (parquet-testing's unknown-logical-type.parquet):
		// the file is valid, the reader is too old for it.
		if r := recover(); r != nil {
			if r != "invalid logical type" {
				panic(r) // recoverPanic reports it as a damaged file
			}
			err = &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: "a column has a Parquet logical type this reader does not know (written by a newer writer)"}
		}
	}()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		if encryptedFooter(f, st.size) {
			return nil, &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: "the Parquet file is encrypted (encrypted footer), and encrypted Parquet is not supported", Err: err}
		}
		return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "not a readable Parquet file", Err: err}
	}
	// pqarrow decodes a stored Arrow schema without bounds on its flatbuffer: a damaged
	// one can make it allocate without limit, so it is checked first.
	if v := pr.MetaData().KeyValueMetadata().FindValue(arrowfb.ParquetSchemaKey); v != nil {
		if err := arrowfb.CheckParquetSchema(*v, arrowfb.Options{MaxDepth: maxNestedDepth}); err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "the stored Arrow schema (ARROW:schema) is malformed", Err: err}
		}
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: int64(opts.BatchSize)}, opts.Allocator)
	if err != nil {
		return nil, &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: "the Parquet schema has no Arrow mapping", Err: err}
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: "the Parquet schema has no Arrow mapping", Err: err}
	}
	srcType := func(i int) string {
		sf := fr.Manifest.Fields[i]
		if !sf.IsLeaf() {
			// A nested column: its group node's logical type (List, Map or None for
			// a struct).
			if root := pr.MetaData().Schema.Root(); i < root.NumFields() {
				return "group/" + root.Field(i).LogicalType().String()
			}
			return "group"
		}
		c := pr.MetaData().Schema.Column(sf.ColIndex)
		return c.PhysicalType().String() + "/" + c.LogicalType().String()
	}
	schema, keep, excluded, err := buildSchema(op, a, sc, opts.Exclude, srcType)
	if err != nil {
		return nil, err
	}
	var asDuration []int
	for i, k := range keep {
		sf := &fr.Manifest.Fields[k]
		if schema.Field(i).Type.ID() == arrow.DURATION && sf.IsLeaf() && sf.Field != nil &&
			pr.MetaData().Schema.Column(sf.ColIndex).PhysicalType() == parquet.Types.Int64 {
			f := *sf.Field
			f.Type = arrow.PrimitiveTypes.Int64
			sf.Field = &f
			asDuration = append(asDuration, i)
		}
	}
	var leaves []int
	for _, k := range keep {
		leaves = appendLeaves(leaves, &fr.Manifest.Fields[k]) // every leaf of a nested field
	}
	if leaves == nil {
		leaves = []int{}
	}
	s := &parquetSource{fileBase: fileBase{a: a, opts: opts, f: f, before: st, schema: schema, ev: Evidence{
		Adapter: KindParquet, Namespace: "file:" + a.Path, Version: version, Consistency: ConsistencyFileRead,
		Choices: []string{"schema=file"}, Excluded: excluded}}, fr: fr, asDuration: asDuration}
	s.t.MaxDetails = opts.MaxFailureDetails
	s.t.Expected, s.t.ExpectedKnown = uint64(pr.NumRows()), pr.NumRows() >= 0
	if fast, err := chooseParquetReader(s, pr, fr, keep); fast != nil || err != nil {
		return fast, err // parquet-go, or a reader choice that cannot be honoured
	}
	if err := checkCodecs(op, a, pr, leaves); err != nil {
		return nil, err
	}
	if len(leaves) > 0 {
		s.rr, err = fr.GetRecordReader(ctx, leaves, nil)
		if err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "cannot read row groups", Err: err}
		}
	}
	s.keep = make([]int, len(keep))
	for i := range s.keep {
		s.keep[i] = i // the record reader returns only the selected columns, in order
	}
	return s, nil
}

// checkCodecs fails with CodeUnsupported, naming the column and the codec,
// when a chunk of a kept leaf in any row group is compressed with a codec that
// arrow-go does not implement (in v18.8.0: LZ4, the deprecated Hadoop-framed
// codec that parquet-mr wrote, and LZO). Such a file is not damaged; without
// this check GetRecordReader, or Next at a later row group, fails with a bare
// "unimplemented" that reads as corruption.
func checkCodecs(op string, a Address, pr *file.Reader, leaves []int) error {
	md := pr.MetaData()
	for g := range pr.NumRowGroups() {
		rg := md.RowGroup(g)
		for _, leaf := range leaves {
			cc, err := rg.ColumnChunk(leaf)
			if err != nil && md.IsSetEncryptionAlgorithm() {
				// A plaintext footer with encrypted columns: arrow-go cannot
				// read their chunk metadata without the keys.
				return &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %q is encrypted, and encrypted Parquet is not supported; exclude it", md.Schema.Column(leaf).Path()), Err: err}
			}
			if err != nil {
				return &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: fmt.Sprintf("row group %d has no readable metadata for column %d", g+1, leaf+1), Err: err}
			}
			if _, err := compress.GetCodec(cc.Compression()); err != nil {
				return &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %q is compressed with %s, which the Parquet reader does not implement", cc.PathInSchema().String(), cc.Compression()), Err: err}
			}
		}
	}
	return nil
}

// encryptedFooter reports whether f ends with the magic "PARE" of a Parquet
// file whose footer is encrypted (the Parquet modular encryption spec), which
// arrow-go cannot open without the keys: such a file is not damaged.
func encryptedFooter(f io.ReaderAt, size int64) bool {
	if size < 12 { // leading magic, footer length, trailing magic
		return false
	}
	var magic [4]byte
	_, err := f.ReadAt(magic[:], size-4)
	return err == nil && string(magic[:]) == "PARE"
}

// retype returns rec with the asDuration columns given their schema's duration type
// (same buffers, no copy); the caller releases the result, rec stays the reader's.
func (s *parquetSource) retype(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	fields := append([]arrow.Field(nil), rec.Schema().Fields()...)
	var made []arrow.Array
	for _, i := range s.asDuration {
		if i >= len(cols) || cols[i].DataType().ID() != arrow.INT64 {
			continue // project reports the mismatch
		}
		d := cols[i].Data()
		nd := array.NewData(s.schema.Field(i).Type, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
		cols[i] = array.MakeFromData(nd)
		nd.Release()
		made = append(made, cols[i])
		fields[i].Type = s.schema.Field(i).Type
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, a := range made {
		a.Release()
	}
	return out
}

// appendLeaves appends the Parquet leaf column indices of a field, in order.
func appendLeaves(dst []int, f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(dst, f.ColIndex)
	}
	for i := range f.Children {
		dst = appendLeaves(dst, &f.Children[i])
	}
	return dst
}

func (s *parquetSource) Next(ctx context.Context) (rec arrow.RecordBatch, err error) {
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		s.stop = &Error{Code: CodeIncomplete, Op: "parquet next", Source: s.a.String(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	if s.rr == nil {
		// Every column excluded: there is nothing to return, and the rows
		// are not read. Report it rather than claim an empty dataset.
		s.t.Done = true
		s.t.Fail(Failure{Code: CodeSchema, Detail: "every column is excluded; no rows were read"}, false)
		return nil, io.EOF
	}
	defer func() {
		if r := recover(); r != nil {
			rec = nil
			err = s.fatal(&Error{Code: CodeCorrupt, Op: "parquet next", Source: s.a.String(), Msg: "the reader failed on malformed input (recovered panic)"})
		}
	}()
	if s.rr.Next() {
		raw := s.rr.RecordBatch()
		if len(s.asDuration) > 0 {
			raw = s.retype(raw)
			defer raw.Release()
		}
		out, err := s.project(raw)
		if err != nil {
			return nil, s.fatal(err)
		}
		return s.screen(out)
	}
	if err := s.rr.Err(); err != nil && err != io.EOF {
		return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "parquet next", Source: s.a.String(), Msg: "cannot decode column data", Err: err})
	}
	s.t.Done = true
	checkUnchanged(&s.t, s.f, s.before)
	return nil, io.EOF
}

func (s *parquetSource) Close() error {
	if s.rr != nil {
		s.rr.Release()
		s.rr = nil
	}
	return s.closeFile("parquet close")
}
