package normalize

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file reads the typed-values JSON form (docs/contracts/typed-values-json.md):
// every value is an object with an explicit "type"; integers and field ids travel as
// decimal strings, floats as 16-hex-digit bit patterns, and no JSON number is ever read
// as a value. Errors are *Error with the contract's codes: malformed shape is
// CodeInput, an unknown type CodeUnsupported, and the value-specific codes as listed
// there. Unknown members are CodeInput, so a misspelt optional member cannot be lost.

func inputErr(msg string) *Error { return newErr("parse", CodeInput, msg) }

// ParseValueJSON parses one typed value, e.g. {"type":"int","value":"-42"}.
//
// JSON strings are decoded exactly: a lone UTF-16 surrogate escape such as "\ud800", or
// raw bytes that are not UTF-8, are kept as the bytes they denote (ED A0 80 for U+D800)
// rather than replaced by U+FFFD as encoding/json would, so the text encoder rejects
// them with CodeUTF8 just as Python rejects surrogates.
func ParseValueJSON(data []byte) (Value, error) {
	v, err := parseValue(data)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// ParseFieldsJSON parses a JSON array of {"field_id":"<decimal>","value":{typed value}}.
func ParseFieldsJSON(data []byte) ([]Field, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil || raws == nil {
		return nil, inputErr("fields is not a JSON array")
	}
	fields := make([]Field, 0, len(raws))
	for _, raw := range raws {
		m, err := object(raw, "field_id", "value")
		if err != nil {
			return nil, err
		}
		idRaw, ok := m["field_id"]
		if !ok {
			return nil, inputErr("field lacks field_id")
		}
		s, ok := jsonString(idRaw)
		if !ok {
			return nil, inputErr("field_id is not a JSON string")
		}
		id, perr := ParseFieldID(s)
		if perr != nil {
			return nil, perr
		}
		vRaw, ok := m["value"]
		if !ok {
			return nil, inputErr("field lacks value")
		}
		v, verr := parseValue(vRaw)
		if verr != nil {
			return nil, verr
		}
		fields = append(fields, Field{ID: id, Value: v})
	}
	return fields, nil
}

// object decodes raw as a JSON object whose members are all in allowed.
func object(raw []byte, allowed ...string) (map[string]json.RawMessage, *Error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, inputErr("not a JSON object")
	}
	for k := range m {
		found := false
		for _, a := range allowed {
			if k == a {
				found = true
				break
			}
		}
		if !found {
			return nil, inputErr("unknown member")
		}
	}
	return m, nil
}

func parseValue(raw []byte) (Value, *Error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil || probe == nil {
		return nil, inputErr("value is not a JSON object")
	}
	tRaw, ok := probe["type"]
	if !ok {
		return nil, inputErr("value lacks type")
	}
	typ, ok := jsonString(tRaw)
	if !ok {
		return nil, inputErr("type is not a JSON string")
	}
	switch typ {
	case "missing", "null":
		if _, err := object(raw, "type"); err != nil {
			return nil, err
		}
		if typ == "missing" {
			return Absent, nil
		}
		return Nil, nil
	case "bool":
		m, err := object(raw, "type", "value")
		if err != nil {
			return nil, err
		}
		switch string(bytes.TrimSpace(m["value"])) {
		case "true":
			return BoolValue(true), nil
		case "false":
			return BoolValue(false), nil
		}
		return nil, inputErr("bool value is not true or false")
	case "int":
		m, err := object(raw, "type", "value")
		if err != nil {
			return nil, err
		}
		s, ok := jsonString(m["value"])
		if !ok {
			return nil, inputErr("int value is not a JSON string")
		}
		return parseInt(s)
	case "float":
		m, err := object(raw, "type", "bits")
		if err != nil {
			return nil, err
		}
		s, ok := jsonString(m["bits"])
		if !ok || len(s) != 16 {
			return nil, inputErr("float bits is not a 16-hex-digit string")
		}
		b, perr := strconv.ParseUint(s, 16, 64)
		if perr != nil {
			return nil, inputErr("float bits is not hex")
		}
		return FloatValue{Bits: b}, nil
	case "text":
		m, err := object(raw, "type", "value", "utf8_hex")
		if err != nil {
			return nil, err
		}
		v, hasV := m["value"]
		h, hasH := m["utf8_hex"]
		switch {
		case hasV && !hasH:
			s, ok := jsonString(v)
			if !ok {
				return nil, inputErr("text value is not a JSON string")
			}
			return TextValue(s), nil
		case hasH && !hasV:
			b, herr := hexMember(h)
			if herr != nil {
				return nil, herr
			}
			return TextValue(b), nil
		}
		return nil, inputErr("text needs exactly one of value and utf8_hex")
	case "bytes":
		m, err := object(raw, "type", "hex")
		if err != nil {
			return nil, err
		}
		h, ok := m["hex"]
		if !ok {
			return nil, inputErr("bytes lacks hex")
		}
		b, herr := hexMember(h)
		if herr != nil {
			return nil, herr
		}
		return BytesValue(b), nil
	case "decimal":
		m, err := object(raw, "type", "value")
		if err != nil {
			return nil, err
		}
		s, ok := jsonString(m["value"])
		if !ok {
			return nil, inputErr("decimal value is not a JSON string")
		}
		d, derr := ParseDecimal(s)
		if derr != nil {
			return nil, derr.(*Error)
		}
		return d, nil
	case "timestamp":
		return parseTimestamp(raw)
	}
	return nil, newErr("parse", CodeUnsupported, "unsupported value type")
}

func hexMember(raw json.RawMessage) ([]byte, *Error) {
	s, ok := jsonString(raw)
	if !ok {
		return nil, inputErr("hex is not a JSON string")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, inputErr("malformed hex")
	}
	return b, nil
}

// parseInt parses an optionally signed run of ASCII digits of any length.
func parseInt(s string) (Value, *Error) {
	digits := s
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		digits = digits[1:]
	}
	if digits == "" || !allDigits(digits) {
		return nil, inputErr("int value is not a decimal integer")
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Int(v), nil
	}
	if v, err := strconv.ParseUint(digits, 10, 64); err == nil && s[0] != '-' {
		return Uint(v), nil
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, inputErr("int value is not a decimal integer")
	}
	return BigInt(b), nil
}

// jsonInt reads a JSON integer number (no fraction, no exponent) that fits an int.
func jsonInt(raw json.RawMessage) (int, bool) {
	s := string(bytes.TrimSpace(raw))
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if d == "" || !allDigits(d) {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

func parseTimestamp(raw []byte) (Value, *Error) {
	m, err := object(raw, "type", "year", "month", "day", "hour", "minute", "second",
		"microsecond", "fold", "tz", "nanosecond")
	if err != nil {
		return nil, err
	}
	var t TimestampValue
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{"year", &t.Year}, {"month", &t.Month}, {"day", &t.Day}, {"hour", &t.Hour},
		{"minute", &t.Minute}, {"second", &t.Second}, {"microsecond", &t.Microsecond},
		{"fold", &t.Fold},
	} {
		r, ok := m[f.name]
		if !ok {
			return nil, inputErr("timestamp lacks " + f.name)
		}
		v, ok := jsonInt(r)
		if !ok {
			return nil, inputErr("timestamp " + f.name + " is not a JSON integer")
		}
		*f.dst = v
	}
	if r, ok := m["nanosecond"]; ok {
		v, ok := jsonInt(r)
		if !ok {
			return nil, inputErr("timestamp nanosecond is not a JSON integer")
		}
		if v != 0 {
			return nil, newErr("parse", CodePrecision, "sub-microsecond timestamp input (wire version 1 has microsecond resolution)")
		}
	}
	tzRaw, ok := m["tz"]
	if !ok {
		return nil, inputErr("timestamp lacks tz")
	}
	if string(bytes.TrimSpace(tzRaw)) == "null" {
		return t, nil
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(tzRaw, &probe) != nil || probe == nil {
		return nil, inputErr("tz is neither null nor an object")
	}
	kind, ok := jsonString(probe["kind"])
	if !ok {
		return nil, inputErr("tz kind is not a JSON string")
	}
	switch kind {
	case "fixed":
		tz, err := object(tzRaw, "kind", "offset_us", "name")
		if err != nil {
			return nil, err
		}
		offS, ok := jsonString(tz["offset_us"])
		if !ok {
			return nil, inputErr("tz offset_us is not a JSON string")
		}
		name, ok := jsonString(tz["name"])
		if !ok {
			return nil, inputErr("tz name is not a JSON string")
		}
		iv, ierr := parseInt(offS)
		if ierr != nil {
			return nil, ierr
		}
		var off int64
		switch x := iv.(IntValue); x.kind {
		case intSigned:
			off = int64(x.u)
		case intUnsigned:
			if x.u >= maxFixedUS {
				off = maxFixedUS // out of range either way; the encoder rejects it
			} else {
				off = int64(x.u)
			}
		default:
			return nil, newErr("parse", CodeTimezone, "fixed offset not strictly within 24 hours")
		}
		t.Zone = FixedZone(off, name)
	case "zoneinfo":
		tz, err := object(tzRaw, "kind", "key")
		if err != nil {
			return nil, err
		}
		key, ok := jsonString(tz["key"])
		if !ok {
			return nil, inputErr("tz key is not a JSON string")
		}
		t.Zone = IANAZone(key)
	case "custom":
		return nil, newErr("parse", CodeTimezone, "custom tzinfo is not supported")
	default:
		return nil, inputErr("unknown tz kind")
	}
	return t, nil
}

// jsonString decodes a JSON string token exactly, keeping lone surrogate escapes as
// their generalized UTF-8 bytes and raw non-UTF-8 bytes as they are. It reports false
// for anything that is not a well-formed JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	s := bytes.TrimSpace(raw)
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		for _, c := range s {
			if c == '"' || c < 0x20 {
				return "", false
			}
		}
		return string(s), true
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		e := s[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s[i:])
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) && r < 0xDC00 && len(s)-i >= 6 && s[i] == '\\' && s[i+1] == 'u' {
				if r2, ok := hex4(s[i+2:]); ok && 0xDC00 <= r2 && r2 <= 0xDFFF {
					out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
					i += 6
					continue
				}
			}
			if utf16.IsSurrogate(r) {
				// Generalized UTF-8 of the lone surrogate, which strict UTF-8 rejects.
				out = append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
			} else {
				out = utf8.AppendRune(out, r)
			}
		default:
			return "", false
		}
	}
	return string(out), true
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
