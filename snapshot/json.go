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

func parseValue(dec *json.Decoder, depth int) (*jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return parseFrom(dec, tok, depth)
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
				return nil, err
			}
			return v, nil
		case '{':
			v := &jvalue{kind: jObject, obj: map[string]*jvalue{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
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
				return nil, err
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
