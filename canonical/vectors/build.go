package vectors

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// Source is a parsed source case.
type Source struct {
	Kind   string // "table" or "schema"
	fields []*fieldSpec
	Schema *arrow.Schema

	batches           [][][]json.RawMessage // batch, row, value
	dictionaries      map[string][]json.RawMessage
	batchDictionaries []map[string][]json.RawMessage
}

type rawSource struct {
	Kind              string                         `json:"kind"`
	Fields            []json.RawMessage              `json:"fields"`
	Metadata          json.RawMessage                `json:"metadata"`
	Batches           [][]json.RawMessage            `json:"batches"`
	Dictionaries      map[string][]json.RawMessage   `json:"dictionaries"`
	BatchDictionaries []map[string][]json.RawMessage `json:"batch_dictionaries"`
}

// ParseSource parses a source case and builds its Arrow schema.
func ParseSource(raw json.RawMessage) (*Source, error) {
	var rs rawSource
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&rs); err != nil {
		return nil, fmt.Errorf("source case: %w", err)
	}
	if rs.Kind != "table" && rs.Kind != "schema" {
		return nil, fmt.Errorf("source case kind %q", rs.Kind)
	}
	s := &Source{Kind: rs.Kind, dictionaries: rs.Dictionaries, batchDictionaries: rs.BatchDictionaries}
	fs := make([]arrow.Field, 0, len(rs.Fields))
	for _, rf := range rs.Fields {
		f, err := parseField(rf)
		if err != nil {
			return nil, err
		}
		s.fields = append(s.fields, f)
		fs = append(fs, f.field)
	}
	md, err := parseMetadata(rs.Metadata)
	if err != nil {
		return nil, err
	}
	s.Schema = arrow.NewSchema(fs, &md)
	for bi, b := range rs.Batches {
		var rows [][]json.RawMessage
		for ri, r := range b {
			var vals []json.RawMessage
			if err := unmarshalNumber(r, &vals); err != nil {
				return nil, fmt.Errorf("batch %d row %d: %w", bi, ri, err)
			}
			if len(vals) != len(fs) {
				return nil, fmt.Errorf("batch %d row %d: %d values for %d fields", bi, ri, len(vals), len(fs))
			}
			rows = append(rows, vals)
		}
		s.batches = append(s.batches, rows)
	}
	if s.batchDictionaries != nil && len(s.batchDictionaries) != len(s.batches) {
		return nil, fmt.Errorf("batch_dictionaries needs one object per batch")
	}
	return s, nil
}

func unmarshalNumber(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// Build builds the record batches of a table source case. With sliced, every column is
// built with one extra null before and after the rows and then sliced to them, so the
// arrays have a non-zero offset and hidden neighbours. The caller releases the batches.
func (s *Source) Build(mem memory.Allocator, sliced bool) (recs []arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrow-go refused to build the source case: %v", r)
		}
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			recs = nil
		}
	}()
	for bi, rows := range s.batches {
		cols := make([]arrow.Array, len(s.fields))
		release := func() {
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
		}
		for ci, f := range s.fields {
			col, err := s.buildColumn(mem, bi, ci, f, rows, sliced)
			if err != nil {
				release()
				return recs, fmt.Errorf("batch %d field %d: %w", bi, ci, err)
			}
			cols[ci] = col
		}
		rec := array.NewRecordBatch(s.Schema, cols, int64(len(rows)))
		release()
		recs = append(recs, rec)
	}
	return recs, nil
}

func (s *Source) dictionaryFor(bi int, name string) ([]json.RawMessage, bool) {
	if s.batchDictionaries != nil {
		if d, ok := s.batchDictionaries[bi][name]; ok {
			return d, true
		}
	}
	d, ok := s.dictionaries[name]
	return d, ok
}

func (s *Source) buildColumn(mem memory.Allocator, bi, ci int, f *fieldSpec, rows [][]json.RawMessage, sliced bool) (arrow.Array, error) {
	if f.typ.name == "dictionary" {
		return s.buildDictionary(mem, bi, ci, f, rows, sliced)
	}
	b := array.NewBuilder(mem, f.typ.dt)
	defer b.Release()
	if sliced {
		b.AppendNull()
	}
	for ri, row := range rows {
		if err := appendValue(b, f.typ, row[ci]); err != nil {
			return nil, fmt.Errorf("row %d: %w", ri, err)
		}
	}
	return finishColumn(b, len(rows), sliced), nil
}

func finishColumn(b array.Builder, n int, sliced bool) arrow.Array {
	if !sliced {
		return b.NewArray()
	}
	b.AppendNull()
	full := b.NewArray()
	defer full.Release()
	return array.NewSlice(full, 1, int64(n)+1)
}

func (s *Source) buildDictionary(mem memory.Allocator, bi, ci int, f *fieldSpec, rows [][]json.RawMessage, sliced bool) (arrow.Array, error) {
	vals, ok := s.dictionaryFor(bi, f.field.Name)
	if !ok {
		return nil, fmt.Errorf("no dictionary for field %q", f.field.Name)
	}
	db := array.NewBuilder(mem, f.typ.dict.dt)
	defer db.Release()
	for i, v := range vals {
		if err := appendValue(db, f.typ.dict, v); err != nil {
			return nil, fmt.Errorf("dictionary value %d: %w", i, err)
		}
	}
	dict := db.NewArray()
	defer dict.Release()
	ib := array.NewBuilder(mem, f.typ.index)
	defer ib.Release()
	if sliced {
		ib.AppendNull()
	}
	it := &typeSpec{dt: f.typ.index, name: f.typ.index.Name()}
	for ri, row := range rows {
		if err := appendValue(ib, it, row[ci]); err != nil {
			return nil, fmt.Errorf("row %d index: %w", ri, err)
		}
	}
	idx := finishColumn(ib, len(rows), sliced)
	defer idx.Release()
	return array.NewDictionaryArray(f.typ.dt, idx, dict), nil
}

// encodingErr marks a value that the vocabulary allows but Arrow cannot hold (a width
// or length mismatch, an inexact decimal): the contract calls it malformed input.
func encodingErr(what string) error {
	return &canonical.Error{Code: canonical.CodeEncoding, Op: "vector value " + what}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// appendValue appends one JSON value of type t to b.
func appendValue(b array.Builder, t *typeSpec, raw json.RawMessage) error {
	if isNull(raw) {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		var v bool
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("bool value: %w", err)
		}
		bb.Append(v)
	case *array.Int8Builder:
		v, err := parseInt(raw, 8, true)
		bb.Append(int8(v))
		return err
	case *array.Int16Builder:
		v, err := parseInt(raw, 16, true)
		bb.Append(int16(v))
		return err
	case *array.Int32Builder:
		v, err := parseInt(raw, 32, true)
		bb.Append(int32(v))
		return err
	case *array.Int64Builder:
		v, err := parseInt(raw, 64, true)
		bb.Append(v)
		return err
	case *array.Uint8Builder:
		v, err := parseInt(raw, 8, false)
		bb.Append(uint8(v))
		return err
	case *array.Uint16Builder:
		v, err := parseInt(raw, 16, false)
		bb.Append(uint16(v))
		return err
	case *array.Uint32Builder:
		v, err := parseInt(raw, 32, false)
		bb.Append(uint32(v))
		return err
	case *array.Uint64Builder:
		v, err := parseUint64(raw)
		bb.Append(v)
		return err
	case *array.Date32Builder:
		v, err := parseInt(raw, 32, true)
		bb.Append(arrow.Date32(v))
		return err
	case *array.Date64Builder:
		v, err := parseInt(raw, 64, true)
		bb.Append(arrow.Date64(v))
		return err
	case *array.Time32Builder:
		v, err := parseInt(raw, 32, true)
		bb.Append(arrow.Time32(v))
		return err
	case *array.Time64Builder:
		v, err := parseInt(raw, 64, true)
		bb.Append(arrow.Time64(v))
		return err
	case *array.TimestampBuilder:
		v, err := parseInt(raw, 64, true)
		bb.Append(arrow.Timestamp(v))
		return err
	case *array.DurationBuilder:
		v, err := parseInt(raw, 64, true)
		bb.Append(arrow.Duration(v))
		return err
	case *array.MonthIntervalBuilder:
		v, err := parseInt(raw, 32, true)
		bb.Append(arrow.MonthInterval(v))
		return err
	case *array.DayTimeIntervalBuilder:
		var parts []json.RawMessage
		if err := unmarshalNumber(raw, &parts); err != nil || len(parts) != 2 {
			return fmt.Errorf("day_time interval needs [days, milliseconds]")
		}
		d, err1 := parseInt(parts[0], 32, true)
		ms, err2 := parseInt(parts[1], 32, true)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("day_time interval component")
		}
		bb.Append(arrow.DayTimeInterval{Days: int32(d), Milliseconds: int32(ms)})
	case *array.MonthDayNanoIntervalBuilder:
		var parts []json.RawMessage
		if err := unmarshalNumber(raw, &parts); err != nil || len(parts) != 3 {
			return fmt.Errorf("month_day_nano interval needs [months, days, nanoseconds]")
		}
		m, err1 := parseInt(parts[0], 32, true)
		d, err2 := parseInt(parts[1], 32, true)
		ns, err3 := parseInt(parts[2], 64, true)
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Errorf("month_day_nano interval component")
		}
		bb.Append(arrow.MonthDayNanoInterval{Months: int32(m), Days: int32(d), Nanoseconds: ns})
	case *array.Float16Builder:
		bits, err := parseFloat(raw, 16)
		bb.Append(float16.FromBits(uint16(bits)))
		return err
	case *array.Float32Builder:
		bits, err := parseFloat(raw, 32)
		bb.Append(math.Float32frombits(uint32(bits)))
		return err
	case *array.Float64Builder:
		bits, err := parseFloat(raw, 64)
		bb.Append(math.Float64frombits(bits))
		return err
	case *array.StringBuilder:
		s, err := parseText(raw)
		if err != nil {
			return err
		}
		bb.Append(s)
	case *array.LargeStringBuilder:
		s, err := parseText(raw)
		if err != nil {
			return err
		}
		bb.Append(s)
	case *array.BinaryBuilder: // binary and large_binary
		v, err := parseHex(raw)
		if err != nil {
			return err
		}
		bb.Append(v)
	case *array.FixedSizeBinaryBuilder:
		v, err := parseFixedBinary(raw, t.width)
		if err != nil {
			return err
		}
		bb.Append(v)
	case *array.Decimal128Builder:
		n, err := parseDecimal(raw, t.scale, 128)
		if err != nil {
			return err
		}
		bb.Append(decimal128.FromBigInt(n))
	case *array.Decimal256Builder:
		n, err := parseDecimal(raw, t.scale, 256)
		if err != nil {
			return err
		}
		bb.Append(decimal256.FromBigInt(n))
	case *array.MapBuilder: // before ListBuilder-like cases
		var pairs [][]json.RawMessage
		if err := unmarshalNumber(raw, &pairs); err != nil {
			return fmt.Errorf("map value must be an array of [key, value] pairs")
		}
		bb.Append(true)
		for _, p := range pairs {
			if len(p) != 2 {
				return fmt.Errorf("map entry needs [key, value]")
			}
			if isNull(p[0]) {
				// arrow-go cannot hold a null map key (it panics building the array), so
				// the contract's nullability rule for map keys is reported here.
				return &canonical.Error{Code: canonical.CodeNullability, Op: "vector value map key"}
			}
			if err := appendValue(bb.KeyBuilder(), t.key, p[0]); err != nil {
				return err
			}
			if isNull(p[1]) && !bb.Type().(*arrow.MapType).ItemField().Nullable {
				// Likewise arrow-go cannot hold a null in a non-nullable map value.
				return &canonical.Error{Code: canonical.CodeNullability, Op: "vector value map value"}
			}
			if err := appendValue(bb.ItemBuilder(), t.value, p[1]); err != nil {
				return err
			}
		}
	case *array.ListBuilder:
		return appendList(raw, func() { bb.Append(true) }, bb.ValueBuilder(), t, -1)
	case *array.LargeListBuilder:
		return appendList(raw, func() { bb.Append(true) }, bb.ValueBuilder(), t, -1)
	case *array.FixedSizeListBuilder:
		return appendList(raw, func() { bb.Append(true) }, bb.ValueBuilder(), t, t.size)
	case *array.StructBuilder:
		var vals []json.RawMessage
		if err := unmarshalNumber(raw, &vals); err != nil {
			return fmt.Errorf("struct value must be an array of child values")
		}
		if len(vals) != len(t.fields) {
			return fmt.Errorf("struct value has %d children, type has %d", len(vals), len(t.fields))
		}
		bb.Append(true)
		for j, v := range vals {
			if err := appendValue(bb.FieldBuilder(j), t.fields[j].typ, v); err != nil {
				return err
			}
		}
	case *array.ExtensionBuilder:
		return appendValue(bb.StorageBuilder(), t.store, raw)
	default:
		return fmt.Errorf("values of type %s cannot be built (only null)", t.dt)
	}
	return nil
}

func appendList(raw json.RawMessage, open func(), vb array.Builder, t *typeSpec, size int) error {
	var vals []json.RawMessage
	if err := unmarshalNumber(raw, &vals); err != nil {
		return fmt.Errorf("list value must be an array")
	}
	if size >= 0 && len(vals) != size {
		return encodingErr("fixed-size list length")
	}
	open()
	for _, v := range vals {
		if err := appendValue(vb, t.item.typ, v); err != nil {
			return err
		}
	}
	return nil
}

// parseBigInt reads a JSON integer or a decimal string of an integer.
func parseBigInt(raw json.RawMessage) (*big.Int, error) {
	s := string(bytes.TrimSpace(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
	}
	if s == "" || len(s) > 100 {
		return nil, fmt.Errorf("integer value")
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil, fmt.Errorf("integer value must be a JSON integer or a decimal string")
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("integer value")
	}
	return n, nil
}

func parseInt(raw json.RawMessage, bits int, signed bool) (int64, error) {
	n, err := parseBigInt(raw)
	if err != nil {
		return 0, err
	}
	var lo, hi *big.Int
	if signed {
		lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)))
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)), big.NewInt(1))
	} else {
		lo = big.NewInt(0)
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
	}
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return 0, fmt.Errorf("integer out of range for %d bits", bits)
	}
	if !signed {
		return int64(n.Uint64()), nil
	}
	return n.Int64(), nil
}

func parseUint64(raw json.RawMessage) (uint64, error) {
	n, err := parseBigInt(raw)
	if err != nil {
		return 0, err
	}
	if n.Sign() < 0 || n.BitLen() > 64 {
		return 0, fmt.Errorf("integer out of range for uint64")
	}
	return n.Uint64(), nil
}

// parseFloat returns the IEEE bits of "bits:<hex>" or of an exactly representable number.
func parseFloat(raw json.RawMessage, width int) (uint64, error) {
	s := string(bytes.TrimSpace(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		h, ok := strings.CutPrefix(s, "bits:")
		if !ok || len(h) != width/4 {
			return 0, fmt.Errorf("float%d value must be bits:<%d hex digits>", width, width/4)
		}
		return strconv.ParseUint(h, 16, width)
	}
	if len(s) > 64 {
		return 0, fmt.Errorf("float literal too long")
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 400 || e < -400 {
			return 0, fmt.Errorf("float literal exponent")
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("float literal: %w", err)
	}
	want, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("float literal")
	}
	var bits uint64
	var back float64
	switch width {
	case 16:
		h := float16.New(float32(f))
		bits, back = uint64(h.Uint16()), float64(h.Float32())
		if math.Signbit(f) {
			bits |= 0x8000
		}
	case 32:
		bits, back = uint64(math.Float32bits(float32(f))), float64(float32(f))
	default:
		bits, back = math.Float64bits(f), f
	}
	if math.IsInf(back, 0) || new(big.Rat).SetFloat64(back).Cmp(want) != 0 {
		return 0, fmt.Errorf("float literal not exactly representable in float%d", width)
	}
	return bits, nil
}

func parseHex(raw json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("binary value must be \"hex:<hex>\"")
	}
	h, ok := strings.CutPrefix(s, "hex:")
	if !ok {
		return nil, fmt.Errorf("binary value must be \"hex:<hex>\"")
	}
	return hex.DecodeString(h)
}

func parseFixedBinary(raw json.RawMessage, width int) ([]byte, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("fixed-size binary value must be a string")
	}
	if !strings.HasPrefix(s, "hex:") {
		if width != 16 {
			return nil, fmt.Errorf("fixed-size binary value must be \"hex:<hex>\"")
		}
		u, err := canonical.ParseUUID(s)
		if err != nil {
			return nil, err
		}
		return u[:], nil
	}
	v, err := parseHex(raw)
	if err != nil {
		return nil, err
	}
	if len(v) != width {
		return nil, encodingErr("fixed-size binary width")
	}
	return v, nil
}

// parseDecimal reads a decimal string and returns value × 10^scale, which must be an
// integer that fits the two's-complement width. Precision is checked by the encoder, on
// the real Arrow array, not here.
func parseDecimal(raw json.RawMessage, scale int32, bits int) (*big.Int, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decimal value must be a decimal string")
	}
	if len(s) > 200 {
		return nil, encodingErr("decimal length")
	}
	mant, exp := s, int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil || e > 1000 || e < -1000 {
			return nil, fmt.Errorf("decimal exponent")
		}
		mant, exp = s[:i], e
	}
	neg := false
	if m, ok := strings.CutPrefix(mant, "-"); ok {
		neg, mant = true, m
	} else if m, ok := strings.CutPrefix(mant, "+"); ok {
		mant = m
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil, fmt.Errorf("decimal value syntax")
	}
	exp -= int64(len(frac))
	coef, _ := new(big.Int).SetString(digits, 10)
	shift := exp + int64(scale)
	ten := big.NewInt(10)
	if shift >= 0 {
		coef.Mul(coef, new(big.Int).Exp(ten, big.NewInt(shift), nil))
	} else {
		q, r := new(big.Int).QuoRem(coef, new(big.Int).Exp(ten, big.NewInt(-shift), nil), new(big.Int))
		if r.Sign() != 0 {
			return nil, encodingErr("decimal scale")
		}
		coef = q
	}
	if neg {
		coef.Neg(coef)
	}
	lim := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	if coef.Cmp(lim) >= 0 || coef.Cmp(new(big.Int).Neg(lim)) < 0 {
		return nil, encodingErr("decimal width")
	}
	return coef, nil
}
