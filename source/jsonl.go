package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// JSON value kinds of a flat object member.
const (
	jString = iota + 1
	jNumber // literal kept in raw; frac reports a fraction or exponent
	jBool
	jNull
	jNested
)

type jval struct {
	kind int
	raw  []byte // jString: decoded bytes; jNumber: the literal
	frac bool
	b    bool
}

type jsonError struct {
	code   Code
	detail string
}

// lineScanner yields lines of at most max bytes; longer lines are skipped
// (reported with tooLong) without being buffered whole.
type lineScanner struct {
	br   *bufio.Reader
	max  int
	buf  []byte
	line uint64
}

// next returns the next line without its terminator. ok=false at EOF.
func (l *lineScanner) next() (line []byte, tooLong bool, ok bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, e := l.br.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+2 { // +2: the terminator
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e == io.EOF {
			if len(l.buf) == 0 && !tooLong && len(chunk) == 0 {
				return nil, false, false, nil
			}
		} else if e != nil {
			return nil, false, false, e
		}
		l.line++
		b := l.buf
		if n := len(b); n > 0 && b[n-1] == '\n' {
			b = b[:n-1]
		}
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		if !tooLong && len(b) > l.max {
			tooLong = true
		}
		return b, tooLong, true, nil
	}
}

// parseObject parses one flat JSON object (RFC 8259), calling member for
// each key/value in order. Nested objects and arrays are skipped and
// reported as jNested.
func parseObject(b []byte, member func(key []byte, v *jval) *jsonError) *jsonError {
	var sc jscratch
	return sc.parseObject(b, member)
}

// jscratch holds buffers reused across lines.
type jscratch struct {
	key, sbuf []byte
	v         jval
}

func (sc *jscratch) parseObject(b []byte, member func(key []byte, v *jval) *jsonError) *jsonError {
	p := jparser{b: b}
	p.ws()
	if !p.eat('{') {
		return &jsonError{CodeJSONLine, "line is not a JSON object"}
	}
	p.ws()
	if p.eat('}') {
		p.ws()
		if p.i != len(p.b) {
			return &jsonError{CodeJSONLine, "text after the JSON object"}
		}
		return nil
	}
	key, sbuf, v := sc.key, sc.sbuf, &sc.v
	defer func() { sc.key, sc.sbuf = key, sbuf }()
	for {
		p.ws()
		if p.peek() != '"' {
			return &jsonError{CodeJSONLine, "expected a member name"}
		}
		k, e := p.str(key[:0])
		if e != nil {
			return e
		}
		key = k
		p.ws()
		if !p.eat(':') {
			return &jsonError{CodeJSONLine, "expected ':'"}
		}
		p.ws()
		if e := p.value(v, sbuf[:0]); e != nil {
			return e
		}
		if v.kind == jString {
			sbuf = v.raw
		}
		if e := member(key, v); e != nil {
			return e
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			break
		}
		return &jsonError{CodeJSONLine, "expected ',' or '}'"}
	}
	p.ws()
	if p.i != len(p.b) {
		return &jsonError{CodeJSONLine, "text after the JSON object"}
	}
	return nil
}

type jparser struct {
	b []byte
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jparser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jparser) lit(s string) bool {
	if bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		p.i += len(s)
		return true
	}
	return false
}

func (p *jparser) value(v *jval, sbuf []byte) *jsonError {
	*v = jval{}
	switch c := p.peek(); {
	case c == '"':
		s, e := p.str(sbuf)
		v.kind, v.raw = jString, s
		return e
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(v)
	case c == 't' && p.lit("true"):
		v.kind, v.b = jBool, true
	case c == 'f' && p.lit("false"):
		v.kind = jBool
	case c == 'n' && p.lit("null"):
		v.kind = jNull
	case c == '{' || c == '[':
		v.kind = jNested
		return p.skipNested()
	default:
		return &jsonError{CodeJSONLine, "invalid JSON value"}
	}
	return nil
}

var errBadNumber = &jsonError{CodeJSONLine, "invalid JSON number"}

// number validates the RFC 8259 number grammar and keeps the literal.
func (p *jparser) number(v *jval) *jsonError {
	start := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.peek() >= '1' && p.peek() <= '9':
		for p.peek() >= '0' && p.peek() <= '9' {
			p.i++
		}
	default:
		return errBadNumber
	}
	if p.eat('.') {
		v.frac = true
		if !(p.peek() >= '0' && p.peek() <= '9') {
			return errBadNumber
		}
		for p.peek() >= '0' && p.peek() <= '9' {
			p.i++
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		v.frac = true
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if !(p.peek() >= '0' && p.peek() <= '9') {
			return errBadNumber
		}
		for p.peek() >= '0' && p.peek() <= '9' {
			p.i++
		}
	}
	v.kind, v.raw = jNumber, p.b[start:p.i]
	return nil
}

// str decodes a JSON string into dst. Lone surrogate escapes are errors,
// never replaced by U+FFFD.
func (p *jparser) str(dst []byte) ([]byte, *jsonError) {
	p.i++ // opening quote
	for {
		if p.i >= len(p.b) {
			return dst, &jsonError{CodeJSONLine, "unterminated string"}
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return dst, nil
		case c < 0x20:
			return dst, &jsonError{CodeJSONLine, "control character in string"}
		case c != '\\':
			j := p.i
			for j < len(p.b) && p.b[j] != '"' && p.b[j] != '\\' && p.b[j] >= 0x20 {
				j++
			}
			dst = append(dst, p.b[p.i:j]...)
			p.i = j
			continue
		}
		p.i++
		if p.i >= len(p.b) {
			return dst, &jsonError{CodeJSONLine, "unterminated string"}
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return dst, &jsonError{CodeJSONLine, "invalid \\u escape"}
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || !p.lit("\\u") {
					return dst, &jsonError{CodeUTF8, "lone surrogate escape in string"}
				}
				r2, ok := p.hex4()
				if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return dst, &jsonError{CodeUTF8, "lone surrogate escape in string"}
				}
				r = utf16.DecodeRune(r, r2)
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, &jsonError{CodeJSONLine, "invalid escape in string"}
		}
	}
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// skipNested skips a nested object or array, tracking strings so that
// brackets inside them do not count. Depth is bounded by the line length.
func (p *jparser) skipNested() *jsonError {
	depth := 0
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch c {
		case '"':
			if _, e := p.str(nil); e != nil {
				return e
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		}
		p.i++
	}
	return &jsonError{CodeJSONLine, "unterminated nested value"}
}

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

// newRecords rewinds c's file and returns its records: lines, or the elements of the
// top-level array of a KindJSON file.
func newRecords(a Address, c *byteCounter, max int) (jsonRecords, error) {
	if err := c.rewind(); err != nil {
		return nil, err
	}
	if a.Kind == KindJSON {
		return newArrayScanner(c, max), nil
	}
	return &lineScanner{br: bufio.NewReaderSize(c, 1<<16), max: max}, nil
}

// structureFailure turns a record reader's error into the error of op: a broken JSON
// array keeps its code and line, anything else is an I/O error.
func structureFailure(op string, a Address, err error) *Error {
	var se *structureError
	if errors.As(err, &se) {
		return &Error{Code: se.code, Op: op, Source: a.String(), Detail: se.Error()}
	}
	return &Error{Code: CodeIO, Op: op, Source: a.String(), Detail: "read failed", Err: err}
}

// BytesRead implements FileProgress.
func (s *jsonlSource) BytesRead() (read, size uint64) { return s.count.n.Load(), uint64(s.before.size) }

func openJSONL(ctx context.Context, a Address, opts Options) (_ Source, err error) {
	op := string(a.Kind) + " open"
	f, st, version, err := openFile(op, a, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
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
	if s.rd, err = newRecords(a, s.count, opts.MaxLineBytes); err != nil {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Detail: "seek failed", Err: err}
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

// jinfer is the inference state of one column.
type jinfer struct {
	str, boolean, num, frac, nested bool
	intFits, uintOnly, expOK        bool // every integer fits int64; every one fits uint64; every exponent is within ±maxJSONExponent
}

// inferJSON reads every record once and types each column (first-appearance order) by
// the rules of doc.go's Type mapping; literal marks the text columns that also take
// numbers and booleans as their literals. Excluded columns are named but not typed, so a
// column that cannot be typed can be excluded. Records that do not parse are skipped
// here; the read counts them as failures. Progress goes to opts.InferProgress.
func inferJSON(ctx context.Context, a Address, c *byteCounter, size int64, opts Options) ([]string, []colType, []bool, error) {
	op := string(a.Kind) + " infer"
	rd, err := newRecords(a, c, opts.MaxLineBytes)
	if err != nil {
		return nil, nil, nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Detail: "seek failed", Err: err}
	}
	excluded := map[string]bool{}
	for _, x := range opts.Exclude {
		excluded[x] = true
	}
	var names []string
	idx := map[string]int{}
	var st []jinfer
	type kv struct {
		k string
		v jval
	}
	var members []kv
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if ctx.Err() != nil {
				return nil, nil, nil, &Error{Code: CodeIncomplete, Op: op, Source: a.String(), Err: ctx.Err()}
			}
			inferProgress(opts, c, size)
		}
		rec, tooLong, ok, err := rd.next()
		if err != nil {
			return nil, nil, nil, structureFailure(op, a, err)
		}
		if !ok {
			inferProgress(opts, c, size)
			break
		}
		if tooLong || !utf8.Valid(rec) {
			continue
		}
		// Collect into a scratch list first so a malformed record adds nothing.
		members = members[:0]
		if e := parseObject(rec, func(k []byte, v *jval) *jsonError {
			members = append(members, kv{string(k), *v})
			return nil
		}); e != nil {
			continue
		}
		for _, m := range members {
			i, ok := idx[m.k]
			if !ok {
				i = len(names)
				idx[m.k] = i
				names = append(names, m.k)
				st = append(st, jinfer{intFits: true, uintOnly: true, expOK: true})
			}
			if !excluded[m.k] {
				st[i].add(&m.v)
			}
		}
	}
	for _, x := range opts.Exclude {
		if _, ok := idx[x]; !ok { // before a type failure that excluding x would not cure
			return nil, nil, nil, &Error{Code: CodeNotFound, Op: op, Source: a.String(), Detail: fmt.Sprintf("excluded column %q does not exist", x)}
		}
	}
	types := make([]colType, len(names))
	literal := make([]bool, len(names))
	for i, s := range st {
		typ, lit, code, why := s.result()
		if excluded[names[i]] {
			typ, lit, code = textType, false, ""
		}
		if code != "" {
			return nil, nil, nil, &Error{Code: code, Op: op, Source: a.String(),
				Detail: fmt.Sprintf("column %q: %s; give an explicit schema or exclude it", names[i], why)}
		}
		types[i], literal[i] = typ, lit
	}
	return names, types, literal, nil
}

// add folds one value into the column's state.
func (s *jinfer) add(v *jval) {
	switch v.kind {
	case jString:
		s.str = true
	case jBool:
		s.boolean = true
	case jNested:
		s.nested = true
	case jNumber:
		s.num = true
		if v.frac {
			s.frac = true
		} else {
			lit := string(v.raw)
			if _, err := strconv.ParseInt(lit, 10, 64); err != nil {
				s.intFits = false
			}
			if _, err := strconv.ParseUint(lit, 10, 64); err != nil {
				s.uintOnly = false
			}
		}
		if _, _, ok := jsonExponent(v.raw); !ok {
			s.expOK = false
		}
	}
}

var (
	textType, _   = parseType("text")
	boolType, _   = parseType("bool")
	int64Type, _  = parseType("int64")
	uint64Type, _ = parseType("uint64")
)

// result is the column's type and whether it takes literals as text, or the code and
// reason why it has none.
func (s *jinfer) result() (typ colType, literal bool, code Code, why string) {
	switch {
	case s.nested:
		return typ, false, CodeUnsupported, "nested objects or arrays"
	case s.str:
		return textType, s.num || s.boolean, "", ""
	case s.boolean && s.num:
		return typ, false, CodeType, "both booleans and numbers"
	case s.boolean:
		return boolType, false, "", ""
	case !s.num:
		return textType, false, "", "" // only nulls
	case !s.frac && s.intFits:
		return int64Type, false, "", ""
	case !s.frac && s.uintOnly:
		return uint64Type, false, "", ""
	case !s.expOK:
		return typ, false, CodeType, fmt.Sprintf("a number's exponent is beyond ±%d", maxJSONExponent)
	}
	return numberType, false, "", ""
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
		s.stop = &Error{Code: CodeIncomplete, Op: op, Source: s.a.String(), Detail: "cancelled", Err: err}
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

// parseJSONInteger parses a JSON integer literal (grammar already checked:
// optional '-', digits without leading zeros) into an integer column
// without converting it to a string.
func (t *colType) parseJSONInteger(b []byte, c *cell) (Code, string) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var u uint64
	for _, d := range b {
		if u > (math.MaxUint64-uint64(d-'0'))/10 {
			return CodeType, "out of range for " + t.spell
		}
		u = u*10 + uint64(d-'0')
	}
	if t.kind == kUint {
		if neg { // as in text: an unsigned column takes no sign, not even -0
			return CodeType, "not a base-10 " + t.spell
		}
		if t.bits < 64 && u > 1<<t.bits-1 {
			return CodeType, "out of range for " + t.spell
		}
		c.u = u
		return "", ""
	}
	limit := uint64(1) << (t.bits - 1) // |min|; max is limit-1
	if (!neg && u >= limit) || (neg && u > limit) {
		return CodeType, "out of range for " + t.spell
	}
	if neg {
		c.i = int64(-u) // two's complement: exact for u == limit too
	} else {
		c.i = int64(u)
	}
	return "", ""
}

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
