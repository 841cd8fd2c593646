package lineage

import (
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/source"
)

// ScanHints is what a scan of one artifact takes from the lineage in force.
type ScanHints struct {
	// FieldIDs are the ids the artifact's new columns should take (source.Registry
	// AssignPreferring): the ids its COPY neighbours (the source of a copy into it, the
	// targets of copies out of it) gave the same names, so that a copy and its source
	// fingerprint in the same C3 context and compare directly.
	FieldIDs map[string]uint64
	// Record is what the scan stores (repo.ScanLineage): the version in force and the
	// identity of each declared transform into the artifact, taken now.
	Record *repo.ScanLineage
}

// ForScan returns the hints for a scan of artifact, reading the newest lineage version
// and reg (the registry the scan assigns field ids with). With no lineage recorded it
// returns nil. A transform file that cannot be read is recorded with the reason (the
// scan is about the data; why reports the transform as unknown for that run).
func ForScan(r *repo.Repo, artifact string, reg *source.Registry) (*ScanHints, error) {
	st := Open(r)
	v, g, ok, err := st.Head()
	if err != nil || !ok {
		return nil, err
	}
	h := &ScanHints{FieldIDs: map[string]uint64{},
		Record: &repo.ScanLineage{Lineage: v.ID.String(), Aligned: []string{}, Transforms: []repo.TransformRun{}}}
	var neighbours []string
	for _, e := range g.Into(artifact) {
		if e.Relation == Copy {
			neighbours = append(neighbours, e.Source)
		}
	}
	for _, e := range g.OutOf(artifact) {
		if e.Relation == Copy {
			neighbours = append(neighbours, e.Target)
		}
	}
	slices.Sort(neighbours)
	for _, n := range slices.Compact(neighbours) {
		ids := reg.FieldIDs(n)
		if n == artifact || ids == nil {
			continue
		}
		h.Record.Aligned = append(h.Record.Aligned, n)
		for name, id := range ids {
			if _, set := h.FieldIDs[name]; !set {
				h.FieldIDs[name] = id
			}
		}
	}
	// Transform identities, one per (relation, transform) group of edges into artifact.
	type groupKey struct {
		rel Relation
		tr  TransformRef
	}
	groups := map[groupKey][]string{}
	var keys []groupKey
	for _, e := range g.Into(artifact) {
		if e.Transform.IsZero() {
			continue
		}
		k := groupKey{e.Relation, e.Transform}
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], e.Source)
	}
	for _, k := range keys {
		run := repo.TransformRun{Sources: groups[k], Relation: k.rel.String(), Kind: string(k.tr.Kind), Ref: k.tr.Ref}
		id, err := Identity(k.tr, st.Project())
		switch {
		case err == nil:
			run.Identity = id
		case errors.Is(err, fs.ErrNotExist):
			run.Error = "the file does not exist"
		default:
			run.Error = "the file cannot be read"
		}
		h.Record.Transforms = append(h.Record.Transforms, run)
	}
	slices.SortFunc(h.Record.Transforms, func(a, b repo.TransformRun) int {
		return strings.Compare(strings.Join(a.Sources, "\x00"), strings.Join(b.Sources, "\x00"))
	})
	return h, nil
}

// RecordedTransform returns the transform run a scan recorded for the edge source →
// (the scanned artifact), and whether it has one.
func RecordedTransform(l *repo.ScanLineage, source string) (repo.TransformRun, bool) {
	if l == nil {
		return repo.TransformRun{}, false
	}
	for _, t := range l.Transforms {
		if slices.Contains(t.Sources, source) {
			return t, true
		}
	}
	return repo.TransformRun{}, false
}
