// Package tablefp fingerprints the small tables PipeWhy keeps about itself (lineage
// versions, incident events) with C3, so that their C5 snapshots carry a real
// fingerprint context and dataset state like every other snapshot: the XXH3-128
// algorithm, the strict-v1 profile, a schema fixed by the caller (field ids, names and
// C3 value types, names part of the identity) and multiset mode.
//
// A Table's state is the C3 multiset hash of its rows: equal tables have equal states
// whatever the row order, and the state decodes with fingerprint.FromWords against the
// context the snapshot's metadata names.
package tablefp

import (
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Column is one column of a table: its stable field id, name and C3 value type.
type Column struct {
	ID   uint64
	Name string
	Type fingerprint.ValueType
}

// Table accumulates the C3 state of rows of a fixed schema.
type Table struct {
	ctx   fingerprint.Context
	state fingerprint.State
	words []uint64
}

// New returns an empty table of the given columns.
func New(cols []Column) (*Table, error) {
	ctx, err := Context(cols)
	if err != nil {
		return nil, err
	}
	return &Table{ctx: ctx, state: fingerprint.NewState(ctx)}, nil
}

// Context returns the C3 context of a table of the given columns.
func Context(cols []Column) (fingerprint.Context, error) {
	sd := fingerprint.SchemaDescriptor{RenamePolicy: fingerprint.RenameChangesIdentity}
	for _, c := range cols {
		sd.Fields = append(sd.Fields, fingerprint.SchemaField{ID: c.ID, Name: c.Name, Type: c.Type})
	}
	return fingerprint.NewContext(fingerprint.XXH3, normalize.StrictV1.ID(), sd, fingerprint.Multiset)
}

// Add adds one row: values[i] is the value of the i-th column given to New.
func (t *Table) Add(cols []Column, values ...normalize.Value) error {
	fields := make([]normalize.Field, len(values))
	for i, v := range values {
		fields[i] = normalize.Field{ID: normalize.FieldID(cols[i].ID), Value: v}
	}
	var err error
	if t.words, err = normalize.AppendRecord(t.words[:0], fields, normalize.StrictV1); err != nil {
		return err
	}
	d, err := t.ctx.RecordDigest(0, t.words)
	if err != nil {
		return err
	}
	return t.state.Add(d)
}

// Context returns the table's C3 context.
func (t *Table) Context() fingerprint.Context { return t.ctx }

// State returns the C3 dataset state of the rows added so far.
func (t *Table) State() fingerprint.State { return t.state }

// Metadata returns the C5 fingerprint context metadata of c.
func Metadata(c fingerprint.Context) snapshot.FingerprintContext {
	return snapshot.FingerprintContext{AlgorithmName: c.Algorithm().Name(), AlgorithmID: c.Algorithm().ID(),
		ContextID: c.ID(), ProfileID: c.ProfileID(), SourceSchemaID: c.SchemaID(), Mode: c.Mode().String()}
}

// Text returns v as a C2 text value, or null when v is empty.
func Text(v string) normalize.Value {
	if v == "" {
		return normalize.NullValue{}
	}
	return normalize.TextValue(v)
}
