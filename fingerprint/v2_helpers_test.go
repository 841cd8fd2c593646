package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/pipewhy/pipewhy/normalize"
)

// v2Schema covers every value type of C2 and extension 1; ids are sparse on purpose.
var v2Schema = SchemaDescriptor{
	RenamePolicy: RenameKeepsIdentity,
	Fields: []SchemaField{
		{ID: 1, Name: "id", Type: TypeInt},
		{ID: 2, Name: "flag", Type: TypeBool},
		{ID: 5, Name: "ratio", Type: TypeFloat64},
		{ID: 7, Name: "name", Type: TypeText},
		{ID: 8, Name: "blob", Type: TypeBytes},
		{ID: 10, Name: "amount", Type: TypeDecimal},
		{ID: 11, Name: "at", Type: TypeTimestamp},
		{ID: 12, Name: "day", Type: TypeDate},
		{ID: 13, Name: "clock", Type: TypeTime},
		{ID: 14, Name: "took", Type: TypeDuration},
		{ID: 15, Name: "tags", Type: TypeNested},
		{ID: 16, Name: "qty", Type: TypeInt},
		{ID: 40, Name: "json", Type: TypeAny},
	},
}

var ext1ID = normalize.StrictV1Ext1.ID()

func v2Context(t testing.TB, mode Mode) Context {
	t.Helper()
	c, err := NewContext(XXH3Columnar, ext1ID, v2Schema, mode)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The reference of contract §13, written from its text: keys derived with crypto/sha256,
// messages assembled with encoding/binary, hashed with zeebo/xxh3. It shares no code with
// v2.go or columnar.go.

type refKeys struct{ field, record, value []byte }

func refV2Keys(c Context) refKeys {
	k := c.Key()
	d := func(label string) []byte {
		s := sha256.Sum256(append(k[:], label...))
		return s[:]
	}
	return refKeys{d("pipewhy.fingerprint.v2/field"), d("pipewhy.fingerprint.v2/record"), d("pipewhy.fingerprint.v2/value")}
}

func refHash(key []byte, words ...uint64) Digest {
	msg := slices.Clone(key)
	for _, w := range words {
		msg = binary.LittleEndian.AppendUint64(msg, w)
	}
	h := xxh3.Hash128(msg)
	return Digest{Lo: h.Lo, Hi: h.Hi}
}

// refFrames splits a valid record into its frames.
func refFrames(rec []uint64) [][]uint64 {
	var fs [][]uint64
	for p := 3; p < len(rec); p += 3 + int(rec[p+2]) {
		fs = append(fs, rec[p:p+3+int(rec[p+2])])
	}
	return fs
}

func refField(c Context, frame []uint64) Digest { return refHash(refV2Keys(c).field, frame...) }

// refRecordDigest: H(K_R ‖ [position] ‖ FD(F_1) ‖ ... ‖ FD(F_m)).
func refRecordDigest(c Context, positional bool, pos uint64, rec []uint64) Digest {
	var w []uint64
	if positional {
		w = append(w, pos)
	}
	for _, f := range refFrames(rec) {
		d := refField(c, f)
		w = append(w, d.Lo, d.Hi)
	}
	return refHash(refV2Keys(c).record, w...)
}

func refValueDigest(c Context, pos uint64, frame []uint64) Digest {
	d := refField(c, frame)
	if c.Mode() != Ordered {
		return d
	}
	return refHash(refV2Keys(c).value, pos, d.Lo, d.Hi)
}

// refV2Result is the expected engine Result of records at positions offset, offset+1, ...
func refV2Result(c Context, recs [][]uint64, offset uint64, keys []uint64) *Result {
	ordered := c.Mode() == Ordered
	res := &Result{State: NewState(c)}
	cols := map[uint64]*State{}
	for _, f := range c.Schema().Fields {
		s := NewState(c)
		cols[f.ID] = &s
	}
	type ent struct{ words, vals []uint64 }
	var ents []ent
	for i, r := range recs {
		pos := offset + uint64(i)
		d := refRecordDigest(c, ordered, pos, r)
		res.State.Add(d)
		var vals []uint64
		proj := []uint64{1, 2, uint64(len(keys))}
		for _, fr := range refFrames(r) {
			v := refValueDigest(c, pos, fr)
			cols[fr[0]].Add(v)
			vals = append(vals, fr[0], v.Lo, v.Hi)
			if slices.Contains(keys, fr[0]) {
				proj = append(proj, fr...)
			}
		}
		if len(keys) == 0 {
			proj = r
		}
		k := refRecordDigest(c, false, 0, proj)
		ents = append(ents, ent{[]uint64{k.Lo, k.Hi, d.Lo, d.Hi}, vals})
	}
	slices.SortFunc(ents, func(a, b ent) int { return slices.Compare(a.words, b.words) })
	res.ValueOffsets = []uint64{0}
	for _, e := range ents {
		res.Records = append(res.Records, e.words...)
		res.Values = append(res.Values, e.vals...)
		res.ValueOffsets = append(res.ValueOffsets, uint64(len(res.Values)/ValueStride))
	}
	for _, f := range c.Schema().Fields {
		res.Columns = append(res.Columns, ColumnState{Field: f.ID, State: *cols[f.ID]})
	}
	return res
}

// randFrameV2 returns a random frame for field f of a type its schema type admits under
// an extension profile, sometimes MISSING or NULL, with a structurally valid payload.
// Values come from small domains often, so that equal values and records recur.
func randFrameV2(r *rand.Rand, f SchemaField) []uint64 {
	if r.IntN(8) == 0 {
		return frame(f.ID, normalize.TypeCode(r.IntN(2)))
	}
	t := f.Type
	if t == TypeAny {
		t = []ValueType{TypeBool, TypeInt, TypeFloat64, TypeText, TypeBytes, TypeDecimal, TypeTimestamp,
			TypeDate, TypeTime, TypeDuration, TypeNested}[r.IntN(11)]
	}
	small := func() uint64 { return uint64(r.IntN(3)) }
	word := func() uint64 {
		switch r.IntN(4) {
		case 0:
			return small()
		case 1:
			return -small()
		}
		return r.Uint64()
	}
	switch t {
	case TypeBool:
		return frame(f.ID, normalize.Bool, small()&1)
	case TypeInt:
		w := word()
		if int64(w) < 0 {
			return frame(f.ID, normalize.Int64, w)
		}
		return frame(f.ID, normalize.Uint64, w)
	case TypeFloat64:
		return frame(f.ID, normalize.Float64, word())
	case TypeText, TypeBytes:
		code := normalize.Text
		if t == TypeBytes {
			code = normalize.Bytes
		}
		n := []int{0, 1, 7, 8, 9, 12, 16, 17, 175, 176, 177, 300}[r.IntN(12)]
		if r.IntN(2) == 0 {
			n = r.IntN(3)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(3)) // zero bytes included: the byte count must tell them apart
		}
		return frame(f.ID, code, packed(b)...)
	case TypeDecimal:
		cw := 1 + r.IntN(3)
		p := []uint64{small() & 1, small(), small() & 1, small(), uint64(1 + r.IntN(40)), uint64(cw)}
		for range cw {
			p = append(p, word())
		}
		return frame(f.ID, normalize.Decimal, p...)
	case TypeTimestamp:
		code := normalize.Timestamp
		if r.IntN(3) == 0 {
			code = normalize.TimestampNS
		}
		p := []uint64{uint64(1 + r.IntN(9999)), uint64(1 + r.IntN(12)), uint64(1 + r.IntN(28)), small(), small(), small(),
			uint64(r.IntN(1000)), small() & 1, small(), word()}
		return frame(f.ID, code, append(p, packed([]byte("Europe/Berlin"[:r.IntN(14)]))...)...)
	case TypeDate:
		return frame(f.ID, normalize.Date, word())
	case TypeTime:
		return frame(f.ID, normalize.Time, small()*1e9)
	case TypeDuration:
		return frame(f.ID, normalize.Duration, word(), word())
	case TypeNested:
		tb, vb := []byte("GFS1"), []byte{1}
		for range r.IntN(20) {
			vb = append(vb, byte(r.IntN(3)))
		}
		return frame(f.ID, normalize.Nested, append(packed(tb), packed(vb)...)...)
	}
	panic("bad type")
}

// randRecordV2 returns a random record over a random subset of v2Schema's fields, always
// with field 1 (the key field of the tests).
func randRecordV2(r *rand.Rand) []uint64 {
	var frames [][]uint64
	for _, f := range v2Schema.Fields {
		if f.ID == 1 {
			frames = append(frames, frame(1, normalize.Uint64, uint64(r.IntN(20))))
			continue
		}
		if r.IntN(4) > 0 {
			frames = append(frames, randFrameV2(r, f))
		}
	}
	return rec(frames...)
}
