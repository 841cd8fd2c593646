package source

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON value parser: one flat object of a record (RFC 8259), its members' values
// decoded or validated in place, nested values skipped. It knows no columns or types.

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
