package source

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
	cols    []csvCol // one per header column
	schema  *arrow.Schema
	conv    *csvConv // the serial path's converter (nil once closed)
	mem     *csvMem  // the converters' buffers
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

type csvCol struct {
	keep bool
	out  int // index in the output schema
	typ  colType
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
	s.workers = csvWorkers(st.size, opts.BatchSize)
	s.mem = newCSVMem(opts.Allocator, csvIdleBuffers(s.workers, s.cols))
	s.conv = s.newConv()
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
	one := &s.conv.one
	for rows < s.opts.BatchSize {
		line, err := s.p.next()
		if err == io.EOF {
			s.finish()
			break
		}
		if err != nil {
			var rec [][]byte
			if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
				rec = s.p.record() // the fields as far as parsed
			}
			f, stop := s.readFailure(rec, err)
			if stop == nil {
				s.t.Fail(f, true)
				continue
			}
			s.fatal(f, stop)
			break
		}
		one.reset()
		one.add(line, s.p)
		if f, ok := s.conv.record(one.buf, one.ends, 0, line); ok {
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
	return s.conv.batch(), nil
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
		s.conv.release()
		s.conv = nil
	}
	s.mem.close()
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

// csvConv converts split records into Arrow rows: one per goroutine that
// converts. The common column types (int64, float64, timestamp, text) are
// written straight into Arrow buffers of its own (csvBuf), which become the
// batch's arrays without a copy; the others go through an Arrow builder.
type csvConv struct {
	header []string
	null   *string
	schema *arrow.Schema
	mem    *csvMem
	cols   []csvBuf // one per header column
	cells  []cell   // staging of the builder columns
	build  []int    // the indexes of the builder columns, in order
	text   []int    // the indexes of the text columns, in order
	rows   int      // rows of the batch being built
	cap    int      // rows the fixed-width buffers hold (0: none yet)
	one    csvRaw   // the serial read's record, in the layout of a raw batch
	// utf8OK: every cell passed to record is valid UTF-8, checked for a whole raw
	// batch at once (csv_parallel.go); record then skips the cell by cell check.
	utf8OK bool
}

// csvWrite is how a column is built.
type csvWrite uint8

const (
	csvSkip    csvWrite = iota // not kept
	csvBuilder                 // an Arrow builder (the rarer types)
	csvInt64                   // int64 into vals
	csvFloat64                 // float64 into vals
	csvTime                    // timestamp (any unit, zone or none) into vals
	csvText                    // text: offsets into vals, bytes into data
)

// csvBuf is one column of a converter. Every row of the batch writes its slot
// of vals (and its validity bit once valid exists), so that a record that
// fails after some of its cells were written leaves nothing behind: the next
// record overwrites the slot (see fail).
type csvBuf struct {
	typ   colType
	out   int
	write csvWrite
	b     array.Builder // csvBuilder only
	vals  []byte        // csvInt64, csvFloat64, csvTime: 8 bytes a row; csvText: offsets, 4 bytes a row plus one
	i64   []int64       // vals as int64 (csvInt64, csvTime)
	f64   []float64     // vals as float64 (csvFloat64)
	off   []int32       // vals as offsets (csvText)
	data  []byte        // csvText: the text bytes, data[:off[rows]] used
	// valid is the validity bitmap, nil until the batch's first null (a batch
	// without nulls has none).
	valid []byte
	day   csvDay // csvTime: the date parsed last
	// strBytes and strRows are the text bytes and rows of the batch converted last:
	// the next batch's data buffer is reserved at that rate (reserve).
	strBytes, strRows int
}

// newConv returns a converter with buffers and builders of its own for s's
// columns, allocating from s.mem.
func (s *csvSource) newConv() *csvConv {
	c := &csvConv{
		header: s.header,
		null:   s.opts.Null,
		schema: s.schema,
		mem:    s.mem,
		cols:   make([]csvBuf, len(s.cols)),
		cells:  make([]cell, len(s.cols)),
	}
	for i := range s.cols {
		col := &c.cols[i]
		col.typ, col.out = s.cols[i].typ, s.cols[i].out
		if !s.cols[i].keep {
			continue
		}
		t := &col.typ
		switch {
		case t.kind == kInt && t.bits == 64:
			col.write = csvInt64
		case t.kind == kFloat && t.bits == 64:
			col.write = csvFloat64
		case t.kind == kTimestamp:
			col.write = csvTime
		case t.kind == kText:
			col.write = csvText
			c.text = append(c.text, i)
		default:
			col.write = csvBuilder
			col.b = array.NewBuilder(s.opts.Allocator, t.arrowType())
			c.build = append(c.build, i)
		}
	}
	return c
}

// reserve makes room for rows rows in every column up front; a text column's
// data buffer is reserved at the previous batch's bytes a row and an eighth
// more. Buffers grow (grow, text) when a batch turns out larger.
func (c *csvConv) reserve(rows int) {
	rows = max(rows, 1)
	if c.cap < rows {
		c.grow(rows)
	}
	for _, i := range c.build {
		c.cols[i].b.Reserve(rows)
	}
	for _, i := range c.text {
		col := &c.cols[i]
		if col.data == nil && col.strRows > 0 {
			n := col.strBytes * rows / col.strRows // no rounding down of the bytes a row
			col.data = c.mem.get(n + n/8)
		}
	}
}

// grow makes the fixed-width buffers (and bitmaps) hold rows rows, keeping
// the rows written so far.
func (c *csvConv) grow(rows int) {
	for i := range c.cols {
		col := &c.cols[i]
		switch col.write {
		case csvSkip, csvBuilder:
			continue
		case csvText:
			col.vals = c.mem.regrow(col.vals, 4*(rows+1), 4*(c.rows+1))
			col.off = arrow.Int32Traits.CastFromBytes(col.vals)
			if c.rows == 0 {
				col.off[0] = 0
			}
		default:
			col.vals = c.mem.regrow(col.vals, 8*rows, 8*c.rows)
			col.i64 = arrow.Int64Traits.CastFromBytes(col.vals)
			col.f64 = arrow.Float64Traits.CastFromBytes(col.vals)
		}
		if col.valid != nil {
			col.valid = c.mem.regrow(col.valid, int(bitutil.BytesForBits(int64(rows))), int(bitutil.BytesForBits(int64(c.rows))))
		}
	}
	c.cap = rows
}

// setNull marks row r of col null: its value slot is zero (what a fresh
// Arrow builder leaves there), its text empty, its validity bit clear. The
// bitmap is made at the batch's first null, every earlier row valid.
func (c *csvConv) setNull(col *csvBuf, r int) {
	if col.valid == nil {
		col.valid = c.mem.get(int(bitutil.BytesForBits(int64(c.cap))))
		bitutil.SetBitsTo(col.valid, 0, int64(r), true)
	}
	bitutil.ClearBit(col.valid, r)
	switch col.write {
	case csvText:
		col.off[r+1] = col.off[r]
	case csvBuilder:
	default:
		col.i64[r] = 0
	}
}

// record converts the cells of one record, buf[start:ends[0]] and then each
// up to the next end one byte after the previous one (a raw batch's layout),
// into the next row and keeps the row only if all parse; otherwise it returns
// the failure of the first cell that does not, in column order. The cells
// alias buf: they are copied before record returns.
func (c *csvConv) record(buf []byte, ends []int, start, line int) (Failure, bool) {
	if c.rows == c.cap {
		c.grow(max(2*c.cap, 64))
	}
	r := c.rows
	for i, e := range ends {
		v := buf[start:e:e]
		start = e + 1
		col := &c.cols[i]
		if col.write == csvSkip {
			continue
		}
		if !c.utf8OK && !utf8.Valid(v) {
			return c.fail(line, i, CodeUTF8, "cell is not valid UTF-8")
		}
		if c.null != nil && string(v) == *c.null {
			if col.write == csvBuilder {
				c.cells[i].null = true
			} else {
				c.setNull(col, r)
			}
			continue
		}
		// The fast paths take the common spellings; what they decline goes
		// to the general path, which decides every cell alone.
		fast := true
		switch col.write {
		case csvInt64:
			n, ok, syntax := smallInt(v)
			col.i64[r], fast = n, ok && !syntax
		case csvFloat64:
			col.f64[r], fast = fastFloat(v)
		case csvTime:
			col.i64[r], fast = col.typ.fastTimestampDay(v, &col.day)
		case csvText:
			end := int(col.off[r]) + len(v)
			if end > len(col.data) {
				col.data = c.mem.regrow(col.data, max(2*len(col.data), end, 256), int(col.off[r]))
			}
			copy(col.data[col.off[r]:end], v)
			col.off[r+1] = int32(end)
		case csvBuilder:
			cl := &c.cells[i]
			cl.null = false
			if code, detail := col.typ.parseCell(v, cl); code != "" {
				return c.fail(line, i, code, detail)
			}
			continue // no validity bit: the builder keeps its own
		}
		if !fast {
			var cl cell
			if code, detail := col.typ.parseCell(v, &cl); code != "" {
				return c.fail(line, i, code, detail)
			}
			if col.write == csvFloat64 {
				col.f64[r] = cl.f
			} else {
				col.i64[r] = cl.i
			}
		}
		if col.valid != nil {
			bitutil.SetBit(col.valid, r)
		}
	}
	for _, i := range c.build {
		c.cols[i].typ.appendCell(c.cols[i].b, &c.cells[i])
	}
	c.rows++
	return Failure{}, true
}

// fail returns the failure of column i's cell. What record wrote of the row
// needs no undoing: the next row overwrites every slot of it, a text
// column's offset included, and its bytes start at the previous row's end.
func (c *csvConv) fail(line, i int, code Code, detail string) (Failure, bool) {
	return Failure{Code: code, Line: uint64(line), Column: c.header[i], Detail: detail}, false
}

// batch hands out the rows converted since the last batch as a record batch
// (nil when there are none); the buffers go with it, and the next rows are
// written into new ones.
func (c *csvConv) batch() arrow.RecordBatch {
	rows := c.rows
	if rows == 0 {
		return nil
	}
	var arrs []arrow.Array
	for i := range c.cols {
		col := &c.cols[i]
		var a arrow.Array
		switch col.write {
		case csvSkip:
			continue
		case csvBuilder:
			a = col.b.NewArray()
		default:
			a = c.array(col, rows)
		}
		arrs = append(arrs, a)
	}
	rec := array.NewRecordBatch(c.schema, arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	c.rows, c.cap = 0, 0
	return rec
}

// array makes the Arrow array of col's rows rows from its buffers.
func (c *csvConv) array(col *csvBuf, rows int) arrow.Array {
	bufs := make([]*memory.Buffer, 2, 3)
	nulls := 0
	if col.valid != nil {
		nulls = rows - bitutil.CountSetBits(col.valid, 0, rows)
		n := int(bitutil.BytesForBits(int64(rows)))
		if rows%8 != 0 {
			// The bits past the last row are zero, as a builder leaves them
			// (the buffer may be a reused one).
			col.valid[n-1] &= byte(1)<<(rows%8) - 1
		}
		bufs[0] = c.mem.buffer(col.valid[:n])
		col.valid = nil
	}
	if col.write == csvText {
		used := int(col.off[rows])
		col.strBytes, col.strRows = used, rows
		bufs[1] = c.mem.buffer(col.vals[:4*(rows+1)])
		if col.data == nil {
			col.data = c.mem.get(64)
		}
		bufs = append(bufs, c.mem.buffer(col.data[:used]))
		col.data, col.off = nil, nil
	} else {
		bufs[1] = c.mem.buffer(col.vals[:8*rows])
		col.i64, col.f64 = nil, nil
	}
	col.vals = nil
	d := array.NewData(c.schema.Field(col.out).Type, rows, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// release returns every buffer and builder of c (Close, the end of a worker).
func (c *csvConv) release() {
	for i := range c.cols {
		col := &c.cols[i]
		if col.b != nil {
			col.b.Release()
			col.b = nil
		}
		for _, b := range [...][]byte{col.vals, col.data, col.valid} {
			if b != nil {
				c.mem.Free(b)
			}
		}
		col.vals, col.data, col.valid, col.i64, col.f64, col.off = nil, nil, nil, nil, nil, nil
	}
	c.rows, c.cap = 0, 0
}

// csvMem allocates the converters' buffers from Options.Allocator and keeps
// the buffers of released batches for reuse: a reused buffer is already
// mapped and warm, where a new one would be faulted in and zeroed (by the Go
// allocator) batch after batch. It is the memory.Allocator of the Arrow
// buffers it hands out, whose Free arrow-go calls when a batch's last
// reference is released, on whatever goroutine. Once closed it keeps
// nothing: every buffer goes back to Options.Allocator, idle ones at close,
// the others when released.
type csvMem struct {
	alloc memory.Allocator
	mu    sync.Mutex
	// owned maps the first byte of every buffer allocated here and not yet
	// returned to alloc to the buffer as alloc returned it (Free may get a
	// shorter slice of it).
	owned   map[*byte][]byte
	idle    [][]byte
	maxIdle int
	closed  bool
}

func newCSVMem(alloc memory.Allocator, maxIdle int) *csvMem {
	return &csvMem{alloc: alloc, owned: map[*byte][]byte{}, maxIdle: maxIdle}
}

// get returns a buffer of at least n bytes (at least 64), of unspecified
// contents: the smallest idle one that fits, if no more than twice as large
// (so that a small request does not take the buffer a larger one needs
// next), else a new one.
func (m *csvMem) get(n int) []byte {
	n = max(n, 64)
	m.mu.Lock()
	best := -1
	for i, b := range m.idle {
		if len(b) >= n && len(b) <= 2*n && (best < 0 || len(b) < len(m.idle[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := m.idle[best]
		last := len(m.idle) - 1
		m.idle[best], m.idle[last] = m.idle[last], nil
		m.idle = m.idle[:last]
		m.mu.Unlock()
		return b
	}
	m.mu.Unlock()
	b := m.alloc.Allocate(n)
	m.mu.Lock()
	m.owned[unsafe.SliceData(b)] = b
	m.mu.Unlock()
	return b
}

// regrow returns a buffer of at least n bytes holding the first keep bytes
// of b, and frees b; b may be nil.
func (m *csvMem) regrow(b []byte, n, keep int) []byte {
	if len(b) >= n {
		return b
	}
	nb := m.get(n)
	if b != nil {
		copy(nb, b[:keep])
		m.Free(b)
	}
	return nb
}

// buffer wraps b, a prefix of a buffer of m, as an Arrow buffer that m frees.
func (m *csvMem) buffer(b []byte) *memory.Buffer { return memory.NewBufferWithAllocator(b, m) }

// Allocate and Reallocate are there for the interface: arrow-go does not
// grow an immutable buffer. Their memory comes from Options.Allocator.
func (m *csvMem) Allocate(size int) []byte { return m.alloc.Allocate(size) }

func (m *csvMem) Reallocate(size int, b []byte) []byte {
	nb := m.Allocate(size)
	copy(nb, b)
	m.Free(b)
	return nb
}

// Free takes back a buffer of m (or a prefix of one): kept for reuse while
// m is open and has room, else returned to Options.Allocator.
func (m *csvMem) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	p := unsafe.SliceData(b)
	m.mu.Lock()
	orig, ok := m.owned[p]
	if ok && !m.closed && len(m.idle) < m.maxIdle {
		m.idle = append(m.idle, orig)
		m.mu.Unlock()
		return
	}
	if ok {
		delete(m.owned, p)
		b = orig
	}
	m.mu.Unlock()
	m.alloc.Free(b)
}

// close returns the idle buffers to Options.Allocator and keeps none later.
func (m *csvMem) close() {
	m.mu.Lock()
	idle := m.idle
	m.idle, m.closed = nil, true
	for _, b := range idle {
		delete(m.owned, unsafe.SliceData(b))
	}
	m.mu.Unlock()
	for _, b := range idle {
		m.alloc.Free(b)
	}
}

// csvReserveRows bounds the rows reserved per batch, so that a large
// BatchSize over a small file does not allocate for rows that never come.
const csvReserveRows = 1 << 14

// csvIdleBuffers is how many released buffers a source keeps for reuse: those
// of one batch per converting goroutine and one more (two for a serial read),
// counting a values buffer, a bitmap and a text column's bytes per column.
func csvIdleBuffers(workers int, cols []csvCol) int {
	per := 0
	for _, c := range cols {
		if c.keep {
			per += 3
		}
	}
	return per * (max(workers, 1) + 1)
}
