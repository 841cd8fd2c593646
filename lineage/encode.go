package lineage

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/tablefp"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Stored lineage version format (docs/lineage.md).
const (
	DescriptorFormat  = "pipewhy.lineage"
	DescriptorVersion = 1
	// KeyDescriptor is the uint8 array holding the descriptor JSON.
	KeyDescriptor = "lineage"
	// GraphName is the name of the graph artifact (row 0 of the artifact table).
	GraphName = "lineage"
)

// Artifact kinds (artifact.kind_id) of a lineage version.
const (
	KindDataset uint8 = 0 // an artifact (a scanned dataset), a root
	KindColumn  uint8 = 1 // a column of a dataset (column lineage), parent: the dataset
	KindGraph   uint8 = 2 // the lineage graph itself, a root; its observation holds the graph's C3 state
)

// edgeColumns is the C3 schema of one lineage_edge row, the records the version's
// fingerprint state sums (internal/tablefp).
var edgeColumns = []tablefp.Column{
	{ID: 1, Name: "source", Type: fingerprint.TypeText},
	{ID: 2, Name: "target", Type: fingerprint.TypeText},
	{ID: 3, Name: "source_column", Type: fingerprint.TypeText},
	{ID: 4, Name: "target_column", Type: fingerprint.TypeText},
	{ID: 5, Name: "relation", Type: fingerprint.TypeInt},
	{ID: 6, Name: "transform_kind", Type: fingerprint.TypeText},
	{ID: 7, Name: "transform_ref", Type: fingerprint.TypeText},
	{ID: 8, Name: "origin_kind", Type: fingerprint.TypeText},
	{ID: 9, Name: "origin_ref", Type: fingerprint.TypeText},
}

type descriptor struct {
	Format     string       `json:"format"`
	Version    int          `json:"version"`
	Names      []string     `json:"names"`      // artifact.name_id → name
	Evidence   []originJSON `json:"evidence"`   // lineage_edge.evidence_id → origin
	Transforms []refJSON    `json:"transforms"` // lineage_edge.transform_id → transform
}

type originJSON struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
}

type refJSON struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
}

// encoded is a graph in its stored form.
type encoded struct {
	arrays map[string]snapshot.Array
	state  fingerprint.State
	rows   int
}

// encode returns the arrays of g: the descriptor, the C1 artifact, lineage_edge and
// observation tables. observedAt is the observation's time.
func encode(g *Graph, observedAt uint64) (*encoded, error) {
	var names []string
	names = append(names, GraphName)
	type colKey struct{ dataset, column string }
	datasets := map[string]bool{}
	columns := map[colKey]bool{}
	var evidence []Origin
	var transforms []TransformRef
	for _, d := range g.decls {
		datasets[d.Source], datasets[d.Target] = true, true
		names = append(names, d.Source, d.Target)
		for _, c := range d.Columns {
			columns[colKey{d.Source, c.Source}] = true
			columns[colKey{d.Target, c.Target}] = true
			names = append(names, c.Source, c.Target)
		}
		evidence = append(evidence, d.Origin)
		if !d.Transform.IsZero() {
			transforms = append(transforms, d.Transform)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	slices.SortFunc(evidence, cmpOrigin)
	evidence = slices.Compact(evidence)
	slices.SortFunc(transforms, func(a, b TransformRef) int {
		return strings.Compare(string(a.Kind)+"\x00"+a.Ref, string(b.Kind)+"\x00"+b.Ref)
	})
	transforms = slices.Compact(transforms)
	nameID := func(n string) uint64 { i, _ := slices.BinarySearch(names, n); return uint64(i) }

	at := &arrays.ArtifactTable{}
	addArt := func(parent uint64, kind uint8, name string) uint64 {
		id := uint64(len(at.ArtifactID))
		at.ArtifactID = append(at.ArtifactID, id)
		at.ParentID = append(at.ParentID, parent)
		at.KindID = append(at.KindID, kind)
		at.NameID = append(at.NameID, nameID(name))
		return id
	}
	addArt(arrays.Absent, KindGraph, GraphName)
	dsNames := sortedKeys(datasets)
	dsID := map[string]uint64{}
	for _, n := range dsNames {
		dsID[n] = addArt(arrays.Absent, KindDataset, n)
	}
	cks := make([]colKey, 0, len(columns))
	for k := range columns {
		cks = append(cks, k)
	}
	slices.SortFunc(cks, func(a, b colKey) int {
		if c := strings.Compare(a.dataset, b.dataset); c != 0 {
			return c
		}
		return strings.Compare(a.column, b.column)
	})
	colID := map[colKey]uint64{}
	for _, k := range cks {
		colID[k] = addArt(dsID[k.dataset], KindColumn, k.column)
	}

	tb, err := tablefp.New(edgeColumns)
	if err != nil {
		return nil, err
	}
	et := &arrays.EdgeTable{}
	addEdge := func(d Declaration, src, dst uint64, srcCol, dstCol string) error {
		ev, _ := slices.BinarySearchFunc(evidence, d.Origin, cmpOrigin)
		tr := arrays.Absent
		kind, ref := "", ""
		if !d.Transform.IsZero() {
			i := slices.Index(transforms, d.Transform)
			tr = uint64(i)
			kind, ref = string(d.Transform.Kind), d.Transform.Ref
		}
		et.EdgeID = append(et.EdgeID, uint64(len(et.EdgeID)))
		et.SourceID = append(et.SourceID, src)
		et.TargetID = append(et.TargetID, dst)
		et.RelationID = append(et.RelationID, uint8(d.Relation))
		et.EvidenceID = append(et.EvidenceID, uint64(ev))
		et.TransformID = append(et.TransformID, tr)
		return tb.Add(edgeColumns, normalize.TextValue(d.Source), normalize.TextValue(d.Target),
			tablefp.Text(srcCol), tablefp.Text(dstCol), normalize.Int(int64(d.Relation)),
			tablefp.Text(kind), tablefp.Text(ref), normalize.TextValue(d.Origin.Kind), tablefp.Text(d.Origin.Ref))
	}
	for _, d := range g.decls {
		if err := addEdge(d, dsID[d.Source], dsID[d.Target], "", ""); err != nil {
			return nil, err
		}
		for _, c := range d.Columns {
			if err := addEdge(d, colID[colKey{d.Source, c.Source}], colID[colKey{d.Target, c.Target}], c.Source, c.Target); err != nil {
				return nil, err
			}
		}
	}
	st := tb.State()
	ot := &arrays.ObservationTable{
		ObservationID: []uint64{0}, ArtifactID: []uint64{0}, SnapshotID: []uint64{0},
		ObservedAtNs: []uint64{observedAt}, StatusID: []uint8{arrays.StatusCaptured},
		PolicyID: []uint64{0}, AlgorithmID: []uint64{0},
		FingerprintOffset: []uint64{0}, FingerprintLength: []uint64{uint64(len(st.Words()))},
		FingerprintWords: st.Words(),
	}
	desc := descriptor{Format: DescriptorFormat, Version: DescriptorVersion, Names: names,
		Evidence: []originJSON{}, Transforms: []refJSON{}}
	for _, o := range evidence {
		desc.Evidence = append(desc.Evidence, originJSON(o))
	}
	for _, t := range transforms {
		desc.Transforms = append(desc.Transforms, refJSON{Kind: string(t.Kind), Ref: t.Ref})
	}
	js, err := json.Marshal(desc)
	if err != nil {
		return nil, err
	}
	out := map[string]snapshot.Array{KeyDescriptor: snapshot.FromUint8(js)}
	if err := repo.TableArrays(out, at, et, ot); err != nil {
		return nil, err
	}
	return &encoded{arrays: out, state: st, rows: len(et.EdgeID)}, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// decode validates a stored lineage version and returns its graph. Everything is
// checked: the descriptor (strict JSON), the C1 tables with their validators and the
// contexts the descriptor defines, the graph structure, the C3 state (recomputed from the
// edges and compared with the stored observation under the recorded context), and that
// the arrays are exactly the canonical encoding of the graph they decode to.
func decode(snap *snapshot.Snapshot) (*Graph, error) {
	bad := func(msg string, err error) error {
		return &Error{Code: CodeFormat, Op: "load", Msg: msg, Err: err}
	}
	da, ok := snap.Arrays[KeyDescriptor]
	if !ok {
		return nil, bad("not a lineage version (no descriptor)", nil)
	}
	js, err := da.Uint8s()
	if err != nil {
		return nil, bad("descriptor", err)
	}
	var desc descriptor
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&desc); err != nil || dec.More() {
		return nil, bad("malformed descriptor", err)
	}
	if desc.Format != DescriptorFormat || desc.Version != DescriptorVersion {
		return nil, bad("unsupported descriptor format or version", nil)
	}
	tables := arrays.Tables{}
	for _, kind := range []arrays.TableKind{arrays.TableArtifact, arrays.TableLineageEdge, arrays.TableObservation} {
		t, err := repo.DecodeTable(snap, kind)
		if err != nil {
			return nil, bad("C1 table", err)
		}
		switch tt := t.(type) {
		case *arrays.ArtifactTable:
			tables.Artifacts = tt
		case *arrays.EdgeTable:
			tables.Edges = tt
		case *arrays.ObservationTable:
			tables.Observations = tt
		}
	}
	cx := &arrays.Context{
		Names: repo.IDRange(len(desc.Names)), Kinds: repo.IDRange(int(KindGraph) + 1),
		Snapshots: repo.IDRange(1), Policies: repo.IDRange(1), Algorithms: repo.IDRange(1),
		Evidence: repo.IDRange(len(desc.Evidence)), Transforms: repo.IDRange(len(desc.Transforms)),
	}
	if err := tables.Validate(cx); err != nil {
		return nil, bad("C1 tables", err)
	}
	at, et := tables.Artifacts, tables.Edges
	rowOf := map[uint64]int{}
	for i, id := range at.ArtifactID {
		rowOf[id] = i
	}
	name := func(id uint64) string { return desc.Names[at.NameID[rowOf[id]]] }
	kind := func(id uint64) uint8 { return at.KindID[rowOf[id]] }
	parent := func(id uint64) uint64 { return at.ParentID[rowOf[id]] }
	type declKey struct {
		src, dst, ev uint64
	}
	var decls []Declaration
	index := map[declKey]int{}
	for i := range et.EdgeID {
		src, dst := et.SourceID[i], et.TargetID[i]
		var tr TransformRef
		if t := et.TransformID[i]; t != arrays.Absent {
			tr = TransformRef{Kind: TransformKind(desc.Transforms[t].Kind), Ref: desc.Transforms[t].Ref}
		}
		o := desc.Evidence[et.EvidenceID[i]]
		origin := Origin(o)
		switch {
		case kind(src) == KindDataset && kind(dst) == KindDataset:
			k := declKey{src, dst, et.EvidenceID[i]}
			if _, dup := index[k]; dup {
				return nil, bad("an edge is declared twice by one origin", nil)
			}
			index[k] = len(decls)
			decls = append(decls, Declaration{Source: name(src), Target: name(dst), Relation: Relation(et.RelationID[i]),
				Transform: tr, Origin: origin})
		case kind(src) == KindColumn && kind(dst) == KindColumn:
			k := declKey{parent(src), parent(dst), et.EvidenceID[i]}
			j, ok := index[k]
			if !ok || decls[j].Relation != Relation(et.RelationID[i]) || decls[j].Transform != tr {
				return nil, bad("a column edge without the dataset edge it belongs to", nil)
			}
			decls[j].Columns = append(decls[j].Columns, ColumnEdge{Target: name(dst), Source: name(src)})
		default:
			return nil, bad("an edge between artifacts of different kinds", nil)
		}
	}
	g, err := NewGraph(decls)
	if err != nil {
		return nil, bad("graph", err)
	}
	// The observation: the graph's C3 state under the recorded context.
	ctx, err := tablefp.Context(edgeColumns)
	if err != nil {
		return nil, bad("context", err)
	}
	fc := snap.Metadata.Fingerprint
	if fc != tablefp.Metadata(ctx) {
		return nil, bad("fingerprint context is not the lineage edge context", nil)
	}
	ids := fingerprint.Identities{Algorithms: map[uint64]string{0: ctx.Algorithm().ID()}, Policies: map[uint64]string{0: ctx.ProfileID()}}
	if tables.Observations.Len() != 1 || tables.Observations.ArtifactID[0] != 0 || kind(0) != KindGraph {
		return nil, bad("the observation is not the graph's", nil)
	}
	stored, err := fingerprint.ObservationState(tables.Observations, 0, ctx, ids, fc.ContextID)
	if err != nil {
		return nil, bad("graph state", err)
	}
	again, err := encode(g, tables.Observations.ObservedAtNs[0])
	if err != nil {
		return nil, bad("re-encode", err)
	}
	if eq, err := stored.Equal(again.state); err != nil || !eq {
		return nil, bad("the stored fingerprint state is not the state of the stored edges", err)
	}
	if len(again.arrays) != len(snap.Arrays) {
		return nil, bad("unexpected arrays", nil)
	}
	for k, a := range again.arrays {
		if b, ok := snap.Arrays[k]; !ok || !a.Equal(b) {
			return nil, bad("array "+k+" is not the canonical encoding of the graph", nil)
		}
	}
	return g, nil
}
