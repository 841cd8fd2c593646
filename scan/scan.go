package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
	"github.com/pipewhy/pipewhy/normalize/columnar"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// Options configure one scan.
type Options struct {
	// Address is the source address (package source's syntax).
	Address string
	// Name is the artifact name; empty means the file's base name without extension,
	// or the SQLite table name. It is also the schema registry namespace, so scans of
	// two versions of one table under one name share field ids.
	Name string
	// Resolution is dataset, record or value ("" means dataset).
	Resolution snapshot.Resolution
	// Key names the key columns (record and value resolution); empty means the whole
	// record is its key.
	Key []string
	// Profile is the C2 profile (zero value: strict-v1).
	Profile normalize.Profile
	// Source are the adapter options (explicit columns, null spelling, ...).
	Source source.Options
	// AllowPartial publishes a scan whose coverage is PARTIAL (records failed to
	// read). Without it such a scan fails and publishes nothing.
	AllowPartial bool
	// Algorithm is the C3 fingerprint algorithm. Run uses its repository's
	// (repo.Repo.Algorithm) and refuses another (CodeAlgorithm); the zero value means
	// the repository's there, and repo.DefaultAlgorithm in Observe.
	Algorithm fingerprint.Algorithm
	// Workers is the fingerprint engine's worker count (0: GOMAXPROCS).
	Workers int
	// Progress, when set, is called as the scan goes through its phases: when each
	// starts, and during the long ones (after each batch read, after each chunk of
	// bytes hashed, written or read back). Calls come from the goroutine that called
	// Run or Observe, except in PhaseChecksum and PhaseVerify, where several goroutines
	// hash at once (see snapshot.ProgressFunc); it must be quick.
	Progress func(Progress)
	// DigestsOnly, at value resolution, keeps the value digests (Scan.Values and
	// ValueOffsets) but no payloads: no encoded records are held and the scan has no
	// value table, so it needs a fraction of the memory and cannot be published (Run
	// refuses it). For comparisons that render values of a few records only (Fetch).
	DigestsOnly bool
	// Fetch names records by key, as key words (Scan.Key's form: the C2 record of the
	// key fields); the scan returns each one's whole C2 record in Result.Fetched. It
	// needs record or value resolution with declared key columns (Key), and is not
	// published (Run refuses it).
	Fetch [][]uint64
	// Select keeps the record entries (and value digests) of only the records whose key
	// digest it accepts (fingerprint.Options.Select; called concurrently); the state and
	// column states still cover every record. Record resolution, or value resolution
	// with DigestsOnly; not published.
	Select func(key fingerprint.Digest) bool
	// KeyStore, at record resolution, leaves the records' keys where the fingerprint
	// engine stored them (Scan.Keys, fingerprint.KeyStore) instead of gathering them into
	// Scan.KeyWords and Scan.KeyOffsets: a third or less of the memory (a key of one
	// shape is kept as its payload words), for a caller that reads the keys of a few
	// records only, such as a comparison (the records that differ). Scan.Key reads
	// either form; Scan.Arrays gathers the store first.
	KeyStore bool

	// Memory is the memory budget of Run at record and value resolution, in bytes: the
	// sorted record entries are cut into runs of at most half of it (spill.go), each
	// spilled to the snapshot's own staging attempt and k-way merged into the payload
	// files at the end (docs/scan.md, Memory). 0 means DefaultMemory; a negative budget keeps every
	// entry in memory. A source whose entries fit one run spills nothing. Observe does
	// not spill (it has no store); ObserveSpilling spills to a store the caller gives.
	Memory int64

	// spill is set by Run: where an out-of-core scan spills, and the spiller it used.
	spill *spillPlan

	// preferIDs are field ids for columns the registry namespace has never seen (Run
	// sets them from the lineage: a COPY's source's ids).
	preferIDs map[string]uint64
}

// Phase names a stage of a scan, in the order they run.
type Phase string

// The phases. Observe runs infer to build; Run also checksum, write and verify.
const (
	PhaseInfer    Phase = "infer"    // a first pass over the file to infer its column types (CSV --infer, JSON lines)
	PhaseRead     Phase = "read"     // reading, normalizing and fingerprinting the records
	PhaseSort     Phase = "sort"     // sorting and merging the record entries (record and value resolution)
	PhaseBuild    Phase = "build"    // building the snapshot's tables and arrays
	PhaseChecksum Phase = "checksum" // hashing the arrays (SHA-256)
	PhaseWrite    Phase = "write"    // writing and fsyncing the snapshot files
	PhaseVerify   Phase = "verify"   // reading the written files back to check them
)

// Progress is what a scan reports. Bytes of BytesTotal is real progress where
// BytesTotal > 0: in PhaseInfer and PhaseRead the bytes of the source file read (file
// sources read from start to end: CSV, JSON lines), in PhaseChecksum, PhaseWrite and
// PhaseVerify the bytes of the snapshot's arrays. In PhaseRead, Rows of Expected is real
// progress when ExpectedKnown (Parquet metadata, a database COUNT in the read
// transaction). PhaseSort and PhaseBuild report when they start, with the records.
type Progress struct {
	Phase         Phase
	Rows          uint64 // rows read so far (PhaseRead); the records scanned (later phases)
	Expected      uint64 // the source's expected row count, when ExpectedKnown
	ExpectedKnown bool
	Bytes         uint64 // bytes done of BytesTotal
	BytesTotal    uint64 // 0: the phase has no byte total
}

// Result is a published scan.
type Result struct {
	ID      snapshot.ID
	Scan    *repo.Scan
	Changes []source.Change // schema changes since the artifact's last scan
	First   bool            // the first scan of this artifact name
	// Fetched[i] is the record whose key words are Options.Fetch[i], nil when the source
	// has none (with duplicate keys, any one of them).
	Fetched [][]uint64
	// Runs is the number of sorted runs Run merged: all but the last spilled to the
	// snapshot's staging attempt, the last kept in memory (0: the entries were sorted
	// in memory). A spilled scan's Scan holds no
	// per-record arrays (Records, KeyWords, Values, ValueTable): they went straight to
	// the snapshot.
	Runs int
}

// Run scans o.Address into a new snapshot of r: source → C2 → C3 → C5. On any error
// nothing is published and neither the registry nor the log changes.
func Run(ctx context.Context, r *repo.Repo, o Options) (*Result, error) {
	unlock, err := r.Lock()
	if err != nil {
		return nil, &Error{Code: CodePublish, Op: "lock", Msg: "repository lock", Err: err}
	}
	defer unlock()
	if o.DigestsOnly || o.Fetch != nil || o.Select != nil {
		return nil, &Error{Code: CodeOptions, Op: "options", Msg: "DigestsOnly, Fetch and Select observe, they do not publish"}
	}
	// A repository keeps the algorithm it was created with, so that all its snapshots
	// stay comparable.
	if o.Algorithm.Valid() && o.Algorithm != r.Algorithm() {
		return nil, &Error{Code: CodeAlgorithm, Op: "options", Msg: fmt.Sprintf(
			"the repository fingerprints with %s, not %s: a repository keeps the algorithm it was created with, so that its snapshots stay comparable (scan without --algorithm, or into a repository created with 'pipewhy init --algorithm %s')",
			r.Algorithm().Name(), o.Algorithm.Name(), o.Algorithm.Name())}
	}
	o.Algorithm = r.Algorithm()
	reg, err := source.OpenRegistry(r.RegistryPath())
	if err != nil {
		return nil, &Error{Code: CodeRegistry, Op: "open", Msg: "schema registry", Err: err}
	}
	// The lineage in force: COPY neighbours' field ids for new columns, and the identity
	// of each declared transform into this artifact, recorded with the scan.
	name := o.Name
	if name == "" {
		name = DefaultName(o.Address)
	}
	hints, err := lineage.ForScan(r, name, reg)
	if err != nil {
		return nil, &Error{Code: CodeLineage, Op: "lineage", Msg: "the lineage in force", Err: err}
	}
	if hints != nil {
		o.preferIDs = hints.FieldIDs
	}
	st := r.Store()
	plan := &spillPlan{open: func() (*snapshot.Store, error) { return st, nil }, id: snapshot.NewID()}
	o.spill = plan
	defer plan.abort() // after a publish, nothing to do
	obs, err := Observe(ctx, reg, o)
	if err != nil {
		return nil, err
	}
	sc := obs.Scan
	if hints != nil {
		sc.Lineage = hints.Record
	}
	// Link to the artifact's previous scan, when the log names one that still exists.
	if log, err := r.Log(); err == nil {
		for i := len(log) - 1; i >= 0; i-- {
			if log[i].Artifact == sc.Descriptor.Artifact {
				if pid, err := snapshot.ParseID(log[i].Snapshot); err == nil {
					if fi, err := os.Stat(r.Store().Path(pid)); err == nil && fi.IsDir() {
						sc.Metadata.Parent = &pid
					}
				}
				break
			}
		}
	}
	arrs, err := sc.Arrays()
	if err != nil {
		return nil, &Error{Code: CodeInternal, Op: "publish", Msg: "encode arrays", Err: err}
	}
	if err := publish(ctx, r, o, sc, arrs, plan); err != nil {
		return nil, err
	}
	// The snapshot is published: a registry or log failure below leaves it in the
	// store (immutable, listed by 'pipewhy snapshot list') and is reported.
	if err := reg.Save(); err != nil {
		return nil, &Error{Code: CodeRegistry, Op: "publish", Msg: "snapshot " + sc.Metadata.ID.String() + " published, but the schema registry could not be saved", Err: err}
	}
	if err := r.AppendLog(repo.LogEntry{
		Snapshot: sc.Metadata.ID.String(), Artifact: sc.Descriptor.Artifact, Address: sc.Descriptor.Address,
		Resolution: string(sc.Metadata.Resolution), Rows: uint64(sc.Descriptor.Rows),
		Coverage: string(sc.Metadata.Coverage.Status), FinishedAtNs: sc.Metadata.FinishedAtNs,
	}); err != nil {
		return nil, &Error{Code: CodePublish, Op: "publish", Msg: "snapshot " + sc.Metadata.ID.String() + " published, but the scan log could not be appended", Err: err}
	}
	obs.ID = sc.Metadata.ID
	if plan.sp != nil {
		obs.Runs = plan.sp.merged()
	}
	return obs, nil
}

// publish stores the scan sc, whose small arrays are arrs: from memory, or, when the
// scan spilled its sorted runs, by merging them into the attempt they are in.
func publish(ctx context.Context, r *repo.Repo, o Options, sc *repo.Scan, arrs map[string]snapshot.Array, plan *spillPlan) error {
	var progress snapshot.ProgressFunc
	if o.Progress != nil {
		phase := map[snapshot.Step]Phase{snapshot.StepChecksum: PhaseChecksum, snapshot.StepWrite: PhaseWrite, snapshot.StepVerify: PhaseVerify}
		rows := uint64(sc.Descriptor.Rows)
		progress = func(step snapshot.Step, done, total uint64) {
			o.Progress(Progress{Phase: phase[step], Rows: rows, Bytes: done, BytesTotal: total})
		}
	}
	if plan.spilled() {
		return plan.publish(ctx, o, sc, arrs, progress)
	}
	if err := r.Store().PublishWithProgress(ctx, sc.Metadata, arrs, progress); err != nil {
		return &Error{Code: CodePublish, Op: "publish", Msg: "snapshot store", Err: err}
	}
	return nil
}

// Observe reads and fingerprints o.Address and returns the scan snapshot it would
// publish (with a fresh ID), without writing anything: reg is updated in memory only.
func Observe(ctx context.Context, reg *source.Registry, o Options) (*Result, error) {
	started := time.Now()
	res, fres, err := resolution(o)
	if err != nil {
		return nil, err
	}
	so := o.Source
	so.ReleasedPromptly = true // the pipeline's encoders release each batch once encoded
	if o.Progress != nil && so.InferProgress == nil {
		so.InferProgress = func(read, size uint64) {
			o.Progress(Progress{Phase: PhaseInfer, Bytes: read, BytesTotal: size})
		}
	}
	src, err := source.Open(ctx, o.Address, so)
	if err != nil {
		return nil, &Error{Code: CodeSource, Op: "open", Msg: "cannot open source", Err: err}
	}
	defer src.Close()
	return observe(ctx, reg, src, o, started, res, fres)
}

// resolution checks the options that need no source and returns the resolution.
func resolution(o Options) (snapshot.Resolution, fingerprint.Resolution, error) {
	res := o.Resolution
	if res == "" {
		res = snapshot.ResolutionDataset
	}
	var fres fingerprint.Resolution
	switch res {
	case snapshot.ResolutionDataset:
		fres = fingerprint.DatasetResolution
	case snapshot.ResolutionRecord:
		fres = fingerprint.RecordResolution
	case snapshot.ResolutionValue:
		fres = fingerprint.ValueResolution
	default:
		return "", 0, &Error{Code: CodeOptions, Op: "options", Msg: "unknown resolution " + strconv.Quote(string(res)) + " (dataset, record or value)"}
	}
	if len(o.Key) > 0 && res == snapshot.ResolutionDataset {
		return "", 0, &Error{Code: CodeOptions, Op: "options", Msg: "--key needs record or value resolution"}
	}
	if o.DigestsOnly && res != snapshot.ResolutionValue {
		return "", 0, &Error{Code: CodeOptions, Op: "options", Msg: "DigestsOnly needs value resolution"}
	}
	if o.Fetch != nil && len(o.Key) == 0 {
		return "", 0, &Error{Code: CodeOptions, Op: "options", Msg: "Fetch needs declared key columns"}
	}
	if o.KeyStore && res != snapshot.ResolutionRecord {
		return "", 0, &Error{Code: CodeOptions, Op: "options", Msg: "KeyStore needs record resolution"}
	}
	if o.Select != nil && res != snapshot.ResolutionRecord && !(res == snapshot.ResolutionValue && o.DigestsOnly) {
		return "", 0, &Error{Code: CodeOptions, Op: "options", Msg: "Select needs record resolution, or value resolution with DigestsOnly"}
	}
	if !o.Profile.Valid() {
		return "", 0, &Error{Code: CodeOptions, Op: "options", Msg: "invalid profile"}
	}
	return res, fres, nil
}

// ObserveSource is Observe over a source the caller has already opened (and closes):
// for callers that adapt a source first, such as compare's column views. o.Address
// still names the source in the snapshot (its password redacted); o.Source is unused.
func ObserveSource(ctx context.Context, reg *source.Registry, src source.Source, o Options) (*Result, error) {
	started := time.Now()
	res, fres, err := resolution(o)
	if err != nil {
		return nil, err
	}
	return observe(ctx, reg, src, o, started, res, fres)
}

// ObserveSpilling is ObserveSource in memory bounded by o.Memory, as Run bounds it, for
// callers with no repository of their own (compare/live): the sorted runs spill to a
// staging attempt of store, a scratch store the caller owns and removes, and when they
// did, the k-way merge publishes the scan into store, so that the Result's Scan holds
// no per-record arrays (Result.Runs > 0: read them back with repo.OnStore(store, ...)).
// When the entries fit one run nothing is written and the Result is ObserveSource's.
// DigestsOnly, Fetch and Select need every entry in memory and are refused. On an error
// the attempt's spill files are removed.
func ObserveSpilling(ctx context.Context, reg *source.Registry, src source.Source, store *snapshot.Store, o Options) (*Result, error) {
	return ObserveSpillingTo(ctx, reg, src, func() (*snapshot.Store, error) { return store, nil }, o)
}

// ObserveSpillingTo is ObserveSpilling into the store open returns, which it calls only
// when the entries spill (at most once): a caller whose store is a directory to make
// makes it only when it is needed. An error of open is wrapped in a CodeSpill error.
func ObserveSpillingTo(ctx context.Context, reg *source.Registry, src source.Source, open func() (*snapshot.Store, error), o Options) (*Result, error) {
	if o.DigestsOnly || o.Fetch != nil || o.Select != nil {
		return nil, &Error{Code: CodeOptions, Op: "options", Msg: "DigestsOnly, Fetch and Select keep every entry in memory: they do not spill"}
	}
	plan := &spillPlan{open: open, id: snapshot.NewID()}
	o.spill = plan
	defer plan.abort() // after a publish, nothing to do
	obs, err := ObserveSource(ctx, reg, src, o)
	if err != nil {
		return nil, err
	}
	if !plan.spilled() {
		return obs, nil
	}
	arrs, err := obs.Scan.Arrays()
	if err != nil {
		return nil, &Error{Code: CodeInternal, Op: "publish", Msg: "encode arrays", Err: err}
	}
	if err := plan.publish(ctx, o, obs.Scan, arrs, nil); err != nil {
		return nil, err
	}
	obs.ID, obs.Runs = obs.Scan.Metadata.ID, plan.sp.merged()
	return obs, nil
}

func observe(ctx context.Context, reg *source.Registry, src source.Source, o Options, started time.Time, res snapshot.Resolution, fres fingerprint.Resolution) (*Result, error) {
	name := o.Name
	if name == "" {
		name = DefaultName(o.Address)
	}
	if name == "" || strings.ContainsAny(name, "\n\r") {
		return nil, &Error{Code: CodeOptions, Op: "options", Msg: "artifact name must be nonempty and one line"}
	}
	asg, err := reg.AssignPreferring(name, src.Schema(), o.preferIDs)
	if err != nil {
		return nil, &Error{Code: CodeRegistry, Op: "open", Msg: "field id assignment", Err: err}
	}
	desc, byName, err := describe(name, asg, o)
	if err != nil {
		return nil, err
	}
	keyIDs, err := keyFields(src, o, res, &desc, byName)
	if err != nil {
		return nil, err
	}
	alg := o.Algorithm
	if !alg.Valid() {
		alg = repo.DefaultAlgorithm
	}
	fctx, err := fingerprint.NewContext(alg, o.Profile.ID(), desc.SchemaDescriptor(), fingerprint.Multiset)
	if err != nil {
		return nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "context", Err: err}
	}
	// Only value resolution keeps the encoded batches (the value table holds every
	// payload); at record resolution the engine returns the key words itself, and each
	// encoder goroutine reuses one batch for all it encodes.
	keep := res == snapshot.ResolutionValue && !o.DigestsOnly
	fr, kept, fetch, err := fingerprintSource(ctx, src, o, fctx, asg, keyIDs, res, fres, keep)
	if err != nil {
		return nil, err
	}
	// The pipeline's goroutines have all returned: the source is read here only.
	ev := src.Evidence()
	cov := ev.Coverage
	if err := checkCoverage(cov, o, fr); err != nil {
		return nil, err
	}
	desc.Rows = repo.Uint(fr.State.Count())
	desc.Choices = append(desc.Choices, ev.Choices...)
	desc.Excluded = append(desc.Excluded, ev.Excluded...)
	desc.Adapter = string(ev.Adapter)
	desc.ColumnStates = true

	finished := time.Now()
	sc := &repo.Scan{Descriptor: desc, Context: fctx, State: fr.State,
		Metadata: metadata(ev, fctx, started, finished, res)}
	if o.spill != nil {
		sc.Metadata.ID = o.spill.id // the ID its staging attempt was made for
	}
	if o.Progress != nil {
		o.Progress(Progress{Phase: PhaseBuild, Rows: cov.Returned})
	}
	if err := buildTables(sc, fr, uint64(finished.UnixNano())); err != nil {
		return nil, err
	}
	if res != snapshot.ResolutionDataset && !o.spill.spilled() {
		if err := buildRecords(sc, fr, kept, keyIDs, keep); err != nil {
			return nil, err
		}
		if o.DigestsOnly {
			n := len(fr.Records) / fingerprint.RecordStride
			if len(fr.ValueOffsets) != n+1 || fr.ValueOffsets[n] != uint64(len(fr.Values)/fingerprint.ValueStride) {
				return nil, &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value offsets differ from the engine's entries"}
			}
			sc.Values, sc.ValueOffsets = fr.Values, fr.ValueOffsets
		}
	}
	r := &Result{ID: sc.Metadata.ID, Scan: sc, Changes: asg.Changes, First: asg.First}
	if fetch != nil {
		r.Fetched = fetch.got
	}
	return r, nil
}

// describe starts the descriptor of a scan of the schema asg assigned ids to: its
// fields, by id, with their C3 value types, Arrow and source types; byName maps each
// field's name to its id. A type the scan cannot fingerprint, or one the profile cannot
// represent, is an error.
func describe(name string, asg *source.Assignment, o Options) (desc repo.Descriptor, byName map[string]uint64, err error) {
	schema := asg.Schema
	desc = repo.Descriptor{Artifact: name, Address: source.RedactAddress(o.Address), SourceSchemaID: asg.SchemaID,
		KeyFields: []repo.Uint{}, Choices: []string{}, Excluded: []string{}}
	byName = map[string]uint64{}
	for i, f := range schema.Fields() {
		vt, ok := valueType(f.Type)
		tn, named := source.TypeName(f.Type)
		if !ok || !named {
			return desc, nil, &Error{Code: CodeSource, Op: "open", Msg: fmt.Sprintf("column %q: type %s is not supported", f.Name, f.Type)}
		}
		if needsExtension(f.Type) && !o.Profile.Extended() {
			ext := o.Profile.Base().Name() + "+ext1"
			return desc, nil, &Error{Code: CodeProfile, Op: "open", Msg: fmt.Sprintf(
				"column %q has type %s, which profile %s cannot represent: scan with profile %s (--profile %s) or leave the column out (--exclude %s)",
				f.Name, tn, o.Profile.Name(), ext, ext, f.Name)}
		}
		fd := repo.Field{ID: repo.Uint(asg.IDs[i]), Name: f.Name, Type: string(vt), Arrow: tn, Nullable: f.Nullable}
		fd.Source, _ = metaValue(f, source.MetaSourceType)
		if w, ok := metaValue(f, source.MetaSourceWidth); ok {
			wv, _ := strconv.ParseUint(w, 10, 64)
			fd.Width = repo.Uint(wv)
		}
		if fd.Source == "" {
			fd.Source = tn
		}
		desc.Fields = append(desc.Fields, fd)
		byName[f.Name] = asg.IDs[i]
	}
	return desc, byName, nil
}

// keyFields resolves the key of the scan to sorted field ids, and records them in desc:
// o.Key, else (above dataset resolution) the primary key of a database table, recorded
// as the choice key=primary-key.
func keyFields(src source.Source, o Options, res snapshot.Resolution, desc *repo.Descriptor, byName map[string]uint64) ([]uint64, error) {
	keys := o.Key
	if len(keys) == 0 && res != snapshot.ResolutionDataset {
		// A database table's primary key is the default key (recorded as a choice), so a
		// record-resolution scan of a keyed table pairs records by what identifies them.
		if pk := source.PrimaryKey(src); len(pk) > 0 {
			keys = pk
			desc.Choices = append(desc.Choices, "key=primary-key")
		}
	}
	var keyIDs []uint64
	for _, k := range keys {
		id, ok := byName[k]
		if !ok {
			names := make([]string, len(desc.Fields))
			for i, f := range desc.Fields {
				names[i] = f.Name
			}
			return nil, &Error{Code: CodeKey, Op: "options", Msg: fmt.Sprintf("key column %q is not a column of the source (its columns: %s)", k, strings.Join(names, ", "))}
		}
		keyIDs = append(keyIDs, id)
	}
	sort.Slice(keyIDs, func(i, j int) bool { return keyIDs[i] < keyIDs[j] })
	for i := 1; i < len(keyIDs); i++ {
		if keyIDs[i] == keyIDs[i-1] {
			return nil, &Error{Code: CodeKey, Op: "options", Msg: "a key column is named twice"}
		}
	}
	for _, id := range keyIDs {
		desc.KeyFields = append(desc.KeyFields, repo.Uint(id))
	}
	return keyIDs, nil
}

// fingerprintSource reads src to its end through the encoding pipeline and the
// fingerprint engine, and returns the engine's result; with keep, the encoded batches
// too (value resolution); with o.Fetch, the fetcher that holds the records it found.
func fingerprintSource(ctx context.Context, src source.Source, o Options, fctx fingerprint.Context, asg *source.Assignment, keyIDs []uint64,
	res snapshot.Resolution, fres fingerprint.Resolution, keep bool) (*fingerprint.Result, []*normalize.RecordBatch, *fetcher, error) {
	// The batches come from columnar.Encoder only (TrustedFrames). At record and value
	// resolution the engine returns each entry's key words, and at value resolution which
	// record each entry came from (Origins), so buildRecords needs neither a second key
	// projection and digest nor a second sort.
	eng, err := fingerprint.NewEngine(fctx, fingerprint.Options{Resolution: fres,
		Columns: true, KeyFields: keyIDs, TrustedFrames: true, Origins: keep,
		KeyWords: res != snapshot.ResolutionDataset, KeyStore: o.KeyStore, Select: o.Select})
	if err != nil {
		return nil, nil, nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine", Err: err}
	}

	cols := make([]columnar.Column, len(asg.IDs))
	for i, id := range asg.IDs {
		cols[i] = columnar.Column{Index: i, Field: normalize.FieldID(id), Treatment: columnar.Encode}
	}
	// One encoder and one Feed lane per encoding goroutine (an Encoder is not safe for
	// concurrent use).
	encoders := o.Workers
	if encoders <= 0 {
		encoders = runtime.GOMAXPROCS(0)
	}
	encs := make([]*columnar.Encoder, encoders)
	for i := range encs {
		if encs[i], err = columnar.NewEncoder(src.Schema(), cols, o.Profile); err != nil {
			return nil, nil, nil, &Error{Code: CodeEncode, Op: "open", Msg: "C2 column encoder", Err: err}
		}
	}
	var kept []*normalize.RecordBatch
	profileID := o.Profile.ID()
	pl := &pipeline{src: src, encs: encs,
		newBatch: func() *normalize.RecordBatch { return &normalize.RecordBatch{ProfileID: profileID} },
	}
	// At dataset resolution under v2 nothing needs the C2 words: the encoder goroutines
	// hash the Arrow columns directly (direct.go), the encoders staying for the batches
	// the direct path refuses.
	if fres == fingerprint.DatasetResolution && !keep && o.Fetch == nil && !directDisabled {
		for range encs {
			d, err := newDirect(fctx, src.Schema(), asg.IDs, o.Profile)
			if err != nil {
				return nil, nil, nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "columnar digests", Err: err}
			}
			if d == nil {
				pl.direct = nil
				break
			}
			pl.direct = append(pl.direct, d)
		}
	}
	if o.spill != nil && o.Memory >= 0 && res != snapshot.ResolutionDataset {
		mem := o.Memory
		if mem == 0 {
			mem = DefaultMemory
		}
		if o.spill.sp, err = newSpiller(ctx, o.spill.open, o.spill.id, eng, encoders, keep, keyIDs, mem); err != nil {
			return nil, nil, nil, err
		}
		pl.spill = o.spill.sp
		if keep {
			pl.kept = func([]*normalize.RecordBatch) {} // the spiller keeps each run's tiles
		}
	} else {
		if pl.feed, err = eng.NewFeed(encoders); err != nil {
			return nil, nil, nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine", Err: err}
		}
		if keep {
			pl.kept = func(tiles []*normalize.RecordBatch) { kept = append(kept, tiles...) }
		}
	}
	var fetch *fetcher
	if o.Fetch != nil {
		fetch = newFetcher(o.Fetch, keyIDs, encoders)
		pl.fetch = fetch.tile
	}
	if o.Progress != nil {
		pl.prog = func(rows uint64, cov expects) {
			o.Progress(Progress{Phase: PhaseRead, Rows: rows, Expected: cov.n, ExpectedKnown: cov.known,
				Bytes: cov.read, BytesTotal: cov.size})
		}
		// The read phase starts before the first batch (which may take long to come).
		start := expects{n: src.Evidence().Coverage.Expected, known: src.Evidence().Coverage.ExpectedKnown}
		if fp, ok := src.(source.FileProgress); ok {
			start.read, start.size = fp.BytesRead()
		}
		pl.prog(0, start)
	}
	if err := pl.run(ctx); err != nil {
		return nil, nil, nil, err
	}
	if o.Progress != nil && res != snapshot.ResolutionDataset {
		o.Progress(Progress{Phase: PhaseSort, Rows: src.Evidence().Coverage.Returned})
	}
	var fr *fingerprint.Result
	if pl.spill != nil {
		if fr, kept, err = pl.spill.finish(); err != nil {
			return nil, nil, nil, err
		}
	} else if fr, err = pl.feed.Result(); err != nil {
		return nil, nil, nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine result", Err: err}
	}
	if keep {
		// The engine's per-worker stores are garbage now; collecting them here lets the
		// value table, built next beside the kept tiles, reuse their memory instead of
		// growing the heap (GOGC would wait for twice the live heap). 2 M rows: 2284 →
		// 2135 MiB peak (docs/performance.md).
		runtime.GC()
	}
	return fr, kept, fetch, nil
}

// checkCoverage refuses a read whose coverage evidence is inconsistent, not COMPLETE
// without o.AllowPartial, or whose returned records are not those fingerprinted.
func checkCoverage(cov source.Coverage, o Options, fr *fingerprint.Result) error {
	if err := cov.Check(); err != nil {
		return &Error{Code: CodeSource, Op: "read", Msg: "inconsistent coverage evidence", Err: err}
	}
	if cov.Status != source.StatusComplete && !o.AllowPartial {
		reasons := cov.Reasons()
		first := ""
		if len(reasons) > 0 {
			first = ": " + reasons[0]
		}
		return &Error{Code: CodeCoverage, Op: "read", Msg: fmt.Sprintf("coverage %s, %d records failed to read%s (nothing published; %s)", cov.Status, cov.FailedRecords, first, partialHint(cov))}
	}
	if cov.Returned != fr.State.Count() {
		return &Error{Code: CodeInternal, Op: "read", Msg: "returned records differ from fingerprinted records"}
	}
	return nil
}

// metadata is the C5 metadata of a scan: a new id, the source's evidence and coverage,
// the read's times and the fingerprint context.
func metadata(ev source.Evidence, fctx fingerprint.Context, started, finished time.Time, res snapshot.Resolution) snapshot.Metadata {
	cov := ev.Coverage
	md := snapshot.Metadata{
		ID:                snapshot.NewID(),
		SourceNamespace:   ev.Namespace,
		SourceVersion:     ev.Version,
		SourceConsistency: ev.Consistency,
		Scope:             scope(ev.Excluded),
		StartedAtNs:       uint64(started.UnixNano()),
		FinishedAtNs:      uint64(finished.UnixNano()),
		Resolution:        res,
		Coverage: snapshot.Coverage{
			Status:         snapshot.CoverageStatus(cov.Status),
			Expected:       snapshot.Count{N: cov.Expected, Known: cov.ExpectedKnown},
			Returned:       cov.Returned,
			FailureReasons: cov.Reasons(),
		},
		Fingerprint: snapshot.FingerprintContext{
			AlgorithmName: fctx.Algorithm().Name(), AlgorithmID: fctx.Algorithm().ID(),
			ContextID: fctx.ID(), ProfileID: fctx.ProfileID(), SourceSchemaID: fctx.SchemaID(),
			Mode: fctx.Mode().String(),
		},
	}
	if md.Coverage.FailureReasons == nil {
		md.Coverage.FailureReasons = []string{}
	}
	return md
}

// valueType returns the C3 value type of an Arrow type, and whether it is supported: the
// family of its values (source.ValueFamily, the one mapping, which the registry's and
// diff's schema changes use too).
func valueType(dt arrow.DataType) (fingerprint.ValueType, bool) {
	tn, ok := source.TypeName(dt)
	if !ok {
		return "", false
	}
	f, ok := source.ValueFamily(tn)
	return fingerprint.ValueType(f), ok
}

// needsExtension reports whether a column of type dt can only be encoded under a C2
// extension profile: the extension 1 types, and timestamp(ns), whose values may carry
// nanoseconds that C2 v1 cannot represent (C2 PW-03.06: never rounded).
func needsExtension(dt arrow.DataType) bool {
	if t, ok := dt.(*arrow.TimestampType); ok {
		return t.Unit == arrow.Nanosecond
	}
	vt, _ := valueType(dt)
	return vt.Extended()
}

// encodeError wraps a columnar encoder error, naming the 1-based row of the source.
func encodeError(err error, firstRow uint64) error {
	var ce *columnar.Error
	if errors.As(err, &ce) && ce.Row >= 0 {
		return &Error{Code: CodeEncode, Op: "encode", Msg: fmt.Sprintf("row %d column %q", firstRow+uint64(ce.Row), ce.Name), Err: err}
	}
	return &Error{Code: CodeEncode, Op: "encode", Msg: "C2 encoding", Err: err}
}

// partialHint says what --allow-partial would publish. It suggests the flag only when most
// records were read: when at least as many failed as were read, a partial snapshot would
// not stand for the source (a file read with the wrong format yields one record or none),
// and the first failure is the thing to fix.
func partialHint(cov source.Coverage) string {
	hint := fmt.Sprintf("%d of %d records read: a partial scan would not stand for the source, fix the first failure", cov.Returned, cov.Returned+cov.FailedRecords)
	if cov.Returned > cov.FailedRecords {
		hint = "--allow-partial publishes partial scans"
	}
	for _, f := range cov.Failures {
		if f.Code == source.CodeMissing {
			return hint + "; --missing-as-null reads absent JSON members as null"
		}
	}
	return hint
}

func scope(excluded []string) string {
	if len(excluded) == 0 {
		return "rows=all;columns=all"
	}
	return "rows=all;columns=all-except:" + strings.Join(excluded, ",")
}

func metaValue(f arrow.Field, key string) (string, bool) {
	if i := f.Metadata.FindKey(key); i >= 0 {
		return f.Metadata.Values()[i], true
	}
	return "", false
}

// DefaultName is the artifact name a scan without Options.Name gives an address: the
// table (SQLite, or after '#' in the address of a registered adapter such as duckdb:,
// postgres:// or mysql://, without a schema qualifier), or the file's base name without
// its extension.
func DefaultName(addr string) string {
	a, err := source.ParseAddress(addr)
	if err != nil {
		// Not a file or SQLite address: take the table of DuckDB and server addresses.
		_, table, ok := strings.Cut(addr, "#")
		if !ok || !strings.Contains(addr[:len(addr)-len(table)], ":") {
			return ""
		}
		if i := strings.LastIndexByte(table, '.'); i >= 0 {
			table = table[i+1:]
		}
		return table
	}
	if a.Table != "" {
		return a.Table
	}
	b := filepath.Base(a.Path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// buildTables fills the C1 artifact table (the dataset and one artifact per field)
// and the observation table (the dataset state, then one column state per field).
func buildTables(sc *repo.Scan, fr *fingerprint.Result, observedAt uint64) error {
	d := &sc.Descriptor
	at := &arrays.ArtifactTable{}
	at.ArtifactID = append(at.ArtifactID, 0)
	at.ParentID = append(at.ParentID, arrays.Absent)
	at.KindID = append(at.KindID, repo.KindDataset)
	at.NameID = append(at.NameID, 0)
	for i := range d.Fields {
		at.ArtifactID = append(at.ArtifactID, uint64(i+1))
		at.ParentID = append(at.ParentID, 0)
		at.KindID = append(at.KindID, repo.KindField)
		at.NameID = append(at.NameID, uint64(i+1))
	}
	sc.Artifacts = at
	ot := &arrays.ObservationTable{}
	ids := repo.Identities(sc.Context)
	add := func(k uint64, st fingerprint.State) error {
		return fingerprint.AppendObservation(ot, fingerprint.Observation{ObservationID: k, ArtifactID: k,
			ObservedAtNs: observedAt}, st, ids)
	}
	if err := add(0, fr.State); err != nil {
		return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "dataset observation", Err: err}
	}
	colByID := map[uint64]fingerprint.State{}
	for _, c := range fr.Columns {
		colByID[c.Field] = c.State
	}
	for i, f := range d.Fields {
		st, ok := colByID[uint64(f.ID)]
		if !ok {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "missing column state"}
		}
		if err := add(uint64(i+1), st); err != nil {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "column observation", Err: err}
		}
		sc.Columns = append(sc.Columns, st)
	}
	sc.Observations = ot
	return nil
}

// buildRecords stores the engine's sorted (key digest, record digest) entries and,
// beside each entry, its key record as the engine projected and digested it
// (fingerprint.Result.KeyWords); at value resolution also the value digests and the C1
// value table in the same order, whose payloads come from kept (the batches in the
// order the engine read them) through the engine's Origins. Nothing is recomputed or
// sorted again: Origins is checked to be a permutation of the records, and each value
// entry against its record's frames. Keys must be unique when declared
// (DuplicateKeyError).
func buildRecords(sc *repo.Scan, fr *fingerprint.Result, kept []*normalize.RecordBatch, keyIDs []uint64, values bool) error {
	n := len(fr.Records) / fingerprint.RecordStride
	keyOf := func(e int) []uint64 { return fr.KeyWords[fr.KeyOffsets[e]:fr.KeyOffsets[e+1]] }
	switch {
	case fr.Keys != nil:
		if fr.Keys.Len() != n || values {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "key store differs from the engine's entries"}
		}
		keyOf = fr.Keys.Key
	case len(fr.KeyOffsets) != n+1 || fr.KeyOffsets[n] != uint64(len(fr.KeyWords)):
		return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "key words differ from the engine's entries"}
	}
	// Duplicate keys (declared keys only: without a key, equal keys are equal records),
	// from the sorted key digests.
	if len(keyIDs) > 0 {
		dup := &DuplicateKeyError{}
		for i := 0; i < n; {
			j := i + 1
			for j < n && fr.Records[j*4] == fr.Records[i*4] && fr.Records[j*4+1] == fr.Records[i*4+1] {
				j++
			}
			if j-i > 1 {
				dup.Keys++
				dup.Records += j - i
				if len(dup.Examples) < 10 {
					dup.Examples = append(dup.Examples, c2text.Record(keyOf(i), fieldNamer(&sc.Descriptor)))
				}
			}
			i = j
		}
		if dup.Keys > 0 {
			return dup
		}
	}
	sc.Records, sc.KeyWords, sc.KeyOffsets, sc.Keys = fr.Records, fr.KeyWords, fr.KeyOffsets, fr.Keys
	if !values {
		return nil
	}
	// starts[b] is the ordinal of batch b's first record; starts[len(kept)] the count.
	starts := make([]uint64, len(kept)+1)
	for b, kb := range kept {
		starts[b+1] = starts[b] + uint64(kb.Len())
	}
	if starts[len(kept)] != uint64(n) || len(fr.Origins) != n {
		return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "record count differs from the engine's"}
	}
	seen := make([]uint64, (n+63)/64)
	for _, o := range fr.Origins {
		if o >= uint64(n) || seen[o/64]&(1<<(o%64)) != 0 {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "engine record origins are not a permutation"}
		}
		seen[o/64] |= 1 << (o % 64)
	}
	recordOf := func(e int) []uint64 {
		b, i := locate(starts, fr.Origins[e])
		return kept[b].Record(i)
	}
	sc.Values, sc.ValueOffsets = fr.Values, fr.ValueOffsets
	art := map[uint64]uint64{}
	for i, f := range sc.Descriptor.Fields {
		art[uint64(f.ID)] = uint64(i + 1)
	}
	m := len(fr.Values) / fingerprint.ValueStride
	if len(fr.ValueOffsets) != n+1 || fr.ValueOffsets[n] != uint64(m) {
		return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value offsets differ from the engine's entries"}
	}
	vt := &arrays.ValueTable{
		ValueID: make([]uint64, m), ArtifactID: make([]uint64, m), FieldID: make([]uint64, m),
		TypeID: make([]uint8, m), PayloadOffset: make([]uint64, m), PayloadLength: make([]uint64, m),
	}
	valid := make([]bool, m)
	// The entries are cut into one segment per core. A first pass sums each segment's
	// payload words (a record's words less its header and its frames' headers), so that
	// the second writes every segment's rows and payload words in place, in parallel.
	nseg := max(1, min(runtime.GOMAXPROCS(0), n/valueSegmentMin))
	segAt := func(k int) int { return k * n / nseg }
	offs := make([]uint64, nseg+1)
	errs := make([]error, nseg)
	var wg sync.WaitGroup
	for k := range nseg {
		wg.Go(func() {
			for e := segAt(k); e < segAt(k+1); e++ {
				b, i := locate(starts, fr.Origins[e])
				l, frames := kept[b].Lengths[i], fr.ValueOffsets[e+1]-fr.ValueOffsets[e]
				if l < 3 || (l-3)/3 < frames { // the engine checked both; never wrap

					errs[k] = &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value entries differ from the record's fields"}
					return
				}
				offs[k+1] += l - 3 - 3*frames
			}
		})
	}
	wg.Wait()
	for k := range nseg {
		if errs[k] != nil {
			return errs[k]
		}
		offs[k+1] += offs[k]
	}
	vt.PayloadWords = make([]uint64, offs[nseg])
	for k := range nseg {
		wg.Go(func() {
			pw, end := offs[k], offs[k+1]
			for e := segAt(k); e < segAt(k+1); e++ {
				// Walk the record's frames (bounds checked by the engine) beside its value
				// entries; the payloads must stay inside the segment's words.
				rec := recordOf(e)
				lo, hi := fr.ValueOffsets[e], fr.ValueOffsets[e+1]
				if hi-lo != rec[2] {
					errs[k] = &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value entries differ from the record's fields"}
					return
				}
				pos := 3
				for j := lo; j < hi; j++ {
					fid, tc, l := rec[pos], normalize.TypeCode(rec[pos+1]), rec[pos+2]
					if fr.Values[j*3] != fid || l > end-pw {
						errs[k] = &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value entry differs from the record's field"}
						return
					}
					vt.ValueID[j], vt.ArtifactID[j], vt.FieldID[j], vt.TypeID[j] = j, art[fid], fid, uint8(tc)
					vt.PayloadOffset[j], vt.PayloadLength[j] = pw, l
					pw += uint64(copy(vt.PayloadWords[pw:pw+l], rec[pos+3:pos+3+int(l)]))
					valid[j] = tc != normalize.Null && tc != normalize.Missing
					pos += 3 + int(l)
				}
			}
			if pw != end {
				errs[k] = &Error{Code: CodeInternal, Op: "fingerprint", Msg: "payload words differ from the records'"}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	vt.ValidityBitmap = arrays.NewBitmap(valid)
	if vt.ValidityBitmap == nil {
		vt.ValidityBitmap = arrays.Bitmap{}
	}
	sc.ValueTable = vt
	return nil
}

// valueSegmentMin is the fewest entries per segment of the value table build. A variable
// so that tests can split small scans.
var valueSegmentMin = 4096

// locate returns the batch and index within it of the record with ordinal o, given
// starts (ascending, starts[b] = ordinal of batch b's first record, o < the last
// element): the last batch b with starts[b] <= o, so that empty batches are skipped.
// A binary search over one word per batch: it stays in the L1 cache, where a table by
// ordinal would miss it for every entry.
func locate(starts []uint64, o uint64) (int, int) {
	lo, hi := 0, len(starts)-1 // the answer lies in [lo, hi)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if starts[mid] <= o {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, int(o - starts[lo])
}

func fieldNamer(d *repo.Descriptor) func(uint64) string {
	return func(id uint64) string {
		for _, f := range d.Fields {
			if uint64(f.ID) == id {
				return f.Name
			}
		}
		return "#" + strconv.FormatUint(id, 10)
	}
}
