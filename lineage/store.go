package lineage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/pipewhy/pipewhy/internal/tablefp"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// StoreDir is the directory, inside a repository, of the C5 store of lineage versions.
const StoreDir = "lineage"

// Version is one stored version of a repository's lineage.
type Version struct {
	ID           snapshot.ID
	Seq          uint64 // 1, 2, ...: the n-th version
	FinishedAtNs uint64 // when it was recorded
	Edges        uint64 // lineage_edge rows (dataset and column edges)
}

// Store is the versioned lineage of one repository: every change is a new immutable C5
// snapshot whose parent is the previous version, so an explanation of an old change can
// use the lineage as it was then.
type Store struct {
	repo *repo.Repo
	dir  string
}

// Open returns the lineage store of r. It changes nothing: the store's directory is
// created by the first commit.
func Open(r *repo.Repo) *Store {
	return &Store{repo: r, dir: filepath.Join(r.Dir(), StoreDir)}
}

// Project returns the project directory of the repository (the directory holding it),
// against which file transforms are resolved.
func (s *Store) Project() string { return filepath.Dir(s.repo.Dir()) }

func verifyContext(fc snapshot.FingerprintContext) error {
	ctx, err := tablefp.Context(edgeColumns)
	if err != nil {
		return err
	}
	if fc != tablefp.Metadata(ctx) {
		return errors.New("not the lineage edge context")
	}
	return nil
}

// c5 opens the C5 store, or returns nil when it does not exist yet.
func (s *Store) c5(create bool) (*snapshot.Store, error) {
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, nil
		}
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return nil, &Error{Code: CodeStore, Op: "commit", Path: s.dir, Msg: "cannot create the lineage store", Err: err}
		}
	}
	st, err := snapshot.Open(s.dir, snapshot.Options{VerifyContext: verifyContext})
	if err != nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: s.dir, Msg: "cannot open the lineage store", Err: err}
	}
	return st, nil
}

// Versions returns every stored version, oldest first, after checking that they form
// one chain: version n+1's parent is version n.
func (s *Store) Versions() ([]Version, error) {
	st, err := s.c5(false)
	if err != nil || st == nil {
		return nil, err
	}
	metas, err := st.List()
	if err != nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: s.dir, Msg: "cannot list lineage versions", Err: err}
	}
	var out []Version
	for _, m := range metas {
		seq, err := strconv.ParseUint(m.SourceVersion, 10, 64)
		if err != nil || m.SourceNamespace != sourceNamespace || seq == 0 {
			return nil, &Error{Code: CodeFormat, Op: "load", Path: st.Path(m.ID), Msg: "not a lineage version"}
		}
		out = append(out, Version{ID: m.ID, Seq: seq, FinishedAtNs: m.FinishedAtNs, Edges: m.Coverage.Returned})
	}
	slices.SortFunc(out, func(a, b Version) int { return cmpU64(a.Seq, b.Seq) })
	for i, v := range out {
		m := metas[slices.IndexFunc(metas, func(m snapshot.Metadata) bool { return m.ID == v.ID })]
		switch {
		case v.Seq != uint64(i+1):
			return nil, &Error{Code: CodeFormat, Op: "load", Path: st.Path(v.ID), Msg: fmt.Sprintf("lineage versions do not form one chain: version %d is missing or repeated", i+1)}
		case i == 0 && m.Parent != nil, i > 0 && (m.Parent == nil || *m.Parent != out[i-1].ID):
			return nil, &Error{Code: CodeFormat, Op: "load", Path: st.Path(v.ID), Msg: fmt.Sprintf("lineage version %d does not follow version %d", v.Seq, i)}
		}
	}
	return out, nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Load returns the graph of version id, fully validated.
func (s *Store) Load(id snapshot.ID) (*Graph, error) {
	st, err := s.c5(false)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: s.dir, Msg: "no lineage has been recorded"}
	}
	snap, err := st.Open(id)
	if err != nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: st.Path(id), Msg: "cannot open lineage version", Err: err}
	}
	g, err := decode(snap)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Path == "" {
			e.Path = st.Path(id)
		}
		return nil, err
	}
	return g, nil
}

// Head returns the newest version and its graph; ok is false when no lineage has been
// recorded (then the graph is empty).
func (s *Store) Head() (Version, *Graph, bool, error) {
	vs, err := s.Versions()
	if err != nil {
		return Version{}, nil, false, err
	}
	if len(vs) == 0 {
		g, _ := NewGraph(nil)
		return Version{}, g, false, nil
	}
	v := vs[len(vs)-1]
	g, err := s.Load(v.ID)
	return v, g, err == nil, err
}

// At returns the version in force at time ns (the newest recorded at or before it). When
// every version is newer, it returns the first one with later true: the lineage was
// declared after that time, and the first declaration is the best account of it. ok is
// false when no lineage has been recorded.
func (s *Store) At(ns uint64) (v Version, g *Graph, later, ok bool, err error) {
	vs, err := s.Versions()
	if err != nil || len(vs) == 0 {
		g, _ = NewGraph(nil)
		return Version{}, g, false, false, err
	}
	i := len(vs) - 1
	for i >= 0 && vs[i].FinishedAtNs > ns {
		i--
	}
	if i < 0 {
		i, later = 0, true
	}
	g, err = s.Load(vs[i].ID)
	if err != nil {
		return Version{}, nil, false, false, err
	}
	return vs[i], g, later, true, nil
}

const sourceNamespace = "pipewhy:lineage"

// Update changes the lineage under the repository's writer lock: it reads the newest
// version, applies change and, when the graph differs, publishes it as the next version.
// It returns the version in force afterwards and whether a new one was written. A change
// that fails writes nothing.
func (s *Store) Update(ctx context.Context, change func(*Graph) (*Graph, error)) (Version, bool, error) {
	unlock, err := s.repo.Lock()
	if err != nil {
		return Version{}, false, &Error{Code: CodeStore, Op: "commit", Msg: "repository lock", Err: err}
	}
	defer unlock()
	return s.update(ctx, change)
}

// update is Update for a caller that holds the lock.
func (s *Store) update(ctx context.Context, change func(*Graph) (*Graph, error)) (Version, bool, error) {
	head, g, ok, err := s.Head()
	if err != nil {
		return Version{}, false, err
	}
	ng, err := change(g)
	if err != nil {
		return Version{}, false, err
	}
	if ng.Equal(g) {
		return head, false, nil
	}
	now := uint64(time.Now().UnixNano())
	enc, err := encode(ng, now)
	if err != nil {
		return Version{}, false, &Error{Code: CodeStore, Op: "commit", Msg: "encode", Err: err}
	}
	st, err := s.c5(true)
	if err != nil {
		return Version{}, false, err
	}
	seq := head.Seq + 1
	md := snapshot.Metadata{
		ID: snapshot.NewID(), SourceNamespace: sourceNamespace, SourceVersion: strconv.FormatUint(seq, 10),
		SourceConsistency: "repository-lock", Scope: "lineage=all", StartedAtNs: now, FinishedAtNs: now,
		Resolution: snapshot.ResolutionDataset,
		Coverage: snapshot.Coverage{Status: snapshot.Complete, Expected: snapshot.Known(uint64(enc.rows)),
			Returned: uint64(enc.rows), FailureReasons: []string{}},
		Fingerprint: tablefp.Metadata(enc.state.Context()),
	}
	if ok {
		p := head.ID
		md.Parent = &p
	}
	if err := st.Publish(ctx, md, enc.arrays); err != nil {
		return Version{}, false, &Error{Code: CodeStore, Op: "commit", Path: s.dir, Msg: "cannot publish the lineage version", Err: err}
	}
	return Version{ID: md.ID, Seq: seq, FinishedAtNs: now, Edges: uint64(enc.rows)}, true, nil
}
