package snapshot

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// DefaultMaxManifestBytes bounds the size of a manifest.json a reader accepts.
const DefaultMaxManifestBytes = 16 << 20

// Options configure a Store. The zero Options are valid.
type Options struct {
	// VerifyContext, when not nil, checks a fingerprint context against the exact
	// current C3 context (for example that its identity resolves and matches). Publish
	// calls it before writing anything; Open, Verify and List call it for every
	// snapshot they return. A non-nil error rejects the snapshot with CodeContext.
	VerifyContext func(FingerprintContext) error
	// FS is the filesystem; nil means vfs.Default, the operating system's.
	FS vfs.FS
	// MaxManifestBytes bounds manifest.json; 0 means DefaultMaxManifestBytes.
	MaxManifestBytes int64
	// Compress makes every snapshot this store writes a version 2 snapshot whose payloads
	// are zstd-blocks (docs/contracts/C5-compressed.md); false writes C5 version 1.
	// Reading accepts both versions either way.
	Compress bool
}

// Validate reports options that cannot work.
func (o *Options) Validate() error {
	if o.MaxManifestBytes < 0 {
		return &Error{Code: CodeBadStore, Op: "open", Field: "MaxManifestBytes", Msg: "must not be negative"}
	}
	return nil
}

// Store is a local immutable snapshot store (C5 LocalSnapshotStore) rooted at a
// directory. It is safe for concurrent use by goroutines and by processes.
type Store struct {
	root string
	fs   vfs.FS
	opts Options
}

// Open returns the store rooted at root, which must be an existing directory. Open
// changes nothing; Publish creates root/snapshots and root/staging when needed.
func Open(root string, opts Options) (*Store, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.FS == nil {
		opts.FS = vfs.Default
	}
	if opts.MaxManifestBytes == 0 {
		opts.MaxManifestBytes = DefaultMaxManifestBytes
	}
	root = filepath.Clean(root)
	fi, err := opts.FS.Lstat(root)
	if err != nil {
		return nil, &Error{Code: CodeBadStore, Op: "open", Path: root, Msg: "store root is not accessible", Err: err}
	}
	if !fi.IsDir() {
		return nil, &Error{Code: CodeBadStore, Op: "open", Path: root, Msg: "store root is not a directory"}
	}
	for _, sub := range []string{snapshotsDir, stagingDir} {
		p := filepath.Join(root, sub)
		fi, err := opts.FS.Lstat(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Code: CodeBadStore, Op: "open", Path: p, Msg: "store directory is not accessible", Err: err}
		}
		if err == nil && !fi.IsDir() {
			return nil, &Error{Code: CodeBadStore, Op: "open", Path: p, Msg: "not a directory"}
		}
	}
	return &Store{root: root, fs: opts.FS, opts: opts}, nil
}

const (
	snapshotsDir = "snapshots"
	stagingDir   = "staging"
)

// Root returns the store's root directory.
func (s *Store) Root() string { return s.root }

// Path returns the directory a published snapshot id lives in, root/snapshots/<id>.
func (s *Store) Path(id ID) string { return filepath.Join(s.root, snapshotsDir, id.String()) }

// Publish stores one immutable snapshot, following the PW-07.04 state machine:
//
//  1. validate metadata, array keys and dtypes, the fingerprint context
//     (Options.VerifyContext) and the parent; reject an ID that is already published;
//  2. create a unique attempt directory root/staging/<id>-<random> holding intent.json;
//  3. write, flush and fsync every payload and the canonical manifest.json;
//  4. read back and validate every staged payload and the manifest, then write and
//     fsync complete.sha256 and the attempt directory;
//  5. validate the complete staged package, rename the whole directory to
//     root/snapshots/<id> without ever replacing an existing entry, then fsync
//     root/snapshots and root/staging.
//
// The arrays are immutable Array values, so nothing the caller does after Publish (or
// during it) changes what is stored. An error before the rename leaves the attempt in
// root/staging for InspectIncomplete and nothing published; Publish never retries and
// never deletes. Losing a race to another writer of the same ID gives an error matching
// fs.ErrExist. An error after the rename matches ErrCommitUncertain: the snapshot may be
// published and may not be durable; inspect the ID before any new action.
func (s *Store) Publish(ctx context.Context, md Metadata, arrays map[string]Array) error {
	return s.PublishWithProgress(ctx, md, arrays, nil)
}

// PublishWithProgress is Publish reporting its long steps to fn: StepChecksum (the
// arrays hashed in memory), StepWrite (payloads written and fsynced) and StepVerify
// (payloads read back and checked), each in bytes of the arrays' total. A nil fn
// reports nothing.
func (s *Store) PublishWithProgress(ctx context.Context, md Metadata, arrays map[string]Array, fn ProgressFunc) error {
	md = md.clone()
	// Phase 1: validate everything before touching the filesystem.
	if err := md.Validate(); err != nil {
		return opErr(err, "publish")
	}
	if s.opts.VerifyContext != nil {
		if err := s.opts.VerifyContext(md.Fingerprint); err != nil {
			return &Error{Code: CodeContext, Op: "publish", Field: "fingerprint_context", Msg: "fingerprint context rejected", Err: err}
		}
	}
	keys := make([]string, 0, len(arrays))
	m := manifest{Meta: md, Entries: make(map[string]entry, len(arrays))}
	for key, a := range arrays {
		if !ValidKey(key) {
			return &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays", Msg: "array key does not match [a-z][a-z0-9_]{0,63}"}
		}
		if !a.dtype.valid() {
			return &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + key, Msg: "the zero Array has no dtype"}
		}
		keys = append(keys, key)
	}
	slices.Sort(keys)
	var total uint64
	for _, a := range arrays {
		total += uint64(len(a.data))
	}
	for i, sum := range sumArrays(arrays, keys, newMeter(fn, StepChecksum, total)) {
		a := arrays[keys[i]]
		m.Entries[keys[i]] = entry{File: arrayFile(keys[i]), DType: a.dtype, Count: uint64(a.Len()),
			ByteLength: uint64(len(a.data)), SHA256: sum}
	}
	if err := s.checkParent(md); err != nil {
		return err
	}
	final := s.Path(md.ID)
	if _, err := s.fs.Lstat(final); err == nil {
		return &Error{Code: CodeExists, Op: "publish", Path: final, Msg: "snapshot ID is already published"}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &Error{Code: CodeIO, Op: "publish", Path: final, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return &Error{Code: CodeCanceled, Op: "publish", Err: err}
	}

	// Phases 2 to 5: a Writer, given the payloads whole.
	w, err := s.create(md.ID)
	if err != nil {
		return err
	}
	written := newMeter(fn, StepWrite, total)
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return w.fail(err)
		}
		if err := w.put(key, arrays[key], m.Entries[key].SHA256, written); err != nil {
			return err
		}
	}
	return w.commit(ctx, md, fn)
}

// ensureDirs creates root/snapshots and root/staging when missing and makes them durable.
func (s *Store) ensureDirs() error {
	created := false
	for _, sub := range []string{snapshotsDir, stagingDir} {
		p := filepath.Join(s.root, sub)
		err := s.fs.Mkdir(p, 0o755)
		if err == nil {
			created = true
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return &Error{Code: CodeIO, Op: "publish", Path: p, Err: err}
		}
		if fi, err := s.fs.Lstat(p); err != nil || !fi.IsDir() {
			return &Error{Code: CodeBadStore, Op: "publish", Path: p, Msg: "not a directory", Err: err}
		}
	}
	if created {
		if err := s.fs.SyncDir(s.root); err != nil {
			return &Error{Code: CodeIO, Op: "publish", Path: s.root, Err: err}
		}
	}
	return nil
}

// newAttempt creates a fresh attempt directory, named by the snapshot ID and 64 random
// bits; Mkdir's exclusivity makes it unique even against other processes.
func (s *Store) newAttempt(id ID) (string, error) {
	var err error
	for range 8 {
		var r [8]byte
		rand.Read(r[:])
		p := filepath.Join(s.root, stagingDir, id.String()+"-"+hex.EncodeToString(r[:]))
		if err = s.fs.Mkdir(p, 0o755); err == nil {
			if err = s.fs.SyncDir(filepath.Join(s.root, stagingDir)); err != nil {
				return "", &Error{Code: CodeIO, Op: "publish", Path: p, Msg: "attempt kept for inspection", Err: err}
			}
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return "", &Error{Code: CodeIO, Op: "publish", Path: filepath.Join(s.root, stagingDir), Msg: "cannot create a staging attempt", Err: err}
}

// writeFile creates path, writes data, fsyncs and closes it. Data larger than
// writeChunk is written and fsynced a chunk at a time, so that progress (bytes on
// stable storage) does not stall at the end in one long fsync; a small file is one
// write and one fsync.
func (s *Store) writeFile(path string, data []byte, progress *meter) error {
	f, err := s.fs.Create(path)
	if err != nil {
		return err
	}
	for off := 0; off == 0 || off < len(data); {
		chunk := data[off:min(off+writeChunk, len(data))]
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		progress.add(len(chunk))
		if off += len(chunk); len(chunk) == 0 {
			break
		}
	}
	return f.Close()
}

func opErr(err error, op string) error {
	if e, ok := err.(*Error); ok {
		e.Op = op
	}
	return err
}

// sumArrays returns the SHA-256 of the bytes of arrays[keys[i]] for every i, computed on
// up to GOMAXPROCS goroutines (for a record-resolution scan, over a gigabyte); progress
// counts the bytes hashed.
func sumArrays(arrays map[string]Array, keys []string, progress *meter) [][32]byte {
	sums := make([][32]byte, len(keys))
	data := make([][]byte, len(keys))
	for i, k := range keys {
		data[i] = arrays[k].data
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(keys)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(keys); i = int(next.Add(1) - 1) {
				h := sha256.New()
				for off := 0; off < len(data[i]); off += hashChunk {
					chunk := data[i][off:min(off+hashChunk, len(data[i]))]
					h.Write(chunk)
					progress.add(len(chunk))
				}
				h.Sum(sums[i][:0])
			}
		})
	}
	wg.Wait()
	return sums
}

// Compresses reports whether the store writes C5-compressed version 2 snapshots
// (Options.Compress).
func (s *Store) Compresses() bool { return s.opts.Compress }
