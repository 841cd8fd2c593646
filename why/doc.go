// Package why explains the change of an artifact between two of its snapshots through
// the lineage in force: for each edge of its upstream closure a verdict of the fixed
// vocabulary pipewhy.why/v1 (source_unchanged, source_changed, copy_verified,
// copy_mismatch, transform_changed, unobserved), and every root cause, strongest first
// (copy_mismatch, transform_changed, unexplained, source_changed, unobserved).
// docs/why.md is the specification; this comment states the guarantees.
//
//   - Time is publication order: the source side of an edge is the source's newest scan
//     published at or before each of the target's two snapshots (History.Latest).
//   - A copy is verified from the stored snapshots alone: directly when both snapshots
//     share one C3 context and their columns carry the same field ids by name (scans of
//     COPY ends are given aligned ids: package lineage, ForScan), else by fingerprinting
//     both sides' stored C2 values again in one comparison context when both are at value
//     resolution (rekey). When neither is possible (different profiles, partial coverage,
//     differing ids or an exclusion below value resolution) the edge is unobserved and
//     CopyCheck.Reason says why: never a wrong verdict.
//   - transform_changed compares the transform identities recorded with the target's two
//     scans, never today's file with an old run.
//   - Edges do not prove causation: the words say "consistent with" except where a COPY
//     check proves a difference from the fingerprints.
//   - History keeps a summary index (IndexFile): one line per scan snapshot, derived and
//     immutable like the snapshot; a damaged line is rebuilt from the snapshot's summary
//     arrays, never trusted. An explanation loads full scans only to count the differences
//     it reports, and keeps those counts in the change cache (ChangesFile, same rules).
//   - One History may serve many explanations, concurrently: each summary change and edge
//     verdict between the same snapshots is computed once and shared; what one explanation
//     adds to its own changes (counts) is never seen by another.
//
// Errors are *Error with a stable Code; messages never contain data values.
package why
