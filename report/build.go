package report

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/incident"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/why"
)

// Status is what an artifact's last change was, as the report colours and names it.
type Status string

// The statuses, strongest first: an artifact is shown with the first that applies.
const (
	Incident   Status = "incident"   // an open incident names it (pipewhy check)
	Failed     Status = "error"      // its change could not be explained (Artifact.Error says why)
	Changed    Status = "changed"    // its last two snapshots differ
	Unchanged  Status = "unchanged"  // its last two snapshots are equal
	New        Status = "new"        // it has one snapshot: nothing to compare yet
	Unobserved Status = "unobserved" // the lineage names it, and it was never scanned
)

// Statuses lists every status, strongest first.
var Statuses = []Status{Incident, Failed, Changed, Unchanged, New, Unobserved}

// Options configure Build.
type Options struct {
	// Artifacts limits the report to these artifacts and their upstream lineage (the
	// artifacts that can explain them); empty: every artifact, scanned or in the lineage.
	Artifacts []string
	// Known are the artifacts a lineage may name besides scanned ones (lineage.Known),
	// as for why.Explain.
	Known map[string]bool
	// History is the number of snapshots in each artifact's history strip; 0 means 10.
	History int
	// Examples is the number of changed records shown per artifact, old → new; 0 means
	// 3, negative none.
	Examples int
	// RootCauses is the number of root causes shown per artifact, strongest first (the
	// others are counted); 0 means 3.
	RootCauses int
	// GeneratedAtNs is the time the page says it was written (Unix nanoseconds).
	GeneratedAtNs uint64
}

func (o *Options) defaults() {
	if o.History <= 0 {
		o.History = 10
	}
	switch {
	case o.Examples == 0:
		o.Examples = 3
	case o.Examples < 0:
		o.Examples = 0
	}
	if o.RootCauses <= 0 {
		o.RootCauses = 3
	}
}

// Snapshot is one scan of an artifact, as the scan log records it.
type Snapshot struct {
	ID           string `json:"snapshot"`
	FinishedAtNs uint64 `json:"finished_at_ns,string"`
	Rows         uint64 `json:"rows"`
	Resolution   string `json:"resolution"`
	Coverage     string `json:"coverage"`
	Address      string `json:"address"`
}

// Step is one snapshot of a history strip and how it differs from the one before.
type Step struct {
	Snapshot
	// First: the first snapshot shown, compared with nothing.
	First bool `json:"first,omitempty"`
	// Changed: the dataset differs from the previous snapshot's.
	Changed bool `json:"changed"`
	// Records counts what changed, by key (record and value resolution; nil else).
	Records *compare.Counts `json:"records,omitempty"`
	// Note says why there are no counts: dataset resolution, another key, another
	// schema or profile.
	Note string `json:"note,omitempty"`
}

// Artifact is one artifact's part of the report.
type Artifact struct {
	Name   string    `json:"name"`
	Status Status    `json:"status"`
	Latest *Snapshot `json:"latest"` // nil: never scanned
	// Explanation is why.Explain of its last two snapshots: its last change (from
	// compare.Diff), the verdicts of the edges upstream and the root causes; nil with
	// fewer than two snapshots or when Error is set.
	Explanation *why.Explanation `json:"explanation,omitempty"`
	// Error is why its change could not be explained (the lineage names an artifact
	// that is neither scanned nor a configured source).
	Error     string               `json:"error,omitempty"`
	Incidents []*incident.Incident `json:"incidents"` // open incidents, by number
	History   []Step               `json:"history"`   // oldest first
}

// Edge is a lineage edge in force and its verdict, as the explanation of its target
// judged it.
type Edge struct {
	Source    string      `json:"source"`
	Target    string      `json:"target"`
	Relation  string      `json:"relation"`
	Transform string      `json:"transform,omitempty"`
	Verdict   why.Verdict `json:"verdict"` // "" when the target's change was not explained
	Detail    string      `json:"detail"`
}

// Page is the content of a report: every artifact in scope, the edges between them, and
// how the page was made.
type Page struct {
	GeneratedAtNs uint64      `json:"generated_at_ns,string"`
	Lineage       uint64      `json:"lineage_version"` // the lineage version in force; 0: none recorded
	Artifacts     []*Artifact `json:"artifacts"`       // by name
	Edges         []Edge      `json:"edges"`           // by source, then target
	Scoped        []string    `json:"scoped"`          // Options.Artifacts
	Notes         []string    `json:"notes"`           // for the person who made it (not on the page)
	RootCauses    int         `json:"-"`               // shown per artifact
}

// Count returns the number of artifacts with status s.
func (p *Page) Count(s Status) int {
	n := 0
	for _, a := range p.Artifacts {
		if a.Status == s {
			n++
		}
	}
	return n
}

// Build reads the report's content from repository r: the lineage in force (st), the
// scans (h) and the incidents. Each artifact with two snapshots or more is explained
// with why.Explain (its last change comes from compare.Diff through it); its history
// strip compares its last Options.History snapshots pairwise with compare.Diff, loading
// two of them at a time. An artifact that is neither scanned, known, nor in the lineage
// is CodeUnknown.
func Build(ctx context.Context, r *repo.Repo, h *why.History, st *lineage.Store, o Options) (*Page, error) {
	o.defaults()
	v, g, ok, err := st.Head()
	if err != nil {
		return nil, err
	}
	p := &Page{GeneratedAtNs: o.GeneratedAtNs, Scoped: slices.Clone(o.Artifacts), RootCauses: o.RootCauses}
	if ok {
		p.Lineage = v.Seq
	}
	all := map[string]bool{}
	for _, a := range h.Artifacts() {
		all[a] = true
	}
	for _, a := range g.Artifacts() {
		all[a] = true
	}
	scope := all
	if len(o.Artifacts) > 0 {
		scope = map[string]bool{}
		for _, a := range o.Artifacts {
			if !all[a] && !o.Known[a] {
				return nil, &Error{Code: CodeUnknown, Msg: fmt.Sprintf("%s is not an artifact: never scanned, not in pipewhy.yaml and not in the lineage", a)}
			}
			scope[a] = true
			for _, e := range g.Upstream(a) {
				scope[e.Source] = true
			}
		}
	}
	incs, err := incident.OpenStore(r).List()
	if err != nil {
		return nil, err
	}
	open := map[string][]*incident.Incident{}
	for _, in := range incs {
		if in.Status == incident.Open {
			open[in.Artifact] = append(open[in.Artifact], in)
		}
	}
	names := make([]string, 0, len(scope))
	for a := range scope {
		names = append(names, a)
	}
	slices.Sort(names)
	steps, err := openSteps(r)
	if err != nil {
		return nil, &Error{Code: CodeCache, Msg: "cannot read the history cache", Err: err}
	}
	// The artifacts are explained in parallel (the History, the lineage store and the
	// step cache are safe for concurrent use); each result has its place.
	p.Artifacts = make([]*Artifact, len(names))
	errs := make([]error, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(names); i = int(next.Add(1) - 1) {
				if errs[i] = ctx.Err(); errs[i] == nil {
					p.Artifacts[i], errs[i] = buildArtifact(ctx, r, h, st, steps, names[i], open[names[i]], o)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first artifact's, by name
		}
	}
	byName := map[string]*Artifact{}
	for _, a := range p.Artifacts {
		byName[a.Name] = a
	}
	if err := steps.save(r); err != nil {
		p.Notes = append(p.Notes, "the history cache ("+StepsFile+") was not updated: "+err.Error())
	}
	for _, e := range g.Edges() {
		if !scope[e.Source] || !scope[e.Target] {
			continue
		}
		pe := Edge{Source: e.Source, Target: e.Target, Relation: e.Relation.String(), Transform: e.Transform.String()}
		if x := byName[e.Target].Explanation; x != nil {
			for _, er := range x.Edges {
				if er.Depth == 1 && er.Source == e.Source {
					pe.Verdict, pe.Detail = er.Verdict, er.Detail
				}
			}
		}
		p.Edges = append(p.Edges, pe)
	}
	slices.SortFunc(p.Edges, func(a, b Edge) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target))
	})
	return p, nil
}

func buildArtifact(ctx context.Context, r *repo.Repo, h *why.History, st *lineage.Store, c *stepCache, name string, open []*incident.Incident, o Options) (*Artifact, error) {
	a := &Artifact{Name: name, Status: Unobserved, Incidents: open, History: []Step{}}
	if a.Incidents == nil {
		a.Incidents = []*incident.Incident{}
	}
	ps := h.Snapshots(name)
	if len(ps) == 0 {
		return a, nil
	}
	latest := snapshotOf(h.Entry(ps[len(ps)-1]))
	a.Latest = &latest
	a.Status = New
	if len(ps) >= 2 {
		// The root causes link to their own sections, which show their changes: none is
		// counted again per explanation.
		e, err := why.Explain(ctx, h, st, name, why.Options{Limit: o.Examples, Known: o.Known, NoDetails: true})
		switch {
		case errors.Is(err, &why.Error{Code: why.CodeLineage}):
			a.Status, a.Error = Failed, err.Error()
		case err != nil:
			return nil, err
		case e.Changed:
			a.Explanation, a.Status = e, Changed
		default:
			a.Explanation, a.Status = e, Unchanged
		}
	}
	if len(a.Incidents) > 0 {
		a.Status = Incident
	}
	var err error
	kept := retained(r, h, ps)
	a.History, err = history(r, h, c, kept[max(0, len(kept)-o.History):], a.Explanation)
	return a, err
}

func snapshotOf(e repo.LogEntry) Snapshot {
	return Snapshot{ID: e.Snapshot, FinishedAtNs: e.FinishedAtNs, Rows: e.Rows, Resolution: e.Resolution, Coverage: e.Coverage, Address: e.Address}
}

// history returns the strip of the snapshots at log positions ps, each compared with
// the one before: from the step cache, from the explanation x for the last pair (which
// compared it already), else by compare.Diff, loading two snapshots at a time (the
// record and value arrays only when the dataset states differ). New steps go into the
// cache.
func history(r *repo.Repo, h *why.History, c *stepCache, ps []int, x *why.Explanation) ([]Step, error) {
	steps := make([]Step, len(ps))
	for i, p := range ps {
		steps[i] = Step{Snapshot: snapshotOf(h.Entry(p)), First: i == 0}
	}
	if n := len(steps); n >= 2 && x != nil && x.Change != nil && x.From == steps[n-2].ID && x.To == steps[n-1].ID {
		if _, ok := c.get(x.From, x.To); !ok {
			res := stepResult{Changed: x.Change.Changed, Records: x.Change.Records}
			if !x.Change.Comparable {
				res.Note = x.Change.Reason
			}
			c.put(x.From, x.To, res)
		}
	}
	load := func(s *repo.Scan, parts repo.Parts) error { return r.LoadMore(s, parts, nil) }
	var prev *repo.Scan // the scan of steps[i-1], when loaded
	for i := 1; i < len(steps); i++ {
		from, to := steps[i-1].ID, steps[i].ID
		res, ok := c.get(from, to)
		if !ok {
			var err error
			if prev == nil {
				if prev, err = loadSummary(r, from); err != nil {
					return nil, err
				}
			}
			cur, err := loadSummary(r, to)
			if err != nil {
				return nil, err
			}
			if res, err = compareStep(prev, cur, load); err != nil {
				return nil, err
			}
			c.put(from, to, res)
			prev = cur
		} else {
			prev = nil
		}
		steps[i].Changed, steps[i].Records, steps[i].Note = res.Changed, res.Records, res.Note
	}
	return steps, nil
}

// loadSummary loads a scan without its record and value arrays.
func loadSummary(r *repo.Repo, id string) (*repo.Scan, error) {
	sid, err := snapshot.ParseID(id)
	if err != nil {
		return nil, err
	}
	return r.LoadParts(sid, 0, nil)
}

// compareStep compares two consecutive snapshots of an artifact with compare.Diff.
func compareStep(a, b *repo.Scan, load func(*repo.Scan, repo.Parts) error) (stepResult, error) {
	rep, err := compare.Diff(a, b, compare.Options{Load: load})
	switch {
	case errors.Is(err, &compare.Error{Code: compare.CodeContext}):
		return stepResult{Changed: true, Note: "not comparable: another C2 profile, fingerprint algorithm or mode"}, nil
	case err != nil:
		return stepResult{}, err
	}
	res := stepResult{Changed: !rep.Equal, Records: rep.Records}
	switch {
	case !rep.Comparable:
		res.Note = "the schema changed (columns added, removed or retyped)" // why's words
	case rep.Records == nil && !rep.Equal:
		res.Note = "no record counts at dataset resolution"
	}
	return res, nil
}
