package fingerprint

import (
	"crypto/sha256"

	"github.com/zeebo/xxh3"

	"github.com/pipewhy/pipewhy/normalize"
)

// Algorithm XXH3Columnar (pipewhy.fingerprint/xxh3-128-columnar/v2), contract §13.
//
// Every digest is XXH3-128 (seed 0, default secret) of a message that begins with one of
// three 32-byte keys derived from the context key K:
//
//	K_F = SHA-256(K ‖ "pipewhy.fingerprint.v2/field")
//	K_R = SHA-256(K ‖ "pipewhy.fingerprint.v2/record")
//	K_V = SHA-256(K ‖ "pipewhy.fingerprint.v2/value")
//
//	field digest   FD(F)    = H(K_F ‖ F)                      F = one C2 field frame [id, type, n, payload...]
//	record digest  RD(R, p) = H(K_R ‖ [p] ‖ FD(F_1) ‖ … ‖ FD(F_m))   the record's frames in order; p in Ordered mode
//	value digest   VD(F, p) = FD(F) (Multiset), H(K_V ‖ p ‖ FD(F)) (Ordered)
//	key digest     KD(R)    = RD(R projected onto the key fields), never positional
//
// with words and positions as 8 little-endian bytes and a digest as Lo then Hi. A field
// digest is computed once per value and serves the record digest, the column state and
// value resolution; the record digest hashes 16 bytes a field however wide the field.
//
// This file is the scalar form, from C2 words; columnar.go computes the same field and
// record digests a column at a time from column buffers.

// The labels of the derived keys (contract §13.2). Fixed.
const (
	v2FieldLabel  = "pipewhy.fingerprint.v2/field"
	v2RecordLabel = "pipewhy.fingerprint.v2/record"
	v2ValueLabel  = "pipewhy.fingerprint.v2/value"
)

// v2Keys holds a context's three derived keys and the parts of XXH3's short-input mixing
// that depend only on them.
type v2Keys struct {
	kField, kRecord, kValue [keySize]byte
	sField, sRecord, sValue keyedShort
}

func newV2Keys(c Context) *v2Keys {
	k := c.Key()
	derive := func(label string) [keySize]byte {
		return sha256.Sum256(append(k[:], label...))
	}
	ks := &v2Keys{kField: derive(v2FieldLabel), kRecord: derive(v2RecordLabel), kValue: derive(v2ValueLabel)}
	ks.sField = newKeyedShort(&ks.kField)
	ks.sRecord = newKeyedShort(&ks.kRecord)
	ks.sValue = newKeyedShort(&ks.kValue)
	return ks
}

// v2Hasher computes v2 digests from C2 words. It reuses its scratch buffers and, once
// they have grown to the widest record, allocates nothing. Not safe for concurrent use.
type v2Hasher struct {
	*v2Keys
	ordered bool
	fds     []uint64 // [position?, FD(F_1).Lo, FD(F_1).Hi, ...]: the record message after K_R
	buf     []byte   // messages outside the in-place paths
}

func newV2Hasher(c Context) *v2Hasher {
	return &v2Hasher{v2Keys: newV2Keys(c), ordered: c.Mode() == Ordered}
}

// keyed returns XXH3-128(key ‖ words as 8-byte little-endian words). Messages of 48 to
// 240 bytes are hashed where the words lie (keyedShort), 248 to 1024 bytes by the AVX2
// kernel where there is one; every other message is built in buf for zeebo/xxh3. All
// three give XXH3-128 itself (xxh3short_test.go, xxh3long_test.go).
func keyed(buf *[]byte, key *[keySize]byte, short *keyedShort, words []uint64) Digest {
	switch n := len(words); {
	case n >= shortMinWords && n <= shortMaxWords:
		return short.sum(words)
	case longKernel && n >= longMinWords && n <= longMaxWords:
		return hashKeyedLong(key, words)
	}
	need := keySize + 8*len(words)
	if cap(*buf) < need {
		*buf = make([]byte, need, need+need/2)
	}
	b := (*buf)[:need]
	copy(b, key[:])
	putWords(b[keySize:], words)
	h := xxh3.Hash128(b)
	return Digest{Lo: h.Lo, Hi: h.Hi}
}

// field returns the field digest of one frame.
func (h *v2Hasher) field(frame []uint64) Digest {
	return keyed(&h.buf, &h.kField, &h.sField, frame)
}

// value returns the value digest of a frame whose field digest is fd at position pos.
func (h *v2Hasher) value(pos uint64, fd Digest) Digest {
	if !h.ordered {
		return fd
	}
	m := [3]uint64{pos, fd.Lo, fd.Hi}
	return h.sValue.sum(m[:])
}

// record returns the record digest of rec, a C2 record whose frames lie inside it
// (validated by the caller; a frame that would run past the end ends the walk, so
// malformed words never read out of range). The position participates when positional.
func (h *v2Hasher) record(positional bool, pos uint64, rec []uint64) Digest {
	fds := h.fds[:0]
	if positional {
		fds = append(fds, pos)
	}
	for f := 3; f+3 <= len(rec); {
		n := rec[f+2]
		if n > uint64(len(rec)-f-3) {
			break
		}
		end := f + 3 + int(n)
		d := h.field(rec[f:end])
		fds = append(fds, d.Lo, d.Hi)
		f = end
	}
	h.fds = fds
	return h.combine(fds)
}

// combine returns H(K_R ‖ words): words are [position?, field digests...].
func (h *v2Hasher) combine(words []uint64) Digest {
	return keyed(&h.buf, &h.kRecord, &h.sRecord, words)
}

// FieldDigest returns the field digest of one C2 field frame [field_id, type_code, n,
// payload...] under an XXH3Columnar context (CodeAlgorithm for any other). The frame must
// be valid C2 (as one field of a record: CodeRecord otherwise) and its field and type code
// must conform to the schema (CodeSchemaMismatch). It is the reference single-value form
// of what Columnar computes a column at a time; it allocates, so use Columnar for many
// values.
func (c Context) FieldDigest(frame []uint64) (Digest, error) {
	if !c.Valid() {
		return Digest{}, newErr("digest", CodeContext, "invalid context")
	}
	if c.Algorithm() != XXH3Columnar {
		return Digest{}, newErr("digest", CodeAlgorithm, "field digests are defined by "+XXH3Columnar.ID()+" only")
	}
	rec := append([]uint64{normalize.WireVersion, normalize.RecordDomain, 1}, frame...)
	if err := c.c.validateRecord(rec); err != nil {
		return Digest{}, wrapErr("digest", CodeRecord, "", err)
	}
	if err := c.c.conform(rec); err != nil {
		return Digest{}, err
	}
	return newV2Hasher(c).field(frame), nil
}
