// Package retention is the explicit retention policy C5 PW-07.18 leaves for later: which
// published scan snapshots of a repository's store may be removed (Decide), and their
// removal (Prune, 'pipewhy snapshot prune'). docs/contracts/C5-retention.md specifies it
// as a PipeWhy extension of C5; the store keeps retaining everything unless a prune is
// asked for.
//
// # What is kept
//
// A Rule keeps, per artifact (the names the scan log gives scans), the newest KeepLast
// published scans and every scan that finished at most KeepWithin ago (a scan exactly
// KeepWithin old is kept), optionally pruning only some artifacts. Whatever the rule,
// Decide never removes:
//
//   - the newest published scan of any artifact (what NAME resolves to);
//   - a snapshot that incident history names as evidence of an incident;
//   - a published snapshot the scan log does not name (nothing says what it is);
//   - the C5 parent of any snapshot kept for a reason above;
//   - every scan why's explanation of the change of a scan kept for a reason above reads:
//     its previous scan and, through the lineage version in force when it finished, each
//     upstream artifact's newest scan at or before it and at or before that previous scan
//     (the closure why.Explain walks).
//
// Kept snapshots of the last two kinds are kept for their own bytes: their parents and
// inputs are not followed further (a C5 snapshot opens without its parent), so a prune
// can remove old history at all. Lineage versions and incident events live in their own
// C5 stores (.pipewhy/lineage, .pipewhy/incidents), append-only chains that a prune never
// touches. The repository has no refs or branches: artifact names, resolved from the
// scan log, are its only names, and their newest scans are kept. The scan log itself is
// history and keeps its lines: a removed scan is still listed, and opening it is
// not found (no fallback, C5 PW-07.05).
//
// # How it removes
//
// Prune holds the repository's writer lock, decides on the metadata of every published
// snapshot (a damaged one fails the prune before anything is removed), then checks every
// path it would remove before the first removal: a snapshot directory that is a symbolic
// link, or that resolves to anything but itself inside the resolved repository directory,
// is CodeOutside and nothing is removed. Snapshots go newest first, so an interrupted
// prune never leaves a snapshot whose parent it removed, each by snapshot.Store.Remove:
// renamed into the store's staging directory as a claimed entry and both directories
// fsynced before any file is deleted. A prune killed at any point leaves only whole,
// valid published snapshots, plus at most one claimed entry in staging that 'pipewhy
// snapshot inspect' reports and 'pipewhy snapshot gc-staging' or the next prune deletes.
// A dry run decides and checks exactly as a prune does and changes nothing.
//
// Errors are *Error with a stable Code; messages name snapshots and paths, never data.
package retention
