package why

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Copy check methods.
const (
	// MethodFingerprints: the two snapshots share one C3 context (a COPY's target takes
	// its source's field ids by name when it is scanned), so their stored fingerprints
	// compare directly, at any resolution.
	MethodFingerprints = "fingerprints"
	// MethodValues: the contexts differ (field ids assigned before the COPY was declared,
	// a column excluded on one side only), and both snapshots hold every value (value
	// resolution): both sides' stored C2 values are fingerprinted again in one comparison
	// context, columns matched by name, only the columns both sides have.
	MethodValues = "values"
)

// CopyCheck is the verification of a COPY edge at one side: does the target's snapshot
// hold exactly the records of the source's snapshot?
type CopyCheck struct {
	// Comparable is false when the two snapshots cannot be compared (Reason says why):
	// different C2 profiles, algorithms or modes, incomplete coverage, or contexts that
	// differ where the values needed to align them were not kept.
	Comparable bool   `json:"comparable"`
	Reason     string `json:"reason,omitempty"`
	Equal      bool   `json:"equal"`
	Method     string `json:"method,omitempty"`
	// Resolution is the resolution the differences are counted at.
	Resolution string `json:"resolution,omitempty"`
	// Columns lists column differences (a column on one side only, a different C3 type):
	// they alone make the copy differ.
	Columns []string `json:"columns,omitempty"`
	// Records counts records added (only in the copy), removed (only in the source) and
	// changed, by key, at record and value resolution.
	Records *compare.Counts `json:"records,omitempty"`
	// Fields counts, per column, the changed records whose value differs (value resolution).
	Fields   map[string]uint64 `json:"fields,omitempty"`
	Examples []CopyExample     `json:"examples,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
}

// CopyExample is one record that differs between a copy and its source.
type CopyExample struct {
	Key     string        `json:"key"`
	Kind    string        `json:"kind"` // "changed", "only_in_source", "only_in_copy"
	Changes []ValueChange `json:"changes,omitempty"`
}

// ValueChange is one column of a changed record: its value in the source and in the copy.
type ValueChange struct {
	Field  string `json:"field"`
	Source string `json:"source"`
	Copy   string `json:"copy"`
}

// profileName returns the profile name of a full C2 profile identity
// ("pipewhy.normalization/strict-v1/wire-1/...": "strict-v1").
func profileName(id string) string {
	parts := strings.Split(id, "/")
	if len(parts) > 1 {
		return parts[1]
	}
	return id
}

// verifyCopy compares the copy's snapshot (position dst) with its source's (position
// src). With detail it also counts and shows the differing records (loading both scans).
func (x *explainer) verifyCopy(src, dst int, detail bool) (*CopyCheck, error) {
	ss, ts, err := x.h.summaries(src, dst)
	if err != nil {
		return nil, err
	}
	sname, tname := ss.Artifact, ts.Artifact
	c := &CopyCheck{}
	switch {
	case ss.Coverage != string(snapshot.Complete) || ts.Coverage != string(snapshot.Complete):
		c.Reason = fmt.Sprintf("coverage is %s in %s and %s in %s: a partial snapshot cannot verify a copy", ss.Coverage, sname, ts.Coverage, tname)
		return c, nil
	case ss.Profile != ts.Profile:
		c.Reason = fmt.Sprintf("the snapshots were taken with different C2 profiles (%s in %s, %s in %s): scan both with one profile",
			profileName(ss.Profile), sname, profileName(ts.Profile), tname)
		return c, nil
	case ss.Algorithm != ts.Algorithm || ss.Mode != ts.Mode:
		c.Reason = "the snapshots were fingerprinted with different algorithms or modes"
		return c, nil
	}
	c.Comparable = true
	// Columns by name.
	var common []string
	excludedSomewhere, idsDiffer := false, false
	for _, f := range ss.Fields {
		g, ok := ts.Field(f.Name)
		if ok && g.ID != f.ID {
			idsDiffer = true
		}
		switch {
		case !ok && slices.Contains(ts.Excluded, f.Name):
			excludedSomewhere = true
			c.Notes = append(c.Notes, fmt.Sprintf("column %s is excluded from %s's scan: compared on the other columns", f.Name, tname))
		case !ok:
			c.Columns = append(c.Columns, fmt.Sprintf("column %s is in %s only", f.Name, sname))
		case g.Type != f.Type:
			c.Columns = append(c.Columns, fmt.Sprintf("column %s is %s in %s and %s in %s", f.Name, f.Type, sname, g.Type, tname))
		default:
			common = append(common, f.Name)
		}
	}
	for _, g := range ts.Fields {
		if _, ok := ss.Field(g.Name); !ok {
			if slices.Contains(ss.Excluded, g.Name) {
				excludedSomewhere = true
				c.Notes = append(c.Notes, fmt.Sprintf("column %s is excluded from %s's scan: compared on the other columns", g.Name, sname))
			} else {
				c.Columns = append(c.Columns, fmt.Sprintf("column %s is in %s only", g.Name, tname))
			}
		}
	}
	if len(c.Columns) > 0 {
		c.Notes = append(c.Notes, "the columns differ, so the records were not compared")
		return c, nil
	}
	// Equal contexts are not enough: the schema identity is field ids and types, not
	// names, so two tables whose same-typed columns took their ids in different orders
	// share a context while a column's values sit under different ids.
	if ss.Context == ts.Context && !excludedSomewhere && !idsDiffer {
		c.Method = MethodFingerprints
		c.Equal = slices.Equal(ss.State, ts.State)
		if c.Equal || !detail {
			return c, nil
		}
		a, b, err := x.h.scanPair(src, dst)
		if err != nil {
			return nil, err
		}
		return c, x.copyDetail(c, a, b)
	}
	if ss.Resolution != string(snapshot.ResolutionValue) || ts.Resolution != string(snapshot.ResolutionValue) {
		c.Comparable = false
		if excludedSomewhere {
			c.Reason = "a column is excluded on one side only and the snapshots are not at value resolution, so they cannot be compared on the other columns: exclude it on both sides, or scan both at value resolution"
		} else {
			c.Reason = fmt.Sprintf("%s's field ids differ from %s's (its columns were first scanned before the COPY was declared) and the snapshots are not at value resolution: scan both at value resolution", tname, sname)
		}
		c.Notes = nil
		return c, nil
	}
	// Fingerprint both sides' stored values again in one comparison context.
	c.Method = MethodValues
	a, b, err := x.h.scanPair(src, dst)
	if err != nil {
		return nil, err
	}
	ids := map[string]uint64{}
	for i, n := range common {
		ids[n] = uint64(i + 1)
	}
	keys := ss.KeyNames()
	if !slices.Equal(keys, ts.KeyNames()) {
		c.Notes = append(c.Notes, fmt.Sprintf("the copy was scanned with another key: compared by %s's key", sname))
	}
	for _, k := range keys {
		if _, ok := ids[k]; !ok {
			keys = nil // a key column not compared: the whole record is the key
		}
	}
	ra, err := rekey(x.ctx, a, common, ids, keys)
	if err != nil {
		return nil, err
	}
	rb, err := rekey(x.ctx, b, common, ids, keys)
	if err != nil {
		return nil, err
	}
	eq, err := ra.State.Equal(rb.State)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Msg: "rekeyed states", Err: err}
	}
	c.Equal = eq
	if eq || !detail {
		return c, nil
	}
	return c, x.copyDetail(c, ra, rb)
}

// copyDetail fills the record and field differences of a copy from compare.Diff of the
// source (a, old) and the copy (b, new).
func (x *explainer) copyDetail(c *CopyCheck, a, b *repo.Scan) error {
	// compare.Diff matches columns by field id, which is right only within one artifact;
	// here every common column is known to carry the same id on both sides by name (or
	// was given it by rekey), so the copy is compared as the source's artifact.
	copied := *b
	copied.Descriptor.Artifact = a.Descriptor.Artifact
	rep, err := compare.Diff(a, &copied, compare.Options{Limit: x.limit})
	if err != nil {
		return err
	}
	c.Resolution = string(rep.Resolution)
	c.Notes = append(c.Notes, rep.Notes...)
	c.Records = rep.Records
	if len(rep.Fields) > 0 {
		c.Fields = map[string]uint64{}
		for _, f := range rep.Fields {
			if f.Changed > 0 {
				c.Fields[f.Name] = f.Changed
			}
		}
	}
	for _, e := range rep.Examples.Changed {
		ex := CopyExample{Key: e.Key, Kind: "changed"}
		for _, ch := range e.Changes {
			ex.Changes = append(ex.Changes, ValueChange{Field: ch.Field, Source: ch.Old, Copy: ch.New})
		}
		c.Examples = append(c.Examples, ex)
	}
	for _, e := range rep.Examples.Removed {
		c.Examples = append(c.Examples, CopyExample{Key: e.Key, Kind: "only_in_source"})
	}
	for _, e := range rep.Examples.Added {
		c.Examples = append(c.Examples, CopyExample{Key: e.Key, Kind: "only_in_copy"})
	}
	return nil
}

// rekey fingerprints the stored values of sc (value resolution) again in a comparison
// context: only the columns in names, column n taking field id ids[n], key columns keys
// (none: the whole record). It returns an in-memory scan (never published) that
// compare.Diff can compare with another rekeyed scan of the same columns and ids.
func rekey(ctx context.Context, sc *repo.Scan, names []string, ids map[string]uint64, keys []string) (*repo.Scan, error) {
	old := map[uint64]uint64{} // old field id → new id
	desc := repo.Descriptor{Artifact: sc.Descriptor.Artifact, Address: sc.Descriptor.Address, KeyFields: []repo.Uint{},
		Choices: []string{}, Excluded: []string{}, ColumnStates: true}
	sd := fingerprint.SchemaDescriptor{RenamePolicy: fingerprint.RenameKeepsIdentity}
	for _, f := range sc.Descriptor.FieldsSorted() {
		if id, ok := ids[f.Name]; ok {
			old[uint64(f.ID)] = id
		}
	}
	for _, n := range names {
		f, _ := fieldByName(&sc.Descriptor, n)
		f.ID = repo.Uint(ids[n])
		desc.Fields = append(desc.Fields, f)
		sd.Fields = append(sd.Fields, fingerprint.SchemaField{ID: ids[n], Name: n, Type: fingerprint.ValueType(f.Type)})
	}
	slices.SortFunc(desc.Fields, func(a, b repo.Field) int { return cmp.Compare(uint64(a.ID), uint64(b.ID)) })
	var keyIDs []uint64
	for _, k := range keys {
		keyIDs = append(keyIDs, ids[k])
	}
	slices.Sort(keyIDs)
	for _, k := range keyIDs {
		desc.KeyFields = append(desc.KeyFields, repo.Uint(k))
	}
	fc, err := fingerprint.NewContext(sc.Context.Algorithm(), sc.Context.ProfileID(), sd, sc.Context.Mode())
	if err != nil {
		return nil, &Error{Code: CodeInternal, Msg: "comparison context", Err: err}
	}
	// One C2 record per entry, its kept frames in ascending new id.
	type frame struct{ id, row uint64 }
	vt := sc.ValueTable
	batch := &normalize.RecordBatch{ProfileID: sc.Context.ProfileID()}
	rows := make([][]frame, sc.Len())
	for i := range sc.Len() {
		var fs []frame
		for j := sc.ValueOffsets[i]; j < sc.ValueOffsets[i+1]; j++ {
			if id, ok := old[vt.FieldID[j]]; ok {
				fs = append(fs, frame{id, j})
			}
		}
		slices.SortFunc(fs, func(a, b frame) int { return cmp.Compare(a.id, b.id) })
		rows[i] = fs
		off := uint64(len(batch.Words))
		batch.Words = append(batch.Words, 1, 2, uint64(len(fs)))
		for _, f := range fs {
			p := vt.PayloadWords[vt.PayloadOffset[f.row] : vt.PayloadOffset[f.row]+vt.PayloadLength[f.row]]
			batch.Words = append(batch.Words, f.id, uint64(vt.TypeID[f.row]), uint64(len(p)))
			batch.Words = append(batch.Words, p...)
		}
		batch.Offsets = append(batch.Offsets, off)
		batch.Lengths = append(batch.Lengths, uint64(len(batch.Words))-off)
	}
	eng, err := fingerprint.NewEngine(fc, fingerprint.Options{Workers: 1, Resolution: fingerprint.ValueResolution,
		Columns: true, KeyFields: keyIDs, Origins: true, KeyWords: true})
	if err != nil {
		return nil, &Error{Code: CodeInternal, Msg: "comparison engine", Err: err}
	}
	res, err := eng.Run(ctx, func(yield func(*normalize.RecordBatch, error) bool) { yield(batch, nil) })
	if err != nil {
		return nil, err
	}
	out := &repo.Scan{Metadata: sc.Metadata, Descriptor: desc, Context: fc, State: res.State,
		Records: res.Records, KeyWords: res.KeyWords, KeyOffsets: res.KeyOffsets,
		Values: res.Values, ValueOffsets: res.ValueOffsets}
	desc.Rows = repo.Uint(res.State.Count())
	out.Descriptor = desc
	for _, cs := range res.Columns {
		out.Columns = append(out.Columns, cs.State)
	}
	// The value table in entry order, sharing sc's payload words.
	t := &arrays.ValueTable{PayloadWords: vt.PayloadWords}
	for _, origin := range res.Origins {
		for _, f := range rows[origin] {
			t.ValueID = append(t.ValueID, uint64(len(t.ValueID)))
			t.ArtifactID = append(t.ArtifactID, 0)
			t.FieldID = append(t.FieldID, f.id)
			t.TypeID = append(t.TypeID, vt.TypeID[f.row])
			t.PayloadOffset = append(t.PayloadOffset, vt.PayloadOffset[f.row])
			t.PayloadLength = append(t.PayloadLength, vt.PayloadLength[f.row])
		}
	}
	if len(t.FieldID)*fingerprint.ValueStride != len(res.Values) {
		return nil, &Error{Code: CodeInternal, Msg: "rekeyed value table does not match the value digests"}
	}
	for j, id := range t.FieldID {
		if res.Values[j*fingerprint.ValueStride] != id {
			return nil, &Error{Code: CodeInternal, Msg: "rekeyed value table does not match the value digests"}
		}
	}
	out.ValueTable = t
	return out, nil
}

func fieldByName(d *repo.Descriptor, name string) (repo.Field, bool) {
	for _, f := range d.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return repo.Field{}, false
}

// VerifyCopy verifies the COPY of the scan at log position source into the scan at log
// position target (see CopyCheck); limit is the number of example records kept.
func VerifyCopy(ctx context.Context, h *History, source, target, limit int) (*CopyCheck, error) {
	x := &explainer{ctx: ctx, h: h, limit: limit, changes: map[[2]int]*Change{}, detailed: map[[2]int]bool{}}
	return x.verifyCopy(source, target, true)
}
