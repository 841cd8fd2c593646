// Package compare compares two scan snapshots (repo.Scan): whether the datasets are
// equal, which records were added, removed or changed by key, which fields changed
// and how often, with examples of old → new values, and the schema changes.
//
// Merge is the core: ONE pass over two arrays of C3 record entries [key_lo, key_hi,
// record_lo, record_hi] sorted by their words, no maps, O(n+m) time, no allocation.
// Equal keys with equal record digests are unchanged, with different ones changed;
// keys on one side only are added or removed. A key that occurs more than once (only
// possible without a unique key) pairs its records by record digest, the rest counting
// as removed and added, and is counted in Counts.DuplicateKeys.
//
// Diff refuses (CodeArtifacts) snapshots of different artifacts, whose field ids were
// assigned separately, unless Options.AllowDifferentArtifacts (which notes it) or
// Options.SharedFieldIDs (the caller assigned both from one schema); snapshots fingerprinted
// by different C3 algorithms (CodeAlgorithm); and (CodeContext) snapshots whose
// fingerprint contexts differ in C2 profile or mode: their fingerprints mean different
// things. When only the schema
// identity differs, it reports the schema changes (by stable field id) and no record
// counts. Schema changes are logical only (a field added, removed, renamed, or given
// another C3 value type); a field whose physical description alone differs (Arrow type,
// source type spelling, width, nullability) is a PhysicalChange, which never makes a
// report not Equal. It compares at the coarser resolution of the two snapshots, and at dataset
// resolution when they were scanned with different keys (with a note).
//
// MergeStreams is Merge over two entry streams (repo.EntryReader): the same counts and
// visits in the same order, looking one entry ahead on each side to find duplicated
// keys. With Options.Stream, Diff compares the record and value arrays the scans have
// not loaded that way: their checksums are verified first (repo.Repo.Entries), then one
// merge pass reads both snapshots' arrays in step, so memory is the examples kept, not
// the rows, and the report is the one the loaded arrays give.
//
// Comparing two live sources, without snapshots (`pipewhy compare`), is package
// compare/live, which reads both through package scan and diffs them with Diff.
package compare
