package source

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// errLineLimit stops a read at a record longer than Options.MaxLineBytes
// (see csvParser).
var errLineLimit = errors.New("line longer than MaxLineBytes")

type csvSource struct {
	a       Address
	opts    Options
	f       *os.File
	count   *byteCounter // reads of f
	before  fileState
	p       *csvParser
	header  []string
	cols    []csvCol // one per header column; the builders are conv's
	schema  *arrow.Schema
	conv    *csvConv // the serial path's converter (nil once closed)
	ev      Evidence
	t       Tracker
	stopErr error
	closed  bool

	// workers > 0 reads through the parallel pipeline of csv_parallel.go
	// with that many converting goroutines, started by the first Next; 0
	// reads serially on the caller's goroutine. openCSV chooses (see
	// csvWorkers); tests set it before the first Next.
	workers int
	pipe    *csvPipe
}

// csvConv converts split records into Arrow rows: one per goroutine that
// converts, each with its own builders and staging cells.
type csvConv struct {
	header []string
	null   *string
	cols   []csvCol
	cells  []cell
	rb     *array.RecordBuilder
	rec    [][]byte // scratch: a record of a raw batch (csv_parallel.go)
	// utf8OK: every cell passed to record is valid UTF-8, checked for a whole raw
	// batch at once (csv_parallel.go); record then skips the cell by cell check.
	utf8OK bool
}

type csvCol struct {
	keep bool
	out  int // index in the output schema
	typ  colType
	b    array.Builder // the converter's rb.Field(out); nil in csvSource.cols
	// The builder again, typed, for the common column types (nil otherwise):
	// appends without an interface dispatch and type switch per cell.
	i64 *array.Int64Builder
	f64 *array.Float64Builder
	str *array.StringBuilder
	ts  *array.TimestampBuilder
	// strBytes and strRows are the string bytes and rows of the batch converted last:
	// the next batch's data buffer is reserved at that rate (reserve).
	strBytes, strRows int
}

// newCSVReader positions a csvParser at the start of the file c counts the reads
// of, skipping a UTF-8 byte order mark.
func newCSVReader(c *byteCounter, maxLine int) (*csvParser, bool, error) {
	if err := c.rewind(); err != nil {
		return nil, false, err
	}
	return newCSVParser(c, maxLine, min(csvBufSize, maxLine)+1)
}

// BytesRead implements FileProgress.
func (s *csvSource) BytesRead() (read, size uint64) { return s.count.n.Load(), uint64(s.before.size) }

func openCSV(ctx context.Context, a Address, opts Options) (_ Source, err error) {
	const op = "csv open"
	f, st, version, err := openFile(op, a, opts)
	if err != nil {
		return nil, err
	}
	s := &csvSource{a: a, opts: opts, f: f, count: &byteCounter{f: f}, before: st}
	defer CloseOnError(&err, f)
	r, bom, err := newCSVReader(s.count, opts.MaxLineBytes)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "seek failed", Err: err}
	}
	hrec, _, err := r.read()
	if err == io.EOF {
		return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: "empty file: a header line is required"}
	}
	if err != nil {
		return nil, csvFatal(op, a, err)
	}
	header := make([]string, len(hrec))
	for i, h := range hrec {
		header[i] = string(h)
	}
	seen := map[string]bool{}
	for i, h := range header {
		if !utf8.ValidString(h) {
			return nil, &Error{Code: CodeUTF8, Op: op, Source: a.String(), Msg: fmt.Sprintf("header column %d is not valid UTF-8", i+1)}
		}
		if h == "" {
			return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: fmt.Sprintf("header column %d is empty", i+1)}
		}
		if seen[h] {
			return nil, &Error{Code: CodeDuplicate, Op: op, Source: a.String(), Msg: fmt.Sprintf("header names column %q twice", h)}
		}
		seen[h] = true
	}
	keep, excluded, err := Exclude(op, a.String(), header, opts.Exclude)
	if err != nil {
		return nil, err
	}
	s.header = header
	s.cols = make([]csvCol, len(header))
	text, _ := parseType("text")
	mode := "schema=text"
	switch {
	case len(opts.Columns) > 0:
		mode = "schema=explicit"
		byName := map[string]colType{}
		for _, c := range opts.Columns {
			if !seen[c.Name] {
				return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: fmt.Sprintf("schema column %q is not in the header", c.Name)}
			}
			byName[c.Name], _ = parseType(c.Type)
		}
		for i, h := range header {
			t, ok := byName[h]
			if !ok && keep[i] {
				return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: fmt.Sprintf("header column %q has no type in the schema", h)}
			}
			s.cols[i].typ = t
		}
	case opts.Infer:
		mode = "schema=inferred(full-scan)"
		types, err := inferCSV(ctx, a, s.count, st.size, opts, len(header), keep)
		if err != nil {
			return nil, err
		}
		for i := range s.cols {
			s.cols[i].typ = types[i]
		}
		if r, _, err = newCSVReader(s.count, opts.MaxLineBytes); err != nil {
			return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "seek failed", Err: err}
		}
		if _, _, err := r.read(); err != nil {
			return nil, csvFatal(op, a, err)
		}
	default:
		for i := range s.cols {
			s.cols[i].typ = text
		}
	}
	var fields []arrow.Field
	for i, h := range header {
		s.cols[i].keep = keep[i]
		if !keep[i] {
			continue
		}
		s.cols[i].out = len(fields)
		dt := s.cols[i].typ.arrowType()
		fields = append(fields, arrow.Field{Name: h, Type: dt, Nullable: opts.Null != nil, Metadata: fieldMeta(s.cols[i].typ.spell, dt)})
	}
	s.p = r
	s.schema = arrow.NewSchema(fields, nil)
	s.conv = s.newConv()
	s.workers = csvWorkers(st.size, opts.BatchSize)
	choices := []string{mode, nullChoice(opts.Null), "header=required", "delimiter=,"}
	if bom {
		choices = append(choices, "bom=stripped")
	}
	s.ev = Evidence{Adapter: KindCSV, Namespace: "file:" + a.Path, Version: version, Consistency: ConsistencyFileRead, Choices: choices, Excluded: excluded}
	s.t.MaxDetails = opts.MaxFailureDetails
	return s, nil
}

func csvFatal(op string, a Address, err error) error {
	if errors.Is(err, errLineLimit) {
		return &Error{Code: CodeLimit, Op: op, Source: a.String(), Msg: "a line is longer than MaxLineBytes"}
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{Code: CodeCSVRow, Op: op, Source: a.String(), Msg: fmt.Sprintf("line %d: %v", pe.StartLine, pe.Err)}
	}
	return &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "read failed", Err: err}
}

// inferCSV reads every data record once and picks, per column, the first of
// int64, uint64, bool that every non-null cell parses as and renders back to
// exactly (roundTrips), else text; a column without any non-null cell is text.
// Malformed records are ignored here; the reading pass counts them.
func inferCSV(ctx context.Context, a Address, c *byteCounter, size int64, opts Options, n int, keep []bool) ([]colType, error) {
	r, _, err := newCSVReader(c, opts.MaxLineBytes)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "csv infer", Source: a.String(), Msg: "seek failed", Err: err}
	}
	r.fieldsPerRecord = n
	if _, _, err := r.read(); err != nil {
		return nil, csvFatal("csv infer", a, err)
	}
	cands := []colType{}
	for _, s := range []string{"int64", "uint64", "bool", "text"} {
		t, _ := parseType(s)
		cands = append(cands, t)
	}
	state := make([]int, n) // index into cands
	seen := make([]bool, n) // a non-null cell was seen
	// A candidate taken after a cell failed the earlier ones must still hold every cell
	// accepted before: uint64 holds the int64 cells only when none was negative, and
	// bool holds no integer cell, so only a column's first cell may reach it.
	neg := make([]bool, n) // a negative cell was accepted as int64
	advance := func(i int, first bool) {
		for state[i]++; state[i] < len(cands)-1; state[i]++ {
			switch cands[state[i]].kind {
			case kUint:
				if !neg[i] {
					return
				}
			case kBool:
				if first {
					return
				}
			default:
				return
			}
		}
	}
	var scratch cell
	for rows := 0; ; rows++ {
		if rows%4096 == 0 {
			if ctx.Err() != nil {
				return nil, &Error{Code: CodeIncomplete, Op: "csv infer", Source: a.String(), Err: ctx.Err()}
			}
			inferProgress(opts, c, size)
		}
		rec, _, err := r.read()
		if err == io.EOF {
			inferProgress(opts, c, size)
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				continue
			}
			return nil, csvFatal("csv infer", a, err)
		}
		for i, v := range rec {
			if !keep[i] || (opts.Null != nil && string(v) == *opts.Null) || !utf8.Valid(v) {
				continue
			}
			first := !seen[i]
			seen[i] = true
			for state[i] < len(cands)-1 {
				t := &cands[state[i]]
				if code, _ := t.parseCell(v, &scratch); code == "" && roundTrips(t, v, &scratch) {
					neg[i] = neg[i] || t.kind == kInt && scratch.i < 0
					break
				}
				advance(i, first)
			}
		}
	}
	out := make([]colType, n)
	for i := range out {
		out[i] = cands[state[i]]
		if !seen[i] {
			out[i] = cands[len(cands)-1] // no evidence for any type: text
		}
	}
	return out, nil
}

// roundTrips reports whether the value c that t parsed from cell v renders back
// as exactly v: an inferred type must keep every cell's text, so "00501", "+5"
// and "-0" keep a column text (as int64 they would read 501, 5 and 0). Only the
// kinds inference tries are checked; bool parses "true" and "false" only, which
// round-trip.
func roundTrips(t *colType, v []byte, c *cell) bool {
	var buf [24]byte
	switch t.kind {
	case kInt:
		return string(strconv.AppendInt(buf[:0], c.i, 10)) == string(v)
	case kUint:
		return string(strconv.AppendUint(buf[:0], c.u, 10)) == string(v)
	}
	return true
}

// newConv returns a converter with builders of its own for s's columns.
func (s *csvSource) newConv() *csvConv {
	c := &csvConv{
		header: s.header,
		null:   s.opts.Null,
		cols:   make([]csvCol, len(s.cols)),
		cells:  make([]cell, len(s.cols)),
		rb:     array.NewRecordBuilder(s.opts.Allocator, s.schema),
	}
	for i := range s.cols {
		col := &c.cols[i]
		col.keep, col.out, col.typ = s.cols[i].keep, s.cols[i].out, s.cols[i].typ
		if !col.keep {
			continue
		}
		col.b = c.rb.Field(col.out)
		switch b := col.b.(type) {
		case *array.Int64Builder:
			col.i64 = b
		case *array.Float64Builder:
			col.f64 = b
		case *array.StringBuilder:
			col.str = b
		case *array.TimestampBuilder:
			col.ts = b
		}
	}
	return c
}

// reserve makes room for rows more rows in every column up front: no
// regrowth of the value buffers while appending; a string column's data buffer
// is reserved at the previous batch's bytes a row and an eighth more, since
// growing it by doubling copies and zeroes it again and again (a fifth of
// the CPU of a keyed 'pipewhy compare' of two 1 M-row CSV files,
// docs/performance.md).
func (c *csvConv) reserve(rows int) {
	for i := range c.cols {
		col := &c.cols[i]
		if !col.keep {
			continue
		}
		col.b.Reserve(rows)
		if col.str != nil && col.strRows > 0 {
			n := col.strBytes / col.strRows * rows
			col.str.ReserveData(n + n/8)
		}
	}
}

// learn records the string bytes of the batch about to be built (rows rows),
// for reserve.
func (c *csvConv) learn(rows int) {
	for i := range c.cols {
		if col := &c.cols[i]; col.str != nil && rows > 0 {
			col.strBytes, col.strRows = col.str.DataLen(), rows
		}
	}
}

func (s *csvSource) Schema() *arrow.Schema { return s.schema }

func (s *csvSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, &Error{Code: CodeIO, Op: "csv next", Source: s.a.String(), Msg: "source is closed"}
	}
	if s.stopErr != nil {
		return nil, s.stopErr
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, s.cancelled(err)
	}
	if s.workers > 0 {
		return s.nextParallel(ctx)
	}
	s.conv.reserve(min(s.opts.BatchSize, csvReserveRows))
	rows := 0
	for rows < s.opts.BatchSize {
		rec, line, err := s.p.read()
		if err == io.EOF {
			s.finish()
			break
		}
		if err != nil {
			f, stop := s.readFailure(rec, err)
			if stop == nil {
				s.t.Fail(f, true)
				continue
			}
			s.fatal(f, stop)
			break
		}
		if f, ok := s.conv.record(rec, line); ok {
			rows++
			s.t.Returned++
		} else {
			s.t.Fail(f, true)
		}
	}
	if rows == 0 {
		if s.stopErr != nil {
			return nil, s.stopErr
		}
		return nil, io.EOF
	}
	return newBatch(s.conv.rb, rows), nil
}

// cancelled stops the read for good on a cancelled context.
func (s *csvSource) cancelled(err error) error {
	s.stopPipe()
	s.stopErr = &Error{Code: CodeIncomplete, Op: "csv next", Source: s.a.String(), Msg: "cancelled", Err: err}
	return s.stopErr
}

// readFailure classifies an error of csvParser.read: a malformed record
// (stop is nil: the record is counted as failed and reading goes on), or an
// error that stops the read, with the failure recorded for it.
func (s *csvSource) readFailure(rec [][]byte, err error) (f Failure, stop error) {
	var pe *csv.ParseError
	if errors.As(err, &pe) && !errors.Is(err, errLineLimit) {
		detail := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			detail = fmt.Sprintf("record has %d fields, header has %d", len(rec), len(s.header))
		}
		return Failure{Code: CodeCSVRow, Line: uint64(pe.StartLine), Detail: detail}, nil
	}
	return Failure{Code: CodeOf(csvFatal("", s.a, err)), Detail: "reading stopped: " + csvFatal("", s.a, err).(*Error).Msg},
		csvFatal("csv next", s.a, err)
}

// fatal records the failure of an error that stopped the read.
func (s *csvSource) fatal(f Failure, stop error) {
	s.t.Fail(f, false)
	s.t.Done, s.t.Fatal = true, true
	s.stopErr = stop
}

// record stages every cell of rec and appends the record only if all
// parse; otherwise it returns the failure of the first cell that does not.
// The cells alias the caller's buffer: they are appended (copied) before
// record returns.
func (c *csvConv) record(rec [][]byte, line int) (Failure, bool) {
	for i, v := range rec {
		col := &c.cols[i]
		if !col.keep {
			continue
		}
		cl := &c.cells[i]
		// Only null needs resetting: parseCell sets the field of the column's
		// kind, which is the only one appendCSVCell reads.
		cl.null = false
		if !c.utf8OK && !utf8.Valid(v) {
			return Failure{Code: CodeUTF8, Line: uint64(line), Column: c.header[i], Detail: "cell is not valid UTF-8"}, false
		}
		if c.null != nil && string(v) == *c.null {
			cl.null = true
			continue
		}
		if col.str != nil {
			continue // text: appended from rec itself, nothing to stage
		}
		if code, detail := col.typ.parseCell(v, cl); code != "" {
			return Failure{Code: code, Line: uint64(line), Column: c.header[i], Detail: detail}, false
		}
	}
	for i := range rec {
		if col := &c.cols[i]; col.keep {
			appendCSVCell(col, &c.cells[i], rec[i])
		}
	}
	return Failure{}, true
}

// csvReserveRows bounds the rows reserved per batch, so that a large
// BatchSize over a small file does not allocate for rows that never come.
const csvReserveRows = 1 << 14

// appendCSVCell is colType.appendCell through the column's typed builder
// when it has one; a text cell is appended from its bytes v (valid UTF-8,
// checked by csvConv.record), so that staging stores no pointer per cell.
func appendCSVCell(col *csvCol, c *cell, v []byte) {
	switch {
	case c.null:
		col.b.AppendNull()
	case col.i64 != nil:
		col.i64.Append(c.i)
	case col.f64 != nil:
		col.f64.Append(c.f)
	case col.str != nil:
		col.str.BinaryBuilder.Append(v)
	case col.ts != nil:
		col.ts.Append(arrow.Timestamp(c.i))
	default:
		col.typ.appendCell(col.b, c)
	}
}

func (s *csvSource) finish() {
	s.t.Done = true
	s.t.Expected = s.t.Returned + s.t.FailedRecords()
	s.t.ExpectedKnown = true
	checkUnchanged(&s.t, s.f, s.before)
}

func (s *csvSource) Evidence() Evidence { return s.t.Evidence(s.ev) }

func (s *csvSource) Close() error {
	s.closed = true
	s.stopPipe()
	if s.conv != nil {
		s.conv.rb.Release()
		s.conv = nil
	}
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return &Error{Code: CodeIO, Op: "csv close", Source: s.a.String(), Err: err}
	}
	return nil
}
