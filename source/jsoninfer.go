package source

import (
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"
)

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
	rd, _, err := newRecords(a, c, opts.MaxLineBytes)
	if err != nil {
		return nil, nil, nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "seek failed", Err: err}
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
			return nil, nil, nil, &Error{Code: CodeNotFound, Op: op, Source: a.String(), Msg: fmt.Sprintf("excluded column %q does not exist", x)}
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
				Msg: fmt.Sprintf("column %q: %s; give an explicit schema or exclude it", names[i], why)}
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
