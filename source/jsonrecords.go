package source

import (
	"bufio"
	"errors"
	"io"
)

// Splitting a JSON input into records: the lines of a JSON lines file (lineScanner, here)
// or the elements of a top-level JSON array (arrayScanner, jsonarray.go).

// jsonRecords yields the bytes of one candidate JSON object at a time: a line of a JSON
// lines file, or an element of a top-level JSON array.
type jsonRecords interface {
	// next returns the next record. tooLong reports a record of more than the byte
	// limit, which is skipped without being buffered (rec is empty). ok is false at the
	// end. A *structureError ends the input: the records after it cannot be delimited.
	next() (rec []byte, tooLong, ok bool, err error)
	// where is the Failure.Line of the record last returned: its line number, or the
	// line a JSON array element starts on.
	where() uint64
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

func (l *lineScanner) where() uint64 { return l.line }

// newRecords rewinds c's file and returns its records: lines, or the elements of the
// top-level array of a KindJSON file. A leading UTF-8 byte order mark, which Windows
// tools write and RFC 8259 lets a parser ignore, is skipped (bom reports it), as the
// CSV reader does; without this the array was refused as "not an array" and the
// first JSON line as "not a JSON object".
func newRecords(a Address, c *byteCounter, max int) (_ jsonRecords, bom bool, err error) {
	if err := c.rewind(); err != nil {
		return nil, false, err
	}
	br := bufio.NewReaderSize(c, 1<<16)
	if p, _ := br.Peek(3); len(p) == 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
		_, _ = br.Discard(3) // peeked: cannot fail
		bom = true
	}
	if a.Kind == KindJSON {
		return &arrayScanner{r: br, max: max, line: 1}, bom, nil
	}
	return &lineScanner{br: br, max: max}, bom, nil
}

// structureFailure turns a record reader's error into the error of op: a broken JSON
// array keeps its code and line, anything else is an I/O error.
func structureFailure(op string, a Address, err error) *Error {
	var se *structureError
	if errors.As(err, &se) {
		return &Error{Code: se.code, Op: op, Source: a.String(), Msg: se.Error()}
	}
	return &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "read failed", Err: err}
}
