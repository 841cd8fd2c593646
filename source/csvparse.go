package source

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"io"
	"math/bits"
)

// csvParser splits CSV records straight out of one large read buffer. Its
// records, errors and line numbers are exactly those of encoding/csv.Reader
// configured as this adapter always configured it (Comma ',', no Comment,
// LazyQuotes false, TrimLeadingSpace false, FieldsPerRecord fixed by the
// first record unless set, ReuseRecord), which FuzzCSVParserDifferential
// checks byte for byte:
//
//   - a physical line ends at '\n'; every "\r\n" reads as "\n" (inside
//     quoted fields too), and a '\r' just before the end of the input is
//     dropped; a final line without '\n' is a record like any other;
//   - empty lines between records are skipped (they still count as lines);
//   - a '"' inside an unquoted field is csv.ErrBareQuote; after a closing
//     quote anything but '"' (an escaped quote), ',' or the end of the line
//     is csv.ErrQuote; a quoted field still open at the end of the input is
//     csv.ErrQuote; the rest of the physical line holding the error is
//     discarded and reading resumes on the next line;
//   - a record with another field count than the first record (or than
//     fieldsPerRecord when set) is csv.ErrFieldCount, its fields still
//     returned;
//   - errors are *csv.ParseError with the same StartLine, Line, Column and
//     Err as encoding/csv's.
//
// One difference is deliberate: a record whose bytes (all its physical lines
// with the line breaks between them, up to but excluding its final '\n')
// exceed max is errLineLimit, a fatal error raised before any of that record
// is returned. That bounds the buffer at max+1 bytes whatever the input (no
// newline at all, an unterminated quote). Records before it are returned
// normally.
//
// Fields are sub-slices of the read buffer, copied (into one scratch buffer
// per record) only when a quoted field holds an escaped quote or a line
// break. They are valid until the next call of read. Nothing is allocated
// per record once the buffers have grown to the largest record.
type csvParser struct {
	r    io.Reader
	buf  []byte
	off  int   // start of the unread bytes in buf
	end  int   // end of the valid bytes in buf
	eof  bool  // r has returned io.EOF
	rerr error // a read error other than io.EOF, returned once buf is drained
	max  int   // record byte limit (Options.MaxLineBytes)

	numLine  int // physical lines read so far, as encoding/csv counts them
	recStart int // offset in buf of the current record's first byte; fill keeps buf[recStart:]

	fieldsPerRecord int // 0: taken from the first record

	fields  []csvSpan
	scratch []byte
	out     [][]byte
}

// csvSpan is one field: buf[start:end], or scratch[start:end] when
// inScratch. Offsets, not slices, because fill moves buf's bytes and append
// moves scratch's while a record is being parsed.
type csvSpan struct {
	start, end int
	inScratch  bool
}

// csvBufSize is the read buffer of the adapter: large enough that refills
// (and the copy of the partial record they move) are rare.
const csvBufSize = 1 << 20

var errNoProgress = errors.New("csv: the reader returned no data and no error repeatedly")

// newCSVParser returns a parser of r with a read buffer of bufSize bytes
// (grown up to max+1 for long records). It removes a leading UTF-8 byte
// order mark and reports whether there was one.
func newCSVParser(r io.Reader, max, bufSize int) (*csvParser, bool, error) {
	if max < 1 {
		max = 1
	}
	if bufSize < 4 {
		bufSize = 4
	}
	p := &csvParser{r: r, max: max, buf: make([]byte, bufSize)}
	for p.end < 3 && !p.eof && p.rerr == nil {
		if err := p.fill(); err != nil {
			return nil, false, err
		}
	}
	if p.end-p.off >= 3 && p.buf[0] == 0xEF && p.buf[1] == 0xBB && p.buf[2] == 0xBF {
		p.off = 3
		return p, true, nil
	}
	return p, false, nil
}

// fill moves the current record to the front of buf, grows buf when the
// record fills it, and reads once more. The offsets of the fields already
// parsed move with the bytes.
func (p *csvParser) fill() error {
	if shift := p.recStart; shift > 0 {
		copy(p.buf, p.buf[shift:p.end])
		p.off -= shift
		p.end -= shift
		p.recStart = 0
		for i := range p.fields {
			if !p.fields[i].inScratch {
				p.fields[i].start -= shift
				p.fields[i].end -= shift
			}
		}
	}
	if p.end == len(p.buf) {
		n := 2 * len(p.buf)
		if lim := p.max + 1; lim > 0 && n > lim {
			n = lim
		}
		if n <= len(p.buf) {
			// Unreachable: readLine reports the limit before buf is full.
			return errLineLimit
		}
		nb := make([]byte, n)
		copy(nb, p.buf[:p.end])
		p.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := p.r.Read(p.buf[p.end:])
		if n < 0 || n > len(p.buf)-p.end {
			p.rerr = errors.New("csv: invalid read count")
			return nil
		}
		p.end += n
		if err == io.EOF {
			p.eof = true
			return nil
		}
		if err != nil {
			p.rerr = err
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	p.rerr = errNoProgress
	return nil
}

// readLine returns the next physical line as buf[s:e], with its '\n' when it
// has one, a final "\r\n" rewritten in place to "\n" and a '\r' at the very
// end of the input dropped (encoding/csv's readLine). It returns io.EOF
// when no bytes are left, errLineLimit when the record grows past max, or
// the read error. It may move buf's bytes (see fill).
func (p *csvParser) readLine() (s, e int, err error) {
	scan := p.off
	for {
		if i := bytes.IndexByte(p.buf[scan:p.end], '\n'); i >= 0 {
			nl := scan + i
			if nl-p.recStart > p.max {
				return 0, 0, errLineLimit
			}
			s, e = p.off, nl+1
			p.off = e
			p.numLine++
			if nl > s && p.buf[nl-1] == '\r' {
				p.buf[nl-1] = '\n'
				e--
			}
			return s, e, nil
		}
		if p.end-p.recStart > p.max {
			return 0, 0, errLineLimit
		}
		if p.rerr != nil {
			return 0, 0, p.rerr
		}
		if p.eof {
			s, e = p.off, p.end
			p.off = p.end
			p.numLine++
			if e == s {
				return s, e, io.EOF
			}
			if p.buf[e-1] == '\r' {
				e--
			}
			return s, e, nil
		}
		scanned := p.end - p.recStart
		if err := p.fill(); err != nil {
			return 0, 0, err
		}
		scan = p.recStart + scanned
	}
}

// lengthNL is 1 when b ends with '\n', else 0.
func lengthNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}

// read returns the next record, the line it starts on, and io.EOF after the
// last one. A *csv.ParseError comes with the record's fields as far as they
// were parsed (all of them for csv.ErrFieldCount); errLineLimit and read
// errors are fatal: the parser must not be used after them.
func (p *csvParser) read() (rec [][]byte, startLine int, err error) {
	startLine, err = p.next()
	var pe *csv.ParseError
	if err != nil && !errors.As(err, &pe) {
		return nil, 0, err
	}
	return p.record(), startLine, err
}

// record returns the fields of the record next just parsed (p.fields) as
// slices of the read buffer or of the scratch of unquoted fields.
func (p *csvParser) record() [][]byte {
	p.out = p.out[:0]
	for _, f := range p.fields {
		if f.inScratch {
			p.out = append(p.out, p.scratch[f.start:f.end:f.end])
		} else {
			p.out = append(p.out, p.buf[f.start:f.end:f.end])
		}
	}
	return p.out
}

// next parses the next record into p.fields, as read does, without making
// the slices of its fields (the parallel reader copies an unquoted record's
// whole line by the spans alone). A fatal error leaves p.fields meaningless.
func (p *csvParser) next() (startLine int, err error) {
	p.fields = p.fields[:0]
	p.scratch = p.scratch[:0]
	var s, e int
	for {
		p.recStart = p.off
		s, e, err = p.readLine()
		if err != nil {
			return 0, err // io.EOF, errLineLimit, a read error
		}
		if e-s != lengthNL(p.buf[s:e]) {
			break
		}
		// An empty line: skipped.
	}
	recLine := p.numLine
	line := p.buf[s:e]
	// The common case: no quotes, one line; split at the commas.
	if !p.splitPlain(s, e-lengthNL(line)) {
		p.fields = p.fields[:0]
		err = p.parseQuoted(line, s, recLine)
	}
	if err != nil {
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			return 0, err // fatal
		}
	}
	if err == nil {
		if p.fieldsPerRecord > 0 {
			if len(p.fields) != p.fieldsPerRecord {
				err = &csv.ParseError{StartLine: recLine, Line: recLine, Column: 1, Err: csv.ErrFieldCount}
			}
		}
	}
	if p.fieldsPerRecord == 0 {
		p.fieldsPerRecord = len(p.fields)
	}
	return recLine, err
}

// splitPlain appends the fields of the line buf[s:body] (its line break
// excluded) split at every comma, and reports true, when the line holds no
// quote; it reports false as soon as it meets one (the fields appended so far
// are then meaningless). It looks at eight bytes at a time for both bytes at
// once, where a search per field would start over for every short field.
func (p *csvParser) splitPlain(s, body int) bool {
	b := p.buf[:body]
	start, i := s, s
	for ; i+8 <= body; i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if zeroBytes(w^0x2222222222222222) != 0 {
			return false
		}
		for c := zeroBytes(w ^ 0x2c2c2c2c2c2c2c2c); c != 0; c &= c - 1 {
			j := i + bits.TrailingZeros64(c)>>3
			p.fields = append(p.fields, csvSpan{start: start, end: j})
			start = j + 1
		}
	}
	for ; i < body; i++ {
		switch b[i] {
		case '"':
			return false
		case ',':
			p.fields = append(p.fields, csvSpan{start: start, end: i})
			start = i + 1
		}
	}
	p.fields = append(p.fields, csvSpan{start: start, end: body})
	return true
}

// zeroBytes has the high bit of every byte of v that is zero set, and no
// other bit: exact per byte (no carry crosses bytes, as the classic
// (v-0x01…)&^v&0x80… test lets one do).
func zeroBytes(v uint64) uint64 {
	const low7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	return ^(((v & low7) + low7) | v) & high
}

// parseQuoted parses a record whose first line, buf[base:base+len(line)],
// holds a quote: encoding/csv's readRecord field loop, step for step, with
// the same positions in its errors.
func (p *csvParser) parseQuoted(line []byte, base, recLine int) error {
	col := 1
	posLine := p.numLine
	for {
		if len(line) == 0 || line[0] != '"' {
			// Unquoted field.
			i := bytes.IndexByte(line, ',')
			field := line
			if i >= 0 {
				field = field[:i]
			} else {
				field = field[:len(field)-lengthNL(field)]
			}
			if j := bytes.IndexByte(field, '"'); j >= 0 {
				return &csv.ParseError{StartLine: recLine, Line: p.numLine, Column: col + j, Err: csv.ErrBareQuote}
			}
			p.fields = append(p.fields, csvSpan{start: base, end: base + len(field)})
			if i < 0 {
				return nil
			}
			line = line[i+1:]
			base += i + 1
			col += i + 1
			continue
		}
		// Quoted field: it stays a span of buf until an escaped quote or a
		// line break makes it differ from the input bytes.
		line = line[1:]
		base++
		col++
		fstart, sstart := base, 0
		inScratch := false
		toScratch := func(upto int) {
			if !inScratch {
				sstart = len(p.scratch)
				p.scratch = append(p.scratch, p.buf[fstart:upto]...)
				inScratch = true
			}
		}
		finish := func(upto int) {
			if inScratch {
				p.fields = append(p.fields, csvSpan{start: sstart, end: len(p.scratch), inScratch: true})
			} else {
				p.fields = append(p.fields, csvSpan{start: fstart, end: upto})
			}
		}
	field:
		for {
			i := bytes.IndexByte(line, '"')
			switch {
			case i >= 0:
				pieceEnd := base + i
				if inScratch {
					p.scratch = append(p.scratch, line[:i]...)
				}
				line = line[i+1:]
				base += i + 1
				col += i + 1
				switch {
				case len(line) > 0 && line[0] == '"':
					// `""`: one literal quote.
					toScratch(pieceEnd)
					p.scratch = append(p.scratch, '"')
					line = line[1:]
					base++
					col++
				case len(line) > 0 && line[0] == ',':
					finish(pieceEnd)
					line = line[1:]
					base++
					col++
					break field
				case lengthNL(line) == len(line):
					finish(pieceEnd)
					return nil
				default:
					return &csv.ParseError{StartLine: recLine, Line: p.numLine, Column: col - 1, Err: csv.ErrQuote}
				}
			case len(line) > 0:
				// The field goes on past the end of this line.
				toScratch(base)
				p.scratch = append(p.scratch, line...)
				col += len(line)
				s, e, err := p.readLine()
				if err != nil && err != io.EOF {
					return err
				}
				line, base = p.buf[s:e], s
				if err == io.EOF {
					line = nil
				}
				if len(line) > 0 {
					posLine++
					col = 1
				}
			default:
				// The input ended inside the quotes.
				return &csv.ParseError{StartLine: recLine, Line: posLine, Column: col, Err: csv.ErrQuote}
			}
		}
	}
}
