package compare

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// Options configure Diff.
type Options struct {
	// Limit is the number of examples kept per kind (added, removed, changed);
	// 0 keeps none, negative means 10.
	Limit int
	// AllowDifferentArtifacts compares snapshots of different artifacts, matching
	// their fields by field id although each artifact assigned its ids separately
	// (compare/live assigns both sides' ids itself). Without it such snapshots are
	// refused with CodeArtifacts: field 1 of one artifact is not field 1 of another.
	AllowDifferentArtifacts bool
	// SharedFieldIDs: the caller assigned both snapshots' field ids from one schema
	// (compare/live does), so their fields match by id whatever their artifacts: Diff
	// compares snapshots of different artifacts without the note that each artifact
	// numbered its fields on its own (which AllowDifferentArtifacts adds).
	SharedFieldIDs bool
	// Load reads the parts a scan misses (repo.Repo.LoadMore): Diff may be given
	// summaries (repo.Repo.LoadParts with no part) and loads the record and value
	// arrays only when the comparison needs them. Nil: the scans must hold them.
	Load func(s *repo.Scan, parts repo.Parts) error
	// Stream opens the per-record arrays of parts of a scan as an entry stream
	// (repo.Repo.Entries, which verifies their checksums first). When set, Diff
	// compares the arrays the scans miss in one streaming merge pass, in memory
	// independent of the row count, instead of loading them with Load; the counts,
	// fields and examples are the same.
	Stream func(s *repo.Scan, parts repo.Parts) (*repo.EntryReader, error)
}

// Side describes one of the two snapshots.
type Side struct {
	Snapshot   string `json:"snapshot"`
	Artifact   string `json:"artifact"`
	Address    string `json:"address"`
	Namespace  string `json:"namespace"`
	Resolution string `json:"resolution"`
	Rows       uint64 `json:"rows"`
	Coverage   string `json:"coverage"`
	// CoverageFailures are the reasons a coverage is not COMPLETE.
	CoverageFailures []string `json:"coverage_failures"`
	// Key names the key fields, in field id order; empty: the whole record is the key.
	Key          []string `json:"key"`
	FinishedAtNs uint64   `json:"finished_at_ns,string"`
}

// SchemaChange is one logical difference between the two snapshots' schemas, matched
// by stable field id: a field added, removed, renamed, or retyped (its C3 value type
// changed). Physical differences alone are PhysicalChanges, never SchemaChanges.
type SchemaChange struct {
	Kind    string `json:"kind"` // added, removed, renamed, retyped
	FieldID uint64 `json:"field_id,string"`
	Name    string `json:"name"`
	OldName string `json:"old_name,omitempty"`
	OldType string `json:"old_type,omitempty"` // describeType: "int (arrow int64, source INT64/None, nullable)"
	NewType string `json:"new_type,omitempty"`
}

// Physical is what a scan records about a field besides its id, name and C3 value
// type: how the source stored it. Two fields with equal C3 types and different
// Physical descriptions hold values that compare as C2 words, whatever the physical
// types (docs/compare.md, "What is a difference").
type Physical struct {
	Arrow    string `json:"arrow"`  // Arrow type (source.TypeName spelling)
	Source   string `json:"source"` // the source's own type spelling
	Width    uint64 `json:"width"`  // bit width of fixed-width numbers, else 0
	Nullable bool   `json:"nullable"`
}

func physical(f repo.Field) Physical {
	return Physical{Arrow: f.Arrow, Source: f.Source, Width: uint64(f.Width), Nullable: f.Nullable}
}

// fieldType is f's type as source.TypeChange, the rule shared with the registry, sees it.
func fieldType(f repo.Field) source.FieldType {
	return source.FieldType{Family: f.Type, Arrow: f.Arrow, Source: f.Source, Width: uint64(f.Width), Nullable: f.Nullable}
}

func (p Physical) fieldType() source.FieldType {
	return source.FieldType{Arrow: p.Arrow, Source: p.Source, Width: p.Width, Nullable: p.Nullable}
}

// PhysicalChange is a field of both snapshots whose C3 value type is the same and whose
// Physical description differs (a Parquet annotation, a string layout, a width, the
// nullability): information about how the data is stored, never a difference of the data.
type PhysicalChange struct {
	FieldID uint64   `json:"field_id,string"`
	Name    string   `json:"name"`
	Type    string   `json:"type"` // the C3 value type of both
	A       Physical `json:"a"`
	B       Physical `json:"b"`
}

// Differences names what differs, one "what old → new" phrase each, in the order
// arrow, source, width, nullability (source.FieldType.Differences): "source INT64/None →
// INT64/Int(bitWidth=64, isSigned=true)", "arrow large_utf8 → utf8", "nullable → not null".
func (c PhysicalChange) Differences() []string {
	return c.A.fieldType().Differences(c.B.fieldType())
}

// FieldCount is the number of changed records of one field.
type FieldCount struct {
	Name    string `json:"-"`
	ID      uint64 `json:"field_id,string"`
	Changed uint64 `json:"changed"`
}

// ValueChange is one field's old and new value in a changed record, rendered.
type ValueChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
	id    uint64 // the field id
}

// FieldID is the stable field id of the changed field.
func (c ValueChange) FieldID() uint64 { return c.id }

// Example is one added, removed or changed record, by key.
type Example struct {
	Key string `json:"key"`
	// Brief is Key on one line of about 100 runes at most (c2text.RecordShort),
	// for people: the key of a keyless scan is the whole record.
	Brief   string        `json:"-"`
	Changes []ValueChange `json:"changes,omitempty"`
	key     []uint64      // a changed record's key words (equal key digests: equal on both sides)
}

// KeyWords are the C2 words of a changed record's key, equal on both sides (their key
// digests are), to find the record again (scan.Options.Fetch). Shared: not to be changed.
func (e Example) KeyWords() []uint64 { return e.key }

// pick is an example candidate: entry indexes and the key words it sorts by.
type pick struct {
	ia, ib int
	key    []uint64
	// rendered: changes holds the changed record's value changes, rendered when the
	// pick was kept (a streaming pass has no entries to go back to).
	rendered bool
	changes  []ValueChange
}

// keepSmallest inserts p into s (sorted by key words, at most limit long).
func keepSmallest(s []pick, p pick, limit int) []pick {
	if limit <= 0 {
		return s
	}
	if len(s) == limit && !lessKey(p.key, s[len(s)-1].key) {
		return s
	}
	i := sort.Search(len(s), func(i int) bool { return lessKey(p.key, s[i].key) })
	if len(s) < limit {
		s = append(s, pick{})
	}
	copy(s[i+1:], s[i:len(s)-1])
	s[i] = p
	return s
}

// Examples are the kept examples per kind.
type Examples struct {
	Added   []Example `json:"added"`
	Removed []Example `json:"removed"`
	Changed []Example `json:"changed"`
}

// Report is the difference between two scan snapshots A (old) and B (new).
type Report struct {
	A, B Side
	// Resolution is the finer resolution both snapshots have.
	Resolution snapshot.Resolution
	// Equal: the same dataset state and no schema change.
	Equal bool
	// Comparable: the fingerprint contexts are equal, so fingerprints were compared;
	// false when only the schema identity differs (then only SchemaChanges is set).
	Comparable bool
	// StatesEqual: the dataset states (record count and lanes) are equal.
	StatesEqual bool
	// SchemaChanges are the logical schema changes; any of them makes the report
	// not Equal.
	SchemaChanges []SchemaChange
	// Physical lists the fields whose C3 type is the same and whose physical
	// description differs: shown for information, they never make the report not Equal.
	Physical []PhysicalChange
	// Records is set at record and value resolution.
	Records *Counts
	// Fields is set at value resolution: every field present in both snapshots, in B's
	// schema order, with the number of changed records where its value differs.
	Fields []FieldCount
	// ColumnsDiffer lists the fields present in both snapshots whose column states
	// (multiset hashes of their values) differ, when that says which fields changed:
	// when no record was added or removed (a listed field changed in some changed
	// record), and, at dataset resolution or without a key, when the row counts are
	// equal (a listed field's values differ: a record changed in it, or records that
	// differ in it replaced others). Otherwise, with a key, every column's state
	// differs by the added and removed records alone, and it is nil.
	ColumnsDiffer []string
	Examples      Examples
	// Notes explain a coarser comparison than asked for.
	Notes []string
}

// Diff compares scan snapshots a (old) and b (new). Snapshots whose contexts differ
// in algorithm are refused with CodeAlgorithm, in profile or mode with CodeContext; when only the schema
// identity differs, the report lists the schema changes and is not Comparable.
// At record and value resolution the record arrays are compared in one merge pass,
// unless the dataset states are equal: then the answer comes from the states (see
// equalStates) and the arrays are not needed.
func Diff(a, b *repo.Scan, o Options) (*Report, error) {
	if o.Limit < 0 {
		o.Limit = 10
	}
	r := &Report{A: side(a), B: side(b)}
	if a.Descriptor.Artifact != b.Descriptor.Artifact && !o.SharedFieldIDs {
		if !o.AllowDifferentArtifacts {
			return nil, &Error{Code: CodeArtifacts, Op: "diff", Msg: fmt.Sprintf(
				"snapshot A observes artifact %q and snapshot B artifact %q: each artifact numbers its columns on its own, so their columns cannot be matched (to compare two different datasets by column name, use 'pipewhy compare' on their sources; to match the columns by field id anyway, pass --allow-different-artifacts)",
				a.Descriptor.Artifact, b.Descriptor.Artifact)}
		}
		r.Notes = append(r.Notes, fmt.Sprintf("different artifacts (%s, %s): columns matched by field id, which each artifact assigned on its own", a.Descriptor.Artifact, b.Descriptor.Artifact))
	}
	r.SchemaChanges, r.Physical = schemaChanges(&a.Descriptor, &b.Descriptor)
	ca, cb := a.Context, b.Context
	switch {
	case ca.Algorithm() != cb.Algorithm():
		return nil, &Error{Code: CodeAlgorithm, Op: "diff", Msg: fmt.Sprintf(
			"not comparable: snapshot A (%s) was fingerprinted with %s and snapshot B (%s) with %s, and fingerprints of different algorithms are never compared (a repository keeps the algorithm it was created with: rescan both sources into one repository)",
			a.Metadata.ID, ca.Algorithm().ID(), b.Metadata.ID, cb.Algorithm().ID())}
	case ca.ProfileID() != cb.ProfileID():
		return nil, &Error{Code: CodeContext, Op: "diff", Msg: profileMismatch(a, b)}
	case ca.Mode() != cb.Mode():
		return nil, &Error{Code: CodeContext, Op: "diff", Msg: fmt.Sprintf("not comparable: fingerprint modes differ (%s vs %s)", ca.Mode(), cb.Mode())}
	}
	r.Resolution = coarser(a.Metadata.Resolution, b.Metadata.Resolution)
	if ca.SchemaID() != cb.SchemaID() {
		r.Notes = append(r.Notes, "the schemas differ, so fingerprints are not comparable: only schema changes are reported")
		r.Resolution = snapshot.ResolutionDataset
		return r, nil
	}
	r.Comparable = true
	eq, err := a.State.Equal(b.State)
	if err != nil {
		return nil, &Error{Code: CodeContext, Op: "diff", Msg: "dataset states", Err: err}
	}
	r.StatesEqual = eq
	r.Equal = eq && len(r.SchemaChanges) == 0
	if r.Resolution != snapshot.ResolutionDataset && !sameKeys(&a.Descriptor, &b.Descriptor) {
		r.Notes = append(r.Notes, "the snapshots were scanned with different keys: compared at dataset resolution")
		r.Resolution = snapshot.ResolutionDataset
	}
	if r.Resolution == snapshot.ResolutionDataset {
		if a.Descriptor.Rows == b.Descriptor.Rows {
			r.ColumnsDiffer = columnsDiffer(a, b)
		}
		return r, nil
	}
	values := r.Resolution == snapshot.ResolutionValue
	if eq {
		done, err := equalStates(r, a, b, o)
		if err != nil {
			return nil, err // as on every other failure: no half-filled report
		}
		if done {
			return r, nil
		}
	}
	parts := repo.PartRecords | repo.PartKeys
	if values {
		parts |= repo.PartValues
	}
	var c Counts
	var added, removed, changed []pick
	if o.Stream != nil && (a.Missing()|b.Missing())&parts != 0 {
		var err error
		if c, added, removed, changed, err = streamDiff(r, a, b, o, values); err != nil {
			return nil, err
		}
	} else {
		if err := need(o, parts, a, b); err != nil {
			return nil, err
		}
		var fieldIdx map[uint64]int
		if values {
			fieldIdx = fieldIndex(r, a, b)
		}
		nameB := namer(&b.Descriptor)
		// Examples: the Limit smallest keys (natural key order, lessKey) of each kind, chosen with a
		// bounded insertion so memory stays O(Limit); rendered after the merge pass.
		visit := func(k Kind, ia, ib int) {
			switch k {
			case Added:
				added = keepSmallest(added, pick{ia: ia, ib: ib, key: b.Key(ib)}, o.Limit)
			case Removed:
				removed = keepSmallest(removed, pick{ia: ia, ib: ib, key: a.Key(ia)}, o.Limit)
			case Changed:
				if values {
					valueDiff(a, b, ia, ib, r.Fields, fieldIdx, nameB, false, nil)
				}
				changed = keepSmallest(changed, pick{ia: ia, ib: ib, key: b.Key(ib)}, o.Limit)
			}
		}
		var err error
		if c, err = Merge(a.Records, b.Records, visit); err != nil {
			return nil, err
		}
	}
	nameA, nameB := namer(&a.Descriptor), namer(&b.Descriptor)
	r.Records = &c
	keyless := len(a.Descriptor.KeyFields) == 0
	if c.Added+c.Removed == 0 || keyless && a.Descriptor.Rows == b.Descriptor.Rows {
		r.ColumnsDiffer = columnsDiffer(a, b)
	}
	// A keyless example (a whole record) shows the fields whose values differ first.
	differ := map[uint64]bool{}
	for _, n := range r.ColumnsDiffer {
		for _, f := range b.Descriptor.Fields {
			if f.Name == n {
				differ[uint64(f.ID)] = true
			}
		}
	}
	first := func(id uint64) bool { return differ[id] }
	for _, p := range added {
		r.Examples.Added = append(r.Examples.Added, example(p.key, nameB, first))
	}
	for _, p := range removed {
		r.Examples.Removed = append(r.Examples.Removed, example(p.key, nameA, first))
	}
	for _, p := range changed {
		ex := example(p.key, nameB, first)
		ex.key = slices.Clone(p.key)
		switch {
		case p.rendered:
			ex.Changes = p.changes
		case values:
			ex.Changes = valueDiff(a, b, p.ia, p.ib, nil, nil, nameB, true, nil)
		}
		r.Examples.Changed = append(r.Examples.Changed, ex)
	}
	return r, nil
}

// Widths of Example.Brief: the line, and each text value in it, in runes.
const (
	briefWidth      = 100
	briefValueWidth = 24
)

// example is the Example of a record's key words; Brief shows the fields first accepts
// first.
func example(key []uint64, name func(uint64) string, first func(uint64) bool) Example {
	return Example{Key: c2text.Record(key, name), Brief: c2text.RecordShort(key, name, first, briefWidth, briefValueWidth)}
}

// columnsDiffer lists the fields of both snapshots, in B's order, whose column states
// (the sums of their value digests) differ.
func columnsDiffer(a, b *repo.Scan) []string {
	if a.Columns == nil || b.Columns == nil {
		return nil
	}
	var out []string
	for i, f := range b.Descriptor.Fields {
		for k, g := range a.Descriptor.Fields {
			if g.ID == f.ID {
				if same, err := a.Columns[k].Equal(b.Columns[i]); err == nil && !same {
					out = append(out, f.Name)
				}
			}
		}
	}
	return out
}

// equalStates completes the report of two snapshots whose dataset states are equal,
// compared at record or value resolution with the same keys. Equal states are equal
// multisets of records (but for a 2^-128 accident, docs/contracts/C3-fingerprint.md):
// no record was added, removed or changed, and no field changed. With declared keys,
// which scan makes unique, every record is unchanged and no array is read. Without, a
// record may occur several times, and the merge pass over the record entries alone
// (not the key words or values) counts those duplicated keys as the full diff does.
// done is false only if that pass finds a difference after all: then the full diff
// must run.
func equalStates(r *Report, a, b *repo.Scan, o Options) (done bool, err error) {
	if len(a.Descriptor.KeyFields) > 0 {
		r.Records = &Counts{Unchanged: uint64(a.Descriptor.Rows)}
	} else {
		var c Counts
		var err error
		if o.Stream != nil && (a.Missing()|b.Missing())&repo.PartRecords != 0 {
			c, err = streamRecordsOnly(o, a, b)
		} else {
			if err := need(o, repo.PartRecords, a, b); err != nil {
				return false, err
			}
			c, err = Merge(a.Records, b.Records, nil)
		}
		if err != nil {
			return false, err
		}
		if c.Added+c.Removed+c.Changed > 0 {
			return false, nil
		}
		r.Records = &c
	}
	if r.Resolution == snapshot.ResolutionValue {
		r.Fields = CommonFields(a, b)
	}
	return true, nil
}

// fieldIndex fills r.Fields with the fields of both a and b (in B's order) and maps
// each one's id to its index there.
func fieldIndex(r *Report, a, b *repo.Scan) map[uint64]int {
	idx := map[uint64]int{}
	for _, f := range b.Descriptor.Fields {
		if _, ok := a.FieldByID(uint64(f.ID)); ok {
			idx[uint64(f.ID)] = len(r.Fields)
			r.Fields = append(r.Fields, FieldCount{Name: f.Name, ID: uint64(f.ID)})
		}
	}
	return idx
}

// need makes sure that a and b hold parts of their resolution, reading what they
// miss with o.Load, both at once.
func need(o Options, parts repo.Parts, a, b *repo.Scan) error {
	scans := [2]*repo.Scan{a, b}
	if (a.Missing()|b.Missing())&parts != 0 && o.Load == nil {
		return &Error{Code: CodeRecords, Op: "diff", Msg: "the snapshots' record arrays are not loaded"}
	}
	var errs [2]error
	var wg sync.WaitGroup
	for i, s := range scans {
		if s.Missing()&parts != 0 {
			wg.Go(func() { errs[i] = o.Load(s, parts) })
		}
	}
	wg.Wait()
	return errors.Join(errs[0], errs[1])
}

// CommonFields are Diff's value-resolution fields of a and b when no record changed:
// every field present in both, in B's schema order, none changed.
func CommonFields(a, b *repo.Scan) []FieldCount {
	out := []FieldCount{}
	for _, f := range b.Descriptor.Fields {
		if _, ok := a.FieldByID(uint64(f.ID)); ok {
			out = append(out, FieldCount{Name: f.Name, ID: uint64(f.ID)})
		}
	}
	return out
}

// valueDiff merges the value entries of a's entry ia and b's entry ib by field id and
// counts every field whose value digest differs; when keep, it renders old and new.
func valueDiff(a, b *repo.Scan, ia, ib int, fields []FieldCount, idx map[uint64]int, name func(uint64) string, keep bool, out []ValueChange) []ValueChange {
	const s = fingerprint.ValueStride
	i, ie := int(a.ValueOffsets[ia]), int(a.ValueOffsets[ia+1])
	j, je := int(b.ValueOffsets[ib]), int(b.ValueOffsets[ib+1])
	return diffValues(a.Values[i*s:ie*s], b.Values[j*s:je*s], fields, idx, name, keep, func(x, y int) (string, string) {
		return renderValue(a, i+x), renderValue(b, j+y)
	}, out)
}

// diffValues merges two records' value entries (stride fingerprint.ValueStride, by
// ascending field id) and counts in fields (when not nil, at idx of the field id) every
// field whose value digest differs; when keep, it appends to out the field's old and new
// values, which render gives from the entries' positions.
func diffValues(av, bv []uint64, fields []FieldCount, idx map[uint64]int, name func(uint64) string, keep bool,
	render func(i, j int) (string, string), out []ValueChange) []ValueChange {
	const s = fingerprint.ValueStride
	i, ie := 0, len(av)/s
	j, je := 0, len(bv)/s
	for i < ie && j < je {
		fa, fb := av[i*s], bv[j*s]
		switch {
		case fa < fb:
			i++
		case fa > fb:
			j++
		default:
			if av[i*s+1] != bv[j*s+1] || av[i*s+2] != bv[j*s+2] {
				if k, ok := idx[fa]; ok && fields != nil {
					fields[k].Changed++
				}
				if keep {
					was, now := render(i, j)
					out = append(out, ValueChange{Field: name(fa), Old: was, New: now, id: fa})
				}
			}
			i++
			j++
		}
	}
	return out
}

// renderValue renders value entry row from the scan's value table; a scan observed
// without payloads (scan.Options.DigestsOnly) has none: "" (compare/live fills those in).
func renderValue(s *repo.Scan, row int) string {
	t := s.ValueTable
	if t == nil {
		return ""
	}
	lo, hi := t.PayloadOffset[row], t.PayloadOffset[row]+t.PayloadLength[row]
	return c2text.Value(normalize.TypeCode(t.TypeID[row]), t.PayloadWords[lo:hi])
}

func lessWords(a, b []uint64) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

func namer(d *repo.Descriptor) func(uint64) string {
	return func(id uint64) string {
		for _, f := range d.Fields {
			if uint64(f.ID) == id {
				return f.Name
			}
		}
		return fmt.Sprintf("#%d", id)
	}
}

// profileMismatch says which C2 profile each snapshot was scanned with and how to
// rescan one of them with the other's.
func profileMismatch(a, b *repo.Scan) string {
	name := func(s *repo.Scan) string {
		if p, err := normalize.ParseProfile(s.Context.ProfileID()); err == nil {
			return p.Name()
		}
		return s.Context.ProfileID()
	}
	pa, pb := name(a), name(b)
	return fmt.Sprintf("not comparable: the normalization profiles differ: snapshot A (%s) was scanned with profile %s and snapshot B (%s) with profile %s, and fingerprints of different profiles are never compared; rescan one with the other's profile, for example: %s (with the other source options used before)",
		a.Metadata.ID.String()[:12], pa, b.Metadata.ID.String()[:12], pb, rescanCommand(b, pa))
}

// rescanCommand is the pipewhy scan command that observes s's source again under
// profile: same address, artifact name, resolution, key and excluded columns.
func rescanCommand(s *repo.Scan, profile string) string {
	d := &s.Descriptor
	args := []string{"pipewhy", "scan", shellQuote(d.Address), "--name", shellQuote(d.Artifact), "--profile", profile,
		"--resolution", string(s.Metadata.Resolution)}
	if len(d.KeyFields) > 0 {
		var keys []string
		for _, id := range d.KeyFields {
			if f, ok := findField(d, uint64(id)); ok {
				keys = append(keys, f.Name)
			}
		}
		args = append(args, "--key", shellQuote(strings.Join(keys, ",")))
	}
	if len(d.Excluded) > 0 {
		args = append(args, "--exclude", shellQuote(strings.Join(d.Excluded, ",")))
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell unless it is made of safe characters only.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:,=+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func side(s *repo.Scan) Side {
	sd := Side{Snapshot: s.Metadata.ID.String(), Artifact: s.Descriptor.Artifact, Address: s.Descriptor.Address,
		Namespace: s.Metadata.SourceNamespace, Resolution: string(s.Metadata.Resolution), Rows: uint64(s.Descriptor.Rows),
		Coverage: string(s.Metadata.Coverage.Status), CoverageFailures: append([]string{}, s.Metadata.Coverage.FailureReasons...),
		Key: []string{}, FinishedAtNs: s.Metadata.FinishedAtNs}
	for _, id := range s.Descriptor.KeyFields {
		if f, ok := findField(&s.Descriptor, uint64(id)); ok {
			sd.Key = append(sd.Key, f.Name)
		}
	}
	return sd
}

func coarser(a, b snapshot.Resolution) snapshot.Resolution {
	rank := map[snapshot.Resolution]int{snapshot.ResolutionDataset: 0, snapshot.ResolutionRecord: 1, snapshot.ResolutionValue: 2}
	if rank[a] < rank[b] {
		return a
	}
	return b
}

func sameKeys(a, b *repo.Descriptor) bool {
	if len(a.KeyFields) != len(b.KeyFields) {
		return false
	}
	for i := range a.KeyFields {
		if a.KeyFields[i] != b.KeyFields[i] {
			return false
		}
	}
	return true
}

// describeType is a field's C3 value type followed by its physical description, as
// schema changes show it: "int (arrow int64, source INT64/None, nullable)".
func describeType(f repo.Field) string { return fieldType(f).String() }

// schemaChanges matches fields by stable id: added, removed, renamed (same id, new
// name) and retyped (another C3 value type) are the logical changes; a field whose C3
// type is the same and whose physical description differs is a PhysicalChange
// (source.TypeChange, the rule scan's schema changes follow too).
func schemaChanges(a, b *repo.Descriptor) ([]SchemaChange, []PhysicalChange) {
	out := []SchemaChange{}
	var phys []PhysicalChange
	for _, fb := range b.FieldsSorted() {
		fa, ok := findField(a, uint64(fb.ID))
		if !ok {
			out = append(out, SchemaChange{Kind: "added", FieldID: uint64(fb.ID), Name: fb.Name, NewType: describeType(fb)})
			continue
		}
		if fa.Name != fb.Name {
			out = append(out, SchemaChange{Kind: "renamed", FieldID: uint64(fb.ID), Name: fb.Name, OldName: fa.Name})
		}
		switch source.TypeChange(fieldType(fa), fieldType(fb)) {
		case source.ChangeRetyped:
			out = append(out, SchemaChange{Kind: string(source.ChangeRetyped), FieldID: uint64(fb.ID), Name: fb.Name,
				OldType: describeType(fa), NewType: describeType(fb)})
		case source.ChangePhysical:
			phys = append(phys, PhysicalChange{FieldID: uint64(fb.ID), Name: fb.Name, Type: fb.Type, A: physical(fa), B: physical(fb)})
		}
	}
	for _, fa := range a.FieldsSorted() {
		if _, ok := findField(b, uint64(fa.ID)); !ok {
			out = append(out, SchemaChange{Kind: "removed", FieldID: uint64(fa.ID), Name: fa.Name, OldType: describeType(fa)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].FieldID < out[j].FieldID })
	return out, phys
}

func findField(d *repo.Descriptor, id uint64) (repo.Field, bool) {
	for _, f := range d.Fields {
		if uint64(f.ID) == id {
			return f, true
		}
	}
	return repo.Field{}, false
}
