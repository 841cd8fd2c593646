package why

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/lineage"
)

// Format identifiers of an explanation (the pipewhy.why/v1 vocabulary).
const (
	Format  = "pipewhy.why"
	Version = 1
)

// Verdict is an edge's verdict, or a root cause's kind (pipewhy.why/v1).
type Verdict string

// The verdicts. Edges get the first six; root causes are source_changed, copy_mismatch,
// transform_changed, unexplained or unobserved.
const (
	SourceUnchanged  Verdict = "source_unchanged"  // the edge's source did not change between the two sides
	SourceChanged    Verdict = "source_changed"    // the source changed (a root cause: a changed artifact without upstream edges)
	CopyVerified     Verdict = "copy_verified"     // COPY: the target equals the source at the "to" side
	CopyMismatch     Verdict = "copy_mismatch"     // COPY: the target differs from the source at the "to" side
	TransformChanged Verdict = "transform_changed" // the transform's identity differs between the target's two runs
	Unobserved       Verdict = "unobserved"        // no (comparable) snapshot to judge the edge by
	Unexplained      Verdict = "unexplained"       // root cause: changed though its inputs and transform did not
)

// rank orders root causes, strongest first: a mismatch the fingerprints prove, a changed
// transform, a change with no input change, a change at the top of the lineage, a change
// whose input nobody observed.
var rank = map[Verdict]int{CopyMismatch: 0, TransformChanged: 1, Unexplained: 2, SourceChanged: 3, Unobserved: 4}

// Options configure Explain.
type Options struct {
	// From and To are snapshots of the artifact (full ids); empty To is its newest
	// snapshot, empty From the one before To.
	From, To string
	// Limit is the number of examples kept per kind; 0 keeps none, negative means 5.
	Limit int
	// Known are the artifacts a lineage may name besides scanned ones (the sources of
	// pipewhy.yaml): an edge naming anything else is CodeLineage.
	Known map[string]bool
	// Details is how many root causes, strongest first, get their change counted record
	// by record (compare.Diff, loading both snapshots); the others show what the
	// summaries say (rows, changed columns). 0 means 10; negative means all.
	Details int
	// NoDetails: no root cause gets its change counted record by record, whatever
	// Details says (a report that shows each artifact's own change elsewhere: a root
	// cause shared by many artifacts is then not compared once per artifact).
	NoDetails bool
}

// Change is how an artifact changed between two of its snapshots.
type Change struct {
	Changed bool `json:"changed"`
	// Comparable is false when the fingerprints cannot be compared (the C3 schema,
	// profile or algorithm changed); Reason says which.
	Comparable bool      `json:"comparable"`
	Reason     string    `json:"reason,omitempty"`
	Rows       [2]uint64 `json:"rows"`
	// Records, Fields and Schema come from compare.Diff (when it was run).
	Records *compare.Counts        `json:"records,omitempty"`
	Fields  map[string]uint64      `json:"fields,omitempty"`
	Columns []string               `json:"columns_changed,omitempty"` // columns whose column state changed
	Schema  []compare.SchemaChange `json:"schema_changes,omitempty"`
	Example []compare.Example      `json:"examples,omitempty"`
}

// EdgeResult is one edge of the upstream closure and its verdict.
type EdgeResult struct {
	Source    string  `json:"source"`
	Target    string  `json:"target"`
	Relation  string  `json:"relation"`
	Verdict   Verdict `json:"verdict"`
	Detail    string  `json:"detail"`
	Depth     int     `json:"depth"` // 1: into the explained artifact
	Transform string  `json:"transform,omitempty"`
	// TransformUnknown: the edge has a transform whose identity was not recorded (or
	// could not be read) for both of the target's runs.
	TransformUnknown bool       `json:"transform_unknown,omitempty"`
	SourceFrom       string     `json:"source_from"` // the source's snapshots ("" none)
	SourceTo         string     `json:"source_to"`
	TargetFrom       string     `json:"target_from"`
	TargetTo         string     `json:"target_to"`
	Copy             *CopyCheck `json:"copy,omitempty"`
}

// RootCause is where a change begins.
type RootCause struct {
	Artifact string  `json:"artifact"`
	Verdict  Verdict `json:"verdict"`
	Detail   string  `json:"detail"`
	Depth    int     `json:"depth"`
	Change   *Change `json:"change,omitempty"`
	Edge     string  `json:"edge,omitempty"` // "source -> target" of the edge it comes from
}

// FieldExplanation is a changed column of the explained artifact and the declared source
// columns that changed too (column lineage).
type FieldExplanation struct {
	Changed     *uint64  `json:"changed"` // changed records (value resolution), else null
	ExplainedBy []string `json:"explained_by"`
}

// LineageInfo is the lineage version an explanation used.
type LineageInfo struct {
	Version string `json:"version"` // "" when no lineage was recorded
	Seq     uint64 `json:"seq"`
	Note    string `json:"note,omitempty"`
}

// Explanation is the answer to "why did this artifact change?".
type Explanation struct {
	Format     string                      `json:"format"`
	Version    int                         `json:"version"`
	Artifact   string                      `json:"artifact"`
	From       string                      `json:"from"`
	To         string                      `json:"to"`
	FromTimeNs uint64                      `json:"from_finished_at_ns,string"`
	ToTimeNs   uint64                      `json:"to_finished_at_ns,string"`
	Changed    bool                        `json:"changed"`
	Change     *Change                     `json:"change"`
	Lineage    LineageInfo                 `json:"lineage"`
	Edges      []EdgeResult                `json:"edges"`
	RootCauses []RootCause                 `json:"root_causes"`
	Fields     map[string]FieldExplanation `json:"fields"`
	Notes      []string                    `json:"notes"`
}

// node is an artifact in the closure at a pair of reference positions: its snapshots are
// its newest scans at or before them.
type node struct {
	artifact       string
	refFrom, refTo int
	from, to       int // log positions; -1: none
	depth          int
}

type nodeKey struct {
	artifact       string
	refFrom, refTo int
}

type explainer struct {
	ctx      context.Context
	h        *History
	g        *lineage.Graph
	limit    int
	changes  map[[2]int]*Change
	detailed map[[2]int]bool
}

// Explain explains the change of artifact between two of its snapshots through the
// lineage in force at the later one (see docs/why.md): for each edge of the upstream
// closure, the source is read at its newest snapshot at or before each of the target's
// snapshots, every edge gets a verdict and every root cause is listed.
func Explain(ctx context.Context, h *History, st *lineage.Store, artifact string, o Options) (*Explanation, error) {
	ps := h.Snapshots(artifact)
	if len(ps) == 0 {
		return nil, &Error{Code: CodeUnknown, Msg: fmt.Sprintf("%s has never been scanned", artifact)}
	}
	to := ps[len(ps)-1]
	if o.To != "" {
		p, ok := h.Position(o.To)
		if !ok || h.Entry(p).Artifact != artifact {
			return nil, &Error{Code: CodeSnapshot, Msg: fmt.Sprintf("%s is not a snapshot of %s", o.To, artifact)}
		}
		to = p
	}
	from := -1
	if o.From != "" {
		p, ok := h.Position(o.From)
		if !ok || h.Entry(p).Artifact != artifact {
			return nil, &Error{Code: CodeSnapshot, Msg: fmt.Sprintf("%s is not a snapshot of %s", o.From, artifact)}
		}
		if p >= to {
			return nil, &Error{Code: CodeSnapshot, Msg: fmt.Sprintf("--from %s is not older than --to %s", o.From, h.Entry(to).Snapshot)}
		}
		from = p
	} else if i := slices.Index(ps, to); i > 0 {
		from = ps[i-1]
	}
	if from < 0 {
		return nil, &Error{Code: CodeSnapshot, Msg: fmt.Sprintf("%s has no snapshot before %s: why compares two (scan it again)", artifact, h.Entry(to).Snapshot)}
	}
	toSum, err := h.Summary(to)
	if err != nil {
		return nil, err
	}
	fromSum, err := h.Summary(from)
	if err != nil {
		return nil, err
	}
	limit := o.Limit
	if limit < 0 {
		limit = 5
	}
	x := &explainer{ctx: ctx, h: h, limit: limit, changes: map[[2]int]*Change{}, detailed: map[[2]int]bool{}}
	e := &Explanation{Format: Format, Version: Version, Artifact: artifact, From: fromSum.Snapshot, To: toSum.Snapshot,
		FromTimeNs: fromSum.FinishedAtNs, ToTimeNs: toSum.FinishedAtNs,
		Edges: []EdgeResult{}, RootCauses: []RootCause{}, Fields: map[string]FieldExplanation{}, Notes: []string{}}
	v, g, later, ok, err := st.At(toSum.FinishedAtNs)
	if err != nil {
		return nil, err
	}
	x.g = g
	switch {
	case !ok:
		e.Notes = append(e.Notes, "no lineage has been recorded: declare it in pipewhy.yaml or with 'pipewhy lineage add'")
	case later:
		e.Lineage = LineageInfo{Version: v.ID.String(), Seq: v.Seq, Note: "the lineage was declared after this change: its first version is used"}
	default:
		e.Lineage = LineageInfo{Version: v.ID.String(), Seq: v.Seq}
	}
	// The upstream closure, breadth first (nearest edges first).
	start := &node{artifact: artifact, refFrom: from, refTo: to, from: from, to: to}
	seen := map[nodeKey]*node{{artifact, from, to}: start}
	queue := []*node{start}
	incoming := map[*node][]int{} // node → indexes into e.Edges
	var edgeSrc []*node           // the source node of each edge result
	var order []*node
	// The walk needs the scan log alone; the verdicts need the summaries of every
	// node's two snapshots, which are loaded in parallel first (the first explanation
	// after new scans reads each from its snapshot), then judged in walk order.
	type walked struct {
		edge *lineage.Edge // into the slice Into returned: a walk is long, an Edge large
		t    *node
	}
	var walk []walked
	positions := []int{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		order = append(order, n)
		positions = append(positions, n.from, n.to)
		into := g.Into(n.artifact)
		for j := range into {
			edge := &into[j]
			src := &node{artifact: edge.Source, depth: n.depth + 1, from: -1, to: -1}
			src.refFrom, src.refTo = n.refFrom, n.refTo
			if p, ok := h.Latest(edge.Source, n.refFrom); ok && n.from >= 0 {
				src.from, src.refFrom = p, p
			}
			if p, ok := h.Latest(edge.Source, n.refTo); ok && n.to >= 0 {
				src.to, src.refTo = p, p
			}
			k := nodeKey{src.artifact, src.refFrom, src.refTo}
			if m, dup := seen[k]; dup {
				src = m
			} else {
				seen[k] = src
				queue = append(queue, src)
			}
			walk = append(walk, walked{edge: edge, t: n})
			edgeSrc = append(edgeSrc, src)
		}
	}
	// The walk reached every artifact of the upstream closure.
	sources := make([]string, len(walk))
	for i, w := range walk {
		sources[i] = w.edge.Source
	}
	if err := x.checkNames(artifact, sources, o.Known); err != nil {
		return nil, err
	}
	// The asked artifact's change, in full.
	top, err := x.change(from, to, true)
	if err != nil {
		return nil, err
	}
	e.Change, e.Changed = top, top.Changed
	h.Prefetch(ctx, positions)
	e.Edges = make([]EdgeResult, 0, len(walk))
	for i, w := range walk {
		r, err := x.judge(*w.edge, edgeSrc[i], w.t)
		if err != nil {
			return nil, err
		}
		incoming[w.t] = append(incoming[w.t], len(e.Edges))
		e.Edges = append(e.Edges, r)
	}
	// Root causes.
	type rcKey struct {
		a string
		v Verdict
	}
	rcs := map[rcKey]*RootCause{}
	add := func(rc RootCause) {
		k := rcKey{rc.Artifact, rc.Verdict}
		if p, ok := rcs[k]; !ok || rc.Depth < p.Depth {
			rcs[k] = &rc
		}
	}
	for _, n := range order {
		ch, err := x.change(n.from, n.to, false)
		if err != nil {
			return nil, err
		}
		ins := incoming[n]
		if len(ins) == 0 {
			if ch.Changed {
				add(RootCause{Artifact: n.artifact, Verdict: SourceChanged, Depth: n.depth,
					Detail: "the change begins here (no upstream lineage)"})
			}
			continue
		}
		explained, inputsUnchanged, transformish := false, true, false
		var unobserved []EdgeResult
		for _, i := range ins {
			r := e.Edges[i]
			switch r.Verdict {
			case CopyMismatch:
				add(RootCause{Artifact: n.artifact, Verdict: CopyMismatch, Depth: n.depth, Detail: r.Detail, Edge: r.Source + " -> " + r.Target})
				explained, inputsUnchanged = true, false
			case TransformChanged:
				add(RootCause{Artifact: n.artifact, Verdict: TransformChanged, Depth: n.depth, Detail: r.Detail, Edge: r.Source + " -> " + r.Target})
				explained, inputsUnchanged = true, false
			case SourceChanged:
				explained, inputsUnchanged = true, false
			case CopyVerified:
				sc, err := x.change(edgeSrc[i].from, edgeSrc[i].to, false)
				if err != nil {
					return nil, err
				}
				if sc.Changed {
					explained, inputsUnchanged = true, false
				}
			case Unobserved:
				unobserved = append(unobserved, r)
				inputsUnchanged = false
			}
			if r.Relation != lineage.Copy.String() {
				transformish = true
			}
		}
		if !ch.Changed {
			continue
		}
		switch {
		case transformish && inputsUnchanged:
			d := "changed, though every input is unchanged and its transform did not change: non-determinism, or an input nobody declared"
			for _, i := range ins {
				if e.Edges[i].TransformUnknown {
					d = "changed, though every input is unchanged; the transform's identity is unknown for these runs, so a transform change cannot be ruled out"
				}
			}
			add(RootCause{Artifact: n.artifact, Verdict: Unexplained, Depth: n.depth, Detail: d})
		case !explained && len(unobserved) > 0:
			for _, r := range unobserved {
				add(RootCause{Artifact: r.Source, Verdict: Unobserved, Depth: n.depth + 1,
					Detail: fmt.Sprintf("%s changed and its input %s has no snapshot to judge it by: its part in the change is unknown", n.artifact, r.Source)})
			}
		}
	}
	for _, rc := range rcs {
		e.RootCauses = append(e.RootCauses, *rc)
	}
	slices.SortFunc(e.RootCauses, func(a, b RootCause) int {
		return cmp.Or(cmp.Compare(rank[a.Verdict], rank[b.Verdict]), cmp.Compare(a.Depth, b.Depth), strings.Compare(a.Artifact, b.Artifact))
	})
	// The root causes' own changes: counted for the strongest, summarized for the rest.
	details := o.Details
	if details == 0 {
		details = 10
	}
	for i := range e.RootCauses {
		rc := &e.RootCauses[i]
		if rc.Verdict == Unobserved {
			continue
		}
		for _, n := range order {
			if n.artifact == rc.Artifact && n.depth == rc.Depth {
				ch, err := x.change(n.from, n.to, !o.NoDetails && (details < 0 || i < details))
				if err != nil {
					return nil, err
				}
				rc.Change = ch
				break
			}
		}
	}
	x.explainFields(e, start, seen)
	return e, nil
}

// nodeOf returns the node of source as seen from target node t.
func (x *explainer) nodeOf(seen map[nodeKey]*node, source string, t *node) *node {
	refFrom, refTo := t.refFrom, t.refTo
	from, to := -1, -1
	if p, ok := x.h.Latest(source, t.refFrom); ok && t.from >= 0 {
		from, refFrom = p, p
	}
	if p, ok := x.h.Latest(source, t.refTo); ok && t.to >= 0 {
		to, refTo = p, p
	}
	if n, ok := seen[nodeKey{source, refFrom, refTo}]; ok {
		return n
	}
	return &node{artifact: source, from: from, to: to}
}

// checkNames refuses a lineage whose upstream closure (the sources of its edges) names
// an artifact that is neither scanned nor known (a typo in pipewhy.yaml, an import mapped
// to a wrong name).
func (x *explainer) checkNames(artifact string, sources []string, known map[string]bool) error {
	var bad []string
	for _, s := range sources {
		if len(x.h.Snapshots(s)) == 0 && !known[s] {
			bad = append(bad, s)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return &Error{Code: CodeLineage, Msg: fmt.Sprintf("the lineage of %s names %s: never scanned and not a source in pipewhy.yaml (check the name, or scan it)",
		artifact, strings.Join(slices.Compact(bad), ", "))}
}

// change returns how an artifact changed from snapshot a to b (log positions; -1: none).
// With detail it runs compare.Diff for record and field counts, or reads them from the
// change cache. The explanation's Change is its own copy of the History's summary change:
// the counts one explanation adds are not seen by another.
func (x *explainer) change(a, b int, detail bool) (*Change, error) {
	k := [2]int{a, b}
	c, ok := x.changes[k]
	if !ok {
		sc, err := x.h.summaryChange(a, b)
		if err != nil {
			return nil, err
		}
		cc := *sc
		c = &cc
		x.changes[k] = c
	}
	if !detail || x.detailed[k] || !c.Changed || a < 0 || b < 0 {
		return c, nil
	}
	x.detailed[k] = true
	d, ok := x.h.counted(a, b, x.limit)
	if !ok {
		sca, scb, err := x.h.scanPair(a, b)
		if err != nil {
			return nil, err
		}
		// Diff refuses snapshots of different profiles, algorithms or modes: then the
		// summary says what changed.
		if rep, err := compare.Diff(sca, scb, compare.Options{Limit: x.limit}); err == nil {
			d = counted{Records: rep.Records, Schema: rep.SchemaChanges, Example: rep.Examples.Changed}
			if len(rep.Fields) > 0 {
				d.Fields = map[string]uint64{}
				for _, f := range rep.Fields {
					if f.Changed > 0 {
						d.Fields[f.Name] = f.Changed
					}
				}
			}
		}
		x.h.putCounted(a, b, x.limit, d)
	}
	c.Records, c.Schema, c.Example, c.Fields = d.Records, d.Schema, d.Example, d.Fields
	return c, nil
}

// summaryChange is the change from a to b from the summaries alone, computed once per
// History. It is shared: not to be changed.
func (h *History) summaryChange(a, b int) (*Change, error) {
	h.mu.Lock()
	c, ok := h.changes[[2]int{a, b}]
	h.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := h.computeChange(a, b)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.changes[[2]int{a, b}] = c
	h.mu.Unlock()
	return c, nil
}

// computeChange is summaryChange without the memo.
func (h *History) computeChange(a, b int) (*Change, error) {
	c := &Change{Comparable: true}
	if a < 0 || b < 0 {
		c.Comparable, c.Reason = false, "not observed on both sides"
		return c, nil
	}
	sa, sb, err := h.summaries(a, b)
	if err != nil {
		return nil, err
	}
	c.Rows = [2]uint64{sa.Rows, sb.Rows}
	switch {
	case a == b:
	case sa.Context == sb.Context:
		c.Changed = !slices.Equal(sa.State, sb.State)
		for _, f := range sb.Fields {
			if g, ok := sa.Field(f.Name); ok && g.ID == f.ID && len(f.Column) > 0 && !slices.Equal(g.Column, f.Column) {
				c.Columns = append(c.Columns, f.Name)
			}
		}
	default:
		c.Changed, c.Comparable = true, false
		switch {
		case sa.Profile != sb.Profile:
			c.Reason = fmt.Sprintf("the C2 profile changed (%s → %s)", profileName(sa.Profile), profileName(sb.Profile))
		case sa.Schema != sb.Schema:
			c.Reason = "the schema changed (columns added, removed or retyped)"
		default:
			c.Reason = "the fingerprint algorithm or mode changed"
		}
	}
	if sa.Coverage != "COMPLETE" || sb.Coverage != "COMPLETE" {
		c.Reason = strings.TrimPrefix(c.Reason+"; coverage is "+sa.Coverage+" → "+sb.Coverage, "; ")
	}
	return c, nil
}

// edgeKey is what an edge's verdict depends on: the edge, the log positions of its two
// ends' snapshots, and the number of examples a copy check keeps.
type edgeKey struct {
	source, target             string
	relation                   lineage.Relation
	transform                  lineage.TransformRef
	srcFrom, srcTo, tFrom, tTo int
	limit                      int
}

// judge is edge, computed once per History for the same edge between the same snapshots
// (a report explains every artifact, and their closures share most edges). Only Depth
// differs from one explanation to the next.
func (x *explainer) judge(e lineage.Edge, src, t *node) (EdgeResult, error) {
	k := edgeKey{e.Source, e.Target, e.Relation, e.Transform, src.from, src.to, t.from, t.to, x.limit}
	x.h.mu.Lock()
	r, ok := x.h.edges[k]
	x.h.mu.Unlock()
	if !ok {
		var err error
		if r, err = x.edge(e, src, t); err != nil {
			return r, err
		}
		x.h.mu.Lock()
		x.h.edges[k] = r
		x.h.mu.Unlock()
	}
	r.Depth = t.depth + 1
	return r, nil
}

// edge judges one edge: source node src, target node t.
func (x *explainer) edge(e lineage.Edge, src, t *node) (EdgeResult, error) {
	r := EdgeResult{Source: e.Source, Target: e.Target, Relation: e.Relation.String(), Depth: t.depth + 1,
		Transform: e.Transform.String(), SourceFrom: x.id(src.from), SourceTo: x.id(src.to),
		TargetFrom: x.id(t.from), TargetTo: x.id(t.to)}
	if e.Relation == lineage.Copy {
		switch {
		case t.to < 0:
			r.Verdict, r.Detail = Unobserved, fmt.Sprintf("%s has no snapshot at that time", e.Target)
		case src.to < 0:
			r.Verdict, r.Detail = Unobserved, fmt.Sprintf("no snapshot of %s at or before %s's", e.Source, e.Target)
		default:
			c, err := x.verifyCopy(src.to, t.to, true)
			if err != nil {
				return r, err
			}
			r.Copy = c
			switch {
			case !c.Comparable:
				r.Verdict, r.Detail = Unobserved, "the copy cannot be verified: "+c.Reason
			case c.Equal:
				r.Verdict, r.Detail = CopyVerified, fmt.Sprintf("%s holds exactly the records of %s", e.Target, e.Source)
			default:
				r.Verdict, r.Detail = CopyMismatch, copyMismatchDetail(e, c)
			}
		}
		return r, nil
	}
	if src.from < 0 || src.to < 0 || t.from < 0 || t.to < 0 {
		missing := e.Source
		if t.from < 0 || t.to < 0 {
			missing = e.Target
		}
		r.Verdict, r.Detail = Unobserved, fmt.Sprintf("no snapshot of %s on both sides of the change", missing)
		return r, nil
	}
	tnote := ""
	if !e.Transform.IsZero() {
		ta, tb, err := x.h.summaries(t.from, t.to)
		if err != nil {
			return r, err
		}
		ra, okA := lineage.RecordedTransform(ta.Lineage, e.Source)
		rb, okB := lineage.RecordedTransform(tb.Lineage, e.Source)
		switch {
		case !okA || !okB:
			tnote = "the transform's identity was not recorded for both runs of " + e.Target
			r.TransformUnknown = true
		case ra.Identity == "" || rb.Identity == "":
			tnote = "the transform file could not be read when " + e.Target + " was scanned"
			r.TransformUnknown = true
		case ra.Kind != rb.Kind || ra.Identity != rb.Identity:
			r.Verdict = TransformChanged
			r.Detail = fmt.Sprintf("the transform changed between the two runs of %s (%s → %s)", e.Target, short(ra.Identity), short(rb.Identity))
			return r, nil
		}
	}
	ch, err := x.change(src.from, src.to, false)
	if err != nil {
		return r, err
	}
	tch, err := x.change(t.from, t.to, false)
	if err != nil {
		return r, err
	}
	switch {
	case ch.Changed && tch.Changed:
		r.Verdict, r.Detail = SourceChanged, fmt.Sprintf("%s changed: consistent with %s's change", e.Source, e.Target)
	case ch.Changed:
		r.Verdict, r.Detail = SourceChanged, fmt.Sprintf("%s changed; %s did not", e.Source, e.Target)
	default:
		r.Verdict, r.Detail = SourceUnchanged, fmt.Sprintf("%s did not change", e.Source)
	}
	if !ch.Comparable && ch.Reason != "" {
		r.Detail += " (" + ch.Reason + ")"
	}
	if !e.Transform.IsZero() {
		if tnote != "" {
			r.Detail += "; " + tnote
		} else {
			r.Detail += "; the transform is unchanged"
		}
	}
	return r, nil
}

func copyMismatchDetail(e lineage.Edge, c *CopyCheck) string {
	s := fmt.Sprintf("%s's COPY of %s does not match", e.Target, e.Source)
	switch {
	case len(c.Columns) > 0:
		return s + ": " + strings.Join(c.Columns, "; ")
	case c.Records != nil:
		n := c.Records.Added + c.Records.Removed + c.Records.Changed
		var parts []string
		if c.Records.Changed > 0 {
			parts = append(parts, fmt.Sprintf("%d changed", c.Records.Changed))
		}
		if c.Records.Removed > 0 {
			parts = append(parts, fmt.Sprintf("%d missing from the copy", c.Records.Removed))
		}
		if c.Records.Added > 0 {
			parts = append(parts, fmt.Sprintf("%d only in the copy", c.Records.Added))
		}
		verb := "differ"
		if n == 1 {
			verb = "differs"
		}
		return fmt.Sprintf("%s: %d record%s %s (%s)", s, n, human.Plural(n), verb, strings.Join(parts, ", "))
	}
	return s + ": the dataset fingerprints differ (scan at record or value resolution to see which records)"
}

func short(id string) string {
	if rest, ok := strings.CutPrefix(id, "sha256:"); ok && len(rest) > 12 {
		return "sha256:" + rest[:12]
	}
	if len(id) > 40 {
		return id[:40] + "…"
	}
	return id
}

func (x *explainer) id(p int) string {
	if p < 0 {
		return ""
	}
	return x.h.Entry(p).Snapshot
}

// explainFields fills Fields: each changed column of the explained artifact, and the
// source columns of its column lineage that changed too.
func (x *explainer) explainFields(e *Explanation, start *node, seen map[nodeKey]*node) {
	changed := map[string]*uint64{}
	if e.Change.Fields != nil {
		for f, n := range e.Change.Fields {
			v := n
			changed[f] = &v
		}
	} else {
		for _, f := range e.Change.Columns {
			changed[f] = nil
		}
	}
	for f, n := range changed {
		fe := FieldExplanation{Changed: n, ExplainedBy: []string{}}
		for _, edge := range x.g.Into(e.Artifact) {
			src := x.nodeOf(seen, edge.Source, start)
			for _, c := range edge.Columns {
				if c.Target != f || src.from < 0 || src.to < 0 {
					continue
				}
				if x.columnChanged(src.from, src.to, c.Source) {
					fe.ExplainedBy = append(fe.ExplainedBy, edge.Source+"."+c.Source)
				}
			}
		}
		slices.Sort(fe.ExplainedBy)
		e.Fields[f] = fe
	}
}

// columnChanged reports whether column name's column state differs between two
// snapshots of one context.
func (x *explainer) columnChanged(a, b int, name string) bool {
	sa, sb, err := x.h.summaries(a, b)
	if err != nil || sa.Context != sb.Context {
		return false
	}
	fa, ok1 := sa.Field(name)
	fb, ok2 := sb.Field(name)
	return ok1 && ok2 && len(fa.Column) > 0 && !slices.Equal(fa.Column, fb.Column)
}
