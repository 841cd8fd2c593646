package source

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// structureError is a JSON array whose structure is broken: the elements after it cannot
// be found, so reading stops there.
type structureError struct {
	code   Code // CodeCorrupt: malformed or truncated; CodeUnsupported: not an array
	line   uint64
	detail string
}

func (e *structureError) Error() string {
	return fmt.Sprintf("line %d: %s", e.line, e.detail)
}

// arrayScanner splits a JSON document whose top-level value is an array into the bytes of
// its elements, in one sequential pass. It holds a 64 KiB read buffer and at most one
// element of at most max bytes, never the document: memory does not grow with the file.
// It finds where an element ends by tracking strings, escapes and bracket depth; what an
// element holds is checked later by the object parser (parseObject), as for a JSON line.
type arrayScanner struct {
	r        *bufio.Reader
	max      int
	buf      []byte
	line     uint64 // line of the next unread byte, 1-based
	start    uint64 // line the element last returned starts on
	elements uint64 // elements returned so far: the 1-based position of the last one
	state    arrayState
}

type arrayState uint8

const (
	arrayBegin arrayState = iota // before '['
	arrayFirst                   // after '[': an element or ']'
	arrayNext                    // after an element: ',' or ']'
	arrayDone                    // after ']': only whitespace until the end
	arrayEnded                   // the end was returned
)

func newArrayScanner(r io.Reader, max int) *arrayScanner {
	return &arrayScanner{r: bufio.NewReaderSize(r, 1<<16), max: max, line: 1}
}

func (a *arrayScanner) where() uint64 { return a.start }

func (a *arrayScanner) fail(code Code, detail string) error {
	return &structureError{code: code, line: a.line, detail: detail}
}

// readByte reads one byte, counting lines. eof is true at the end of the input.
func (a *arrayScanner) readByte() (c byte, eof bool, err error) {
	c, err = a.r.ReadByte()
	if err == io.EOF {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	if c == '\n' {
		a.line++
	}
	return c, false, nil
}

// skipPeeked reads the byte that skipSpace returned and put back: it is buffered, so
// reading it cannot fail.
func (a *arrayScanner) skipPeeked() { _, _, _ = a.readByte() }

// skipSpace consumes JSON whitespace and returns the next byte, unread.
func (a *arrayScanner) skipSpace() (c byte, eof bool, err error) {
	for {
		c, eof, err = a.readByte()
		if eof || err != nil {
			return c, eof, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		_ = a.r.UnreadByte() // follows a successful ReadByte; c is no newline
		return c, false, nil
	}
}

func (a *arrayScanner) next() (rec []byte, tooLong, ok bool, err error) {
	for {
		switch a.state {
		case arrayEnded:
			return nil, false, false, nil
		case arrayBegin:
			c, eof, err := a.skipSpace()
			switch {
			case err != nil:
				return nil, false, false, err
			case eof:
				return nil, false, false, a.fail(CodeCorrupt, "the document is empty; want a JSON array of objects")
			case c == '{':
				return nil, false, false, a.fail(CodeUnsupported, "the top-level JSON value is an object; want an array of objects (or JSON lines: a .jsonl name or jsonl: prefix)")
			case c != '[':
				return nil, false, false, a.fail(CodeUnsupported, "the top-level JSON value is not an array; want an array of objects")
			}
			a.skipPeeked()
			a.state = arrayFirst
		case arrayFirst, arrayNext:
			c, eof, err := a.skipSpace()
			switch {
			case err != nil:
				return nil, false, false, err
			case eof:
				return nil, false, false, a.fail(CodeCorrupt, "the JSON array is not closed")
			case c == ']':
				a.skipPeeked()
				a.state = arrayDone
				continue
			case a.state == arrayNext:
				if c != ',' {
					return nil, false, false, a.fail(CodeCorrupt, "expected ',' or ']' after an array element")
				}
				a.skipPeeked()
				if c, eof, err = a.skipSpace(); err != nil {
					return nil, false, false, err
				}
				if eof {
					return nil, false, false, a.fail(CodeCorrupt, "the JSON array is not closed")
				}
				if c == ']' {
					return nil, false, false, a.fail(CodeCorrupt, "a comma before ']'")
				}
			}
			a.state = arrayNext
			return a.element()
		case arrayDone:
			_, eof, err := a.skipSpace()
			if err != nil {
				return nil, false, false, err
			}
			if !eof {
				return nil, false, false, a.fail(CodeCorrupt, "text after the JSON array")
			}
			a.state = arrayEnded
		}
	}
}

// element reads one array element: an object or array up to its matching bracket, a
// string up to its closing quote, or any other token up to the next delimiter (left
// unread). Bytes beyond max are not kept; the element is then reported tooLong. It scans
// the read buffer in place and copies whole runs, skipping string contents with one
// search per quote or backslash.
func (a *arrayScanner) element() (rec []byte, tooLong, ok bool, err error) {
	a.start = a.line
	a.elements++
	a.buf = a.buf[:0]
	if c, _, err := a.skipSpace(); err != nil {
		return nil, false, false, err
	} else if c == ',' {
		return nil, false, false, a.fail(CodeCorrupt, "an empty array element")
	}
	var sc elementScan
	for {
		chunk, err := a.r.Peek(max(a.r.Buffered(), 1))
		if len(chunk) == 0 {
			if err != io.EOF {
				return nil, false, false, err
			}
			if sc.depth > 0 || sc.inString {
				return nil, false, false, a.fail(CodeCorrupt, "the JSON array ends inside an element")
			}
			return a.buf, tooLong, true, nil // a scalar at the end; the caller then finds no ']'
		}
		n, done := sc.scan(chunk)
		if !tooLong {
			if len(a.buf)+n > a.max {
				tooLong, a.buf = true, a.buf[:0]
			} else {
				a.buf = append(a.buf, chunk[:n]...)
			}
		}
		a.line += uint64(bytes.Count(chunk[:n], newline))
		_, _ = a.r.Discard(n) // n <= len(chunk), all buffered
		if done {
			return a.buf, tooLong, true, nil
		}
	}
}

var newline = []byte{'\n'}

// elementScan is the state of the search for an element's end across read chunks.
type elementScan struct {
	depth             int
	inString, escaped bool
}

// scan consumes chunk up to the end of the element: it returns how many bytes belong to
// the element and whether the element ends there (a delimiter after a scalar is not
// consumed).
func (sc *elementScan) scan(chunk []byte) (n int, done bool) {
	i := 0
	for i < len(chunk) {
		if sc.inString {
			if sc.escaped {
				sc.escaped = false
				i++
				continue
			}
			j := bytes.IndexAny(chunk[i:], "\"\\")
			if j < 0 {
				return len(chunk), false
			}
			i += j
			if chunk[i] == '\\' {
				sc.escaped = true
				i++
				continue
			}
			sc.inString = false
			i++
			if sc.depth == 0 {
				return i, true // a string scalar
			}
			continue
		}
		switch chunk[i] {
		case '"':
			sc.inString = true
		case '{', '[':
			sc.depth++
		case '}', ']':
			if sc.depth == 0 { // the ']' closing the top-level array ends a scalar
				return i, true
			}
			sc.depth--
			if sc.depth == 0 {
				return i + 1, true
			}
		case ',', ' ', '\t', '\r', '\n':
			if sc.depth == 0 {
				return i, true
			}
		}
		i++
	}
	return i, false
}
