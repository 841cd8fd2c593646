package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// jsonlSource is the adapter of JSON lines and JSON array files: it reads the records
// (jsonrecords.go), parses each object (jsonparse.go), converts its members to the
// columns' types (inferred by jsoninfer.go or given) and appends them to Arrow builders.
type jsonlSource struct {
	a        Address
	opts     Options
	f        *os.File
	count    *byteCounter // reads of f
	before   fileState
	rd       jsonRecords
	arr      *arrayScanner  // rd of a JSON array (KindJSON); nil for JSON lines
	names    []string       // every known column, in schema declaration order
	index    map[string]int // name → position in names
	cols     []csvCol
	literal  []bool // inferred text columns that also take number and boolean literals
	schema   *arrow.Schema
	rb       *array.RecordBuilder
	cells    []cell
	seen     []bool
	sc       jscratch
	bad      *Failure
	arena    []byte // text values of the current line
	onMember func(key []byte, v *jval) *jsonError
	ev       Evidence
	t        Tracker
	stop     error
}

// BytesRead implements FileProgress.
func (s *jsonlSource) BytesRead() (read, size uint64) { return s.count.n.Load(), uint64(s.before.size) }

func openJSONL(ctx context.Context, a Address, opts Options) (_ Source, err error) {
	op := string(a.Kind) + " open"
	f, st, version, err := openFile(op, a, opts)
	if err != nil {
		return nil, err
	}
	defer CloseOnError(&err, f)
	s := &jsonlSource{a: a, opts: opts, f: f, count: &byteCounter{f: f}, before: st, index: map[string]int{}}
	var types []colType
	mode := "schema=explicit"
	if len(opts.Columns) > 0 {
		for _, c := range opts.Columns {
			t, _ := parseType(c.Type)
			s.index[c.Name] = len(s.names)
			s.names = append(s.names, c.Name)
			types = append(types, t)
		}
	} else {
		mode = "schema=inferred(full-scan)"
		s.names, types, s.literal, err = inferJSON(ctx, a, s.count, st.size, opts)
		if err != nil {
			return nil, err
		}
		for i, n := range s.names {
			s.index[n] = i
		}
	}
	keep, excluded, err := Exclude(op, a.String(), s.names, opts.Exclude)
	if err != nil {
		return nil, err
	}
	var fields []arrow.Field
	s.cols = make([]csvCol, len(s.names))
	for i, n := range s.names {
		s.cols[i] = csvCol{keep: keep[i], typ: types[i], out: len(fields)}
		if keep[i] {
			dt := types[i].arrowType()
			fields = append(fields, arrow.Field{Name: n, Type: dt, Nullable: true, Metadata: fieldMeta(types[i].spell, dt)})
		}
	}
	var bom bool
	if s.rd, bom, err = newRecords(a, s.count, opts.MaxLineBytes); err != nil {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "seek failed", Err: err}
	}
	s.arr, _ = s.rd.(*arrayScanner)
	s.schema = arrow.NewSchema(fields, nil)
	s.rb = array.NewRecordBuilder(opts.Allocator, s.schema)
	s.cells = make([]cell, len(s.names))
	s.seen = make([]bool, len(s.names))
	missing := "missing=fail"
	if opts.MissingAsNull {
		missing = "missing=null"
	}
	choices := []string{mode, missing, "numbers=exact-literal"}
	if bom {
		choices = append(choices, "bom=stripped")
	}
	for i, lit := range s.literal {
		if lit && keep[i] {
			choices = append(choices, "mixed-as-text="+strconv.Quote(s.names[i]))
		}
	}
	s.ev = Evidence{Adapter: a.Kind, Namespace: "file:" + a.Path, Version: version, Consistency: ConsistencyFileRead,
		Choices: choices, Excluded: excluded}
	s.t.MaxDetails = opts.MaxFailureDetails
	return s, nil
}

func (s *jsonlSource) Schema() *arrow.Schema { return s.schema }

func (s *jsonlSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	op := string(s.a.Kind) + " next"
	if err := ctx.Err(); err != nil {
		s.stop = &Error{Code: CodeIncomplete, Op: op, Source: s.a.String(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	rows := 0
	var fatal error
	for rows < s.opts.BatchSize {
		line, tooLong, ok, err := s.rd.next()
		if err != nil {
			fatal = structureFailure(op, s.a, err)
			f := Failure{Code: CodeIO, Detail: "reading stopped: read failed"}
			var se *structureError
			if errors.As(err, &se) {
				f = Failure{Code: se.code, Line: se.line, Detail: "reading stopped: " + se.detail}
			}
			s.t.Fail(f, false)
			s.t.Done, s.t.Fatal, s.stop = true, true, fatal
			break
		}
		if !ok {
			s.t.Done = true
			s.t.Expected, s.t.ExpectedKnown = s.t.Returned+s.t.FailedRecords(), true
			checkUnchanged(&s.t, s.f, s.before)
			break
		}
		if s.parseLine(line, tooLong) {
			rows++
			s.t.Returned++
		}
	}
	if rows == 0 {
		if fatal != nil {
			return nil, fatal
		}
		return nil, io.EOF
	}
	return newBatch(s.rb, rows), nil
}

// failLine counts the current record as failed. An array element's failure names the
// element's 1-based position too: a whole array often sits on one line.
func (s *jsonlSource) failLine(code Code, col, detail string) bool {
	if s.arr != nil {
		detail = "array element " + strconv.FormatUint(s.arr.elements, 10) + ": " + detail
	}
	s.t.Fail(Failure{Code: code, Line: s.rd.where(), Column: col, Detail: detail}, true)
	return false
}

func (s *jsonlSource) parseLine(line []byte, tooLong bool) bool {
	if s.arr != nil {
		switch {
		case tooLong:
			return s.failLine(CodeLimit, "", "longer than MaxLineBytes")
		case len(line) == 0 || line[0] != '{':
			return s.failLine(CodeJSONLine, "", "not a JSON object")
		}
	}
	if tooLong {
		return s.failLine(CodeLimit, "", "line longer than MaxLineBytes")
	}
	if len(bytes.TrimLeft(line, " \t\r")) == 0 {
		return s.failLine(CodeJSONLine, "", "blank line")
	}
	if !utf8.Valid(line) {
		return s.failLine(CodeUTF8, "", "line is not valid UTF-8")
	}
	for i := range s.seen {
		s.seen[i] = false
		s.cells[i] = cell{}
	}
	s.bad = nil
	s.arena = s.arena[:0]
	if s.onMember == nil {
		s.onMember = s.member // one method value, not one closure per line
	}
	e := s.sc.parseObject(line, s.onMember)
	if bad := s.bad; bad != nil {
		return s.failLine(bad.Code, bad.Column, bad.Detail)
	}
	if e != nil {
		return s.failLine(e.code, "", e.detail)
	}
	for i, ok := range s.seen {
		if !ok && s.cols[i].keep {
			if !s.opts.MissingAsNull {
				return s.failLine(CodeMissing, s.names[i], "member absent")
			}
			s.cells[i].null = true
		}
	}
	for i := range s.cols {
		if col := &s.cols[i]; col.keep {
			col.typ.appendCell(s.rb.Field(col.out), &s.cells[i])
		}
	}
	return true
}

var errStopLine = &jsonError{}

// member stages one object member; a failure is kept in s.bad.
func (s *jsonlSource) member(k []byte, v *jval) *jsonError {
	i, ok := s.index[string(k)]
	if !ok {
		s.bad = &Failure{Code: CodeExtra, Column: string(k), Detail: "member not in the schema"}
		return errStopLine
	}
	if s.seen[i] {
		s.bad = &Failure{Code: CodeDuplicate, Column: s.names[i], Detail: "member appears twice"}
		return errStopLine
	}
	s.seen[i] = true
	col := &s.cols[i]
	if !col.keep {
		return nil
	}
	if code, d := s.convert(col, s.literal != nil && s.literal[i], v, &s.cells[i]); code != "" {
		s.bad = &Failure{Code: code, Column: s.names[i], Detail: d}
		return errStopLine
	}
	return nil
}

// convert maps a JSON value to a column type without coercion across JSON
// kinds: numbers feed numeric and decimal columns, strings feed text, bytes,
// decimal and timestamp columns, booleans feed bool columns. A text column inferred
// from strings mixed with other kinds (literal) also takes numbers and booleans, as
// their literals.
func (s *jsonlSource) convert(col *csvCol, literal bool, v *jval, c *cell) (Code, string) {
	t := &col.typ
	if literal && (v.kind == jNumber || v.kind == jBool) {
		lit := v.raw
		if v.kind == jBool {
			lit = falseLiteral
			if v.b {
				lit = trueLiteral
			}
		}
		s.stageText(lit, c)
		return "", ""
	}
	switch v.kind {
	case jNull:
		c.null = true
		return "", ""
	case jNested:
		return CodeUnsupported, "nested object or array"
	case jBool:
		if t.kind != kBool {
			return CodeType, "JSON boolean in a " + t.spell + " column"
		}
		c.b = v.b
		return "", ""
	case jNumber:
		switch t.kind {
		case kInt, kUint:
			if v.frac {
				return CodeType, "fractional number in a " + t.spell + " column"
			}
			return t.parseJSONInteger(v.raw, c)
		case kDecimal:
			return t.parseJSONDecimal(v.raw, c)
		case kNumber:
			if _, _, ok := jsonExponent(v.raw); !ok {
				return CodeType, fmt.Sprintf("exponent beyond ±%d", maxJSONExponent)
			}
			s.stageText(v.raw, c) // validated by the parser: a JSON number literal
			return "", ""
		case kFloat:
		default:
			return CodeType, "JSON number in a " + t.spell + " column"
		}
		return t.parseText(string(v.raw), c)
	case jString:
		switch t.kind {
		case kText:
			s.stageText(v.raw, c)
			return "", ""
		case kHex, kBase64, kDecimal, kTimestamp:
			return t.parseText(string(v.raw), c)
		}
		return CodeType, "JSON string in a " + t.spell + " column"
	}
	return CodeJSONLine, "invalid value"
}

var trueLiteral, falseLiteral = []byte("true"), []byte("false")

// stageText stages text bytes in the line arena: no string per value.
func (s *jsonlSource) stageText(b []byte, c *cell) {
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	c.tb = s.arena[start:len(s.arena):len(s.arena)]
}

func (s *jsonlSource) Evidence() Evidence { return s.t.Evidence(s.ev) }

func (s *jsonlSource) Close() error {
	if s.rb != nil {
		s.rb.Release()
		s.rb = nil
	}
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return &Error{Code: CodeIO, Op: string(s.a.Kind) + " close", Source: s.a.String(), Err: err}
	}
	return nil
}
