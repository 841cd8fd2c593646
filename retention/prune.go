package retention

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pipewhy/pipewhy/incident"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Options select a prune.
type Options struct {
	Rule
	// DryRun decides and checks every path exactly as a prune does, and removes nothing.
	DryRun bool
}

// Report is what a prune decided and did.
type Report struct {
	DryRun bool
	Plan   *Plan
	// Removed are the snapshots removed (with DryRun, that would be), in removal order.
	Removed []Decision
	// Leftovers are the claimed entries an interrupted prune or gc-staging had left in
	// the store's staging directory, which this prune deleted (with DryRun, would).
	Leftovers []string
}

// Load reads what Decide needs of repository r: the scan log, the metadata of every
// published snapshot of its store (structure checked, payloads not hashed), the incident
// evidence and the lineage versions.
func Load(r *repo.Repo) (History, error) {
	var h History
	log, err := r.Log()
	if err != nil {
		return h, &Error{Code: CodeHistory, Msg: "the scan log", Err: err}
	}
	for _, e := range log {
		h.Log = append(h.Log, Entry{ID: e.Snapshot, Artifact: e.Artifact, FinishedAtNs: e.FinishedAtNs})
	}
	st := r.Store()
	ids, err := published(st)
	if err != nil {
		return h, err
	}
	h.Published = make(map[string]Published, len(ids))
	none := func(string) bool { return false }
	for _, id := range ids {
		snap, err := st.OpenArrays(id, none, nil)
		if err != nil {
			return h, &Error{Code: CodeHistory, Path: st.Path(id), Msg: "a published snapshot fails its checks: nothing is decided on a damaged store", Err: err}
		}
		p := Published{ID: id.String(), FinishedAtNs: snap.Metadata.FinishedAtNs}
		if snap.Metadata.Parent != nil {
			p.Parent = snap.Metadata.Parent.String()
		}
		h.Published[p.ID] = p
	}
	if h.Evidence, err = incident.OpenStore(r).Evidence(); err != nil {
		return h, &Error{Code: CodeHistory, Msg: "the incident history", Err: err}
	}
	ls := lineage.Open(r)
	h.Lineage = func(ns uint64) (Graph, error) {
		v, g, _, ok, err := ls.At(ns)
		if err != nil || !ok {
			return Graph{}, err
		}
		return Graph{Version: v.ID.String(), Inputs: func(a string) []string {
			var out []string
			for _, e := range g.Into(a) {
				out = append(out, e.Source)
			}
			return out
		}}, nil
	}
	return h, nil
}

// published lists the ids of the entries of the store's snapshots directory, every one
// checked by CheckRemovable: an entry named like a snapshot that is a symbolic link, or
// not a directory, or resolves anywhere but to itself, is CodeOutside (C5 publishes
// snapshots only as directories of the store; such an entry is never followed, and the
// prune stops before removing anything).
func published(st *snapshot.Store) ([]snapshot.ID, error) {
	dir := filepath.Join(st.Root(), "snapshots")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeHistory, Path: dir, Msg: "cannot list the published snapshots", Err: err}
	}
	var ids []snapshot.ID
	for _, e := range ents {
		id, err := snapshot.ParseID(e.Name())
		if err != nil {
			continue // not a snapshot: never decided on, never removed
		}
		if err := st.CheckRemovable(id); err != nil {
			return nil, checkErr(st.Path(id), err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// checkErr maps an error of snapshot.Store.CheckRemovable: a refusal is CodeOutside.
func checkErr(path string, err error) error {
	if e, ok := errors.AsType[*snapshot.Error](err); ok && e.Code == snapshot.CodeNotRemovable {
		return &Error{Code: CodeOutside, Path: path, Msg: "refusing to prune: nothing is removed", Err: err}
	}
	return &Error{Code: CodeHistory, Path: path, Msg: "cannot check the snapshot's path", Err: err}
}

// Prune applies o.Rule to repository r (Load, Decide), checks every path it would
// remove, and removes the snapshots the plan removes, newest first (snapshot.Store.Remove:
// each renamed into staging and fsynced before its files go). It also deletes what an
// earlier interrupted prune left claimed in staging. It holds the repository's writer
// lock (a scan writing is CodeBusy of package repo), except with DryRun, which changes
// nothing.
//
// Every path is checked before the first removal: a snapshot directory that is a
// symbolic link or whose resolved path is not inside the resolved repository directory
// is CodeOutside, and then nothing at all is removed. A removal that fails stops the
// prune with CodeRemove; the report holds what was removed before it.
func Prune(ctx context.Context, r *repo.Repo, o Options) (*Report, error) {
	if err := o.Rule.Validate(); err != nil {
		return nil, err
	}
	if !o.DryRun {
		unlock, err := r.TryLock()
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	h, err := Load(r)
	if err != nil {
		return nil, err
	}
	plan, err := Decide(o.Rule, h)
	if err != nil {
		return nil, err
	}
	rep := &Report{DryRun: o.DryRun, Plan: plan, Removed: []Decision{}, Leftovers: []string{}}
	st := r.Store()
	removals := plan.Removals()
	for _, d := range removals {
		if err := inside(r, st, d.ID); err != nil {
			return nil, err
		}
	}
	leftovers, err := claimed(st)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		rep.Removed, rep.Leftovers = removals, leftovers
		return rep, nil
	}
	beforeRemovals()
	for _, d := range removals {
		id, _ := snapshot.ParseID(d.ID)
		if _, err := st.Remove(ctx, id); err != nil {
			return rep, &Error{Code: CodeRemove, Path: st.Path(id), Msg: "cannot remove the snapshot", Err: err}
		}
		rep.Removed = append(rep.Removed, d)
		afterRemove(d.ID)
	}
	// Leftovers last: what a killed prune left claimed, by the store's own cleanup, only
	// the claimed entries (an interrupted scan's attempt is gc-staging's to remove).
	if len(leftovers) > 0 {
		done, err := st.RemoveClaimed(ctx)
		for _, e := range done {
			rep.Leftovers = append(rep.Leftovers, e.Path)
		}
		if err != nil {
			return rep, &Error{Code: CodeRemove, Msg: "cannot delete what an interrupted prune left in staging", Err: err}
		}
	}
	return rep, nil
}

// beforeRemovals and afterRemove are called before the first removal and after each;
// tests stop or kill the process there.
var (
	beforeRemovals = func() {}
	afterRemove    = func(id string) {}
)

// inside checks that the published snapshot id of st may be removed: st.CheckRemovable
// (a directory, no link, resolving to itself in the store), and its resolved path inside
// the resolved repository directory.
func inside(r *repo.Repo, st *snapshot.Store, id string) error {
	sid, err := snapshot.ParseID(id)
	if err != nil {
		return &Error{Code: CodeHistory, Msg: "a malformed snapshot id", Err: err}
	}
	p := st.Path(sid)
	if err := st.CheckRemovable(sid); err != nil {
		return checkErr(p, err)
	}
	root, err := filepath.EvalSymlinks(r.Dir())
	if err != nil {
		return &Error{Code: CodeHistory, Path: r.Dir(), Msg: "cannot resolve the repository directory", Err: err}
	}
	got, err := filepath.EvalSymlinks(p)
	if err != nil {
		return &Error{Code: CodeHistory, Path: p, Msg: "cannot resolve the path", Err: err}
	}
	if rel, err := filepath.Rel(root, got); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(os.PathSeparator)) || filepath.IsAbs(rel) {
		return &Error{Code: CodeOutside, Path: p, Msg: "resolves to " + got + ", outside the repository " + root + ": refusing to prune: nothing is removed"}
	}
	return nil
}

// claimed lists the claimed entries in st's staging directory.
func claimed(st *snapshot.Store) ([]string, error) {
	entries, err := st.Staging()
	if err != nil {
		return nil, &Error{Code: CodeHistory, Msg: "the staging directory", Err: err}
	}
	out := []string{}
	for _, e := range entries {
		if e.Attempt && strings.HasSuffix(e.Path, snapshot.ClaimSuffix) {
			out = append(out, e.Path)
		}
	}
	return out, nil
}
