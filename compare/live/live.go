package live

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// Input is one side of a source comparison.
type Input struct {
	// Address is the source address (package source's syntax, or a registered prefix
	// such as postgres:// or mysql://).
	Address string
	// Name is the artifact name shown for the side; empty means the table, or the
	// file's base name without extension.
	Name string
	// Source are the adapter options of this side.
	Source source.Options
}

// Mapping pairs a column of A with the column of B it is compared with.
type Mapping struct{ A, B string }

// Options configure Compare.
type Options struct {
	// Key names the key columns (in A's names). Empty means the primary key when both
	// sources expose one (equal after Map), and no key when neither does: each record
	// is then its own key (Comparison.Keyless). A primary key on one side only is an
	// error (CodeOptions).
	Key []string
	// Map renames B's column B to A for the comparison. Columns not mapped are
	// matched by equal names.
	Map []Mapping
	// Exclude lists columns (in A's names) left out of the comparison on both sides.
	Exclude []string
	// Profile is the C2 profile of both sides (zero value: strict-v1).
	Profile normalize.Profile
	// AllowPartial compares sides whose coverage is not COMPLETE; without it such a
	// side is an error (scan.CodeCoverage inside a compare.CodeSource error).
	AllowPartial bool
	// Limit is Diff's example limit.
	Limit int
	// Workers is each side's fingerprint worker count (0: GOMAXPROCS).
	Workers int
	// Memory is the memory budget of the comparison, as scan.Options.Memory is a scan's
	// (0: scan.DefaultMemory; negative: every entry in memory, nothing written). Each
	// side, read at the same time as the other, takes half: its sorted entries are cut
	// into runs as a scan's are (at most half of that, at scan's estimate), and when a
	// side's entries do not fit one run they spill to a private scratch directory in
	// SpillDir, are merged into a scratch snapshot there and compared by streaming both
	// (docs/compare.md, Memory).
	Memory int64
	// SpillDir is the directory in which the scratch directory is made (0700) when a
	// side first spills, and removed when Compare returns; empty means os.TempDir().
	SpillDir string
	// Progress, when set, receives each side's scan progress on both reads. The two
	// sides are read at once: it is called from two goroutines and must be safe for
	// concurrent use, and quick.
	Progress func(Progress)
}

// Progress is one side's progress in Compare.
type Progress struct {
	Side int           // 0: A, 1: B
	Pass int           // 1: the comparison; 2: the second read of the changed records
	Scan scan.Progress // the side's scan phase and counts
}

// TypeDifference is a common column whose Arrow type differs on the two sides (int32
// and int64, decimal(10,2) and decimal(12,2), ...) while its C3 value type is the same:
// its values are compared as C2 words. Differences of source spelling or nullability
// alone are not listed.
type TypeDifference struct {
	Name    string `json:"name"`
	Type    string `json:"type"` // the C3 value type of both sides
	A       string `json:"a"`    // Arrow type (source.TypeName spelling)
	B       string `json:"b"`
	SourceA string `json:"source_a"` // the source's own type spelling
	SourceB string `json:"source_b"`
}

// Comparison is the result of Compare.
type Comparison struct {
	// Report is Diff's report of the two observations, with the schema changes
	// replaced by the comparison's own: columns on one side only (removed: only in A,
	// added: only in B) and retypings that change the C3 value type.
	Report *compare.Report
	// Types lists common columns whose source types differ but compare by value.
	Types []TypeDifference
	// OnlyA and OnlyB are the columns present on one side only (comparison names);
	// the common columns are compared without them.
	OnlyA, OnlyB []string
	// A and B are the first read's observations at record resolution (never published):
	// descriptors, metadata, states and column states. When records changed, their
	// record arrays were released before the second read; when the entries spilled,
	// they never held them (summaries of the scratch snapshots, since removed).
	A, B *repo.Scan
	// Runs is the number of sorted runs each read of each side merged ([read][side]; 0:
	// sorted in memory, nothing spilled): a spilled side's runs went to the scratch
	// directory (Options.Memory).
	Runs [2][2]int
	// Keyless: no key was named and neither side exposes a primary key, so each record
	// was its own key. KeylessNote, first among the report's notes when the records were
	// compared (Report.Comparable), says what that means.
	Keyless bool
}

// KeylessNote is the note of a keyless comparison (Comparison.Keyless).
const KeylessNote = "no key (no --key, and neither side has a primary key): each record is its own key, so the sources " +
	"are compared as multisets of records: order does not matter, a record n times in A and m times in B is min(n, m) same " +
	"and the rest removed or added, and a record that differs in any field is one removed and one added (--key pairs them " +
	"and shows which fields changed)"

// Compare reads a and b concurrently at record resolution under one comparison schema
// and compares them with Diff; when records changed, it reads both sides again at value
// resolution, keeping the value digests of the changed records only (all of them when
// more than 1/8 changed) and the examples' whole records, for the per-field counts and
// the old and new values (fieldChanges). Field ids are assigned by column name (after
// o.Map) identically on both sides, in A's column order followed by B's own columns, so
// equal data yields equal C2 words whatever the engine's physical types. Columns on
// one side only are left out of both observations and reported as schema changes
// (the result is then not Equal). Nothing is written but the scratch directory of a
// comparison whose entries exceed o.Memory (see scratch), made when a side first
// spills and removed before Compare returns, on success, error and cancellation alike.
func Compare(ctx context.Context, a, b Input, o Options) (c *Comparison, err error) {
	if !o.Profile.Valid() {
		return nil, &compare.Error{Code: compare.CodeOptions, Op: "options", Msg: "invalid profile"}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sp := newScratch(o)
	defer func() {
		// After every reader and writer of the scratch store has returned (the views
		// and sources are closed by the defers below, which run first).
		if rerr := sp.remove(); rerr != nil && err == nil {
			c, err = nil, rerr
		}
	}()
	// Phase 1: open both sides (concurrently) to learn their schemas.
	var srcs [2]source.Source
	errs := both(cancel, func(i int) error {
		in := [2]Input{a, b}[i]
		s, err := source.Open(ctx, in.Address, o.sourceOptions(in, i, 1))
		if err != nil {
			return &compare.Error{Code: compare.CodeSource, Op: "open " + sideName(i), Msg: source.RedactAddress(in.Address), Err: err}
		}
		srcs[i] = s
		return nil
	})
	defer func() {
		for _, s := range srcs {
			if s != nil {
				s.Close()
			}
		}
	}()
	if err := first(errs); err != nil {
		return nil, err
	}
	plan, err := planColumns(srcs[0].Schema(), srcs[1].Schema(), o)
	if err != nil {
		return nil, err
	}
	key, err := plan.key(o.Key, srcs[0], srcs[1])
	if err != nil {
		return nil, err
	}
	keyless := len(key) == 0 // scan's record is then its own key
	// Phase 2: observe both sides concurrently through views of the open sources, at
	// record resolution: which records are only in A, only in B, changed or equal.
	ins := [2]Input{a, b}
	names := [2]string{artifactName(a), artifactName(b)}
	views := [2]source.Source{plan.view(0, srcs[0]), plan.view(1, srcs[1])}
	srcs = [2]source.Source{} // closed by the views from here on
	defer views[0].Close()
	defer views[1].Close()
	var obs [2]*scan.Result
	errs = both(cancel, func(i int) error {
		var err error
		obs[i], err = observeSide(ctx, i, ins[i], names[i], views[i], plan, sp, scan.Options{
			Resolution: snapshot.ResolutionRecord, Key: key, Profile: o.Profile,
			AllowPartial: o.AllowPartial, Workers: o.Workers, Progress: o.progress(i, 1),
			// Diff reads the keys of the records that differ only: the rest stay as the
			// engine stored them (a third or less of the gathered arrays' memory).
			KeyStore: true})
		return err
	})
	if err := first(errs); err != nil {
		return nil, err
	}
	scans := [2]*repo.Scan{obs[0].Scan, obs[1].Scan}
	do := compare.Options{Limit: o.Limit, SharedFieldIDs: true}
	var out *scratch // set when the entries spilled: the second read spills too
	runs := [2][2]int{{obs[0].Runs, obs[1].Runs}}
	if spilled(obs) {
		out = sp
		if scans, err = sp.summaries(ctx, obs); err != nil {
			return nil, err
		}
		do = sp.diffOptions(o.Limit)
	}
	rep, err := compare.Diff(scans[0], scans[1], do)
	if err != nil {
		return nil, err
	}
	views[0].Close()
	views[1].Close()
	if rep.Records != nil {
		// Phase 3: the changed records' fields, from a second read of each side.
		if err := fieldChanges(ctx, ins, names, plan, key, o, out, scans, rep, &runs[1]); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// The record comparison stands; only which fields changed is missing.
			rep.Notes = append(rep.Notes, "the changed records could not be read again to see which fields changed: "+err.Error())
		}
	}
	c = &Comparison{Report: rep, A: scans[0], B: scans[1], OnlyA: plan.onlyA, OnlyB: plan.onlyB, Runs: runs, Keyless: keyless}
	c.finish(plan)
	if keyless && rep.Comparable {
		// Records were compared (not only schemas): say how, first.
		rep.Notes = append([]string{KeylessNote}, rep.Notes...)
	}
	return c, nil
}

// progress is the scan progress callback of side i on pass, nil without o.Progress.
func (o Options) progress(side, pass int) func(scan.Progress) {
	if o.Progress == nil {
		return nil
	}
	return func(p scan.Progress) { o.Progress(Progress{Side: side, Pass: pass, Scan: p}) }
}

// sourceOptions are in's adapter options for a source read through a view into the scan,
// whose encoders release every batch once encoded (source.Options.ReleasedPromptly),
// reporting an inference pass as side's progress on pass.
func (o Options) sourceOptions(in Input, side, pass int) source.Options {
	so := in.Source
	so.ReleasedPromptly = true
	if p := o.progress(side, pass); p != nil && so.InferProgress == nil {
		so.InferProgress = func(read, size uint64) {
			p(scan.Progress{Phase: scan.PhaseInfer, Bytes: read, BytesTotal: size})
		}
	}
	return so
}

// beforeFetch, when set (tests), runs between the first and the second read.
var beforeFetch func()

// observeSide observes side i through v, with every comparison column's field id
// seeded (so both sides, and both reads of one side, give equal data equal words).
func observeSide(ctx context.Context, i int, in Input, name string, v source.Source, p *plan, sp *scratch, so scan.Options) (*scan.Result, error) {
	reg := source.NewRegistry()
	if _, err := reg.Assign(name, p.seed); err != nil {
		return nil, &compare.Error{Code: compare.CodeSource, Op: "observe " + sideName(i), Msg: "field ids", Err: err}
	}
	so.Address, so.Name = in.Address, name
	var res *scan.Result
	var err error
	if sp != nil {
		res, err = sp.observe(ctx, reg, v, so)
	} else {
		res, err = scan.ObserveSource(ctx, reg, v, so)
	}
	if err != nil {
		if spillError(err) {
			return nil, &compare.Error{Code: compare.CodeSpill, Op: "spill " + sideName(i), Msg: "scratch directory " + sp.where(), Err: err}
		}
		return nil, &compare.Error{Code: compare.CodeSource, Op: "observe " + sideName(i), Msg: source.RedactAddress(in.Address), Err: err}
	}
	res.Scan.Descriptor.Address = source.RedactAddress(in.Address)
	return res, nil
}

// fieldChanges completes a record-resolution report of scans with what value
// resolution adds: per field, how many changed records differ in it, and the changed
// examples' old and new values. Only the changed records matter, so when records
// changed it reads both sides again at value resolution keeping the value digests of
// those records only (scan.Options.Select) and the whole records of the examples
// (scan.Options.Fetch): memory for the changed records, not for every record. A side
// whose dataset state differs on that read changed in between: the report says so.
//
// When the first read spilled (sp set), the changed records are selected as above
// only while their keys and value digests fit a third of a side's budget
// (selectedBytes), their keys found by a streamed merge of the scratch snapshots;
// beyond that the second read spills too (fieldChangesSpilled), since a set of the
// changed keys, or every record's value digests, would grow with the rows.
func fieldChanges(ctx context.Context, ins [2]Input, names [2]string, p *plan, key []string, o Options, sp *scratch, scans [2]*repo.Scan, rep *compare.Report, runs *[2]int) error {
	if rep.Records.Changed == 0 {
		rep.Resolution, rep.Fields = snapshot.ResolutionValue, compare.CommonFields(scans[0], scans[1])
		return nil
	}
	c := rep.Records
	var sel func(fingerprint.Digest) bool
	switch {
	case sp != nil && c.Changed*selectedBytes(scans[0]) > uint64(sp.memory)/runShare:
		return fieldChangesSpilled(ctx, ins, names, p, key, o, sp, scans, rep, runs)
	case sp != nil:
		// The changed records' keys fit the budget: the in-memory second read follows,
		// on them alone, whatever the rows.
		changed, err := sp.changedKeys(scans, c.Changed)
		if err != nil {
			return err
		}
		sp.drop(scans)
		sel = func(k fingerprint.Digest) bool { _, ok := changed[k]; return ok }
	case c.Changed <= (c.Added+c.Removed+c.Changed+c.Unchanged)/selectFraction:
		// Select the changed records by key digest, unless they are many: then a lookup per
		// record costs more than keeping every record's value digests (5 M rows, all
		// changed: 9.0 s and 5.9 GB with the lookups, docs/performance.md).
		changed := make(map[fingerprint.Digest]struct{}, c.Changed)
		if _, err := compare.Merge(scans[0].Records, scans[1].Records, func(k compare.Kind, ia, _ int) {
			if k == compare.Changed {
				e := scans[0].Records[ia*fingerprint.RecordStride:]
				changed[fingerprint.Digest{Lo: e[0], Hi: e[1]}] = struct{}{}
			}
		}); err != nil {
			return err
		}
		sel = func(k fingerprint.Digest) bool { _, ok := changed[k]; return ok }
	}
	var keys [][]uint64
	for _, ex := range rep.Examples.Changed {
		keys = append(keys, ex.KeyWords())
	}
	// What the second read needs of the first is taken: its record arrays can go.
	for _, sc := range scans {
		sc.Records, sc.KeyWords, sc.KeyOffsets, sc.Keys = nil, nil, nil, nil
	}
	runtime.GC() // so that the second read reuses their memory instead of growing the heap
	if beforeFetch != nil {
		beforeFetch()
	}
	again, err := readAgain(ctx, ins, names, p, nil, scans, rep, scan.Options{
		Resolution: snapshot.ResolutionValue, Key: key, Profile: o.Profile, AllowPartial: o.AllowPartial,
		Workers: o.Workers, DigestsOnly: true, Select: sel, Fetch: keys}, o)
	if err != nil {
		return err
	}
	// Diff of the changed records alone: the per-field counts and the changed examples
	// (the same Limit smallest keys as the first read's, unless a side changed).
	sub, err := compare.Diff(again[0].Scan, again[1].Scan, compare.Options{Limit: o.Limit, SharedFieldIDs: true})
	if err != nil {
		return err
	}
	rep.Resolution, rep.Fields = snapshot.ResolutionValue, sub.Fields
	var fetched [2]map[string][]uint64
	for i := range again {
		fetched[i] = map[string][]uint64{}
		for k, r := range again[i].Fetched {
			fetched[i][fmt.Sprint(keys[k])] = r
		}
	}
	rep.Examples.Changed = sub.Examples.Changed
	for k := range rep.Examples.Changed {
		ex := &rep.Examples.Changed[k]
		// A key not fetched (a side changed in between) renders as notReread.
		ra, rb := fetched[0][fmt.Sprint(ex.KeyWords())], fetched[1][fmt.Sprint(ex.KeyWords())]
		for c := range ex.Changes {
			ch := &ex.Changes[c]
			ch.Old, ch.New = fieldValue(ra, ch.FieldID()), fieldValue(rb, ch.FieldID())
		}
	}
	return nil
}

// runShare is the part of a side's budget the changed records' keys and value digests
// may take in the second read of a spilled comparison, as a sorted run takes that part
// of a scan's (scan's runShare).
const runShare = 3

// selectedBytes estimates the memory one changed record of sc costs the selecting
// second read: its key digest in the set (about 64 bytes with the map's overhead) and,
// on both sides, its record entry, key words and offsets (about 64 bytes) and a value
// digest entry per field (24 bytes, about 48 with the offsets and slack).
func selectedBytes(sc *repo.Scan) uint64 {
	return 64 + 2*(64+48*uint64(len(sc.Descriptor.Fields)))
}

// fieldChangesSpilled is fieldChanges after a first read that spilled, with more
// changed records than the budget holds the keys and value digests of: both sides are
// read again at value resolution, every record, in the budget (spilled to sp), and the
// streamed Diff of the two gives the per-field counts and the changed examples with
// their old and new values (the same Limit smallest keys as the first read's).
func fieldChangesSpilled(ctx context.Context, ins [2]Input, names [2]string, p *plan, key []string, o Options, sp *scratch, scans [2]*repo.Scan, rep *compare.Report, runs *[2]int) error {
	sp.drop(scans) // compared: the second read's snapshots take their place
	if beforeFetch != nil {
		beforeFetch()
	}
	again, err := readAgain(ctx, ins, names, p, sp, scans, rep, scan.Options{
		Resolution: snapshot.ResolutionValue, Key: key, Profile: o.Profile, AllowPartial: o.AllowPartial,
		Workers: o.Workers}, o)
	if err != nil {
		return err
	}
	*runs = [2]int{again[0].Runs, again[1].Runs}
	var sc [2]*repo.Scan
	if spilled(again) {
		if sc, err = sp.summaries(ctx, again); err != nil {
			return err
		}
	} else {
		sc = [2]*repo.Scan{again[0].Scan, again[1].Scan}
	}
	sub, err := compare.Diff(sc[0], sc[1], sp.diffOptions(o.Limit))
	if err != nil {
		return err
	}
	rep.Resolution, rep.Fields = snapshot.ResolutionValue, sub.Fields
	rep.Examples.Changed = sub.Examples.Changed
	return nil
}

// readAgain is the second read: both sides opened and observed again with so (through
// sp when set), and a note for each side whose dataset state differs from the first
// read's (scans).
func readAgain(ctx context.Context, ins [2]Input, names [2]string, p *plan, sp *scratch, scans [2]*repo.Scan, rep *compare.Report, so scan.Options, o Options) ([2]*scan.Result, error) {
	var again [2]*scan.Result
	ctx, cancel := context.WithCancel(ctx) // a failing side stops the other, not the caller
	defer cancel()
	errs := both(cancel, func(i int) error {
		s, err := source.Open(ctx, ins[i].Address, o.sourceOptions(ins[i], i, 2))
		if err != nil {
			return &compare.Error{Code: compare.CodeSource, Op: "open " + sideName(i), Msg: source.RedactAddress(ins[i].Address), Err: err}
		}
		v := p.view(i, s)
		defer v.Close()
		so := so
		so.Progress = o.progress(i, 2)
		again[i], err = observeSide(ctx, i, ins[i], names[i], v, p, sp, so)
		return err
	})
	if err := first(errs); err != nil {
		return again, err
	}
	for i := range again {
		same, err := again[i].Scan.State.Equal(scans[i].State)
		if err != nil {
			return again, &compare.Error{Code: compare.CodeSource, Op: "observe " + sideName(i), Msg: "second read", Err: err}
		}
		if !same {
			rep.Notes = append(rep.Notes, fmt.Sprintf("side %s changed between the comparison and the second read that found the changed fields: those and the values shown may not be the ones compared", sideName(i)))
		}
	}
	return again, nil
}

// selectFraction: the second read selects the changed records when they are at most
// 1/selectFraction of the records compared. A variable for tests.
var selectFraction uint64 = 8

// notReread stands for a value the second read did not return.
const notReread = "(not re-read)"

// fieldValue renders field id of a C2 record (as Diff renders a value-table payload);
// a record the second read did not return renders as notReread. The records come from
// the columnar encoder, so c2text.Fields may walk them.
func fieldValue(rec []uint64, id uint64) string {
	if rec == nil {
		return notReread
	}
	ids, types, payloads := c2text.Fields(rec)
	for k, fid := range ids {
		if fid == id {
			return c2text.Value(types[k], payloads[k])
		}
	}
	return "(missing)"
}

// finish completes Diff's report for two sources: physical differences whose Arrow
// types differ become Types (the source spellings of two engines always differ, so
// those alone are not listed), one-sided columns become removed/added changes, and
// Equal is recomputed.
func (c *Comparison) finish(p *plan) {
	r := c.Report
	for _, pc := range r.Physical {
		if pc.A.Arrow != pc.B.Arrow {
			c.Types = append(c.Types, TypeDifference{Name: pc.Name, Type: pc.Type, A: pc.A.Arrow, B: pc.B.Arrow,
				SourceA: pc.A.Source, SourceB: pc.B.Source})
		}
	}
	r.Physical = nil
	kept := append([]compare.SchemaChange{}, r.SchemaChanges...)
	for _, n := range p.onlyA {
		kept = append(kept, compare.SchemaChange{Kind: "removed", FieldID: p.ids[n], Name: n, OldType: p.types[0][n]})
	}
	for _, n := range p.onlyB {
		kept = append(kept, compare.SchemaChange{Kind: "added", FieldID: p.ids[n], Name: n, NewType: p.types[1][n]})
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].FieldID < kept[j].FieldID })
	r.SchemaChanges = kept
	r.Equal = r.Comparable && r.StatesEqual && len(kept) == 0
	if len(p.onlyA)+len(p.onlyB) > 0 {
		r.Notes = append(r.Notes, "columns on one side only are left out: the records were compared on the common columns")
	}
	var retyped []string
	for _, sc := range kept {
		if sc.Kind == string(source.ChangeRetyped) {
			retyped = append(retyped, sc.Name)
		}
	}
	if len(retyped) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("to compare the records, give %s one C3 type on both sides (--schema-a or --schema-b for a CSV or JSON side), or leave it out: --exclude %s",
			strings.Join(retyped, ", "), strings.Join(retyped, ",")))
	}
	if len(p.excluded) > 0 {
		r.Notes = append(r.Notes, "left out of the comparison (--exclude): "+strings.Join(p.excluded, ", "))
	}
	for _, m := range p.mapped {
		r.Notes = append(r.Notes, fmt.Sprintf("B's column %q compared as %q (--map)", m.B, m.A))
	}
}

// plan is the comparison schema: which columns of each side are compared, under which
// names, with which field ids.
type plan struct {
	seed         *arrow.Schema     // every comparison name, for the registries
	ids          map[string]uint64 // comparison name → field id
	keep         [2][]int          // per side, the source column indexes compared
	names        [2][]string       // per side, their comparison names
	onlyA, onlyB []string
	types        [2]map[string]string
	mapped       []Mapping
	excluded     []string
	renameB      map[string]string // B's name → comparison name
}

func planColumns(sa, sb *arrow.Schema, o Options) (*plan, error) {
	bad := func(msg string) error { return &compare.Error{Code: compare.CodeOptions, Op: "options", Msg: msg} }
	p := &plan{ids: map[string]uint64{}, renameB: map[string]string{}, mapped: o.Map,
		types: [2]map[string]string{{}, {}}}
	inA := map[string]bool{}
	for _, f := range sa.Fields() {
		if inA[f.Name] {
			return nil, bad(fmt.Sprintf("A has two columns named %q", f.Name))
		}
		inA[f.Name] = true
	}
	inB := map[string]bool{}
	for _, f := range sb.Fields() {
		inB[f.Name] = true
	}
	mappedA := map[string]bool{}
	for _, m := range o.Map {
		switch {
		case !inA[m.A]:
			return nil, bad(fmt.Sprintf("--map %s=%s: A has no column %q", m.A, m.B, m.A))
		case !inB[m.B]:
			return nil, bad(fmt.Sprintf("--map %s=%s: B has no column %q", m.A, m.B, m.B))
		case mappedA[m.A]:
			return nil, bad(fmt.Sprintf("--map: column %q of A is mapped twice", m.A))
		}
		if _, dup := p.renameB[m.B]; dup {
			return nil, bad(fmt.Sprintf("--map: column %q of B is mapped twice", m.B))
		}
		mappedA[m.A] = true
		p.renameB[m.B] = m.A
	}
	bName := func(n string) string {
		if r, ok := p.renameB[n]; ok {
			return r
		}
		return n
	}
	seenB := map[string]bool{}
	for _, f := range sb.Fields() {
		n := bName(f.Name)
		if seenB[n] {
			return nil, bad(fmt.Sprintf("two columns of B would be compared as %q (check --map)", n))
		}
		seenB[n] = true
	}
	excl := map[string]bool{}
	for _, x := range o.Exclude {
		if !inA[x] && !seenB[x] {
			return nil, bad(fmt.Sprintf("--exclude %s: neither side has that column", x))
		}
		if !excl[x] {
			p.excluded = append(p.excluded, x)
		}
		excl[x] = true
	}
	var all []arrow.Field
	add := func(n string) {
		if _, ok := p.ids[n]; !ok {
			p.ids[n] = 0 // set after the seed assignment
			all = append(all, arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true})
		}
	}
	for i, f := range sa.Fields() {
		if excl[f.Name] {
			continue
		}
		add(f.Name)
		p.types[0][f.Name] = typeOf(f)
		if seenB[f.Name] {
			p.keep[0] = append(p.keep[0], i)
			p.names[0] = append(p.names[0], f.Name)
		} else {
			p.onlyA = append(p.onlyA, f.Name)
		}
	}
	for i, f := range sb.Fields() {
		n := bName(f.Name)
		if excl[n] {
			continue
		}
		add(n)
		p.types[1][n] = typeOf(f)
		if inA[n] {
			p.keep[1] = append(p.keep[1], i)
			p.names[1] = append(p.names[1], n)
		} else {
			p.onlyB = append(p.onlyB, n)
		}
	}
	p.seed = arrow.NewSchema(all, nil)
	// The ids a fresh registry gives the seed: 1, 2, ... in seed order.
	asg, err := source.NewRegistry().Assign("seed", p.seed)
	if err != nil {
		return nil, &compare.Error{Code: compare.CodeOptions, Op: "options", Msg: "field ids", Err: err}
	}
	for i, f := range p.seed.Fields() {
		p.ids[f.Name] = asg.IDs[i]
	}
	return p, nil
}

// key resolves the key: the named columns, which must be compared on both sides, or
// the primary key both sources expose, or none (nil: each record is its own key) when
// neither side exposes one. A primary key on one side only is an error: the other
// side's records may repeat it, and comparing without it would drop the key the user
// has, so the user chooses (--key).
func (p *plan) key(named []string, a, b source.Source) ([]string, error) {
	bad := func(msg string) error { return &compare.Error{Code: compare.CodeOptions, Op: "options", Msg: msg} }
	common := map[string]bool{}
	for _, n := range p.names[0] {
		common[n] = true
	}
	if len(named) > 0 {
		for _, k := range named {
			if !common[k] {
				return nil, bad(fmt.Sprintf("key column %q is not a column of both sides (columns of both: %s)", k, strings.Join(p.names[0], ", ")))
			}
		}
		return named, nil
	}
	ka, kb := source.PrimaryKey(a), source.PrimaryKey(b)
	switch {
	case len(ka) == 0 && len(kb) == 0:
		return nil, nil
	case len(kb) == 0:
		return nil, bad(fmt.Sprintf("A has the primary key %s and B none: name the key of both sides with --key (for example --key %s)", strings.Join(ka, ","), strings.Join(ka, ",")))
	case len(ka) == 0:
		return nil, bad(fmt.Sprintf("B has the primary key %s and A none: name the key of both sides with --key, in A's names", strings.Join(kb, ",")))
	}
	mb := make([]string, len(kb))
	for i, k := range kb {
		mb[i] = k
		if r, ok := p.renameB[k]; ok {
			mb[i] = r
		}
	}
	sa, sb := append([]string(nil), ka...), append([]string(nil), mb...)
	sort.Strings(sa)
	sort.Strings(sb)
	if strings.Join(sa, "\x00") != strings.Join(sb, "\x00") {
		return nil, bad(fmt.Sprintf("the primary keys differ (A %s, B %s): name the key with --key", strings.Join(ka, ","), strings.Join(kb, ",")))
	}
	for _, k := range ka {
		if !common[k] {
			return nil, bad(fmt.Sprintf("primary key column %q is excluded from the comparison", k))
		}
	}
	return ka, nil
}

// view returns side i's source seen through the comparison schema.
func (p *plan) view(i int, s source.Source) source.Source {
	in := s.Schema()
	fields := make([]arrow.Field, len(p.keep[i]))
	for j, k := range p.keep[i] {
		f := in.Field(k)
		f.Name = p.names[i][j]
		fields[j] = f
	}
	return &view{src: s, schema: arrow.NewSchema(fields, nil), keep: p.keep[i]}
}

// view is a source.Source that renames and projects the columns of another.
type view struct {
	src    source.Source
	schema *arrow.Schema
	keep   []int
}

func (v *view) Schema() *arrow.Schema     { return v.schema }
func (v *view) Evidence() source.Evidence { return v.src.Evidence() }
func (v *view) Close() error              { return v.src.Close() }

// BytesRead implements source.FileProgress for a source that does.
func (v *view) BytesRead() (read, size uint64) {
	if fp, ok := v.src.(source.FileProgress); ok {
		return fp.BytesRead()
	}
	return 0, 0
}

func (v *view) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := v.src.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	cols := make([]arrow.Array, len(v.keep))
	for j, k := range v.keep {
		cols[j] = rec.Column(k)
	}
	return array.NewRecordBatch(v.schema, cols, rec.NumRows()), nil
}

// both runs f(0) and f(1) concurrently; the first error cancels the other side.
func both(cancel context.CancelFunc, f func(i int) error) [2]error {
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			if errs[i] = f(i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	return errs
}

// first prefers an error that is not a consequence of the other side's cancellation.
func first(errs [2]error) error {
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) {
			return e
		}
	}
	if errs[0] != nil {
		return errs[0]
	}
	return errs[1]
}

func sideName(i int) string { return [2]string{"A", "B"}[i] }

func typeOf(f arrow.Field) string {
	tn, _ := source.TypeName(f.Type)
	return tn
}

// artifactName is in.Name, else scan's default name of the address (the table of a
// database address, the file's base name without extension), else "source".
func artifactName(in Input) string {
	if in.Name != "" {
		return in.Name
	}
	if n := scan.DefaultName(in.Address); n != "" {
		return n
	}
	return "source"
}
