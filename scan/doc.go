// Package scan observes a dataset into a snapshot: source adapter → Arrow batches →
// C2 words (normalize/columnar) → C3 fingerprints (fingerprint.Engine) → one C5
// snapshot (snapshot.Store) in a repository (repo). The format it writes is
// docs/scan-format.md; repo reads it back.
//
// # What a scan stores
//
// At every resolution: the descriptor (artifact name, address, field ids, names, C3
// value types, source types and widths, key fields, source choices) as the uint8 array
// "scan"; the C1 artifact table (the dataset, then one artifact per field); the C1
// observation table with the dataset state and one column state per field, the C3
// state words in fingerprint_words. At record resolution also the engine's sorted
// (key digest, record digest) entries ("records") and, beside each entry, its key
// record as C2 words ("key_words", "key_offsets"), so diff prints key values. At value
// resolution also the per-field value digests ("values", "value_offsets") and the C1
// value table holding every value's C2 payload words in the same order, so diff
// prints old → new values. Coverage, source identity and the fingerprint context go
// into the snapshot metadata.
//
// # Types and profiles
//
// Each column's Arrow type maps to a C3 value type: bool → bool; integers → int; floats
// → float64; utf8 → text; binary → bytes; decimal → decimal; timestamp (every unit) →
// timestamp; and, for the C2 extension 1 types (docs/contracts/C2-extensions.md),
// date32/date64 → date, time32/time64 → time, duration → duration, list, large_list,
// fixed_size_list, struct and map → nested. Dates, times, durations, nested values and
// timestamp(ns) columns (whose nanoseconds C2 v1 cannot hold) need an extension profile
// (normalize.StrictV1Ext1, normalize.LogicalV1Ext1): under a v1 profile Observe fails
// with CodeProfile before reading a row, naming the column, its type and both ways out
// (the profile's +ext1 counterpart, or excluding the column via Options.Source.Exclude,
// which the snapshot records in its descriptor's Excluded list and scope).
//
// # Memory
//
// Run sorts the record entries of record and value resolution within Options.Memory
// (spill.go): the pipeline's encoders add their tiles to the current run's
// fingerprint.Feed; a run whose estimated peak memory (runCost: the engine's entries,
// their key words and the sorted copy) reaches half the budget — less while runs are
// kept, so that it and they stay within two thirds — is sorted by the engine, written
// as one spill file in the snapshot's staging attempt (snapshot.Writer.CreateSpill) —
// or kept in memory while the kept runs fit a third of the budget, as the last run
// always is: at value resolution in the spill file's encoding, at record resolution as
// the engine's records and the keys' payload words (keptRun) — and replaced by a new
// Feed; runs store keys of one shape as their payload words (keyTemplate); the runs' states are summed. After the read, the runs are merged k ways into the payload streams of the
// records, key words and offsets and, at value resolution, of the value digests and the
// C1 value table, checking declared keys for duplicates in the merged order. The bytes
// are those of a scan sorted in memory (TestSpillMatchesMemory); a source that fits one
// run is published from memory. Observe does not spill.
//
// # Guarantees
//
//   - A scan that fails publishes nothing and changes neither the schema registry nor
//     the scan log: the snapshot is published first (atomically), then the registry is
//     saved, then the log line appended.
//   - A source with records that fail to read (coverage PARTIAL) fails the scan unless
//     Options.AllowPartial; the coverage recorded is the adapter's, unchanged.
//   - Declared keys are unique, else DuplicateKeyError (code PW_SCAN_DUPLICATE_KEY).
//   - The association of entries with records is the engine's own
//     (fingerprint.Result.Origins: the input record each entry was digested from), not
//     recomputed; it is checked to be a permutation of the records, and at value
//     resolution every value entry is checked against its record's field ids.
//   - Messages never contain cell values; DuplicateKeyError.Examples does, for the
//     caller to show or not.
//
// # Pipeline
//
// One goroutine reads the source (sources are not safe for concurrent use); Workers
// goroutines (GOMAXPROCS when 0), each with its own columnar.Encoder and its own lane of
// a fingerprint.Feed, C2-encode each Arrow batch in tiles of about 64 Ki words and
// digest every tile right after encoding it, while its words are still in that core's
// cache (pipeline.go). Every tile is digested with the ordinal of its first row in
// source order, so results do not depend on Workers or tiles; outcomes are taken in
// source order, so the first error in source order is the one reported (an encoding
// error names its source row), Progress is called from one goroutine in row order, every
// Arrow batch is released exactly once, and no goroutine outlives Observe. The engine
// runs with fingerprint.Options.TrustedFrames: the batches come from columnar.Encoder,
// whose output equals the validating scalar encoder's.
//
// # Memory
//
// Dataset resolution streams: the Arrow batches between the source and the encoders
// (2×Workers of them, or more while they hold under 64 MiB, so that the reader decodes
// ahead) and one reused tile of C2 words per encoder. Record
// resolution keeps every entry's key words (from the engine, the batches are recycled);
// value resolution keeps every batch's C2 words until the snapshot is built (the
// snapshot store is memory-resident too).
package scan
