// Package lineage is the lineage between artifacts (the datasets scans name): which
// artifact is a copy of, a transform of or derived from which, with optional column
// lineage, as declared in pipewhy.yaml, with 'pipewhy lineage add', or imported from
// OpenLineage run events and dbt manifests. docs/why.md describes the model and the
// stored format.
//
// # Model
//
// A Declaration is one edge Source → Target as one origin declared it (pipewhy.yaml,
// the command line, an OpenLineage job, a dbt node: the edge's C1 evidence). A Graph is
// a set of declarations; its Edges merge the declarations of one source → target pair,
// which must agree on relation and transform (else CodeConflict) and whose column
// lineage unites. Relations are C1's: COPY (no transform), TRANSFORM (a transform is
// required), DERIVED (a transform is optional). A transform is a file (its SHA-256 is its
// identity, taken whenever the target is scanned: ForScan) or a literal version id.
// Cycles and self-edges are legal (C1 PW-02.08). Graphs are immutable values.
//
// # Storage
//
// Store keeps the versions of a repository's lineage in their own C5 store
// (.pipewhy/lineage): every change is a new snapshot whose parent is the previous
// version, and versions never change, so an explanation of an old change reads the
// lineage in force then (Store.At). A version holds the C1 artifact table (the graph,
// the datasets, the columns of column lineage), the C1 lineage_edge table (one row per
// declaration and per column edge, with its evidence and transform references) and an
// observation of the graph whose fingerprint is the C3 state of the edge rows
// (internal/tablefp); names, evidence and transforms are in a JSON descriptor. Loading
// checks all of it, including that the stored arrays are exactly the canonical encoding
// of the graph they decode to. Writers hold the repository lock; a change that fails
// writes nothing.
//
// # Invariants
//
//   - Artifact names are nonempty single lines without surrounding spaces; an import maps
//     external dataset names to artifacts only through an explicit mapping, never by
//     guessing (unmapped names are listed; CheckMapped).
//   - A declaration naming an artifact that was never scanned and is not a source of
//     pipewhy.yaml is refused when added or imported (CodeUnknown).
//   - A transform that names no file but looks like one (a '/', a code extension) is an
//     error, never silently a literal (CodeTransform).
//   - Errors are *Error with a stable Code; messages name artifacts, columns, files and
//     lines, never data values.
package lineage
