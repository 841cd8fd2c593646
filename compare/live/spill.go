package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/snapshot/vfs"
	"github.com/pipewhy/pipewhy/source"
)

// spillFS is the scratch store's filesystem: nil, the operating system's; tests inject
// faults through it.
var spillFS vfs.FS

// scratch is where a comparison in bounded memory spills: a private directory (0700,
// os.MkdirTemp) made in Options.SpillDir for this comparison alone, when a side first
// spills (open), and removed with everything in it when Compare returns, whatever the
// outcome. It holds a snapshot store: each side is scanned with
// scan.ObserveSpillingTo, whose sorted runs spill to a staging attempt there and, when
// they did, are merged into a scratch snapshot of the side, which the comparison then
// streams (compare.Options.Stream) as 'pipewhy diff' streams two snapshots of a
// repository. Nothing there outlives the comparison; a comparison that spills nothing
// makes no directory.
type scratch struct {
	parent string // where the directory is made
	memory int64  // each side's budget: both sides are read at once

	mu     sync.Mutex // guards the fields below: both sides may spill at once
	made   bool       // open was called: dir, unlock, store and snaps, or err
	err    error
	dir    string
	unlock func() // releases the directory's lock (scratchLock)
	store  *snapshot.Store
	snaps  *repo.Repo // the store's snapshot methods (repo.OnStore)
}

// newScratch returns the comparison's scratch, whose directory is made when first
// needed (open), or nil when o.Memory is negative (every entry in memory).
func newScratch(o Options) *scratch {
	if o.Memory < 0 {
		return nil
	}
	mem := o.Memory
	if mem == 0 {
		mem = scan.DefaultMemory
	}
	parent := o.SpillDir
	if parent == "" {
		parent = os.TempDir()
	}
	return &scratch{parent: parent, memory: max(mem/2, 1)}
}

// open makes the scratch directory, its lock and its store, once; a failure is kept
// and returned to every later call.
func (s *scratch) open() (*snapshot.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.made {
		s.made = true
		s.err = s.make()
	}
	return s.store, s.err
}

func (s *scratch) make() error {
	dir, err := os.MkdirTemp(s.parent, ScratchPrefix)
	if err != nil {
		return &compare.Error{Code: compare.CodeSpill, Op: "spill", Msg: "scratch directory in " + s.parent, Err: err}
	}
	// Held until remove: what a killed comparison leaves is then told from one running
	// (RemoveStale, which gc-staging calls).
	unlock, err := lockScratch(filepath.Join(dir, scratchLock))
	if err != nil {
		_ = os.RemoveAll(dir)
		return &compare.Error{Code: compare.CodeSpill, Op: "spill", Msg: "scratch directory lock in " + dir, Err: err}
	}
	fsys := spillFS
	if fsys == nil {
		fsys = vfs.Default
	}
	// No fsync: the store is scratch that only this process reads, removed at the end.
	st, err := snapshot.Open(dir, snapshot.Options{FS: vfs.NoSync(fsys)})
	if err != nil {
		_ = os.RemoveAll(dir)
		unlock()
		return &compare.Error{Code: compare.CodeSpill, Op: "spill", Msg: "scratch store " + dir, Err: err}
	}
	s.dir, s.unlock, s.store, s.snaps = dir, unlock, st, repo.OnStore(st, repo.DefaultAlgorithm)
	return nil
}

// where names the scratch directory in messages: the directory, or where it was to be
// made.
func (s *scratch) where() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		return s.dir
	}
	return "in " + s.parent
}

// remove deletes the scratch directory and all it holds, if it was made; nil-safe. A
// failure is reported only when the comparison itself succeeded (see Compare).
func (s *scratch) remove() error {
	if s == nil || s.dir == "" {
		return nil
	}
	defer s.unlock()
	if err := os.RemoveAll(s.dir); err != nil {
		return &compare.Error{Code: compare.CodeSpill, Op: "spill", Msg: "removing the scratch directory " + s.dir, Err: err}
	}
	return nil
}

// observe is scan.ObserveSpillingTo of side i into the scratch store, made if the side
// spills, with each side's share of the budget.
func (s *scratch) observe(ctx context.Context, reg *source.Registry, v source.Source, so scan.Options) (*scan.Result, error) {
	so.Memory = s.memory
	return scan.ObserveSpillingTo(ctx, reg, v, s.open, so)
}

// spilled reports whether either side's entries spilled (then both are compared from
// the scratch store).
func spilled(obs [2]*scan.Result) bool { return obs[0].Runs+obs[1].Runs > 0 }

// summaries returns both sides as scratch snapshots loaded without their per-record
// arrays (repo.Repo.LoadParts with no part), which Diff then streams: a side that
// fitted in memory while the other spilled is published to the scratch store first.
func (s *scratch) summaries(ctx context.Context, obs [2]*scan.Result) ([2]*repo.Scan, error) {
	var out [2]*repo.Scan
	for i, r := range obs {
		id := r.Scan.Metadata.ID
		if r.Runs == 0 {
			arrs, err := r.Scan.Arrays()
			if err == nil {
				err = s.store.Publish(ctx, r.Scan.Metadata, arrs)
			}
			if err != nil {
				return out, s.failed(i, err)
			}
			r.Scan.Records, r.Scan.KeyWords, r.Scan.KeyOffsets, r.Scan.Keys = nil, nil, nil, nil
			r.Scan.Values, r.Scan.ValueOffsets, r.Scan.ValueTable = nil, nil, nil
		}
		sc, err := s.snaps.LoadParts(id, 0, nil)
		if err != nil {
			return out, s.failed(i, err)
		}
		out[i] = sc
	}
	return out, nil
}

// drop removes the scratch snapshots of scans (the first read's, once compared), so
// that the second read does not need the disk of both.
func (s *scratch) drop(scans [2]*repo.Scan) {
	for _, sc := range scans {
		// A snapshot that cannot be removed here goes with the directory at the end.
		_ = os.RemoveAll(s.store.Path(sc.Metadata.ID))
	}
}

// diffOptions are Diff's options over two scratch snapshots: their record (and value)
// arrays are streamed, never loaded.
func (s *scratch) diffOptions(limit int) compare.Options {
	return compare.Options{Limit: limit, SharedFieldIDs: true,
		Load: func(sc *repo.Scan, parts repo.Parts) error { return s.snaps.LoadMore(sc, parts, nil) },
		Stream: func(sc *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
			return s.snaps.Entries(sc, parts, nil)
		}}
}

// changedKeys returns the key digests of the changed records of the two scratch
// snapshots scans (n of them, as Diff counted): one merge pass over their record
// arrays alone.
func (s *scratch) changedKeys(scans [2]*repo.Scan, n uint64) (_ map[fingerprint.Digest]struct{}, err error) {
	var rs [2]*repo.EntryReader
	for i, sc := range scans {
		r, err := s.snaps.Entries(sc, repo.PartRecords, nil)
		if err != nil {
			if rs[0] != nil {
				_ = rs[0].Close() // read only; the open error is the one to report
			}
			return nil, s.failed(i, err)
		}
		rs[i] = r
	}
	defer func() {
		if cerr := errors.Join(rs[0].Close(), rs[1].Close()); cerr != nil && err == nil {
			err = s.failed(0, cerr)
		}
	}()
	changed := make(map[fingerprint.Digest]struct{}, n)
	if _, err := compare.MergeStreams(rs[0], rs[1], func(k compare.Kind, ea, _ *repo.Entry) error {
		if k == compare.Changed {
			changed[fingerprint.Digest{Lo: ea.Record[0], Hi: ea.Record[1]}] = struct{}{}
		}
		return nil
	}); err != nil {
		return nil, s.failed(0, err)
	}
	return changed, nil
}

func (s *scratch) failed(i int, err error) error {
	return &compare.Error{Code: compare.CodeSpill, Op: "spill " + sideName(i), Msg: "scratch snapshot in " + s.where(), Err: err}
}

// spillError tells whether err is a scan's failure to spill or to merge its runs into
// the scratch store (rather than a failure of the source).
func spillError(err error) bool {
	c := scan.CodeOf(err)
	return c == scan.CodeSpill || c == scan.CodePublish
}
