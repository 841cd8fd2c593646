package arrays

import "math"

// Validation reports the first rule violation found, in a fixed order, so the
// same table always yields the same error:
//
//  1. equal row column lengths (CodeColumnLength, naming the first column
//     whose length differs from the first column's);
//  2. required contexts present (CodeMissingContext, in column order);
//  3. the id column: no Absent, no duplicates (lowest offending row);
//  4. auxiliary arrays (the validity bitmap);
//  5. row rules, row by row, each row's columns left to right;
//  6. whole-table structure (artifact containment cycles).
//
// Every pass is linear in the row count (expected O(1) per id lookup) and
// uses no recursion.

const opValidate = "validate"

var emptyContext Context

func checkLengths(kind TableKind, cols []colRef) (int, error) {
	n := cols[0].len()
	for _, c := range cols[1:] {
		if !c.aux && c.len() != n {
			return 0, rowErr(opValidate, string(kind), c.name, -1, CodeColumnLength)
		}
	}
	return n, nil
}

type need struct {
	column string
	set    IDSet
}

func checkContexts(kind TableKind, needs ...need) error {
	for _, nd := range needs {
		if nd.set == nil {
			return rowErr(opValidate, string(kind), nd.column, -1, CodeMissingContext)
		}
	}
	return nil
}

// ref checks a required (non-Absent) reference.
func ref(set IDSet, id uint64) Code {
	if id == Absent {
		return CodeAbsentReference
	}
	if !set.Contains(id) {
		return CodeUnresolved
	}
	return ""
}

func nilTable(kind TableKind) error {
	return rowErr(opValidate, string(kind), "", -1, CodeNilTable)
}

// refErr is the code of a required reference to a table that did not
// resolve (Absent never resolves).
func refErr(id uint64) Code {
	if id == Absent {
		return CodeAbsentReference
	}
	return CodeUnresolved
}

// artifactIDs prepares an artifact table's artifact_id column for
// resolution (checking it like an index build).
func artifactIDs(a *ArtifactTable) (*idTable, error) {
	if a == nil {
		return nil, nilTable(TableArtifact)
	}
	return newIDTable(string(TableArtifact), "artifact_id", a.ArtifactID)
}

// Validate checks every PW-02.05 rule: equal column lengths, unique
// non-Absent artifact_id, parent_id resolving to another row or Absent, no
// self-parenting, no containment cycle, kind_id in ctx.Kinds and name_id in
// ctx.Names.
func (t *ArtifactTable) Validate(ctx *Context) error {
	if t == nil {
		return nilTable(TableArtifact)
	}
	if ctx == nil {
		ctx = &emptyContext
	}
	n, err := checkLengths(TableArtifact, t.columns())
	if err != nil {
		return err
	}
	if err := checkContexts(TableArtifact, need{"kind_id", ctx.Kinds}, need{"name_id", ctx.Names}); err != nil {
		return err
	}
	if slotRows(n, math.MaxInt) {
		// Bitmap and partitioned passes (idcheck.go, partition.go): no
		// lookup per row in a table-sized index, and no walk up the
		// parents unless there is a cycle.
		return validateArtifacts(ctx, t, n)
	}
	idx, err := newIndex(string(TableArtifact), "artifact_id", t.ArtifactID)
	if err != nil {
		return err
	}
	return artifactRows(ctx, idx, t, make([]node[uint64], n))
}

type rowInt interface{ ~uint32 | ~uint64 }

// node is one artifact row in the cycle check: its parent row (all ones for
// a root) and the stamp of the walk that first reached it (0: unseen). The
// two share a cache line, so a walk step costs one random memory access.
type node[R rowInt] struct{ parent, stamp R }

// artifactRows checks the row rules, filling nodes (len = row count) with
// each row's parent row from the index, then checks for containment cycles.
// It is the path for tables that slotRows does not admit (2**32-1 rows or more).
func artifactRows[R rowInt](ctx *Context, idx *Index, t *ArtifactTable, nodes []node[R]) error {
	const table = string(TableArtifact)
	root := ^R(0)
	n := len(nodes)
	ids, parents, kinds, names := t.ArtifactID[:n], t.ParentID[:n], t.KindID[:n], t.NameID[:n]
	for i, id := range ids {
		switch p := parents[i]; {
		case p == Absent:
			nodes[i].parent = root
		case p == id:
			return rowErr(opValidate, table, "parent_id", i, CodeSelfParent)
		default:
			r, ok := idx.Row(p)
			if !ok {
				return rowErr(opValidate, table, "parent_id", i, CodeUnresolved)
			}
			nodes[i].parent = R(r)
		}
		if !ctx.Kinds.Contains(uint64(kinds[i])) {
			return rowErr(opValidate, table, "kind_id", i, CodeUnresolved)
		}
		if c := ref(ctx.Names, names[i]); c != "" {
			return rowErr(opValidate, table, "name_id", i, c)
		}
	}
	return findCycle(nodes)
}

// findCycle reports a containment cycle in the parent-row forest, iteratively
// and in linear time: the walk started at row i stamps every row it reaches
// with i+1 and stops at a root or at a row stamped before. Reaching a row
// with its own stamp means a cycle; reaching an older stamp means joining a
// path already proven to end at a root (the first cycle ends the check), so
// every row is stepped on once. The error names the lowest row of the first
// cycle found, scanning start rows in increasing order.
func findCycle[R rowInt](nodes []node[R]) error {
	root := ^R(0)
	for i := range nodes {
		if nodes[i].stamp != 0 {
			continue
		}
		stamp := R(i) + 1
		for j := i; ; {
			nd := &nodes[j]
			if nd.stamp != 0 {
				if nd.stamp == stamp {
					lowest := j
					for k := int(nd.parent); k != j; k = int(nodes[k].parent) {
						lowest = min(lowest, k)
					}
					return rowErr(opValidate, string(TableArtifact), "parent_id", lowest, CodeCycle)
				}
				break
			}
			nd.stamp = stamp
			if nd.parent == root {
				break
			}
			j = int(nd.parent)
		}
	}
	return nil
}

// Validate checks every PW-02.06 rule: equal row column lengths, unique
// non-Absent value_id, a validity bitmap of ceil(rows/64) words with zero tail
// bits, artifact_id in artifacts, field_id in ctx.Fields, type_id in
// ctx.Types, offset <= len(PayloadWords), length <= len(PayloadWords)-offset,
// and zero length for null rows. artifacts is only indexed, not validated.
func (t *ValueTable) Validate(ctx *Context, artifacts *ArtifactTable) error {
	if t == nil {
		return nilTable(TableValue)
	}
	arts, err := artifactIDs(artifacts)
	if err != nil {
		return err
	}
	return t.validate(ctx, arts)
}

func (t *ValueTable) validate(ctx *Context, arts *idTable) error {
	const table = string(TableValue)
	if ctx == nil {
		ctx = &emptyContext
	}
	n, err := checkLengths(TableValue, t.columns())
	if err != nil {
		return err
	}
	if err := checkContexts(TableValue, need{"field_id", ctx.Fields}, need{"type_id", ctx.Types}); err != nil {
		return err
	}
	if err := checkUnique(table, "value_id", t.ValueID); err != nil {
		return err
	}
	if err := t.ValidityBitmap.validate(table, "validity_bitmap", n); err != nil {
		return err
	}
	words := uint64(len(t.PayloadWords))
	artsCol, fields, types := t.ArtifactID[:n], t.FieldID[:n], t.TypeID[:n]
	offs, lens := t.PayloadOffset[:n], t.PayloadLength[:n]
	bm := t.ValidityBitmap
	artRows := arts.resolve(artsCol)
	for i := range n {
		if _, ok := artRows.row(i); !ok {
			return rowErr(opValidate, table, "artifact_id", i, refErr(artsCol[i]))
		}
		if c := ref(ctx.Fields, fields[i]); c != "" {
			return rowErr(opValidate, table, "field_id", i, c)
		}
		if !ctx.Types.Contains(uint64(types[i])) {
			return rowErr(opValidate, table, "type_id", i, CodeUnresolved)
		}
		switch checkSlice(offs[i], lens[i], words) {
		case CodeSliceOffset:
			return rowErr(opValidate, table, "payload_offset", i, CodeSliceOffset)
		case CodeSliceLength:
			return rowErr(opValidate, table, "payload_length", i, CodeSliceLength)
		}
		if lens[i] != 0 && bm[i>>6]>>(uint(i)&63)&1 == 0 {
			return rowErr(opValidate, table, "payload_length", i, CodeNullPayload)
		}
	}
	return nil
}

// MaxObservedAtNs is the largest valid observed_at_ns. The column is uint64 on
// the wire but holds nonnegative Unix nanoseconds, a quantity that is signed
// (int64) everywhere else: a value >= 2**63 is a negative int64 time stored
// bit for bit, so it is rejected rather than read as a date after 2262.
const MaxObservedAtNs = math.MaxInt64

// Validate checks every PW-02.07 rule: equal row column lengths, unique
// non-Absent observation_id, artifact_id in artifacts, snapshot_id,
// policy_id and algorithm_id in their contexts, observed_at_ns <=
// MaxObservedAtNs, status_id in {0, 1, 2}, fingerprint slice bounds, and
// CAPTURED with >= 1 fingerprint word, UNKNOWN and ERROR with none.
func (t *ObservationTable) Validate(ctx *Context, artifacts *ArtifactTable) error {
	if t == nil {
		return nilTable(TableObservation)
	}
	arts, err := artifactIDs(artifacts)
	if err != nil {
		return err
	}
	return t.validate(ctx, arts)
}

func (t *ObservationTable) validate(ctx *Context, arts *idTable) error {
	const table = string(TableObservation)
	if ctx == nil {
		ctx = &emptyContext
	}
	n, err := checkLengths(TableObservation, t.columns())
	if err != nil {
		return err
	}
	if err := checkContexts(TableObservation, need{"snapshot_id", ctx.Snapshots},
		need{"policy_id", ctx.Policies}, need{"algorithm_id", ctx.Algorithms}); err != nil {
		return err
	}
	if err := checkUnique(table, "observation_id", t.ObservationID); err != nil {
		return err
	}
	words := uint64(len(t.FingerprintWords))
	artsCol, snaps, times, status := t.ArtifactID[:n], t.SnapshotID[:n], t.ObservedAtNs[:n], t.StatusID[:n]
	policies, algs, offs, lens := t.PolicyID[:n], t.AlgorithmID[:n], t.FingerprintOffset[:n], t.FingerprintLength[:n]
	artRows := arts.resolve(artsCol)
	for i := range n {
		if _, ok := artRows.row(i); !ok {
			return rowErr(opValidate, table, "artifact_id", i, refErr(artsCol[i]))
		}
		if c := ref(ctx.Snapshots, snaps[i]); c != "" {
			return rowErr(opValidate, table, "snapshot_id", i, c)
		}
		if times[i] > MaxObservedAtNs {
			return rowErr(opValidate, table, "observed_at_ns", i, CodeTimestamp)
		}
		if status[i] > StatusError {
			return rowErr(opValidate, table, "status_id", i, CodeStatus)
		}
		if c := ref(ctx.Policies, policies[i]); c != "" {
			return rowErr(opValidate, table, "policy_id", i, c)
		}
		if c := ref(ctx.Algorithms, algs[i]); c != "" {
			return rowErr(opValidate, table, "algorithm_id", i, c)
		}
		switch checkSlice(offs[i], lens[i], words) {
		case CodeSliceOffset:
			return rowErr(opValidate, table, "fingerprint_offset", i, CodeSliceOffset)
		case CodeSliceLength:
			return rowErr(opValidate, table, "fingerprint_length", i, CodeSliceLength)
		}
		if (status[i] == StatusCaptured) != (lens[i] != 0) {
			return rowErr(opValidate, table, "fingerprint_length", i, CodeFingerprintWords)
		}
	}
	return nil
}

// Validate checks every PW-02.08 rule: equal row column lengths, unique
// non-Absent edge_id, source_id and target_id in artifacts, relation_id in
// {0, 1, 2}, evidence_id in ctx.Evidence, and transform_id: Absent for COPY,
// in ctx.Transforms for TRANSFORM, either for DERIVED. Cycles and self-edges
// are allowed.
func (t *EdgeTable) Validate(ctx *Context, artifacts *ArtifactTable) error {
	if t == nil {
		return nilTable(TableLineageEdge)
	}
	arts, err := artifactIDs(artifacts)
	if err != nil {
		return err
	}
	return t.validate(ctx, arts)
}

func (t *EdgeTable) validate(ctx *Context, arts *idTable) error {
	const table = string(TableLineageEdge)
	if ctx == nil {
		ctx = &emptyContext
	}
	n, err := checkLengths(TableLineageEdge, t.columns())
	if err != nil {
		return err
	}
	if err := checkContexts(TableLineageEdge, need{"evidence_id", ctx.Evidence}, need{"transform_id", ctx.Transforms}); err != nil {
		return err
	}
	if err := checkUnique(table, "edge_id", t.EdgeID); err != nil {
		return err
	}
	srcs, dsts, rels, evs, trs := t.SourceID[:n], t.TargetID[:n], t.RelationID[:n], t.EvidenceID[:n], t.TransformID[:n]
	srcRows, dstRows := arts.resolve(srcs), arts.resolve(dsts)
	for i := range n {
		if _, ok := srcRows.row(i); !ok {
			return rowErr(opValidate, table, "source_id", i, refErr(srcs[i]))
		}
		if _, ok := dstRows.row(i); !ok {
			return rowErr(opValidate, table, "target_id", i, refErr(dsts[i]))
		}
		rel := rels[i]
		if rel > RelationDerived {
			return rowErr(opValidate, table, "relation_id", i, CodeRelation)
		}
		if c := ref(ctx.Evidence, evs[i]); c != "" {
			return rowErr(opValidate, table, "evidence_id", i, c)
		}
		tr := trs[i]
		switch {
		case rel == RelationCopy && tr != Absent, rel == RelationTransform && tr == Absent:
			return rowErr(opValidate, table, "transform_id", i, CodeTransform)
		case tr != Absent && !ctx.Transforms.Contains(tr):
			return rowErr(opValidate, table, "transform_id", i, CodeUnresolved)
		}
	}
	return nil
}

// Validate checks every PW-02.09 rule: equal row column lengths, unique
// non-Absent incident_id, artifact_id in artifacts, observation_id in
// observations with that observation's artifact_id equal to the incident's,
// evidence_id in ctx.Evidence and grouping_policy_id in
// ctx.GroupingPolicies. reason_id is a versioned analysis-policy code that C1
// does not resolve. artifacts and observations are indexed (observations'
// column lengths checked), not validated.
func (t *IncidentTable) Validate(ctx *Context, artifacts *ArtifactTable, observations *ObservationTable) error {
	if t == nil {
		return nilTable(TableIncident)
	}
	arts, err := artifactIDs(artifacts)
	if err != nil {
		return err
	}
	obs, err := observationIDs(observations)
	if err != nil {
		return err
	}
	return t.validate(ctx, arts, obs, observations)
}

// observationIDs checks an observation table's column lengths and prepares
// its observation_id column for resolution.
func observationIDs(o *ObservationTable) (*idTable, error) {
	if o == nil {
		return nil, nilTable(TableObservation)
	}
	if _, err := checkLengths(TableObservation, o.columns()); err != nil {
		return nil, err
	}
	return newIDTable(string(TableObservation), "observation_id", o.ObservationID)
}

func (t *IncidentTable) validate(ctx *Context, arts, obsIDs *idTable, obs *ObservationTable) error {
	const table = string(TableIncident)
	if ctx == nil {
		ctx = &emptyContext
	}
	n, err := checkLengths(TableIncident, t.columns())
	if err != nil {
		return err
	}
	if err := checkContexts(TableIncident, need{"evidence_id", ctx.Evidence},
		need{"grouping_policy_id", ctx.GroupingPolicies}); err != nil {
		return err
	}
	if err := checkUnique(table, "incident_id", t.IncidentID); err != nil {
		return err
	}
	artsCol, obsCol, evs, gps := t.ArtifactID[:n], t.ObservationID[:n], t.EvidenceID[:n], t.GroupingPolicyID[:n]
	artRows, obsRows := arts.resolve(artsCol), obsIDs.resolve(obsCol)
	for i := range n {
		if _, ok := artRows.row(i); !ok {
			return rowErr(opValidate, table, "artifact_id", i, refErr(artsCol[i]))
		}
		r, ok := obsRows.row(i)
		if !ok {
			return rowErr(opValidate, table, "observation_id", i, refErr(obsCol[i]))
		}
		if obs.ArtifactID[r] != artsCol[i] {
			return rowErr(opValidate, table, "observation_id", i, CodeIncidentArtifact)
		}
		if c := ref(ctx.Evidence, evs[i]); c != "" {
			return rowErr(opValidate, table, "evidence_id", i, c)
		}
		if c := ref(ctx.GroupingPolicies, gps[i]); c != "" {
			return rowErr(opValidate, table, "grouping_policy_id", i, c)
		}
	}
	return nil
}

// Tables is a set of the five C1 tables of one scan. A nil table is absent;
// a table that references an absent one fails with CodeNilTable.
type Tables struct {
	Artifacts    *ArtifactTable
	Values       *ValueTable
	Observations *ObservationTable
	Edges        *EdgeTable
	Incidents    *IncidentTable
}

// Validate validates every present table, in contract order (artifact, value,
// observation, lineage edge, incident), building each id index at most once,
// and only for a table that another present table references.
func (s *Tables) Validate(ctx *Context) error {
	var arts *idTable
	// needArts returns the artifact ids of the validated artifact table,
	// prepared on first use.
	needArts := func() (*idTable, error) {
		if s.Artifacts == nil {
			return nil, nilTable(TableArtifact)
		}
		if arts == nil {
			a, err := artifactIDs(s.Artifacts)
			if err != nil {
				return nil, err
			}
			arts = a
		}
		return arts, nil
	}
	if s.Artifacts != nil {
		if err := s.Artifacts.Validate(ctx); err != nil {
			return err
		}
	}
	if s.Values != nil {
		a, err := needArts()
		if err != nil {
			return err
		}
		if err := s.Values.validate(ctx, a); err != nil {
			return err
		}
	}
	if s.Observations != nil {
		a, err := needArts()
		if err != nil {
			return err
		}
		if err := s.Observations.validate(ctx, a); err != nil {
			return err
		}
	}
	if s.Edges != nil {
		a, err := needArts()
		if err != nil {
			return err
		}
		if err := s.Edges.validate(ctx, a); err != nil {
			return err
		}
	}
	if s.Incidents != nil {
		a, err := needArts()
		if err != nil {
			return err
		}
		if s.Observations == nil {
			return nilTable(TableObservation)
		}
		obs, err := observationIDs(s.Observations)
		if err != nil {
			return err
		}
		if err := s.Incidents.validate(ctx, a, obs, s.Observations); err != nil {
			return err
		}
	}
	return nil
}
