package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A small JSON tree, parsed strictly and written canonically. Canonical JSON here is
// what Python's json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
// allow_nan=False) writes: UTF-8, keys sorted by code point, no whitespace, non-ASCII
// characters written as themselves (no \u escapes, and no HTML escaping of <, > or &),
// and only '"', '\\' and control characters below U+0020 escaped, the latter as \b, \f,
// \n, \r, \t or \u00xx with lowercase hex.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

type jvalue struct {
	kind jkind
	str  string // string value, or the number literal
	b    bool
	arr  []*jvalue
	obj  map[string]*jvalue
}

func jstr(s string) *jvalue             { return &jvalue{kind: jString, str: s} }
func jint(n uint64) *jvalue             { return &jvalue{kind: jNumber, str: strconv.FormatUint(n, 10)} }
func jobj(m map[string]*jvalue) *jvalue { return &jvalue{kind: jObject, obj: m} }
func jnull() *jvalue                    { return &jvalue{kind: jNull} }
func jdec(n uint64) *jvalue             { return jstr(strconv.FormatUint(n, 10)) }
func jarr(vs []*jvalue) *jvalue         { return &jvalue{kind: jArray, arr: vs} }

// maxDepth bounds nesting: the deepest C5 document is 4 levels deep.
const maxDepth = 8

var errTrailing = errors.New("data after the top-level value")

// parseJSON parses exactly one JSON value, rejecting invalid UTF-8, duplicate object
// keys, nesting deeper than maxDepth and trailing data.
func parseJSON(data []byte) (*jvalue, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	// Every manifest and intent that storage writes is canonical JSON without escapes:
	// the fast parser reads exactly those, a fifth of the cost of the token decoder
	// (checking a thousand snapshots' summaries is mostly manifest parsing). Anything it
	// does not accept goes to the token decoder, which decides and words the error, so
	// the accepted documents and the errors are the token decoder's.
	if v, ok := fastParse(data); ok {
		return v, nil
	}
	return parseTokens(data)
}

// parseTokens is parseJSON by encoding/json's token decoder, for valid UTF-8 data.
func parseTokens(data []byte) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return v, nil
}

// fastParse parses data when it is one JSON value of the plain subset: no escapes and no
// control characters in strings, no duplicate keys, nesting within maxDepth, nothing
// after the value but whitespace. data is valid UTF-8. ok false: not of that subset
// (valid or not), for the token decoder to parse.
func fastParse(data []byte) (v *jvalue, ok bool) {
	p := fastParser{data: data}
	v = p.value(0)
	p.space()
	if v == nil || p.i != len(data) {
		return nil, false
	}
	return v, true
}

type fastParser struct {
	data []byte
	i    int
	slab []jvalue // values are carved from here: one allocation per 64
}

func (p *fastParser) alloc(v jvalue) *jvalue {
	if len(p.slab) == 0 {
		p.slab = make([]jvalue, 64)
	}
	n := &p.slab[0]
	*n = v
	p.slab = p.slab[1:]
	return n
}

func (p *fastParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value parses the value at p.i, or returns nil when it is not of the plain subset.
func (p *fastParser) value(depth int) *jvalue {
	p.space()
	if p.i >= len(p.data) {
		return nil
	}
	switch c := p.data[p.i]; {
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil
		}
		return p.alloc(jvalue{kind: jString, str: s})
	case c == '{':
		if depth >= maxDepth {
			return nil
		}
		p.i++
		v := p.alloc(jvalue{kind: jObject, obj: map[string]*jvalue{}})
		p.space()
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return v
		}
		for {
			p.space()
			if p.i >= len(p.data) || p.data[p.i] != '"' {
				return nil
			}
			k, ok := p.str()
			if !ok {
				return nil
			}
			if _, dup := v.obj[k]; dup {
				return nil
			}
			p.space()
			if p.i >= len(p.data) || p.data[p.i] != ':' {
				return nil
			}
			p.i++
			e := p.value(depth + 1)
			if e == nil {
				return nil
			}
			v.obj[k] = e
			if more, ok := p.after('}'); !ok {
				return nil
			} else if !more {
				return v
			}
		}
	case c == '[':
		if depth >= maxDepth {
			return nil
		}
		p.i++
		v := p.alloc(jvalue{kind: jArray})
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return v
		}
		for {
			e := p.value(depth + 1)
			if e == nil {
				return nil
			}
			v.arr = append(v.arr, e)
			if more, ok := p.after(']'); !ok {
				return nil
			} else if !more {
				return v
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		if !p.number() {
			return nil
		}
		return p.alloc(jvalue{kind: jNumber, str: string(p.data[start:p.i])})
	default:
		for _, lit := range [...]struct {
			s string
			v jvalue
		}{{"null", jvalue{kind: jNull}}, {"true", jvalue{kind: jBool, b: true}}, {"false", jvalue{kind: jBool}}} {
			if bytes.HasPrefix(p.data[p.i:], []byte(lit.s)) {
				p.i += len(lit.s)
				return p.alloc(lit.v)
			}
		}
		return nil
	}
}

// after reads what follows a member or element: a comma (more: true) or close.
func (p *fastParser) after(close byte) (more, ok bool) {
	p.space()
	if p.i >= len(p.data) || (p.data[p.i] != ',' && p.data[p.i] != close) {
		return false, false
	}
	p.i++
	return p.data[p.i-1] == ',', true
}

// str reads the string at p.i (an opening quote) when it has no escape and no control
// character.
func (p *fastParser) str() (string, bool) {
	start := p.i + 1
	for j := start; j < len(p.data); j++ {
		switch c := p.data[j]; {
		case c == '"':
			p.i = j + 1
			return string(p.data[start:j]), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

// number reads the JSON number at p.i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *fastParser) number() bool {
	d := p.data
	i := p.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	p.i = i
	return true
}

func parseValue(dec *json.Decoder, depth int) (*jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, unexpectedEnd(err)
	}
	return parseFrom(dec, tok, depth)
}

// unexpectedEnd is err of a token the document still owes: the decoder's io.EOF there is
// a document cut short ("[", "{"), io.ErrUnexpectedEOF like every other truncation, never
// a plain io.EOF that a caller could take for a clean end of input.
func unexpectedEnd(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func parseFrom(dec *json.Decoder, tok json.Token, depth int) (*jvalue, error) {
	switch t := tok.(type) {
	case nil:
		return jnull(), nil
	case bool:
		return &jvalue{kind: jBool, b: t}, nil
	case json.Number:
		return &jvalue{kind: jNumber, str: string(t)}, nil
	case string:
		return jstr(t), nil
	case json.Delim:
		if depth >= maxDepth {
			return nil, errors.New("nesting too deep")
		}
		switch t {
		case '[':
			v := &jvalue{kind: jArray}
			for dec.More() {
				e, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, unexpectedEnd(err)
			}
			return v, nil
		case '{':
			v := &jvalue{kind: jObject, obj: map[string]*jvalue{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, unexpectedEnd(err)
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				if _, dup := v.obj[k]; dup {
					return nil, errors.New("duplicate object key " + strconv.Quote(k))
				}
				e, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.obj[k] = e
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, unexpectedEnd(err)
			}
			return v, nil
		}
	}
	return nil, errors.New("unexpected JSON token")
}

// appendJSON appends the canonical encoding of v.
func appendJSON(dst []byte, v *jvalue) []byte {
	switch v.kind {
	case jNull:
		return append(dst, "null"...)
	case jBool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case jNumber:
		return append(dst, v.str...)
	case jString:
		return appendJSONString(dst, v.str)
	case jArray:
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	default:
		keys := make([]string, 0, len(v.obj))
		for k := range v.obj {
			keys = append(keys, k)
		}
		slices.Sort(keys) // byte order of valid UTF-8 is code point order
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendJSON(dst, v.obj[k])
		}
		return append(dst, '}')
	}
}

const hexDigits = "0123456789abcdef"

func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			dst = append(dst, '\\', '"')
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
