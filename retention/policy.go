package retention

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Rule is what a prune keeps on purpose. A scan is kept when any rule keeps it; at least
// one of KeepLast and KeepWithin must be set.
type Rule struct {
	// KeepLast keeps the newest KeepLast published scans of every artifact; 0 sets no
	// such rule.
	KeepLast int
	// KeepWithin keeps every scan that finished at most KeepWithin before Now (a scan
	// exactly KeepWithin old is kept, one a nanosecond older is not); 0 sets no such rule.
	KeepWithin time.Duration
	// Artifacts, when not empty, limits removal to these artifacts' scans: the others are
	// all kept.
	Artifacts []string
	// Now is the time KeepWithin counts from; the zero value means time.Now().
	Now time.Time
}

// Validate reports a rule that keeps nothing on purpose or has a negative bound.
func (r Rule) Validate() error {
	switch {
	case r.KeepLast < 0:
		return &Error{Code: CodeRule, Msg: "keep-last must not be negative"}
	case r.KeepWithin < 0:
		return &Error{Code: CodeRule, Msg: "keep-within must not be negative"}
	case r.KeepLast == 0 && r.KeepWithin == 0:
		return &Error{Code: CodeRule, Msg: "give keep-last (at least 1) or keep-within: a prune needs a rule of what to keep"}
	}
	for _, a := range r.Artifacts {
		if a == "" {
			return &Error{Code: CodeRule, Msg: "an empty artifact name"}
		}
	}
	return nil
}

// Entry is one line of the scan log: a scan of an artifact, whether or not its snapshot
// is still published.
type Entry struct {
	ID           string // 32 hex
	Artifact     string
	FinishedAtNs uint64
}

// Published is what the policy needs of a published snapshot's metadata.
type Published struct {
	ID           string
	Parent       string // "" when it has none
	FinishedAtNs uint64
}

// Graph is the lineage in force at some time: Version names it, Inputs returns the
// sources of the edges into an artifact.
type Graph struct {
	Version string
	Inputs  func(artifact string) []string
}

// History is everything the policy reads: the store's published snapshots and what
// refers to them.
type History struct {
	Log       []Entry              // the scan log, oldest first
	Published map[string]Published // every published snapshot of the store, by id
	// Evidence maps a snapshot id to the incidents it is evidence of.
	Evidence map[string][]uint64
	// Lineage returns the lineage in force at a time (why's rule: the newest version at
	// or before it, else the first); nil, or a Graph with nil Inputs, when none was
	// recorded.
	Lineage func(atNs uint64) (Graph, error)
}

// Reason codes: why a snapshot is kept. Stable, in the JSON report.
const (
	ReasonLatest      = "latest"       // the newest scan of its artifact: always kept
	ReasonKeepLast    = "keep-last"    // among the newest KeepLast scans of its artifact
	ReasonKeepWithin  = "keep-within"  // finished within KeepWithin of Now
	ReasonIncident    = "incident"     // evidence of an incident
	ReasonUnlogged    = "unlogged"     // not in the scan log: no artifact, nothing to judge it by
	ReasonNotSelected = "not-selected" // its artifact is not among Rule.Artifacts
	ReasonParent      = "parent"       // the C5 parent of a snapshot kept for a reason above
	ReasonExplains    = "explains"     // read by why's explanation of a kept scan's change
)

// Reason is one reason a snapshot is kept.
type Reason struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
	// Of is the kept snapshot that needs this one (parent, explains); "" otherwise.
	Of string `json:"of,omitempty"`
	// Incidents are the incidents it is evidence of (incident).
	Incidents []uint64 `json:"incidents,omitempty"`
	// Lineage is the lineage version the explanation follows (explains); "" when none
	// was recorded.
	Lineage string `json:"lineage,omitempty"`
}

// Decision is the policy's verdict on one published snapshot.
type Decision struct {
	ID           string   `json:"id"`
	Artifact     string   `json:"artifact"` // "" when the scan log does not name it
	FinishedAtNs uint64   `json:"finished_at_ns,string"`
	Remove       bool     `json:"remove"`
	Reasons      []Reason `json:"reasons"` // why it is kept; empty when removed
}

// Plan is the verdict on every published snapshot: grouped by artifact (ascending, the
// unlogged last), newest first within an artifact.
type Plan struct {
	Decisions []Decision
}

// Removals returns the snapshots the plan removes, in the order a prune removes them:
// newest first, so that an interrupted prune never leaves a published snapshot whose
// parent it removed.
func (p *Plan) Removals() []Decision {
	var out []Decision
	for _, d := range p.Decisions {
		if d.Remove {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Decision) int {
		return cmp.Or(cmp.Compare(b.FinishedAtNs, a.FinishedAtNs), strings.Compare(b.ID, a.ID))
	})
	return out
}

// Decide applies rule to history. It never removes: the newest published scan of any
// artifact; a scan the rule keeps; a scan of an artifact the rule does not select; a
// snapshot incident evidence names; a published snapshot the scan log does not name; and,
// for each of those (the anchors), its C5 parent and every scan why's explanation of its
// change reads (its previous scan and, through the lineage in force at it, each upstream
// artifact's newest scan at or before it and at or before that previous scan). The
// second level is not followed further: a snapshot kept only as a parent or an input is
// kept for its own bytes, and opening it never needs its parent (C5 PW-07.18).
func Decide(rule Rule, h History) (*Plan, error) {
	if err := rule.Validate(); err != nil {
		return nil, err
	}
	now := rule.Now
	if now.IsZero() {
		now = time.Now()
	}
	nowNs := uint64(max(now.UnixNano(), 0))
	selected := func(a string) bool { return len(rule.Artifacts) == 0 || slices.Contains(rule.Artifacts, a) }

	// Log positions: by snapshot id (a snapshot logged twice counts at its last line) and,
	// per artifact, ascending, of every line, published or not (as why reads the log).
	pos := map[string]int{}
	byArt := map[string][]int{}
	for i, e := range h.Log {
		pos[e.ID] = i
		byArt[e.Artifact] = append(byArt[e.Artifact], i)
	}
	for _, a := range rule.Artifacts {
		if _, ok := byArt[a]; !ok {
			return nil, &Error{Code: CodeRule, Msg: fmt.Sprintf("the scan log has no artifact %q to prune", a)}
		}
	}
	reasons := map[string][]Reason{}
	keep := func(id string, r Reason) {
		if _, ok := h.Published[id]; ok {
			reasons[id] = append(reasons[id], r)
		}
	}

	// The anchors.
	arts := make([]string, 0, len(byArt))
	for a := range byArt {
		arts = append(arts, a)
	}
	slices.Sort(arts)
	for _, a := range arts {
		var live []string // the artifact's published scans, newest first
		for _, p := range slices.Backward(byArt[a]) {
			id := h.Log[p].ID
			if _, ok := h.Published[id]; ok && pos[id] == p {
				live = append(live, id)
			}
		}
		for rank, id := range live {
			age := nowNs - min(h.Published[id].FinishedAtNs, nowNs)
			switch {
			case rank == 0:
				keep(id, Reason{Code: ReasonLatest, Detail: "the newest scan of " + a})
			case rule.KeepLast > rank:
				keep(id, Reason{Code: ReasonKeepLast, Detail: fmt.Sprintf("scan %d of the %d newest of %s", rank+1, rule.KeepLast, a)})
			}
			if rule.KeepWithin > 0 && age <= uint64(rule.KeepWithin) {
				keep(id, Reason{Code: ReasonKeepWithin, Detail: "finished " + time.Duration(age).String() + " ago, within " + rule.KeepWithin.String()})
			}
			if !selected(a) {
				keep(id, Reason{Code: ReasonNotSelected, Detail: a + " is not among the artifacts to prune"})
			}
		}
	}
	for id, incidents := range h.Evidence {
		if len(incidents) > 0 {
			ns := make([]string, len(incidents))
			for i, n := range incidents {
				ns[i] = strconv.FormatUint(n, 10)
			}
			keep(id, Reason{Code: ReasonIncident, Detail: "evidence of incident " + strings.Join(ns, ", "), Incidents: slices.Clone(incidents)})
		}
	}
	for id := range h.Published {
		if _, ok := pos[id]; !ok {
			keep(id, Reason{Code: ReasonUnlogged, Detail: "not in the scan log: its artifact is unknown"})
		}
	}

	// What the anchors need: parents and explanation inputs.
	anchors := make([]string, 0, len(reasons))
	for id := range reasons {
		anchors = append(anchors, id)
	}
	slices.Sort(anchors)
	for _, id := range anchors {
		if p := h.Published[id].Parent; p != "" {
			keep(p, Reason{Code: ReasonParent, Detail: "the parent of " + id, Of: id})
		}
		k, ok := pos[id]
		if !ok {
			continue
		}
		inputs, version, err := explanationInputs(h, byArt, k)
		if err != nil {
			return nil, err
		}
		for _, p := range inputs {
			in := h.Log[p].ID
			if in == id || pos[in] != p {
				continue
			}
			keep(in, Reason{Code: ReasonExplains, Detail: "read by the explanation of the change of " + id, Of: id, Lineage: version})
		}
	}

	// The plan.
	plan := &Plan{}
	add := func(id, artifact string) {
		rs := dedupe(reasons[id])
		plan.Decisions = append(plan.Decisions, Decision{ID: id, Artifact: artifact,
			FinishedAtNs: h.Published[id].FinishedAtNs, Remove: len(rs) == 0, Reasons: rs})
	}
	for _, a := range arts {
		for _, p := range slices.Backward(byArt[a]) {
			id := h.Log[p].ID
			if _, ok := h.Published[id]; ok && pos[id] == p {
				add(id, a)
			}
		}
	}
	var unlogged []string
	for id := range h.Published {
		if _, ok := pos[id]; !ok {
			unlogged = append(unlogged, id)
		}
	}
	slices.Sort(unlogged)
	for _, id := range unlogged {
		add(id, "")
	}
	return plan, nil
}

// dedupe drops repeated reasons (one snapshot can be, say, the parent of one kept scan
// read twice by its explanation) and returns a non-nil slice.
func dedupe(rs []Reason) []Reason {
	out := []Reason{}
	for _, r := range rs {
		if !slices.ContainsFunc(out, func(o Reason) bool {
			return o.Code == r.Code && o.Of == r.Of && o.Detail == r.Detail && o.Lineage == r.Lineage
		}) {
			out = append(out, r)
		}
	}
	return out
}

// explanationInputs returns the log positions why.Explain reads to explain the change of
// the scan at log position k (package why, Explain with --to it): the artifact's
// previous scan and, through the lineage in force when k finished, for every edge of
// the upstream closure, the source's newest scan at or before each reference position.
// It walks the closure exactly as Explain does. No previous scan: nothing to explain.
func explanationInputs(h History, byArt map[string][]int, k int) ([]int, string, error) {
	art := h.Log[k].Artifact
	ps := byArt[art]
	i, _ := slices.BinarySearch(ps, k)
	if i == 0 {
		return nil, "", nil
	}
	j := ps[i-1]
	out := []int{j}
	if h.Lineage == nil {
		return out, "", nil
	}
	at := h.Log[k].FinishedAtNs
	if p, ok := h.Published[h.Log[k].ID]; ok {
		at = p.FinishedAtNs
	}
	g, err := h.Lineage(at)
	if err != nil {
		return nil, "", &Error{Code: CodeHistory, Msg: "the lineage in force at " + h.Log[k].ID, Err: err}
	}
	if g.Inputs == nil {
		return out, "", nil
	}
	latest := func(a string, p int) (int, bool) {
		ps := byArt[a]
		i, found := slices.BinarySearch(ps, p)
		if found {
			return ps[i], true
		}
		if i == 0 {
			return 0, false
		}
		return ps[i-1], true
	}
	type node struct {
		art            string
		refFrom, refTo int
		hasFrom, hasTo bool
	}
	type key struct {
		art            string
		refFrom, refTo int
	}
	start := node{art: art, refFrom: j, refTo: k, hasFrom: true, hasTo: true}
	seen := map[key]bool{{art, j, k}: true}
	queue := []node{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, src := range g.Inputs(n.art) {
			s := node{art: src, refFrom: n.refFrom, refTo: n.refTo}
			if p, ok := latest(src, n.refFrom); ok && n.hasFrom {
				s.refFrom, s.hasFrom = p, true
				out = append(out, p)
			}
			if p, ok := latest(src, n.refTo); ok && n.hasTo {
				s.refTo, s.hasTo = p, true
				out = append(out, p)
			}
			if kk := (key{src, s.refFrom, s.refTo}); !seen[kk] {
				seen[kk] = true
				queue = append(queue, s)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), g.Version, nil
}
