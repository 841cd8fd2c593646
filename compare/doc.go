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
// assigned separately, unless Options.AllowDifferentArtifacts; and (CodeContext)
// snapshots whose fingerprint contexts differ in algorithm, C2 profile or mode: their
// fingerprints mean different things. When only the schema
// identity differs, it reports the schema changes (by stable field id) and no record
// counts. Schema changes are logical only (a field added, removed, renamed, or given
// another C3 value type); a field whose physical description alone differs (Arrow type,
// source type spelling, width, nullability) is a PhysicalChange, which never makes a
// report not Equal. It compares at the coarser resolution of the two snapshots, and at dataset
// resolution when they were scanned with different keys (with a note).
//
// Sources compares two live sources without a repository (`pipewhy compare`): it opens
// both, plans one comparison schema (columns matched by name or by an explicit mapping,
// field ids assigned alike on both sides, so equal data yields equal words whatever the
// engine or physical width), observes both sides concurrently at record resolution through
// scan.ObserveSource and diffs the two scans with Diff. Which fields changed, and the
// changed examples' values, come from a second read of each side at value resolution
// that keeps only the changed records' value digests and the examples' records; a side
// whose dataset state differs on that read changed in between, and the report says so.
// Differences of physical type
// only (int4 vs int64, decimal precision) are reported as Types, never as differences. docs/compare.md has the semantics and the representations that
// differ across engines under strict-v1 and logical-v1.
package compare
