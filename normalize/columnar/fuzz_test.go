package columnar_test

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

// reader hands out fuzz bytes, zeros once they run out.
type reader struct{ b []byte }

func (r *reader) bytes(n int) []byte {
	out := make([]byte, n)
	k := copy(out, r.b)
	r.b = r.b[k:]
	return out
}
func (r *reader) u8() byte    { return r.bytes(1)[0] }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }

// FuzzColumnar builds int64, uint32, float64, float32 and string columns (the strings
// may be invalid UTF-8) from the fuzz bytes, with nulls and a slice offset, and checks
// that the columnar encoder never panics and agrees with the scalar record encoder:
// the same words, or the same error code at the first bad row.
func FuzzColumnar(f *testing.F) {
	f.Add([]byte{0, 3, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 'a', 'b'})
	f.Add([]byte{1, 5, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x01, 0x00, 0x80, 0x7f, 2, 'e', 0xcc, 0x81})
	f.Add([]byte{2, 2, 0x55, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 1, 0, 0, 0x80, 0x7f, 3, 0xed, 0xa0, 0x80})
	f.Add([]byte{3, 9, 0xaa, 0xc0, 0xaf, 0xe0, 0x80, 0xbf, 0xf4, 0x90, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		r := &reader{b: data}
		p := allProfiles[int(r.u8())%len(allProfiles)]
		rows := int(r.u8()) % 24
		pre := int(r.u8()) % 3
		total := pre + rows
		ib, ub := array.NewInt64Builder(mem), array.NewUint32Builder(mem)
		fb, gb := array.NewFloat64Builder(mem), array.NewFloat32Builder(mem)
		sb := array.NewStringBuilder(mem)
		scalars := make([][]normalize.Field, total)
		for i := range total {
			nulls := r.u8()
			var fs []normalize.Field
			add := func(id normalize.FieldID, null bool, b interface{ AppendNull() }, appendValue func() normalize.Value) {
				if null {
					b.AppendNull()
					fs = append(fs, normalize.Field{ID: id, Value: normalize.Nil})
					return
				}
				fs = append(fs, normalize.Field{ID: id, Value: appendValue()})
			}
			add(4, nulls&1 != 0, ib, func() normalize.Value { x := int64(r.u64()); ib.Append(x); return normalize.Int(x) })
			add(1, nulls&2 != 0, ub, func() normalize.Value {
				x := binary.LittleEndian.Uint32(r.bytes(4))
				ub.Append(x)
				return normalize.Uint(uint64(x))
			})
			add(9, nulls&4 != 0, fb, func() normalize.Value {
				x := r.u64()
				fb.Append(math.Float64frombits(x))
				return normalize.FloatValue{Bits: x}
			})
			add(2, nulls&8 != 0, gb, func() normalize.Value {
				x := binary.LittleEndian.Uint32(r.bytes(4))
				gb.Append(math.Float32frombits(x))
				return normalize.FloatValue{Bits: ref32(x)}
			})
			add(7, nulls&16 != 0, sb, func() normalize.Value {
				s := string(r.bytes(int(r.u8()) % 20))
				sb.Append(s)
				return normalize.TextValue(s)
			})
			scalars[i] = fs
		}
		schema := arrow.NewSchema([]arrow.Field{
			field("i", arrow.PrimitiveTypes.Int64), field("u", arrow.PrimitiveTypes.Uint32),
			field("f", arrow.PrimitiveTypes.Float64), field("g", arrow.PrimitiveTypes.Float32),
			field("s", arrow.BinaryTypes.String),
		}, nil)
		cols := []arrow.Array{ib.NewArray(), ub.NewArray(), fb.NewArray(), gb.NewArray(), sb.NewArray()}
		for k := range cols {
			cols[k] = array.NewSlice(cols[k], int64(pre), int64(total))
		}
		rec := array.NewRecordBatch(schema, cols, int64(rows))
		enc, err := columnar.NewEncoder(schema, []columnar.Column{
			{Name: "i", Field: 4}, {Name: "u", Field: 1}, {Name: "f", Field: 9}, {Name: "g", Field: 2}, {Name: "s", Field: 7},
		}, p)
		if err != nil {
			t.Fatal(err)
		}
		var got normalize.RecordBatch
		gerr := enc.Append(&got, rec)

		var want [][]uint64
		badRow, badCode := -1, normalize.Code("")
		for i := pre; i < total; i++ {
			w, err := normalize.EncodeRecord(scalars[i], p)
			if err != nil {
				badRow, badCode = i-pre, normalize.CodeOf(err)
				break
			}
			want = append(want, w)
		}
		if badRow >= 0 {
			var ce *columnar.Error
			if gerr == nil || normalize.CodeOf(gerr) != badCode || !asError(gerr, &ce) || ce.Row != badRow {
				t.Fatalf("scalar fails at row %d with %s; columnar: %v", badRow, badCode, gerr)
			}
			if got.Len() != 0 || len(got.Words) != 0 {
				t.Fatal("batch changed on error")
			}
			return
		}
		if gerr != nil {
			t.Fatalf("columnar: %v", gerr)
		}
		if got.Len() != rows {
			t.Fatalf("%d records, want %d", got.Len(), rows)
		}
		for i, w := range want {
			if !slices.Equal(got.Record(i), w) {
				t.Fatalf("row %d:\n got  %v\n want %v", i, got.Record(i), w)
			}
		}
	})
}

// FuzzDecimalText builds a decimal text column of arbitrary strings (with nulls and a
// slice offset) and checks that the encoder never panics and agrees with the scalar
// encoder over normalize.ParseDecimal's value of each string: the same words, or
// PW_NORM_DECIMAL at the first row the scalar side cannot parse or encode.
func FuzzDecimalText(f *testing.F) {
	for _, s := range []string{"1.50\x002.5\x00\x00-0.0", "1e3\x001E-2\x0012345678901234567890123.5", "NaN12\x00-inf\x00+.5\x005.",
		"1.0E-18446744073709551615\x001", "1_0\x00 1\x00١\x00", "0e99999999999999999999\x00-0.000e-18446744073709551614"} {
		f.Add(uint8(0), uint8(1), s)
		f.Add(uint8(1), uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, prof, pre uint8, data string) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		p := allProfiles[int(prof)%len(allProfiles)]
		texts := strings.Split(data, "\x00") // "" is a null
		if len(texts) > 64 {
			texts = texts[:64]
		}
		skip := min(int(pre)%3, len(texts))
		arr := array.NewSlice(decText(texts...), int64(skip), int64(len(texts)))
		schema := arrow.NewSchema([]arrow.Field{field("d", decimaltext.New())}, nil)
		enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "d", Field: 3}}, p)
		if err != nil {
			t.Fatal(err)
		}
		var got normalize.RecordBatch
		gerr := enc.Append(&got, array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len())))
		var want [][]uint64
		badRow := -1
		for r, s := range texts[skip:] {
			var v normalize.Value = normalize.Nil
			err := error(nil)
			if s != "" {
				var d normalize.DecimalValue
				if d, err = normalize.ParseDecimal(s); err == nil {
					v = d
				}
			}
			var w []uint64
			if err == nil {
				w, err = normalize.EncodeRecord([]normalize.Field{{ID: 3, Value: v}}, p)
			}
			if err != nil {
				if normalize.CodeOf(err) != normalize.CodeDecimal {
					t.Fatalf("row %d (%q): scalar %v", r, s, err)
				}
				badRow = r
				break
			}
			want = append(want, w)
		}
		if badRow >= 0 {
			var ce *columnar.Error
			if !asError(gerr, &ce) || ce.Err.Code != normalize.CodeDecimal || ce.Row != badRow {
				t.Fatalf("scalar fails at row %d; columnar: %v", badRow, gerr)
			}
			if got.Len() != 0 {
				t.Fatal("batch changed on error")
			}
			return
		}
		if gerr != nil {
			t.Fatalf("columnar: %v, scalar encodes every row", gerr)
		}
		for r, w := range want {
			if !slices.Equal(got.Record(r), w) {
				t.Fatalf("row %d:\n got  %v\n want %v", r, got.Record(r), w)
			}
		}
	})
}
