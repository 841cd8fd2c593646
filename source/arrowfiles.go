package source

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipewhy/pipewhy/internal/arrowfb"
)

// withMeta returns f with the adapter metadata added to its own.
func withMeta(f arrow.Field, sourceType string) arrow.Field {
	m := fieldMeta(sourceType, f.Type)
	keys := append([]string(nil), f.Metadata.Keys()...)
	vals := append([]string(nil), f.Metadata.Values()...)
	for i, k := range m.Keys() {
		if j := f.Metadata.FindKey(k); j >= 0 {
			vals[j] = m.Values()[i]
			continue
		}
		keys = append(keys, k)
		vals = append(vals, m.Values()[i])
	}
	f.Metadata = arrow.NewMetadata(keys, vals)
	return f
}

// fileBase is the state shared by the Parquet and IPC adapters.
type fileBase struct {
	a      Address
	opts   Options
	f      *os.File
	before fileState
	schema *arrow.Schema
	keep   []int // kept column indices of the reader's records
	ev     Evidence
	t      Tracker
	stop   error
}

func (b *fileBase) Schema() *arrow.Schema { return b.schema }

func (b *fileBase) Evidence() Evidence { return b.t.Evidence(b.ev) }

func (b *fileBase) closeFile(op string) error {
	if b.f == nil {
		return nil
	}
	err := b.f.Close()
	b.f = nil
	if err != nil {
		return &Error{Code: CodeIO, Op: op, Source: b.a.String(), Err: err}
	}
	return nil
}

// project rebuilds a reader record with the adapter's schema and kept
// columns; the caller still owns rec.
func (b *fileBase) project(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if int(rec.NumCols()) < len(b.keep) {
		return nil, &Error{Code: CodeCorrupt, Op: "project", Source: b.a.String(), Detail: "record batch has fewer columns than the schema"}
	}
	cols := make([]arrow.Array, len(b.keep))
	for i, k := range b.keep {
		if k >= int(rec.NumCols()) {
			return nil, &Error{Code: CodeCorrupt, Op: "project", Source: b.a.String(), Detail: "record batch has fewer columns than the schema"}
		}
		cols[i] = rec.Column(k)
		if !arrow.TypeEqual(cols[i].DataType(), b.schema.Field(i).Type) {
			return nil, &Error{Code: CodeCorrupt, Op: "project", Source: b.a.String(), Detail: fmt.Sprintf("column %q batch type differs from the schema", b.schema.Field(i).Name)}
		}
	}
	return array.NewRecordBatch(b.schema, cols, rec.NumRows()), nil
}

// screen counts rows whose text columns hold invalid UTF-8 as failures and
// drops them (Arrow utf8 requires valid UTF-8, but readers do not check it).
// It takes ownership of rec.
func (b *fileBase) screen(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	first := b.t.Returned + b.t.FailedRecords() // rows before this batch
	bad := map[int]bool{}
	for ci, c := range rec.Columns() {
		var valid func(i int) bool
		switch c := c.(type) {
		case *array.String:
			if c.Len() == 0 || allValidUTF8(c.ValueBytes(), c.ValueOffsets()) {
				continue // one bulk pass; value by value only when it fails
			}
			valid = func(i int) bool { return utf8.ValidString(c.Value(i)) }
		case *array.LargeString:
			if c.Len() == 0 || allValidUTF8(c.ValueBytes(), c.ValueOffsets()) {
				continue
			}
			valid = func(i int) bool { return utf8.ValidString(c.Value(i)) }
		default:
			continue
		}
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) && !valid(i) && !bad[i] {
				bad[i] = true
				b.t.Fail(Failure{Code: CodeUTF8, Line: first + uint64(i) + 1, Column: b.schema.Field(ci).Name, Detail: "text is not valid UTF-8"}, true)
			}
		}
	}
	if len(bad) == 0 {
		b.t.Returned += uint64(rec.NumRows())
		return rec, nil
	}
	defer rec.Release()
	var parts []arrow.RecordBatch
	start := 0
	n := int(rec.NumRows())
	for i := 0; i <= n; i++ {
		if i == n || bad[i] {
			if i > start {
				parts = append(parts, rec.NewSlice(int64(start), int64(i)))
			}
			start = i + 1
		}
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	cols := make([]arrow.Array, rec.NumCols())
	rows := int64(0)
	for _, p := range parts {
		rows += p.NumRows()
	}
	for ci := range cols {
		if len(parts) == 0 {
			cols[ci] = array.MakeArrayOfNull(b.opts.Allocator, rec.Column(ci).DataType(), 0)
		} else {
			chunks := make([]arrow.Array, len(parts))
			for pi, p := range parts {
				chunks[pi] = p.Column(ci)
			}
			c, err := array.Concatenate(chunks, b.opts.Allocator)
			if err != nil {
				return nil, b.fatal(&Error{Code: CodeIO, Op: "screen", Source: b.a.String(), Detail: "cannot drop invalid rows", Err: err})
			}
			cols[ci] = c
		}
		defer cols[ci].Release()
	}
	b.t.Returned += uint64(rows)
	return array.NewRecordBatch(b.schema, cols, rows), nil
}

// fatal records a failure that stops the read and returns it.
func (b *fileBase) fatal(err error) error {
	b.t.Fail(Failure{Code: CodeOf(err), Detail: "reading stopped: " + errDetail(err)}, false)
	b.t.Done, b.t.Fatal, b.t.ExpectedKnown = true, true, false
	b.stop = err
	return err
}

func errDetail(err error) string {
	if e, ok := err.(*Error); ok && e.Detail != "" {
		return e.Detail
	}
	return "see error"
}

// buildSchema checks and annotates the kept fields of a reader schema.
func buildSchema(op string, a Address, sc *arrow.Schema, exclude []string, sourceType func(i int) string) (*arrow.Schema, []int, []string, error) {
	names := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		names[i] = f.Name
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, nil, nil, &Error{Code: CodeDuplicate, Op: op, Source: a.String(), Detail: fmt.Sprintf("column %q appears twice", n)}
		}
		seen[n] = true
	}
	keepMask, excluded, err := Exclude(op, a.String(), names, exclude)
	if err != nil {
		return nil, nil, nil, err
	}
	var fields []arrow.Field
	var keep []int
	for i, f := range sc.Fields() {
		if !keepMask[i] {
			continue
		}
		if !validName(f.Name) {
			return nil, nil, nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Detail: fmt.Sprintf("column %d has an empty or non-UTF-8 name", i+1)}
		}
		if err := checkSupported(op, a, f); err != nil {
			return nil, nil, nil, err
		}
		fields = append(fields, withMeta(f, sourceType(i)))
		keep = append(keep, i)
	}
	return arrow.NewSchema(fields, nil), keep, excluded, nil
}

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
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	defer recoverPanic(op, a, &err)
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Detail: "not a readable Parquet file", Err: err}
	}
	// pqarrow decodes a stored Arrow schema without bounds on its flatbuffer: a damaged
	// one can make it allocate without limit, so it is checked first.
	if v := pr.MetaData().KeyValueMetadata().FindValue(arrowfb.ParquetSchemaKey); v != nil {
		if err := arrowfb.CheckParquetSchema(*v, arrowfb.Options{MaxDepth: maxNestedDepth}); err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Detail: "the stored Arrow schema (ARROW:schema) is malformed", Err: err}
		}
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: int64(opts.BatchSize)}, opts.Allocator)
	if err != nil {
		return nil, &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Detail: "the Parquet schema has no Arrow mapping", Err: err}
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Detail: "the Parquet schema has no Arrow mapping", Err: err}
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
	if len(leaves) > 0 {
		s.rr, err = fr.GetRecordReader(ctx, leaves, nil)
		if err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Detail: "cannot read row groups", Err: err}
		}
	}
	s.keep = make([]int, len(keep))
	for i := range s.keep {
		s.keep[i] = i // the record reader returns only the selected columns, in order
	}
	return s, nil
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
		s.stop = &Error{Code: CodeIncomplete, Op: "parquet next", Source: s.a.String(), Detail: "cancelled", Err: err}
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
			err = s.fatal(&Error{Code: CodeCorrupt, Op: "parquet next", Source: s.a.String(), Detail: "the reader failed on malformed input (recovered panic)"})
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
		return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "parquet next", Source: s.a.String(), Detail: "cannot decode column data", Err: err})
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

type ipcSource struct {
	fileBase
	fr   *ipc.FileReader
	sr   *ipc.Reader
	next int // next batch of fr
}

var ipcMagic = []byte("ARROW1")

func openIPC(ctx context.Context, a Address, opts Options) (_ Source, err error) {
	const op = "arrow open"
	f, st, version, err := openFile(op, a, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	defer recoverPanic(op, a, &err)
	if a.Kind == KindArrowAuto {
		head := make([]byte, len(ipcMagic))
		n, _ := io.ReadFull(f, head)
		a.Kind = KindArrowStream
		if n == len(head) && bytes.Equal(head, ipcMagic) {
			a.Kind = KindArrowFile
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Detail: "seek failed", Err: err}
		}
	}
	// arrow-go sizes allocations from the metadata's vector counts before checking them:
	// every message is checked first. A truncated stream is left to the reader, which
	// returns the batches before the cut and then fails (coverage PARTIAL).
	format := arrowfb.Stream
	if a.Kind == KindArrowFile {
		format = arrowfb.File
	}
	if err := arrowfb.Check(f, st.size, arrowfb.Options{Format: format, MaxDepth: maxNestedDepth, PartialTail: true}); err != nil {
		return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Detail: "not a readable Arrow IPC file or stream", Err: err}
	}
	s := &ipcSource{fileBase: fileBase{a: a, opts: opts, f: f, before: st}}
	var sc *arrow.Schema
	// No message metadata or body can be larger than the file: bounding both by its size
	// keeps a damaged length from allocating more (arrow-go's defaults, 64 MiB and 256 MiB,
	// would also reject valid batches above 256 MiB). arrow-go's stream reader ignores the
	// limits (v18.8.0); for streams the check above bounds every message instead.
	limit := max(st.size, 1)
	ipcOpts := []ipc.Option{ipc.WithAllocator(opts.Allocator), ipc.WithMetadataSizeLimit(limit), ipc.WithBodySizeLimit(limit)}
	if a.Kind == KindArrowFile {
		s.fr, err = ipc.NewFileReader(f, ipcOpts...)
		if err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Detail: "not a readable Arrow IPC file", Err: err}
		}
		sc = s.fr.Schema()
	} else {
		s.sr, err = ipc.NewReader(f, ipcOpts...)
		if err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Detail: "not a readable Arrow IPC stream", Err: err}
		}
		sc = s.sr.Schema()
	}
	srcType := func(i int) string {
		if n, ok := TypeName(sc.Field(i).Type); ok {
			return n
		}
		return sc.Field(i).Type.String()
	}
	schema, keep, excluded, err := buildSchema(op, a, sc, opts.Exclude, srcType)
	if err != nil {
		s.closeReaders()
		return nil, err
	}
	s.schema, s.keep = schema, keep
	s.ev = Evidence{Adapter: a.Kind, Namespace: "file:" + a.Path, Version: version, Consistency: ConsistencyFileRead,
		Choices: []string{"schema=file", "batches=as-written"}, Excluded: excluded}
	s.t.MaxDetails = opts.MaxFailureDetails
	return s, nil
}

func (s *ipcSource) closeReaders() {
	if s.fr != nil {
		_ = s.fr.Close() // a reader of a file only read
		s.fr = nil
	}
	if s.sr != nil {
		s.sr.Release()
		s.sr = nil
	}
}

func (s *ipcSource) Next(ctx context.Context) (rec arrow.RecordBatch, err error) {
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		s.stop = &Error{Code: CodeIncomplete, Op: "arrow next", Source: s.a.String(), Detail: "cancelled", Err: err}
		return nil, s.stop
	}
	defer func() {
		if r := recover(); r != nil {
			rec = nil
			err = s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Detail: "the reader failed on malformed input (recovered panic)"})
		}
	}()
	var raw arrow.RecordBatch
	if s.fr != nil {
		if s.next >= s.fr.NumRecords() {
			s.finish()
			return nil, io.EOF
		}
		raw, err = s.fr.RecordBatchAt(s.next)
		s.next++
		if err != nil {
			return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Detail: fmt.Sprintf("record batch %d is unreadable", s.next), Err: err})
		}
		defer raw.Release()
	} else {
		if !s.sr.Next() {
			if err := s.sr.Err(); err != nil && err != io.EOF {
				return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Detail: "the stream is damaged or truncated", Err: err})
			}
			s.finish()
			return nil, io.EOF
		}
		raw = s.sr.RecordBatch()
	}
	if err := validateRecord(raw); err != nil {
		return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Detail: "record batch fails structural validation"})
	}
	out, err := s.project(raw)
	if err != nil {
		return nil, s.fatal(err)
	}
	return s.screen(out)
}

// validateRecord checks the structure of every column, so that offsets or
// lengths damaged on disk cannot cause out-of-range reads later. Text
// columns are checked for offsets only: invalid UTF-8 is a per-row failure
// (see screen), and arrow-go's full string validation would quote the value.
func validateRecord(rec arrow.RecordBatch) error {
	for _, c := range rec.Columns() {
		if int64(c.Len()) != rec.NumRows() {
			return fmt.Errorf("column length differs from the batch length")
		}
		if err := validateArray(c, 0); err != nil {
			return err
		}
	}
	return nil
}

// validateArray checks one array and, for nested arrays, their children
// (arrow-go's struct arrays validate nothing themselves; list arrays check
// their offsets but not their values).
func validateArray(c arrow.Array, depth int) error {
	if depth > maxNestedDepth {
		return fmt.Errorf("nesting too deep")
	}
	var err error
	switch c := c.(type) {
	case *array.String:
		if err = c.Validate(); err == nil {
			err = monotonic(c.ValueOffsets())
		}
	case *array.LargeString:
		if err = c.Validate(); err == nil {
			err = monotonic(c.ValueOffsets())
		}
	case *array.Struct:
		for i := 0; i < c.NumField(); i++ {
			f := c.Field(i)
			if f.Len() < c.Offset()+c.Len() {
				return fmt.Errorf("struct child shorter than its parent")
			}
			if err := validateArray(f, depth+1); err != nil {
				return err
			}
		}
	case *array.Map:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case *array.List:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case *array.LargeList:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case *array.FixedSizeList:
		if err = c.ValidateFull(); err == nil {
			err = validateArray(c.ListValues(), depth+1)
		}
	case interface{ ValidateFull() error }:
		err = c.ValidateFull()
	}
	return err
}

func monotonic[T int32 | int64](offs []T) error {
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] || offs[i-1] < 0 {
			return fmt.Errorf("offsets are not non-decreasing")
		}
	}
	return nil
}

func (s *ipcSource) finish() {
	s.t.Done = true
	s.t.Expected, s.t.ExpectedKnown = s.t.Returned+s.t.FailedRecords(), true
	checkUnchanged(&s.t, s.f, s.before)
}

func (s *ipcSource) Close() error {
	s.closeReaders()
	return s.closeFile("arrow close")
}
