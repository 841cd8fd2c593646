// Package live compares two live sources without a repository (`pipewhy compare`).
//
// Compare opens both, plans one comparison schema (columns matched by name or by an
// explicit mapping, field ids assigned alike on both sides, so equal data yields equal
// words whatever the engine or physical width), observes both sides concurrently at
// record resolution through scan.ObserveSource and diffs the two scans with
// compare.Diff. Which fields changed, and the changed examples' values, come from a
// second read of each side at value resolution that keeps only the changed records'
// value digests and the examples' records; a side whose dataset state differs on that
// read changed in between, and the report says so. Differences of physical type only
// (int4 vs int64, decimal precision) are reported as Types, never as differences. The
// key is Options.Key, else the primary key both sides expose, else, when neither
// exposes one, none: each record is its own key, as in a scan without a key, and the
// sides compare as multisets of records (Comparison.Keyless, KeylessNote). As both
// sides' field ids come from one plan, Diff is told so (compare.Options.SharedFieldIDs)
// and notes nothing about the sides' different artifact names. Each
// side's field ids come from a registry in memory (source.NewRegistry): nothing is
// written anywhere. Errors are *compare.Error with compare.CodeOptions or
// compare.CodeSource. docs/compare.md has the semantics and the representations that
// differ across engines under strict-v1 and logical-v1.
package live
