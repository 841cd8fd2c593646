package fingerprint

import (
	"encoding/binary"
)

// keySize is the length of the context key that begins every message.
const keySize = 32

// hasher digests contract messages:
//
//	message = key (32 bytes) ‖ [position, 8 bytes LE, ordered mode only] ‖ words (8 bytes LE each)
//
// Under XXH3, messages without a position of 48–240 bytes (keyedShort) and, on AVX2
// machines, of 248–1024 bytes (hashKeyedLong) are hashed where the words lie; every other
// message is built in one reused scratch buffer and hashed by the algorithm's Sum. Both
// give the same digest (tests compare them with zeebo/xxh3 on every length). It allocates
// only when a built message outgrows the buffer (amortized, never per record once warmed
// up). A hasher is not safe for concurrent use; each worker owns one.
//
// Under XXH3Columnar the hasher computes that algorithm's digests (v2.go) from the same
// calls, so that the Engine, which digests C2 words through a hasher, is exact for
// every registered algorithm.
type hasher struct {
	alg     Algorithm
	ordered bool
	xxh3    bool // XXH3: messages of known shapes are hashed where they lie (xxh3short.go, xxh3long.go)
	key     [keySize]byte
	short   keyedShort
	buf     []byte    // buf[:keySize] always holds the key
	v2      *v2Hasher // XXH3Columnar
}

func newHasher(c Context) *hasher {
	h := &hasher{alg: c.Algorithm(), ordered: c.Mode() == Ordered, key: c.Key(), buf: make([]byte, keySize, 1024)}
	switch h.alg.kind {
	case algXXH3:
		h.xxh3 = true
		h.short = newKeyedShort(&h.key)
	case algXXH3Columnar:
		h.v2 = newV2Hasher(c)
	}
	copy(h.buf, h.key[:])
	return h
}

// digest returns the digest of words; position participates when positional is true.
//
// The Engine calls it with one field frame for a value digest (positional exactly in
// Ordered mode) and with a key record for a key digest (never positional: the record
// projected onto the key fields, [1, 2, k, frames...] with k ≥ 1, or in Ordered mode the
// whole record). Version 1 hashes either the same way; XXH3Columnar defines a value
// digest and a key digest differently, and tells them apart by those calls: in Ordered
// mode by positional, in Multiset mode by shape, since a frame is exactly 3 + n words
// (n = words[2]) and a key record of k ≥ 1 frames at least 3 + 3k > 3 + k words.
func (h *hasher) digest(positional bool, position uint64, words []uint64) Digest {
	if h.v2 != nil {
		frame := positional || !h.ordered && len(words) >= 3 && uint64(len(words)-3) == words[2]
		if frame {
			return h.v2.value(position, h.v2.field(words))
		}
		return h.v2.record(false, 0, words)
	}
	if h.xxh3 && !positional {
		switch n := len(words); {
		case n >= shortMinWords && n <= shortMaxWords:
			return h.short.sum(words)
		case longKernel && n >= longMinWords && n <= longMaxWords:
			return hashKeyedLong(&h.key, words)
		}
	}
	pre := keySize
	if positional {
		pre += 8
	}
	need := pre + 8*len(words)
	if cap(h.buf) < need {
		nb := make([]byte, need, need+need/2)
		copy(nb, h.buf[:keySize])
		h.buf = nb
	}
	b := h.buf[:need]
	if positional {
		binary.LittleEndian.PutUint64(b[keySize:], position)
	}
	putWords(b[pre:], words)
	return h.alg.Sum(b)
}

// record returns the record digest: positional in ordered mode.
func (h *hasher) record(position uint64, rec []uint64) Digest {
	if h.v2 != nil {
		return h.v2.record(h.ordered, position, rec)
	}
	return h.digest(h.ordered, position, rec)
}

// RecordDigest returns the record digest of one framed C2 record at the given global
// position (0-based; it participates only in Ordered mode). The record must pass
// normalize.ValidateRecordWords (ValidateRecordWordsIn under an extension profile) and conform to the context's schema. It is the reference
// single-record form of what the Engine computes in bulk; it allocates a scratch buffer
// per call, so use the Engine for many records.
func (c Context) RecordDigest(position uint64, record []uint64) (Digest, error) {
	if !c.Valid() {
		return Digest{}, newErr("digest", CodeContext, "invalid context")
	}
	if err := c.c.validateRecord(record); err != nil {
		return Digest{}, wrapErr("digest", CodeRecord, "", err)
	}
	if err := c.c.conform(record); err != nil {
		return Digest{}, err
	}
	return newHasher(c).record(position, record), nil
}

// conform checks every field of a validated record against the schema.
func (d *contextData) conform(rec []uint64) *Error {
	t := d.fields
	for p := 3; p < len(rec); p += 3 + int(rec[p+2]) {
		i := t.index(rec[p])
		if i < 0 {
			return newErr("digest", CodeSchemaMismatch, "field "+uitoa(rec[p])+" is not in the schema")
		}
		if t.tags[i]&(1<<rec[p+1]) == 0 {
			return newErr("digest", CodeSchemaMismatch, "field "+uitoa(rec[p])+" has a type code its schema type does not admit")
		}
	}
	return nil
}
