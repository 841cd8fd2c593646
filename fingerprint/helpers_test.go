package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"iter"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/zeebo/xxh3"
)

// strictID is the C2 strict-v1 profile identity, computed here from the formula of
// docs/contracts/typed-values-json.md, not by any package under test.
var strictID = func() string {
	sum := sha256.Sum256([]byte(`{"domain":"pipewhy.normalization","profile":"strict-v1","wire_version":1}`))
	return "pipewhy.normalization/strict-v1/wire-1/sha256:" + hex.EncodeToString(sum[:])
}()

// otherProfileID is a well-formed identity of another profile (for foreign-profile tests).
var otherProfileID = func() string {
	sum := sha256.Sum256([]byte(`{"domain":"pipewhy.normalization","profile":"logical-v1","unicode_version":"15.0.0","wire_version":1}`))
	return "pipewhy.normalization/logical-v1/wire-1/unicode-15.0.0/sha256:" + hex.EncodeToString(sum[:])
}()

// testSchema covers every value type; field ids are sparse on purpose.
var testSchema = SchemaDescriptor{
	RenamePolicy: RenameKeepsIdentity,
	Fields: []SchemaField{
		{ID: 1, Name: "id", Type: TypeInt, Source: "parquet:int64"},
		{ID: 2, Name: "flag", Type: TypeBool},
		{ID: 5, Name: "ratio", Type: TypeFloat64},
		{ID: 7, Name: "name", Type: TypeText},
		{ID: 8, Name: "blob", Type: TypeBytes},
		{ID: 10, Name: "amount", Type: TypeDecimal},
		{ID: 11, Name: "at", Type: TypeTimestamp},
		{ID: 40, Name: "json", Type: TypeAny},
	},
}

func mustContext(t testing.TB, alg Algorithm, mode Mode) Context {
	t.Helper()
	c, err := NewContext(alg, strictID, testSchema, mode)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rec frames fields ([id, tag, n, payload...] each, ids ascending) as a C2 record.
func rec(frames ...[]uint64) []uint64 {
	w := []uint64{1, 2, uint64(len(frames))}
	for _, f := range frames {
		w = append(w, f...)
	}
	return w
}

func frame(id uint64, tag normalize.TypeCode, payload ...uint64) []uint64 {
	return append([]uint64{id, uint64(tag), uint64(len(payload))}, payload...)
}

// packed returns the C2 text/bytes payload of b: [len, packed little-endian words].
func packed(b []byte) []uint64 {
	w := []uint64{uint64(len(b))}
	for i := 0; i < len(b); i += 8 {
		var x [8]byte
		copy(x[:], b[i:])
		w = append(w, binary.LittleEndian.Uint64(x[:]))
	}
	return w
}

func randBytes(r *rand.Rand, max int) []byte {
	b := make([]byte, r.IntN(max+1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// randValue returns a random frame for field f, of a type its schema type admits
// (under an extension profile when ext; "any" fields then take the extension types too),
// sometimes MISSING or NULL, with a structurally valid C2 payload. Values come from small
// domains often, so that equal values and records recur, and text and bytes lengths hit
// the word boundaries and the in-place hashing limits.
func randValue(r *rand.Rand, f SchemaField, ext bool) []uint64 {
	if r.IntN(8) == 0 {
		return frame(f.ID, normalize.TypeCode(r.IntN(2)))
	}
	t := f.Type
	if t == TypeAny {
		types := []ValueType{TypeBool, TypeInt, TypeFloat64, TypeText, TypeBytes, TypeDecimal, TypeTimestamp,
			TypeDate, TypeTime, TypeDuration, TypeNested}
		if !ext {
			types = types[:7]
		}
		t = types[r.IntN(len(types))]
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
		if ext && r.IntN(3) == 0 {
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

// randRecordIn returns a random record over a random subset of schema's fields, always
// with field 1 (the key field of the tests).
func randRecordIn(r *rand.Rand, schema SchemaDescriptor, ext bool) []uint64 {
	var frames [][]uint64
	for _, f := range schema.Fields {
		if f.ID == 1 {
			frames = append(frames, frame(1, normalize.Uint64, uint64(r.IntN(50))))
			continue
		}
		if r.IntN(4) > 0 {
			frames = append(frames, randValue(r, f, ext))
		}
	}
	return rec(frames...)
}

// randRecord returns a random record of testSchema (C2 v1 types).
func randRecord(r *rand.Rand) []uint64 { return randRecordIn(r, testSchema, false) }

// batchOf packs records into a batch with a shuffled pool and unused words between
// records, so physical pool order differs from logical order.
func batchOf(r *rand.Rand, profile string, recs [][]uint64) *normalize.RecordBatch {
	b := &normalize.RecordBatch{ProfileID: profile}
	order := r.Perm(len(recs))
	offs := make([]uint64, len(recs))
	for _, i := range order {
		if r.IntN(3) == 0 {
			b.Words = append(b.Words, r.Uint64()) // unused pool word
		}
		offs[i] = uint64(len(b.Words))
		b.Words = append(b.Words, recs[i]...)
	}
	for i, rw := range recs {
		b.Offsets = append(b.Offsets, offs[i])
		b.Lengths = append(b.Lengths, uint64(len(rw)))
	}
	return b
}

func seqOf(bs ...*normalize.RecordBatch) iter.Seq2[*normalize.RecordBatch, error] {
	return func(yield func(*normalize.RecordBatch, error) bool) {
		for _, b := range bs {
			if !yield(b, nil) {
				return
			}
		}
	}
}

// refDigest is an independent reference of the contract's digest: it assembles the
// message with encoding/binary and calls xxh3 / crypto/sha256 directly.
func refDigest(c Context, alg Algorithm, positional bool, pos uint64, words []uint64) Digest {
	key := c.Key()
	msg := append([]byte(nil), key[:]...)
	if positional {
		msg = binary.LittleEndian.AppendUint64(msg, pos)
	}
	for _, w := range words {
		msg = binary.LittleEndian.AppendUint64(msg, w)
	}
	switch alg {
	case XXH3:
		h := xxh3.Hash128(msg)
		return Digest{Lo: h.Lo, Hi: h.Hi}
	case SHA256:
		s := sha256.Sum256(msg)
		return Digest{Lo: binary.LittleEndian.Uint64(s[:8]), Hi: binary.LittleEndian.Uint64(s[8:16])}
	}
	panic("alg")
}

// requireTool returns the path of an external tool, or skips (fails under
// PIPEWHY_REQUIRE_TOOLS=1, as CI sets it).
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		testenv.Missing(t, testenv.Tools, "%s not installed (Debian package xxhash); the independent XXH3 cross-check needs it: %v", name, err)
	}
	return p
}

// randomKeyed returns a random context key, n random words and XXH3-128 of the message
// key ‖ words built with putWords and hashed by zeebo/xxh3 (the reference the in-place
// kernels must equal).
func randomKeyed(rng *rand.Rand, n int) (key [keySize]byte, words []uint64, want xxh3.Uint128) {
	for i := range key {
		key[i] = byte(rng.Uint32())
	}
	words = make([]uint64, n)
	for i := range words {
		words[i] = rng.Uint64()
	}
	msg := append(key[:], make([]byte, 8*n)...)
	putWords(msg[keySize:], words)
	return key, words, xxh3.Hash128(msg)
}
