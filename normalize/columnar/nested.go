package columnar

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/canonical"
	"github.com/pipewhy/pipewhy/normalize"
)

// nested encodes one list, struct or map column as NESTED values: the
// graphforge-canonical/1 schema bytes of a one-field schema (field "", nullable, the
// column's type) and, per row, the field's canonical logical value bytes (presence
// byte included). canonical exposes table bytes, not single values, so each value is
// encoded as a one-row table and the table header ("GFT1", u64 schema length, schema,
// u64 row count) is cut off: by the table grammar what remains is exactly the row's
// value bytes.
type nested struct {
	schema    *arrow.Schema
	enc       *canonical.Encoder
	header    int      // table header length
	typeWords []uint64 // the schema bytes, packed: [byte_count, words...]
	one       []byte   // scratch: one row's table bytes
	arena     []byte   // this batch's value bytes, back to back
	span      [][2]int // per row: the value bytes in arena
}

func newNested(t arrow.DataType) (*nested, *Error) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "", Type: t, Nullable: true}}, nil)
	enc, err := canonical.NewEncoder(schema, nil)
	if err != nil {
		return nil, unsupported("nested type outside graphforge-canonical/1 (" + string(canonical.CodeOf(err)) + ")")
	}
	sb := enc.SchemaBytes()
	nb := &nested{schema: schema, enc: enc, header: 4 + 8 + len(sb) + 8}
	nb.typeWords = make([]uint64, 1+(len(sb)+7)/8)
	pack(nb.typeWords, string(sb))
	return nb, nil
}

// size encodes the value bytes of every non-null row into the arena and adds each
// row's payload length.
func (nb *nested) size(p *plan, n int, rw []int) *Error {
	v := &p.v
	nb.arena = nb.arena[:0]
	nb.span = grow(nb.span, n)
	for r := 0; r < n; r++ {
		j := v.phys(r)
		if j < 0 {
			continue
		}
		one := array.NewSlice(v.values, int64(j), int64(j+1))
		rec := array.NewRecordBatch(nb.schema, []arrow.Array{one}, 1)
		t, err := nb.enc.AppendTable(nb.one[:0], canonical.Records(rec))
		rec.Release()
		one.Release()
		if err != nil {
			return p.err(r, normalize.CodeInput, "nested value rejected by graphforge-canonical/1 ("+string(canonical.CodeOf(err))+")")
		}
		nb.one = t
		if len(t) <= nb.header || string(t[:4]) != "GFT1" ||
			binary.BigEndian.Uint64(t[nb.header-8:]) != 1 || t[nb.header] != 1 {
			return p.err(r, normalize.CodeInput, "unexpected canonical table bytes")
		}
		start := len(nb.arena)
		nb.arena = append(nb.arena, t[nb.header:]...)
		vl := len(nb.arena) - start
		nb.span[r] = [2]int{start, start + vl}
		rw[r] += len(nb.typeWords) + 1 + (vl+7)/8
	}
	return nil
}

// write writes the NESTED fields of rows lo..hi-1.
func (nb *nested) write(p *plan, v *view, pos []int, words []uint64, lo, hi int) {
	id := p.id
	for r := lo; r < hi; r++ {
		at := pos[r]
		if v.phys(r) < 0 {
			words[at], words[at+1], words[at+2] = id, tcNull, 0
			pos[r] = at + 3
			continue
		}
		w := words[at+3:]
		copy(w, nb.typeWords)
		s := nb.arena[nb.span[r][0]:nb.span[r][1]]
		k := len(nb.typeWords) + pack(w[len(nb.typeWords):], string(s))
		words[at], words[at+1], words[at+2] = id, tcNested, uint64(k)
		pos[r] = at + 3 + k
	}
}
