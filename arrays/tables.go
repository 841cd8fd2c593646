package arrays

// SchemaVersion is the C1 table schema version. Readers require an exact match
// (PW-02.10). It must never change for schema 1.0 data.
const SchemaVersion = "1.0"

// TableKind names one of the five C1 tables.
type TableKind string

// The five C1 tables.
const (
	TableArtifact    TableKind = "artifact"
	TableValue       TableKind = "value"
	TableObservation TableKind = "observation"
	TableLineageEdge TableKind = "lineage_edge"
	TableIncident    TableKind = "incident"
)

// TableKinds lists the five tables in contract order.
var TableKinds = []TableKind{TableArtifact, TableValue, TableObservation, TableLineageEdge, TableIncident}

// Observation status codes (PW-02.07).
const (
	StatusUnknown  uint8 = 0
	StatusCaptured uint8 = 1
	StatusError    uint8 = 2
)

// Lineage relation codes (PW-02.08).
const (
	RelationCopy      uint8 = 0
	RelationTransform uint8 = 1
	RelationDerived   uint8 = 2
)

// Table is one of *ArtifactTable, *ValueTable, *ObservationTable,
// *EdgeTable and *IncidentTable. The interface is sealed.
type Table interface {
	Kind() TableKind
	// Len returns the length of the table's id column (the row count of a
	// valid table).
	Len() int
	columns() []colRef
}

// ArtifactTable is the artifact table, schema 1.0 (PW-02.05).
type ArtifactTable struct {
	ArtifactID []uint64 // unique, never Absent
	ParentID   []uint64 // an ArtifactID, or Absent for a root
	KindID     []uint8  // adapter-defined code, resolves in Context.Kinds
	NameID     []uint64 // resolves in Context.Names
}

// ValueTable is the value table, schema 1.0 (PW-02.06). Payload slices are
// measured in uint64 words: row i owns
// PayloadWords[PayloadOffset[i] : PayloadOffset[i]+PayloadLength[i]].
type ValueTable struct {
	ValueID       []uint64 // unique, never Absent
	ArtifactID    []uint64 // resolves in the artifact table
	FieldID       []uint64 // resolves in Context.Fields
	TypeID        []uint8  // resolves in Context.Types
	PayloadOffset []uint64
	PayloadLength []uint64

	PayloadWords   []uint64 // auxiliary: shared payload words; slices may overlap
	ValidityBitmap Bitmap   // auxiliary: ceil(rows/64) words, 1 = present
}

// ObservationTable is the observation table, schema 1.0 (PW-02.07).
type ObservationTable struct {
	ObservationID     []uint64 // unique, never Absent
	ArtifactID        []uint64 // resolves in the artifact table
	SnapshotID        []uint64 // resolves in Context.Snapshots
	ObservedAtNs      []uint64 // Unix UTC nanoseconds, < 2**63
	StatusID          []uint8  // StatusUnknown, StatusCaptured or StatusError
	PolicyID          []uint64 // resolves in Context.Policies
	AlgorithmID       []uint64 // resolves in Context.Algorithms
	FingerprintOffset []uint64
	FingerprintLength []uint64

	FingerprintWords []uint64 // auxiliary: flat fingerprint state words
}

// EdgeTable is the lineage edge table, schema 1.0 (PW-02.08).
type EdgeTable struct {
	EdgeID      []uint64 // unique, never Absent
	SourceID    []uint64 // resolves in the artifact table
	TargetID    []uint64 // resolves in the artifact table
	RelationID  []uint8  // RelationCopy, RelationTransform or RelationDerived
	EvidenceID  []uint64 // resolves in Context.Evidence
	TransformID []uint64 // Context.Transforms, or Absent (COPY: must; DERIVED: may)
}

// IncidentTable is the incident table, schema 1.0 (PW-02.09).
type IncidentTable struct {
	IncidentID       []uint64 // unique, never Absent
	ArtifactID       []uint64 // resolves in the artifact table
	ObservationID    []uint64 // resolves in the observation table, same artifact
	ReasonID         []uint8  // versioned analysis-policy code; not resolved here
	EvidenceID       []uint64 // resolves in Context.Evidence
	GroupingPolicyID []uint64 // resolves in Context.GroupingPolicies
}

// Kind implements Table.
func (*ArtifactTable) Kind() TableKind    { return TableArtifact }
func (*ValueTable) Kind() TableKind       { return TableValue }
func (*ObservationTable) Kind() TableKind { return TableObservation }
func (*EdgeTable) Kind() TableKind        { return TableLineageEdge }
func (*IncidentTable) Kind() TableKind    { return TableIncident }

// Len implements Table.
func (t *ArtifactTable) Len() int    { return len(t.ArtifactID) }
func (t *ValueTable) Len() int       { return len(t.ValueID) }
func (t *ObservationTable) Len() int { return len(t.ObservationID) }
func (t *EdgeTable) Len() int        { return len(t.EdgeID) }
func (t *IncidentTable) Len() int    { return len(t.IncidentID) }

// colRef binds a schema column name to a table field. Exactly one of u64 and
// u8 is set. aux marks auxiliary arrays, whose length is not the row count.
type colRef struct {
	name string
	u64  *[]uint64
	u8   *[]uint8
	aux  bool
}

func u64(name string, p *[]uint64) colRef { return colRef{name: name, u64: p} }
func u8(name string, p *[]uint8) colRef   { return colRef{name: name, u8: p} }
func aux(name string, p *[]uint64) colRef { return colRef{name: name, u64: p, aux: true} }

func (c colRef) dtype() DType {
	if c.u8 != nil {
		return Uint8
	}
	return Uint64
}

func (c colRef) len() int {
	if c.u8 != nil {
		return len(*c.u8)
	}
	return len(*c.u64)
}

// The column lists below are the single source of truth for names, dtypes and
// order of schema 1.0; Schema, Frame and Decode derive from them.

func (t *ArtifactTable) columns() []colRef {
	return []colRef{
		u64("artifact_id", &t.ArtifactID),
		u64("parent_id", &t.ParentID),
		u8("kind_id", &t.KindID),
		u64("name_id", &t.NameID),
	}
}

func (t *ValueTable) columns() []colRef {
	return []colRef{
		u64("value_id", &t.ValueID),
		u64("artifact_id", &t.ArtifactID),
		u64("field_id", &t.FieldID),
		u8("type_id", &t.TypeID),
		u64("payload_offset", &t.PayloadOffset),
		u64("payload_length", &t.PayloadLength),
		aux("payload_words", &t.PayloadWords),
		aux("validity_bitmap", (*[]uint64)(&t.ValidityBitmap)),
	}
}

func (t *ObservationTable) columns() []colRef {
	return []colRef{
		u64("observation_id", &t.ObservationID),
		u64("artifact_id", &t.ArtifactID),
		u64("snapshot_id", &t.SnapshotID),
		u64("observed_at_ns", &t.ObservedAtNs),
		u8("status_id", &t.StatusID),
		u64("policy_id", &t.PolicyID),
		u64("algorithm_id", &t.AlgorithmID),
		u64("fingerprint_offset", &t.FingerprintOffset),
		u64("fingerprint_length", &t.FingerprintLength),
		aux("fingerprint_words", &t.FingerprintWords),
	}
}

func (t *EdgeTable) columns() []colRef {
	return []colRef{
		u64("edge_id", &t.EdgeID),
		u64("source_id", &t.SourceID),
		u64("target_id", &t.TargetID),
		u8("relation_id", &t.RelationID),
		u64("evidence_id", &t.EvidenceID),
		u64("transform_id", &t.TransformID),
	}
}

func (t *IncidentTable) columns() []colRef {
	return []colRef{
		u64("incident_id", &t.IncidentID),
		u64("artifact_id", &t.ArtifactID),
		u64("observation_id", &t.ObservationID),
		u8("reason_id", &t.ReasonID),
		u64("evidence_id", &t.EvidenceID),
		u64("grouping_policy_id", &t.GroupingPolicyID),
	}
}

// NewTable returns an empty table of the given kind, or CodeTableKind.
func NewTable(kind TableKind) (Table, error) {
	switch kind {
	case TableArtifact:
		return &ArtifactTable{}, nil
	case TableValue:
		return &ValueTable{}, nil
	case TableObservation:
		return &ObservationTable{}, nil
	case TableLineageEdge:
		return &EdgeTable{}, nil
	case TableIncident:
		return &IncidentTable{}, nil
	}
	return nil, &Error{Code: CodeTableKind, Op: "schema", Table: string(kind), Row: -1}
}

// ColumnSpec is one column of a table schema.
type ColumnSpec struct {
	Name      string
	DType     DType
	Auxiliary bool // an auxiliary array (payload/fingerprint words, bitmap), not a row column
}

// Schema returns the schema 1.0 columns of a table, in contract order.
func Schema(kind TableKind) ([]ColumnSpec, error) {
	t, err := NewTable(kind)
	if err != nil {
		return nil, err
	}
	cols := t.columns()
	specs := make([]ColumnSpec, len(cols))
	for i, c := range cols {
		specs[i] = ColumnSpec{Name: c.name, DType: c.dtype(), Auxiliary: c.aux}
	}
	return specs, nil
}

// Payload returns row i's payload words (a subslice of PayloadWords, not a
// copy) and its validity bit. Bounds are checked as by Validate, so it never
// panics, whatever the table holds.
func (t *ValueTable) Payload(i int) (words []uint64, valid bool, err error) {
	words, err = rowSlice("payload", TableValue, "payload", i, len(t.ValueID), t.PayloadOffset, t.PayloadLength, t.PayloadWords)
	if err != nil {
		return nil, false, err
	}
	return words, t.ValidityBitmap.Valid(i), nil
}

// Fingerprint returns row i's fingerprint words (a subslice of
// FingerprintWords, not a copy), with bounds checked as by Validate.
func (t *ObservationTable) Fingerprint(i int) ([]uint64, error) {
	return rowSlice("fingerprint", TableObservation, "fingerprint", i, len(t.ObservationID), t.FingerprintOffset, t.FingerprintLength, t.FingerprintWords)
}

// rowSlice returns words[offs[i] : offs[i]+lens[i]] after checking i against
// every column and the slice against words; prefix names the
// <prefix>_offset and <prefix>_length columns in errors.
func rowSlice(op string, kind TableKind, prefix string, i, rows int, offs, lens, words []uint64) ([]uint64, error) {
	if i < 0 || i >= rows || i >= len(offs) || i >= len(lens) {
		return nil, rowErr(op, string(kind), "", i, CodeIndex)
	}
	switch checkSlice(offs[i], lens[i], uint64(len(words))) {
	case CodeSliceOffset:
		return nil, rowErr(op, string(kind), prefix+"_offset", i, CodeSliceOffset)
	case CodeSliceLength:
		return nil, rowErr(op, string(kind), prefix+"_length", i, CodeSliceLength)
	}
	lo, hi := offs[i], offs[i]+lens[i] // cannot wrap: checked above
	return words[lo:hi:hi], nil
}
