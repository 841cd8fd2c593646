package lineage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/arrays"
)

// Relation is a lineage edge's relation (C1 PW-02.08 relation codes).
type Relation uint8

// The relations.
const (
	Copy      = Relation(arrays.RelationCopy)      // the target holds the source's records unchanged
	Transform = Relation(arrays.RelationTransform) // the target is computed from the source by a transform
	Derived   = Relation(arrays.RelationDerived)   // the target depends on the source, transform optional
)

// String returns "copy", "transform" or "derived".
func (r Relation) String() string {
	switch r {
	case Copy:
		return "copy"
	case Transform:
		return "transform"
	case Derived:
		return "derived"
	}
	return fmt.Sprintf("relation(%d)", uint8(r))
}

// ParseRelation parses "copy", "transform" or "derived".
func ParseRelation(s string) (Relation, error) {
	switch s {
	case "copy":
		return Copy, nil
	case "transform":
		return Transform, nil
	case "derived":
		return Derived, nil
	}
	return 0, &Error{Code: CodeInvalid, Op: "declare", Msg: fmt.Sprintf("relation %q is not copy, transform or derived", s)}
}

// TransformKind says how a transform is identified.
type TransformKind string

// The transform kinds.
const (
	TransformFile    TransformKind = "file"    // a file whose SHA-256 is the identity, hashed at scan time
	TransformLiteral TransformKind = "literal" // a version id given as it is
)

// TransformRef is a declared transform: a file (Ref relative to the project directory,
// with '/' separators, or absolute) or a literal version id. The zero value is none.
type TransformRef struct {
	Kind TransformKind
	Ref  string
}

// IsZero reports whether t declares no transform.
func (t TransformRef) IsZero() bool { return t.Kind == "" && t.Ref == "" }

// String renders t for people: the file path, or the literal.
func (t TransformRef) String() string { return t.Ref }

// Origin kinds: where a declaration came from (its C1 evidence).
const (
	OriginConfig      = "config"      // pipewhy.yaml's lineage section
	OriginCLI         = "cli"         // pipewhy lineage add
	OriginOpenLineage = "openlineage" // pipewhy lineage import openlineage
	OriginDBT         = "dbt"         // pipewhy lineage import dbt
)

// Origin is where a declaration came from: a kind and a reference (the OpenLineage job,
// the dbt node), the C1 evidence of its edges.
type Origin struct {
	Kind string
	Ref  string
}

// String renders o for people: "pipewhy.yaml", "lineage add", "openlineage job ns/name".
func (o Origin) String() string {
	switch o.Kind {
	case OriginConfig:
		return "pipewhy.yaml"
	case OriginCLI:
		return "lineage add"
	}
	if o.Ref == "" {
		return o.Kind
	}
	return o.Kind + " " + o.Ref
}

// ColumnEdge is column lineage: column Target of the edge's target is computed from
// column Source of the edge's source.
type ColumnEdge struct {
	Target string
	Source string
}

// Declaration is one declared edge Source → Target, as one origin declared it.
// Two origins may declare the same edge; they must agree on relation and transform.
type Declaration struct {
	Source, Target string
	Relation       Relation
	Transform      TransformRef
	Columns        []ColumnEdge // sorted, without repeats
	Origin         Origin
}

// Edge is a declared edge with every origin that declares it merged: the relation and
// transform they agree on, the union of their column lineage.
type Edge struct {
	Source, Target string
	Relation       Relation
	Transform      TransformRef
	Columns        []ColumnEdge
	Origins        []Origin
}

// Graph is a set of declarations and the edges they make. It is immutable: the methods
// that change it return a new Graph. Cycles and self-edges are allowed (C1).
type Graph struct {
	decls []Declaration // canonical order: target, source, origin
	edges []Edge        // merged, sorted by target then source
	into  map[string][]int
	outOf map[string][]int
}

func cmpOrigin(a, b Origin) int {
	return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Ref, b.Ref))
}

func cmpColumn(a, b ColumnEdge) int {
	return cmp.Or(strings.Compare(a.Target, b.Target), strings.Compare(a.Source, b.Source))
}

func checkName(what, n string) error {
	if n == "" || strings.ContainsAny(n, "\n\r") || strings.TrimSpace(n) != n {
		return &Error{Code: CodeInvalid, Op: "declare", Msg: fmt.Sprintf("%s %q must be a nonempty one-line name without surrounding spaces", what, n)}
	}
	return nil
}

// check validates one declaration on its own.
func (d *Declaration) check() error {
	for _, n := range []string{d.Source, d.Target} {
		if err := checkName("artifact", n); err != nil {
			return err
		}
	}
	edge := d.Source + " → " + d.Target
	switch d.Relation {
	case Copy:
		if !d.Transform.IsZero() {
			return &Error{Code: CodeInvalid, Op: "declare", Msg: edge + ": a copy has no transform (C1: COPY carries none)"}
		}
		if len(d.Columns) > 0 {
			return &Error{Code: CodeInvalid, Op: "declare", Msg: edge + ": a copy has no column lineage: every column is copied as it is"}
		}
	case Transform:
		if d.Transform.IsZero() {
			return &Error{Code: CodeInvalid, Op: "declare", Msg: edge + ": a transform needs its transform (a file or a version id)"}
		}
	case Derived:
	default:
		return &Error{Code: CodeInvalid, Op: "declare", Msg: edge + ": unknown relation"}
	}
	if !d.Transform.IsZero() {
		if d.Transform.Kind != TransformFile && d.Transform.Kind != TransformLiteral || d.Transform.Ref == "" || strings.ContainsAny(d.Transform.Ref, "\n\r") {
			return &Error{Code: CodeInvalid, Op: "declare", Msg: edge + ": malformed transform"}
		}
	}
	for _, c := range d.Columns {
		if err := checkName("column", c.Target); err != nil {
			return err
		}
		if err := checkName("column", c.Source); err != nil {
			return err
		}
	}
	if d.Origin.Kind == "" || strings.ContainsAny(d.Origin.Kind+d.Origin.Ref, "\n\r") {
		return &Error{Code: CodeInvalid, Op: "declare", Msg: edge + ": declaration without a valid origin"}
	}
	return nil
}

// NewGraph validates decls and returns their graph. Declarations of one edge by one
// origin merge (their column lineage unites) when they agree; declarations of one edge
// that disagree on relation or transform, by one origin or several, are CodeConflict.
func NewGraph(decls []Declaration) (*Graph, error) {
	ds := make([]Declaration, 0, len(decls))
	for _, d := range decls {
		if err := d.check(); err != nil {
			return nil, err
		}
		d.Columns = slices.Clone(d.Columns)
		slices.SortFunc(d.Columns, cmpColumn)
		d.Columns = slices.Compact(d.Columns)
		ds = append(ds, d)
	}
	slices.SortStableFunc(ds, func(a, b Declaration) int {
		return cmp.Or(strings.Compare(a.Target, b.Target), strings.Compare(a.Source, b.Source), cmpOrigin(a.Origin, b.Origin))
	})
	g := &Graph{into: map[string][]int{}, outOf: map[string][]int{}}
	for _, d := range ds {
		if n := len(g.decls); n > 0 {
			p := &g.decls[n-1]
			if p.Source == d.Source && p.Target == d.Target && p.Origin == d.Origin {
				if p.Relation != d.Relation || p.Transform != d.Transform {
					return nil, conflict(*p, d)
				}
				p.Columns = mergeColumns(p.Columns, d.Columns)
				continue
			}
		}
		g.decls = append(g.decls, d)
	}
	for i := 0; i < len(g.decls); {
		j := i
		e := Edge{Source: g.decls[i].Source, Target: g.decls[i].Target, Relation: g.decls[i].Relation, Transform: g.decls[i].Transform}
		for ; j < len(g.decls) && g.decls[j].Source == e.Source && g.decls[j].Target == e.Target; j++ {
			d := g.decls[j]
			if d.Relation != e.Relation || d.Transform != e.Transform {
				return nil, conflict(g.decls[i], d)
			}
			e.Columns = mergeColumns(e.Columns, d.Columns)
			e.Origins = append(e.Origins, d.Origin)
		}
		k := len(g.edges)
		g.edges = append(g.edges, e)
		g.into[e.Target] = append(g.into[e.Target], k)
		g.outOf[e.Source] = append(g.outOf[e.Source], k)
		i = j
	}
	return g, nil
}

func mergeColumns(a, b []ColumnEdge) []ColumnEdge {
	out := append(slices.Clone(a), b...)
	slices.SortFunc(out, cmpColumn)
	return slices.Compact(out)
}

func describe(d Declaration) string {
	s := d.Relation.String()
	if !d.Transform.IsZero() {
		s += " (" + d.Transform.String() + ")"
	}
	return s + " by " + d.Origin.String()
}

func conflict(a, b Declaration) error {
	return &Error{Code: CodeConflict, Op: "declare", Msg: fmt.Sprintf("%s → %s is declared as %s and as %s; declare it one way (remove one declaration)",
		a.Source, a.Target, describe(a), describe(b))}
}

// Declarations returns the declarations in canonical order (target, source, origin).
func (g *Graph) Declarations() []Declaration { return slices.Clone(g.decls) }

// Edges returns the merged edges, sorted by target then source.
func (g *Graph) Edges() []Edge { return slices.Clone(g.edges) }

// Into returns the edges whose target is artifact, sorted by source.
func (g *Graph) Into(artifact string) []Edge { return g.pick(g.into[artifact]) }

// OutOf returns the edges whose source is artifact, sorted by target.
func (g *Graph) OutOf(artifact string) []Edge {
	out := g.pick(g.outOf[artifact])
	slices.SortFunc(out, func(a, b Edge) int { return strings.Compare(a.Target, b.Target) })
	return out
}

func (g *Graph) pick(idx []int) []Edge {
	out := make([]Edge, len(idx))
	for i, k := range idx {
		out[i] = g.edges[k]
	}
	return out
}

// Artifacts returns every artifact an edge names, ascending.
func (g *Graph) Artifacts() []string {
	var out []string
	for _, e := range g.edges {
		out = append(out, e.Source, e.Target)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Upstream returns the edges of the upstream closure of artifact (every edge from which
// artifact can be reached), nearest first; each edge once, cycles allowed.
func (g *Graph) Upstream(artifact string) []Edge {
	return g.closure(artifact, g.into, func(e Edge) string { return e.Source })
}

// Downstream returns the edges of the downstream closure of artifact, nearest first.
func (g *Graph) Downstream(artifact string) []Edge {
	return g.closure(artifact, g.outOf, func(e Edge) string { return e.Target })
}

func (g *Graph) closure(start string, adj map[string][]int, next func(Edge) string) []Edge {
	seenNode := map[string]bool{start: true}
	seenEdge := map[int]bool{}
	queue := []string{start}
	var out []Edge
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		idx := slices.Clone(adj[n])
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(next(g.edges[a]), next(g.edges[b])) })
		for _, k := range idx {
			if seenEdge[k] {
				continue
			}
			seenEdge[k] = true
			out = append(out, g.edges[k])
			if m := next(g.edges[k]); !seenNode[m] {
				seenNode[m] = true
				queue = append(queue, m)
			}
		}
	}
	return out
}

// Replace returns the graph whose declarations of origin kind are exactly decls (each of
// which must have that kind): an import of a complete description (pipewhy.yaml, a dbt
// manifest) replaces what the previous one declared.
func (g *Graph) Replace(kind string, decls []Declaration) (*Graph, error) {
	var keep []Declaration
	for _, d := range g.decls {
		if d.Origin.Kind != kind {
			keep = append(keep, d)
		}
	}
	for _, d := range decls {
		if d.Origin.Kind != kind {
			return nil, &Error{Code: CodeInvalid, Op: "declare", Msg: "a replacement declaration of another origin"}
		}
	}
	return NewGraph(append(keep, decls...))
}

// Merge returns the graph with decls added; a declaration of an edge by an origin that
// already declares it replaces that declaration (an OpenLineage job's newer run).
func (g *Graph) Merge(decls []Declaration) (*Graph, error) {
	type key struct {
		s, t string
		o    Origin
	}
	repl := map[key]bool{}
	for _, d := range decls {
		repl[key{d.Source, d.Target, d.Origin}] = true
	}
	var keep []Declaration
	for _, d := range g.decls {
		if !repl[key{d.Source, d.Target, d.Origin}] {
			keep = append(keep, d)
		}
	}
	return NewGraph(append(keep, decls...))
}

// Remove returns the graph without the declarations of source → target whose origin
// kind is in kinds. None removed is CodeNotFound.
func (g *Graph) Remove(source, target string, kinds ...string) (*Graph, error) {
	var keep []Declaration
	removed := 0
	for _, d := range g.decls {
		if d.Source == source && d.Target == target && slices.Contains(kinds, d.Origin.Kind) {
			removed++
			continue
		}
		keep = append(keep, d)
	}
	if removed == 0 {
		return nil, &Error{Code: CodeNotFound, Op: "remove", Msg: fmt.Sprintf("%s → %s is not declared by %s", source, target, strings.Join(kinds, " or "))}
	}
	return NewGraph(keep)
}

// Equal reports whether two graphs hold the same declarations.
func (g *Graph) Equal(o *Graph) bool {
	return slices.EqualFunc(g.decls, o.decls, func(a, b Declaration) bool {
		return a.Source == b.Source && a.Target == b.Target && a.Relation == b.Relation &&
			a.Transform == b.Transform && a.Origin == b.Origin && slices.Equal(a.Columns, b.Columns)
	})
}
