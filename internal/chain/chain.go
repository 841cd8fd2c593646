// Package chain keeps an append-only chain of C5 snapshots in one store: PipeWhy's own
// histories (lineage versions, incident events). Snapshot n (1, 2, ...) has source
// version "n" and, from the second on, snapshot n-1 as its parent; every snapshot's
// fingerprint context is the C3 context of one fixed table schema (internal/tablefp),
// which the store checks on every read and write. Nothing is ever rewritten or deleted.
//
// The caller serializes appends (the repository's writer lock) and decodes the
// snapshots' arrays; List checks that the snapshots form one chain.
package chain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/tablefp"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Chain is the chain of snapshots in the C5 store at a directory.
type Chain struct {
	dir       string
	namespace string
	cols      []tablefp.Column
}

// New returns the chain whose store is dir (created by the first Append), whose
// snapshots have source namespace namespace and are fingerprinted with the C3 context of
// cols.
func New(dir, namespace string, cols []tablefp.Column) *Chain {
	return &Chain{dir: dir, namespace: namespace, cols: cols}
}

// Dir returns the store's directory.
func (c *Chain) Dir() string { return c.dir }

func (c *Chain) verify(fc snapshot.FingerprintContext) error {
	ctx, err := tablefp.Context(c.cols)
	if err != nil {
		return err
	}
	if fc != tablefp.Metadata(ctx) {
		return errors.New("not this chain's fingerprint context")
	}
	return nil
}

// Store opens the C5 store; nil (and no error) when it does not exist and !create.
func (c *Chain) Store(create bool) (*snapshot.Store, error) {
	if _, err := os.Stat(c.dir); errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, nil
		}
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			return nil, err
		}
	}
	return snapshot.Open(c.dir, snapshot.Options{VerifyContext: c.verify})
}

// List returns the metadata of every snapshot, oldest first, after checking that they
// form one chain (every snapshot validated as snapshot.Store.List does).
func (c *Chain) List() (*snapshot.Store, []snapshot.Metadata, error) {
	st, err := c.Store(false)
	if err != nil || st == nil {
		return st, nil, err
	}
	metas, err := st.List()
	if err != nil {
		return nil, nil, err
	}
	seq := func(m snapshot.Metadata) uint64 { n, _ := strconv.ParseUint(m.SourceVersion, 10, 64); return n }
	slices.SortFunc(metas, func(a, b snapshot.Metadata) int { return cmp.Compare(seq(a), seq(b)) })
	for i, m := range metas {
		switch {
		case m.SourceNamespace != c.namespace || seq(m) != uint64(i+1) || strconv.Itoa(i+1) != m.SourceVersion:
			return nil, nil, fmt.Errorf("%s: snapshot %d of the chain is missing, repeated or foreign", st.Path(m.ID), i+1)
		case i == 0 && m.Parent != nil, i > 0 && (m.Parent == nil || *m.Parent != metas[i-1].ID):
			return nil, nil, fmt.Errorf("%s: snapshot %d does not follow snapshot %d", st.Path(m.ID), i+1, i)
		}
	}
	return st, metas, nil
}

// Append publishes the next snapshot of the chain, after prev (what List returned):
// id, scope, the arrays, and the C3 state of its rows, whose count is the coverage.
// It returns the metadata published.
func (c *Chain) Append(ctx context.Context, prev []snapshot.Metadata, id snapshot.ID, scope string, state fingerprint.State, arrays map[string]snapshot.Array) (snapshot.Metadata, error) {
	st, err := c.Store(true)
	if err != nil {
		return snapshot.Metadata{}, err
	}
	now := uint64(time.Now().UnixNano())
	rows := state.Count()
	md := snapshot.Metadata{ID: id, SourceNamespace: c.namespace, SourceVersion: strconv.Itoa(len(prev) + 1),
		SourceConsistency: "repository-lock", Scope: scope, StartedAtNs: now, FinishedAtNs: now,
		Resolution: snapshot.ResolutionDataset,
		Coverage: snapshot.Coverage{Status: snapshot.Complete, Expected: snapshot.Known(rows), Returned: rows,
			FailureReasons: []string{}},
		Fingerprint: tablefp.Metadata(state.Context())}
	if len(prev) > 0 {
		p := prev[len(prev)-1].ID
		md.Parent = &p
	}
	if err := st.Publish(ctx, md, arrays); err != nil {
		return snapshot.Metadata{}, err
	}
	return md, nil
}
