package why

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// ChangesFile is the cache of counted changes, relative to the repository directory: one
// line per pair of snapshots whose change an explanation counted record by record
// (compare.Diff, loading both scans), with the number of examples kept. Like the index it
// is derived from immutable snapshots: a line never goes stale, a damaged one is counted
// again, and deleting the file only costs those comparisons. Examples read from it carry
// what the explanation's JSON holds (compare.Example's key, and each change's field, old
// and new values), not the key words or the one-line brief.
const ChangesFile = "cache/why-changes.jsonl"

// IndexFile is the summary index of a repository's scans, relative to the repository
// directory. It is derived data: each line summarizes one published scan snapshot, which
// is immutable, so a line never goes stale; a missing, torn or damaged line is rebuilt
// from the snapshot. Deleting the file costs one full load of each scan the next time.
const IndexFile = "cache/why-index.jsonl"

// Field is one column of a summarized scan.
type Field struct {
	ID     uint64   `json:"id"`
	Name   string   `json:"name"`
	Type   string   `json:"type"`   // C3 value type
	Column []uint64 `json:"column"` // the column state words (empty without column states)
}

// Summary is what why needs of a scan to decide whether an artifact changed and whether
// a copy matches its source, without loading the scan's record and value arrays. In the
// index, uint64 values are JSON numbers: only this package reads the index, and Go's
// decoder reads them exactly.
type Summary struct {
	Snapshot     string            `json:"snapshot"`
	Artifact     string            `json:"artifact"`
	FinishedAtNs uint64            `json:"finished_at_ns"`
	Resolution   string            `json:"resolution"`
	Coverage     string            `json:"coverage"`
	Algorithm    string            `json:"algorithm"`
	Profile      string            `json:"profile"`
	Mode         string            `json:"mode"`
	Schema       string            `json:"schema"`
	Context      string            `json:"context"`
	Rows         uint64            `json:"rows"`
	Keys         []uint64          `json:"keys"`
	Excluded     []string          `json:"excluded"`
	Fields       []Field           `json:"fields"`
	State        []uint64          `json:"state"`
	Lineage      *repo.ScanLineage `json:"lineage"`
}

// Summarize returns the summary of a loaded scan.
func Summarize(s *repo.Scan) *Summary {
	m := s.Metadata
	out := &Summary{Snapshot: m.ID.String(), Artifact: s.Descriptor.Artifact, FinishedAtNs: m.FinishedAtNs,
		Resolution: string(m.Resolution), Coverage: string(m.Coverage.Status), Algorithm: m.Fingerprint.AlgorithmID,
		Profile: m.Fingerprint.ProfileID, Mode: m.Fingerprint.Mode, Schema: m.Fingerprint.SourceSchemaID,
		Context: m.Fingerprint.ContextID, Rows: uint64(s.Descriptor.Rows), Keys: []uint64{},
		Excluded: slices.Clone(s.Descriptor.Excluded), State: s.State.Words(), Lineage: s.Lineage}
	for _, k := range s.Descriptor.KeyFields {
		out.Keys = append(out.Keys, uint64(k))
	}
	if out.Excluded == nil {
		out.Excluded = []string{}
	}
	for i, f := range s.Descriptor.Fields {
		sf := Field{ID: uint64(f.ID), Name: f.Name, Type: f.Type, Column: []uint64{}}
		if s.Columns != nil {
			sf.Column = s.Columns[i].Words()
		}
		out.Fields = append(out.Fields, sf)
	}
	return out
}

// Field returns the field called name, and whether there is one.
func (s *Summary) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// KeyNames returns the key columns' names.
func (s *Summary) KeyNames() []string {
	var out []string
	for _, k := range s.Keys {
		for _, f := range s.Fields {
			if f.ID == k {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// History is a repository's scans as why reads them: the scan log in publication order,
// per artifact, with summaries from the index (loaded and indexed on first use) and full
// scans loaded on demand. "At or before" is publication order: the order of the scan log.
type History struct {
	repo   *repo.Repo
	log    []repo.LogEntry
	byArt  map[string][]int // artifact → log positions, ascending
	pos    map[string]int   // snapshot id → log position
	index  map[string][]byte
	mu     sync.Mutex
	sums   map[string]*Summary
	scans  map[string]*repo.Scan
	append [][]byte // new index lines, written by Save

	// The change cache (ChangesFile): counted changes by "from-to-limit", read at Open,
	// decoded on use; the new lines are written by Save.
	details       map[string][]byte
	appendDetails [][]byte
	// Memos of what every explanation over this History computes alike: the change
	// from the summaries of two log positions, and an edge's verdict between two pairs
	// of snapshots. Both are pure functions of immutable snapshots.
	changes map[[2]int]*Change
	edges   map[edgeKey]EdgeResult
}

// Open reads r's scan log and summary index.
func Open(r *repo.Repo) (*History, error) {
	log, err := r.Log()
	if err != nil {
		return nil, err
	}
	h := &History{repo: r, log: log, byArt: map[string][]int{}, pos: map[string]int{},
		index: map[string][]byte{}, sums: map[string]*Summary{}, scans: map[string]*repo.Scan{},
		details: map[string][]byte{}, changes: map[[2]int]*Change{}, edges: map[edgeKey]EdgeResult{}}
	for i, e := range log {
		h.byArt[e.Artifact] = append(h.byArt[e.Artifact], i)
		h.pos[e.Snapshot] = i
	}
	b, err := os.ReadFile(filepath.Join(r.Dir(), IndexFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Code: CodeIndex, Msg: "cannot read the summary index", Err: err}
	}
	// Lines are {"snapshot":"<32 hex>","sum":"<64 hex>","summary":{...}}; only the id is
	// read now, the rest when the summary is needed.
	const idAt = len(`{"snapshot":"`)
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		b = rest
		if !ok || len(line) < idAt+32 {
			continue // a torn last line
		}
		h.index[string(line[idAt:idAt+32])] = line
	}
	b, err = os.ReadFile(filepath.Join(r.Dir(), ChangesFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Code: CodeIndex, Msg: "cannot read the change cache", Err: err}
	}
	// Lines are {"key":"<from>-<to>-<limit>","sum":"<64 hex>","change":{...}}.
	const keyAt = len(`{"key":"`)
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		b = rest
		if !ok || len(line) < keyAt {
			continue
		}
		if end := bytes.IndexByte(line[keyAt:], '"'); end > 0 {
			h.details[string(line[keyAt:keyAt+end])] = line
		}
	}
	return h, nil
}

type indexLine struct {
	Snapshot string          `json:"snapshot"`
	Sum      string          `json:"sum"`
	Summary  json.RawMessage `json:"summary"`
}

// Artifacts returns every scanned artifact, ascending.
func (h *History) Artifacts() []string {
	out := make([]string, 0, len(h.byArt))
	for a := range h.byArt {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Snapshots returns the log positions of artifact's scans, oldest first.
func (h *History) Snapshots(artifact string) []int { return h.byArt[artifact] }

// Entry returns the log entry at position p.
func (h *History) Entry(p int) repo.LogEntry { return h.log[p] }

// Position returns the log position of snapshot id, and whether the log has it.
func (h *History) Position(id string) (int, bool) {
	p, ok := h.pos[id]
	return p, ok
}

// Latest returns the log position of artifact's newest scan at or before position p,
// and whether there is one.
func (h *History) Latest(artifact string, p int) (int, bool) {
	ps := h.byArt[artifact]
	i, found := slices.BinarySearch(ps, p)
	if found {
		return ps[i], true
	}
	if i == 0 {
		return 0, false
	}
	return ps[i-1], true
}

// Summary returns the summary of the scan at log position p: from the index when it has
// a valid line, else from the scan's summary arrays (descriptor, C1 tables, states and
// lineage: the record and value arrays are neither read nor checked), remembering the
// line for Save. Loading happens outside the History's lock, so that summaries load in
// parallel (Prefetch, a report's workers).
func (h *History) Summary(p int) (*Summary, error) {
	id := h.log[p].Snapshot
	h.mu.Lock()
	if s, ok := h.sums[id]; ok {
		h.mu.Unlock()
		return s, nil
	}
	line, indexed := h.index[id]
	full := h.scans[id]
	h.mu.Unlock()
	if indexed {
		if s := decodeIndexLine(line, id); s != nil {
			return h.keep(id, s, nil), nil
		}
	}
	if full == nil {
		sid, err := snapshot.ParseID(id)
		if err != nil {
			return nil, err
		}
		if full, err = h.repo.LoadParts(sid, 0, nil); err != nil {
			return nil, err
		}
	}
	s := Summarize(full)
	line, err := indexLineOf(s)
	if err != nil {
		return nil, err
	}
	return h.keep(id, s, line), nil
}

// decodeIndexLine returns the summary of snapshot id that an index line holds, or nil
// when the line is damaged or holds another snapshot.
func decodeIndexLine(line []byte, id string) *Summary {
	if js, ok := indexLayout(line, id); ok {
		// The line is exactly as indexLineOf writes it: the summary is its tail, which
		// must be one JSON value and nothing more, as the outer decoding would require.
		if s := decodeSummary(js, id, true); s != nil {
			return s
		}
	}
	var il indexLine
	if json.Unmarshal(line, &il) != nil || il.Snapshot != id || il.Sum != digest(il.Summary) {
		return nil
	}
	return decodeSummary(il.Summary, id, false)
}

// indexLayout returns the summary of line when line is laid out exactly as indexLineOf
// writes it, for snapshot id, and its sum matches: {"snapshot":id,"sum":…,"summary":…}.
// A line laid out otherwise may still be valid: decodeIndexLine decodes it in full.
func indexLayout(line []byte, id string) ([]byte, bool) {
	const pre, mid, post = `{"snapshot":"`, `","sum":"`, `","summary":`
	rest, ok := bytes.CutPrefix(line, []byte(pre))
	if !ok || len(rest) < len(id)+len(mid)+64+len(post)+1 || string(rest[:len(id)]) != id {
		return nil, false
	}
	rest, ok = bytes.CutPrefix(rest[len(id):], []byte(mid))
	if !ok {
		return nil, false
	}
	sum := rest[:64]
	js, ok := bytes.CutPrefix(rest[64:], []byte(post))
	if !ok || !bytes.HasSuffix(js, []byte{'}'}) {
		return nil, false
	}
	js = js[:len(js)-1]
	return js, string(sum) == digest(js)
}

// decodeSummary decodes the summary js of snapshot id strictly; whole: js must be that
// one value and nothing after it.
func decodeSummary(js []byte, id string, whole bool) *Summary {
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if dec.Decode(&s) != nil || s.Snapshot != id || (whole && dec.InputOffset() != int64(len(js))) {
		return nil
	}
	return &s
}

// keep remembers summary s of snapshot id, and line (nil: none) for Save, unless another
// goroutine remembered one first: that one is returned, so that every caller sees one
// Summary per snapshot and the index gets one line.
func (h *History) keep(id string, s *Summary, line []byte) *Summary {
	h.mu.Lock()
	defer h.mu.Unlock()
	if prev, ok := h.sums[id]; ok {
		return prev
	}
	h.sums[id] = s
	if line != nil {
		h.append = append(h.append, line)
	}
	return s
}

// Prefetch loads the summaries of the scans at log positions ps (negative positions are
// skipped) on up to GOMAXPROCS goroutines. It only warms what Summary returns: a summary
// that fails to load is left for Summary to report when it is asked for.
func (h *History) Prefetch(ctx context.Context, ps []int) {
	var todo []int
	seen := map[int]bool{}
	h.mu.Lock()
	for _, p := range ps {
		if p < 0 || seen[p] {
			continue
		}
		seen[p] = true
		if _, ok := h.sums[h.log[p].Snapshot]; !ok {
			todo = append(todo, p)
		}
	}
	h.mu.Unlock()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(todo) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				_, _ = h.Summary(todo[i]) // an error is Summary's to report when asked
			}
		})
	}
	wg.Wait()
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// summaries returns the summaries at positions a and b.
func (h *History) summaries(a, b int) (*Summary, *Summary, error) {
	sa, err := h.Summary(a)
	if err != nil {
		return nil, nil, err
	}
	sb, err := h.Summary(b)
	return sa, sb, err
}

// scanPair returns the full scans at positions a and b.
func (h *History) scanPair(a, b int) (*repo.Scan, *repo.Scan, error) {
	sa, err := h.Scan(a)
	if err != nil {
		return nil, nil, err
	}
	sb, err := h.Scan(b)
	return sa, sb, err
}

// Scan returns the full scan at log position p (loaded once, validated by repo.Load).
func (h *History) Scan(p int) (*repo.Scan, error) { return h.scan(h.log[p].Snapshot) }

func (h *History) scan(id string) (*repo.Scan, error) {
	h.mu.Lock()
	s, ok := h.scans[id]
	h.mu.Unlock()
	if ok {
		return s, nil
	}
	sid, err := snapshot.ParseID(id)
	if err != nil {
		return nil, err
	}
	if s, err = h.repo.Load(sid); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if prev, ok := h.scans[id]; ok {
		return prev, nil
	}
	h.scans[id] = s
	return s, nil
}

// Save appends the summaries and counted changes computed since Open to the index and
// the change cache, under the repository's writer lock, one line per entry, each file
// written with a single write. A repository that cannot be written (read-only) keeps its
// caches as they are: Save reports the error and nothing else depends on it.
func (h *History) Save() error {
	h.mu.Lock()
	lines, details := h.append, h.appendDetails
	h.append, h.appendDetails = nil, nil
	h.mu.Unlock()
	if len(lines) == 0 && len(details) == 0 {
		return nil
	}
	unlock, err := h.repo.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := appendLines(filepath.Join(h.repo.Dir(), IndexFile), lines); err != nil {
		return &Error{Code: CodeIndex, Msg: "cannot append to the summary index", Err: err}
	}
	if err := appendLines(filepath.Join(h.repo.Dir(), ChangesFile), details); err != nil {
		return &Error{Code: CodeIndex, Msg: "cannot append to the change cache", Err: err}
	}
	return nil
}

// appendLines appends lines to the file at p (created with its directory), in one write.
func appendLines(p string, lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	var buf []byte
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	// A torn previous last line would swallow this write's first line; start on a new
	// line when the file does not end with one.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if r, err := os.Open(p); err == nil {
			_, rerr := r.ReadAt(last, st.Size()-1)
			r.Close()
			if rerr != nil || last[0] != '\n' { // unread: a new line is the safe start
				buf = append([]byte{'\n'}, buf...)
			}
		}
	}
	_, err = f.Write(buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// counted is what compare.Diff adds to a change (Change.Records, Fields, Schema and
// Example): a line of the change cache.
type counted struct {
	Records *compare.Counts        `json:"records"`
	Fields  map[string]uint64      `json:"fields"`
	Schema  []compare.SchemaChange `json:"schema"`
	Example []compare.Example      `json:"examples"`
}

type countedLine struct {
	Key    string          `json:"key"`
	Sum    string          `json:"sum"`
	Change json.RawMessage `json:"change"`
}

func countedKey(from, to string, limit int) string {
	return from + "-" + to + "-" + strconv.Itoa(limit)
}

// counted returns the counted change between the scans at log positions a and b with
// limit examples, when the change cache has a valid line for it.
func (h *History) counted(a, b, limit int) (counted, bool) {
	key := countedKey(h.log[a].Snapshot, h.log[b].Snapshot, limit)
	h.mu.Lock()
	line, ok := h.details[key]
	h.mu.Unlock()
	var l countedLine
	if !ok || json.Unmarshal(line, &l) != nil || l.Key != key || l.Sum != digest(l.Change) {
		return counted{}, false
	}
	var c counted
	dec := json.NewDecoder(bytes.NewReader(l.Change))
	dec.DisallowUnknownFields()
	if dec.Decode(&c) != nil {
		return counted{}, false
	}
	return c, true
}

// putCounted remembers a counted change, to be appended by Save.
func (h *History) putCounted(a, b, limit int, c counted) {
	key := countedKey(h.log[a].Snapshot, h.log[b].Snapshot, limit)
	js, err := json.Marshal(c)
	if err != nil {
		return // a counted change always encodes; nothing is cached otherwise
	}
	line, _ := json.Marshal(countedLine{Key: key, Sum: digest(js), Change: js})
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.details[key]; !ok {
		h.details[key] = line
		h.appendDetails = append(h.appendDetails, line)
	}
}

// Record appends the summary of snapshot id, just published to r by a scan, to the
// summary index, so that the first explanation after the scan reads it there instead of
// loading the snapshot. The summary is read back from the snapshot's summary arrays (as
// Summary reads it: the scan in memory lacks what encoding adds). A scan that is not
// recorded is summarized when it is first needed: Record only saves that work.
func Record(r *repo.Repo, id snapshot.ID) error {
	s, err := r.LoadParts(id, 0, nil)
	if err != nil {
		return err
	}
	line, err := indexLineOf(Summarize(s))
	if err != nil {
		return err
	}
	unlock, err := r.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := appendLines(filepath.Join(r.Dir(), IndexFile), [][]byte{line}); err != nil {
		return &Error{Code: CodeIndex, Msg: "cannot append to the summary index", Err: err}
	}
	return nil
}

// indexLineOf is the index line of summary s.
func indexLineOf(s *Summary) ([]byte, error) {
	js, err := json.Marshal(s)
	if err != nil {
		return nil, &Error{Code: CodeIndex, Msg: "encode summary", Err: err}
	}
	line, _ := json.Marshal(indexLine{Snapshot: s.Snapshot, Sum: digest(js), Summary: js})
	return line, nil
}
