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

// v2Schema is testSchema plus the extension 1 types and a second int field: every value
// type of C2 and extension 1. Fields in ascending id order, as records frame them.
var v2Schema = SchemaDescriptor{
	RenamePolicy: RenameKeepsIdentity,
	Fields: slices.SortedFunc(slices.Values(append(slices.Clone(testSchema.Fields),
		SchemaField{ID: 12, Name: "day", Type: TypeDate},
		SchemaField{ID: 13, Name: "clock", Type: TypeTime},
		SchemaField{ID: 14, Name: "took", Type: TypeDuration},
		SchemaField{ID: 15, Name: "tags", Type: TypeNested},
		SchemaField{ID: 16, Name: "qty", Type: TypeInt},
	)), func(a, b SchemaField) int { return cmpU64(a.ID, b.ID) }),
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
	return refResult(c, recs, offset, keys, refDigests{
		record: func(positional bool, pos uint64, r []uint64) Digest { return refRecordDigest(c, positional, pos, r) },
		value:  func(pos uint64, fr []uint64) Digest { return refValueDigest(c, pos, fr) },
	})
}

// randRecordV2 returns a random record of v2Schema (every type, extension types too).
func randRecordV2(r *rand.Rand) []uint64 { return randRecordIn(r, v2Schema, true) }
