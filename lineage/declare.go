package lineage

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/repo"
)

// Group is one declaration as people write it: sources → target, with a relation, an
// optional transform (as written: a file relative to Base, or a literal) and optional
// column lineage (target column → source columns, each "column" or "artifact.column").
type Group struct {
	From      []string
	To        string
	Relation  string
	Transform string
	Columns   map[string][]string
	Base      string // the directory relative transform paths are relative to
}

// Declarations returns the edges of the group, one per source, with origin o. A
// qualified source column ("orders.amount", the longest source name that prefixes it)
// belongs to that source's edge; an unqualified one to the edge of every source (it stands
// for the column of that name in whichever inputs have it).
func (gr Group) Declarations(project string, o Origin) ([]Declaration, error) {
	rel, err := ParseRelation(gr.Relation)
	if err != nil {
		return nil, err
	}
	if len(gr.From) == 0 {
		return nil, &Error{Code: CodeInvalid, Op: "declare", Msg: "a declaration needs at least one source"}
	}
	if rel == Copy && len(gr.From) != 1 {
		return nil, &Error{Code: CodeInvalid, Op: "declare", Msg: "a copy has exactly one source"}
	}
	var tr TransformRef
	if gr.Transform != "" {
		if tr, err = ParseTransform(gr.Transform, gr.Base, project); err != nil {
			return nil, err
		}
	}
	cols := map[string][]ColumnEdge{}
	for target, srcs := range gr.Columns {
		for _, s := range srcs {
			owner, col := "", s
			for _, f := range gr.From {
				if strings.HasPrefix(s, f+".") && len(f) > len(owner) {
					owner, col = f, s[len(f)+1:]
				}
			}
			for _, f := range gr.From {
				if owner == "" || owner == f {
					cols[f] = append(cols[f], ColumnEdge{Target: target, Source: col})
				}
			}
		}
	}
	out := make([]Declaration, 0, len(gr.From))
	for _, f := range gr.From {
		d := Declaration{Source: f, Target: gr.To, Relation: rel, Transform: tr, Columns: cols[f], Origin: o}
		if err := d.check(); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// FromConfig returns the declarations of the lineage section of f (origin config).
// Errors name the file and the entry's line.
func FromConfig(f *config.File, project string) ([]Declaration, error) {
	var out []Declaration
	for _, e := range f.Lineage() {
		ds, err := Group{From: e.From, To: e.To, Relation: e.Relation, Transform: e.Transform, Columns: e.Columns, Base: f.Dir()}.
			Declarations(project, Origin{Kind: OriginConfig})
		if err != nil {
			le, _ := err.(*Error)
			return nil, &Error{Code: le.Code, Op: "sync", Path: f.Path, Msg: fmt.Sprintf("line %d: %s", e.Line, le.Msg)}
		}
		out = append(out, ds...)
	}
	return out, nil
}

// SyncConfig records the lineage section of f as the configuration's declarations,
// replacing the previous ones (a new version when they changed). A conflict with a
// declaration from elsewhere is CodeConflict and writes nothing.
func (s *Store) SyncConfig(ctx context.Context, f *config.File) (Version, bool, error) {
	decls, err := FromConfig(f, s.Project())
	if err != nil {
		return Version{}, false, err
	}
	v, changed, err := s.Update(ctx, func(g *Graph) (*Graph, error) { return g.Replace(OriginConfig, decls) })
	if err != nil {
		if le, ok := err.(*Error); ok && le.Code == CodeConflict && le.Path == "" {
			le.Path = f.Path
		}
	}
	return v, changed, err
}

// Known returns the artifact names PipeWhy knows in r: every scanned artifact, and the
// artifact of every source of f (nil: none).
func Known(r *repo.Repo, f *config.File) (map[string]bool, error) {
	log, err := r.Log()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range log {
		out[e.Artifact] = true
	}
	if f != nil {
		for _, a := range f.Artifacts() {
			out[a] = true
		}
	}
	return out, nil
}

// CheckKnown returns CodeUnknown naming every artifact of decls that known lacks.
func CheckKnown(decls []Declaration, known map[string]bool) error {
	var unknown []string
	for _, d := range decls {
		for _, n := range []string{d.Source, d.Target} {
			if !known[n] {
				unknown = append(unknown, n)
			}
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	unknown = slices.Compact(unknown)
	return &Error{Code: CodeUnknown, Op: "declare", Msg: fmt.Sprintf("%s: never scanned and not a source in pipewhy.yaml (scan it first, or check the name)",
		strings.Join(unknown, ", "))}
}

// Declare adds decls (origin cli or an import's) to the lineage after checking that
// every artifact is known; one origin's new declaration of an edge replaces its old one.
func (s *Store) Declare(ctx context.Context, decls []Declaration, known map[string]bool) (Version, bool, error) {
	if err := CheckKnown(decls, known); err != nil {
		return Version{}, false, err
	}
	return s.Update(ctx, func(g *Graph) (*Graph, error) { return g.Merge(decls) })
}

// ReplaceOrigin makes decls the complete set of declarations of their origin kind (a dbt
// manifest describes the whole project), after checking that every artifact is known.
func (s *Store) ReplaceOrigin(ctx context.Context, kind string, decls []Declaration, known map[string]bool) (Version, bool, error) {
	if err := CheckKnown(decls, known); err != nil {
		return Version{}, false, err
	}
	return s.Update(ctx, func(g *Graph) (*Graph, error) { return g.Replace(kind, decls) })
}

// Remove removes the declarations of source → target made with lineage add or an import.
// An edge that pipewhy.yaml declares is not removed here (the next sync would restore
// it): CodeInvalid, naming the file.
func (s *Store) Remove(ctx context.Context, source, target string) (Version, bool, error) {
	return s.Update(ctx, func(g *Graph) (*Graph, error) {
		ng, err := g.Remove(source, target, OriginCLI, OriginOpenLineage, OriginDBT)
		if err != nil {
			for _, d := range g.decls {
				if d.Source == source && d.Target == target && d.Origin.Kind == OriginConfig {
					return nil, &Error{Code: CodeInvalid, Op: "remove", Msg: fmt.Sprintf("%s → %s is declared in pipewhy.yaml: remove it there", source, target)}
				}
			}
			return nil, err
		}
		return ng, nil
	})
}
