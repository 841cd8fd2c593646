// Package report writes one self-contained HTML page about a repository
// (`pipewhy report`): the lineage graph as inline SVG, each artifact coloured and named by
// its last change (incident, error, changed, unchanged, first snapshot, unobserved), each
// edge marked with its verdict (pipewhy.why/v1); per artifact its last change (records
// added, removed and changed, a bar per changed field, old → new examples, schema
// changes), its root causes, its inputs, its open incidents, and a history strip of rows
// and changed records over its last snapshots. docs/report.md describes the page.
//
// Build gathers the content (Page) from the libraries that own each answer and adds no
// analysis of its own: why.Explain for an artifact's last change, its edges' verdicts
// and its root causes (the change itself comes from compare.Diff through it),
// compare.Diff for the history strip, incident.Store.List for the incidents and the
// lineage store's newest version for the graph. Write renders a Page.
//
// Guarantees of the page:
//
//   - Inert: every value from the repository (artifact and column names, data values in
//     examples, addresses, details) is written through html/template's contextual
//     escaping; links point to the page's own anchors, which are numbers, never names.
//     The Content-Security-Policy allows only the page's own script and style (by their
//     SHA-256) and data: images: nothing else can load or run, even where escaping
//     failed.
//   - Self-contained: no network, no files beside it; the CSS, the two scripts and the
//     drawings are inline. It prints (a print style sheet, no scripts needed), and it
//     reads on a phone (the graph scrolls in its own box, the rest reflows).
//   - No colour alone: every status and verdict is also a word and an icon.
//   - Scripts: the first one records every script error, unhandled rejection and CSP
//     violation in the data-errors attribute of <html> (what the browser tests read);
//     the other adds the status filter. Without scripts the page shows everything.
//   - Deterministic: the same repository and Options give the same bytes; the graph's
//     layout (layout) is a function of the nodes and edges in name order.
//
// Errors are *Error with a stable Code, or the error of the library that failed.
package report
