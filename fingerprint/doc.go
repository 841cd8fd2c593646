// Package fingerprint implements C3, PipeWhy's fingerprint contract
// (docs/contracts/C3-fingerprint.md, the normative text): keyed 128-bit digests of C2
// records, mergeable dataset states, and a CPU engine that computes them on all cores.
//
// # Context
//
// A fingerprint is comparable only within its Context: the algorithm, the full C2 profile
// identity, the source schema identity (SchemaDescriptor.ID: field ids, C2 value types,
// rename policy; never physical source widths) and the Mode. The context identity is the
// SHA-256 of a fixed descriptor,
//
//	{"algorithm":"<alg id>","domain":"pipewhy.fingerprint.context","mode":"<mode>","profile":"<profile id>","schema":"<schema id>"}
//
// and its 32 raw bytes are the key every digest of the context begins with.
//
// # Digests
//
// Every digest is the algorithm's 128-bit hash of one message:
//
//	message = key (32 bytes) ‖ [position: 8 bytes LE, Ordered mode only] ‖ words (8 bytes LE each)
//
//	record digest: words = the framed C2 record [1, 2, n, frames...]
//	value digest:  words = one field frame [field_id, type_code, n, payload...]
//	key digest:    words = the record projected onto the key fields [1, 2, k, key frames...]
//	               (the whole record when no key is declared); never positional
//
// XXH3 is XXH3-128 with seed 0 (Lo, Hi = low, high 64 bits; xxhsum -H2 prints Hi then
// Lo); SHA256 is the first 16 bytes of SHA-256 (Lo, Hi = bytes 0-7, 8-15, little-endian).
// Words become bytes by a raw copy only on little-endian hosts (checked at start-up),
// elsewhere by an explicit little-endian encoding. The XXH3 digests come from
// github.com/zeebo/xxh3, except that the hot paths do not build the message: XXH3's
// 48–240-byte algorithms (xxh3short.go) and, on AVX2 machines, its one-block long-input
// algorithm for 248–1024-byte messages (xxh3long_amd64.s) read the key and the words where
// they lie; the v2 column kernels hash text and bytes values of 65–176 bytes from the
// Arrow value buffer (xxh3mid.go) and, on AVX-512 machines, eight values, one-word
// values or two-field records at a time (xxh3mid_amd64.s). All are XXH3 itself, not a
// variant: their tests require equality with zeebo/xxh3 on every length they accept, and
// the fixture digests are checked against `xxhsum -H2`.
//
// # Version 2: xxh3-128-columnar
//
// XXH3Columnar (pipewhy.fingerprint/xxh3-128-columnar/v2, contract §13) keeps contexts,
// states, modes and resolutions and changes the digests, so that each value is hashed
// once and a column at a time:
//
//	field digest   FD(F)    = XXH3-128(K_F ‖ F)                            F = one field frame
//	record digest  RD(R, p) = XXH3-128(K_R ‖ [p] ‖ FD(F_1) ‖ … ‖ FD(F_m))
//	value digest   FD(F) (Multiset), XXH3-128(K_V ‖ p ‖ FD(F)) (Ordered)
//	key digest     RD(record projected onto the key fields), never positional
//
// with K_F, K_R, K_V = SHA-256(key ‖ "pipewhy.fingerprint.v2/field" | "…/record" |
// "…/value"). Context.FieldDigest and Context.RecordDigest compute them from C2 words, as
// the Engine does; Columnar computes them from column buffers into a Tile of field
// digests (one per record and field), then record, key and value digests from the tile.
//
// # State
//
// A State is the words [StateVersion=1, lane_count=2, record_count, lane_0, lane_1]:
// lane 0 is the wrapping uint64 sum of the digests' Lo words, lane 1 of their Hi words.
// States merge (add) and subtract; subtracting more records than a state holds is an
// error; states of different contexts never combine or compare. FromWords validates
// stored words, including the recorded context identity.
//
// # Engine and resolutions
//
// Engine.Run consumes normalize.RecordBatch values, validates every record (C2 framing,
// schema conformance, the batch's profile identity) and produces a Result: the dataset
// State, optional per-field column states, and at record resolution the (key digest,
// record digest) entries sorted by their words, at value resolution also every
// record's value digests. On request it also returns, in the entries' order, each
// entry's input ordinal (Options.Origins) and key record (Options.KeyWords), so that a
// caller pairs entries with its own rows without digesting or sorting again; with
// Options.KeyStore the key records stay where the engine stored them (Result.Keys, a
// key of one shape as its payload words alone), read entry by entry or gathered into
// the arrays on demand, for a caller that needs the keys of a few entries. Results do
// not depend on worker count, chunk size, batch boundaries or (in Multiset mode) record
// order. The engine retains no batch after reading it; Options.Release hands each batch
// back to its producer. A Feed (Engine.NewFeed) is the same computation driven by the
// caller's goroutines, one accumulator lane each: a producer digests each batch on the
// goroutine that made it, while its words are in cache, with the ordinal of its first
// record, and gets Run's result whatever lane and order the batches took.
//
// Options.TrustedFrames is for producers whose words are C2 by construction (the
// columnar encoder, property-tested against the scalar encoder): it skips only the
// payload-shape checks of each frame. Bounds, headers, field order, schema membership,
// admitted type codes and key presence are still checked, so a malformed record is an
// error, never a panic or an out-of-range read (tested and fuzzed).
//
// # Claims
//
// A state detects accidental change (drift, corruption, lost or repeated records) with
// failure probability about 2^-128 per comparison. Neither algorithm makes it a defence
// against an adversary who crafts collisions: the lanes are sums, and XXH3 is not a
// cryptographic hash.
package fingerprint
