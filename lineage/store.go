package lineage

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/pipewhy/pipewhy/internal/chain"
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
	repo  *repo.Repo
	chain *chain.Chain
	mu    sync.Mutex
	// graphs are the versions Load decoded and validated: a version is immutable, so
	// loading it again (an explanation per artifact of a report) returns the same Graph.
	graphs map[snapshot.ID]*Graph
	// listed is what Versions returned when the store's directory held listedIDs.
	listed    []Version
	listedIDs []snapshot.ID
}

// Open returns the lineage store of r. It changes nothing: the store's directory is
// created by the first commit.
func Open(r *repo.Repo) *Store {
	return &Store{repo: r, chain: chain.New(filepath.Join(r.Dir(), StoreDir), sourceNamespace, edgeColumns), graphs: map[snapshot.ID]*Graph{}}
}

// Project returns the project directory of the repository (the directory holding it),
// against which file transforms are resolved.
func (s *Store) Project() string { return filepath.Dir(s.repo.Dir()) }

// Versions returns every stored version, oldest first, after checking that they form
// one chain: version n+1's parent is version n. Listing checks every version's files;
// the Store lists again only when the published snapshots differ from the last listing
// (versions are immutable), so an explanation per artifact of a report checks them once.
func (s *Store) Versions() ([]Version, error) {
	var ids []snapshot.ID
	if st, err := s.chain.Store(false); err == nil && st != nil {
		if ids, err = repo.StoreIDs(st); err == nil {
			s.mu.Lock()
			listed, same := s.listed, s.listedIDs != nil && slices.Equal(ids, s.listedIDs)
			s.mu.Unlock()
			if same {
				return slices.Clone(listed), nil
			}
		} else {
			ids = nil
		}
	}
	_, metas, err := s.chain.List()
	if err != nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: s.chain.Dir(), Msg: "cannot read the lineage versions", Err: err}
	}
	out := make([]Version, len(metas))
	for i, m := range metas {
		out[i] = Version{ID: m.ID, Seq: uint64(i + 1), FinishedAtNs: m.FinishedAtNs, Edges: m.Coverage.Returned}
	}
	if ids != nil {
		s.mu.Lock()
		s.listed, s.listedIDs = slices.Clone(out), ids
		s.mu.Unlock()
	}
	return out, nil
}

// Load returns the graph of version id, fully validated (once per Store: versions are
// immutable, and Graphs too).
func (s *Store) Load(id snapshot.ID) (*Graph, error) {
	s.mu.Lock()
	g, ok := s.graphs[id]
	s.mu.Unlock()
	if ok {
		return g, nil
	}
	st, err := s.chain.Store(false)
	if err != nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: s.chain.Dir(), Msg: "cannot open the lineage store", Err: err}
	}
	if st == nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: s.chain.Dir(), Msg: "no lineage has been recorded"}
	}
	snap, err := st.Open(id)
	if err != nil {
		return nil, &Error{Code: CodeStore, Op: "load", Path: st.Path(id), Msg: "cannot open lineage version", Err: err}
	}
	g, err = decode(snap)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Path == "" {
			e.Path = st.Path(id)
		}
		return nil, err
	}
	s.mu.Lock()
	s.graphs[id] = g
	s.mu.Unlock()
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
	head, g, _, err := s.Head()
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
	enc, err := encode(ng, uint64(time.Now().UnixNano()))
	if err != nil {
		return Version{}, false, &Error{Code: CodeStore, Op: "commit", Msg: "encode", Err: err}
	}
	_, metas, err := s.chain.List()
	if err != nil {
		return Version{}, false, &Error{Code: CodeStore, Op: "commit", Path: s.chain.Dir(), Msg: "cannot read the lineage versions", Err: err}
	}
	md, err := s.chain.Append(ctx, metas, snapshot.NewID(), "lineage=all", enc.state, enc.arrays)
	if err != nil {
		return Version{}, false, &Error{Code: CodeStore, Op: "commit", Path: s.chain.Dir(), Msg: "cannot publish the lineage version", Err: err}
	}
	seq := uint64(len(metas) + 1)
	return Version{ID: md.ID, Seq: seq, FinishedAtNs: md.FinishedAtNs, Edges: uint64(enc.rows)}, true, nil
}
