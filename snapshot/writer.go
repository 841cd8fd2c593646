package snapshot

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// spillDir is the scratch directory a Writer's caller may fill inside the attempt
// (sorted runs of an out-of-core scan). It is never part of a package: Commit removes it
// before the completion marker, so a published snapshot never holds it, and an attempt
// left in staging by a killed writer may (InspectIncomplete reports it as STAGING).
const spillDir = "spill"

// streamBuffer is the write buffer of a Stream: its writes reach the file in pieces of
// this size, so a stream of a gigabyte costs one buffer of memory (and pipeDepth more
// per Writer in flight, see pipe).
var streamBuffer = 1 << 20

// firstBuffer is the capacity a Stream starts with: its buffer doubles up to
// streamBuffer before it is first handed over, so a short payload (a dataset snapshot
// has some fifteen of a few bytes each) does not cost a whole buffer of fresh memory.
const firstBuffer = 4 << 10

// Writer writes one snapshot as a stream: the attempt directory in root/staging is
// made first (Create: phase 2 of PW-07.04), the payloads are then written one
// append-only stream per array (Append) or whole (Put), the caller may keep scratch
// files in the attempt (Spill), and Commit runs phases 3 to 5 on what was written:
// manifest, read-back validation, completion marker, rename. Commit validates the
// metadata then; a failure at any step leaves the attempt in staging for
// InspectIncomplete and publishes nothing. A Writer and its Streams are not safe for
// concurrent use.
//
// Payload bytes are the exact little-endian elements, as Publish writes them; each
// stream's SHA-256 is computed as it is written, so no payload is ever held whole. The
// hashing, compression and writes of the streams run on two goroutines of their own
// (pipe) while the caller fills the next buffer, in the order the buffers were filled.
type Writer struct {
	s       *Store
	id      ID
	attempt string
	entries map[string]entry
	open    map[string]*Stream
	spill   bool  // the spill directory was made
	done    bool  // committed or aborted
	failed  error // the first error of a stream: Commit refuses to publish after it
	p       *pipe // while streams are open
}

// Create starts a streamed snapshot with the ID id: it checks that id is not
// published, creates root/snapshots and root/staging when missing, and makes a fresh
// attempt directory holding intent.json. The caller then writes the arrays and
// commits or aborts; either way the attempt is never deleted by this package (only
// its spill directory is).
func (s *Store) Create(ctx context.Context, id ID) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Code: CodeCanceled, Op: "publish", Err: err}
	}
	final := s.Path(id)
	if _, err := s.fs.Lstat(final); err == nil {
		return nil, &Error{Code: CodeExists, Op: "publish", Path: final, Msg: "snapshot ID is already published"}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Code: CodeIO, Op: "publish", Path: final, Err: err}
	}
	return s.create(id)
}

// create is phase 2: the attempt and its intent.
func (s *Store) create(id ID) (*Writer, error) {
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	attempt, err := s.newAttempt(id)
	if err != nil {
		return nil, err
	}
	w := &Writer{s: s, id: id, attempt: attempt, entries: map[string]entry{}, open: map[string]*Stream{}}
	if err := s.writeFile(filepath.Join(attempt, intentName), encodeIntent(id), nil); err != nil {
		return nil, w.fail(err)
	}
	return w, nil
}

// Attempt returns the attempt directory, root/staging/<id>-<random>.
func (w *Writer) Attempt() string { return w.attempt }

// fail wraps an error of a step after the attempt exists, naming the kept attempt.
func (w *Writer) fail(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeCanceled, Op: "publish", Path: w.attempt, Msg: "attempt kept for inspection", Err: err}
	}
	var ie *StorageIntegrityError
	if errors.As(err, &ie) {
		return err
	}
	return &Error{Code: CodeIO, Op: "publish", Path: w.attempt, Msg: "attempt kept for inspection", Err: err}
}

// checkKey refuses a key that is invalid or already written or being written.
func (w *Writer) checkKey(key string, d DType) error {
	if w.done {
		return &Error{Code: CodeInvalidArray, Op: "publish", Path: w.attempt, Msg: "the writer is committed or aborted"}
	}
	if !ValidKey(key) {
		return &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays", Msg: "array key does not match [a-z][a-z0-9_]{0,63}"}
	}
	if !d.valid() {
		return &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + key, Msg: "unsupported dtype"}
	}
	if _, ok := w.entries[key]; ok {
		return &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + key, Msg: "array written twice"}
	}
	if _, ok := w.open[key]; ok {
		return &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + key, Msg: "array written twice"}
	}
	return nil
}

// Put writes the whole array a under key, as Publish writes a payload (in chunks,
// each fsynced).
func (w *Writer) Put(key string, a Array) error {
	if err := w.checkKey(key, a.dtype); err != nil {
		return err
	}
	if w.s.opts.Compress {
		// The compressed stream hashes the logical bytes as it encodes them: that is
		// the manifest's sha256, and hashing a first time here would only compare the
		// same bytes in memory with themselves.
		return w.putZstd(key, a, nil, nil)
	}
	return w.put(key, a, sha256.Sum256(a.data), nil)
}

// put writes a whose SHA-256 is sum; progress counts the bytes written.
func (w *Writer) put(key string, a Array, sum [32]byte, progress *meter) error {
	if w.s.opts.Compress {
		return w.putZstd(key, a, &sum, progress)
	}
	if err := w.s.writeFile(filepath.Join(w.attempt, arrayFile(key)), a.data, progress); err != nil {
		return w.fail(err)
	}
	w.entries[key] = entry{File: arrayFile(key), DType: a.dtype, Count: uint64(a.Len()), ByteLength: uint64(len(a.data)), SHA256: sum}
	return nil
}

// putZstd is put through a compressed stream: a is encoded block by block. A non-nil
// sum (Publish's, computed in phase 1) must equal the stream's.
func (w *Writer) putZstd(key string, a Array, sum *[32]byte, progress *meter) error {
	st, err := w.Append(key, a.dtype)
	if err != nil {
		return err
	}
	for off := 0; off < len(a.data); off += hashChunk {
		chunk := a.data[off:min(off+hashChunk, len(a.data))]
		if _, err := st.Write(chunk); err != nil {
			_ = st.Close() // returns the same sticky error; it closes the file
			return err
		}
		progress.add(len(chunk))
	}
	if err := st.Close(); err != nil {
		return err
	}
	if sum != nil && w.entries[key].SHA256 != *sum {
		err := &StorageIntegrityError{Path: st.path, Reason: "staged payload SHA-256 does not match"}
		w.failed = err
		return err
	}
	return nil
}

// version is the manifest version this writer's store writes.
func (w *Writer) version() int {
	if w.s.opts.Compress {
		return FormatVersion2
	}
	return FormatVersion
}

// Append opens the payload of key for appending elements of type d. The stream's
// bytes are hashed as they are written; Close flushes, fsyncs and closes the file and
// records the array. Commit fails while a stream is open.
func (w *Writer) Append(key string, d DType) (*Stream, error) {
	if err := w.checkKey(key, d); err != nil {
		return nil, err
	}
	p := filepath.Join(w.attempt, arrayFile(key))
	f, err := w.s.fs.Create(p)
	if err != nil {
		return nil, w.fail(err)
	}
	st := &Stream{w: w, key: key, dtype: d, path: p, f: f, h: sha256.New(), sink: f,
		buf: make([]byte, 0, min(firstBuffer, max(streamBuffer, 8)))}
	if w.s.opts.Compress {
		// logical bytes → their SHA-256 and the block encoder → the file and its SHA-256.
		st.stored = &countingHash{Hash: sha256.New()}
		st.z = newZWriter(hashingWriter{f: f, h: st.stored})
		st.sink = st.z
	}
	if w.p == nil {
		w.p = newPipe()
	}
	w.open[key] = st
	return st, nil
}

// pipe runs the work behind a Writer's streams on two goroutines, so that it overlaps
// the caller's filling of the next buffer (a scan's merge): the first hashes each full
// buffer of a stream (its logical bytes: the manifest's sha256), the second writes it
// to the stream's sink (the file, or the block encoder, which hashes and writes the
// stored bytes). Both take the buffers in the order they were handed over, so every
// stream's bytes, and every file operation, happen in the order the caller wrote them:
// the same as writing them itself. A barrier (Close) returns once every buffer handed
// over before it is written. At most pipeDepth buffers are in flight; the pipe stops when
// the last open stream closes, or at Abort.
type pipe struct {
	hash, write chan piece
	free        chan []byte
	made        int
	wg          sync.WaitGroup
}

// piece is a full buffer of st, or (b nil) a barrier closing done.
type piece struct {
	st   *Stream
	b    []byte
	done chan struct{}
}

// pipeDepth bounds the buffers in flight per Writer.
const pipeDepth = 4

func newPipe() *pipe {
	p := &pipe{hash: make(chan piece, pipeDepth+1), write: make(chan piece, pipeDepth+1), free: make(chan []byte, pipeDepth)}
	p.wg.Go(func() {
		defer close(p.write)
		for pc := range p.hash {
			if pc.b != nil && pc.st.asyncErr() == nil {
				pc.st.h.Write(pc.b)
			}
			p.write <- pc
		}
	})
	p.wg.Go(func() {
		for pc := range p.write {
			if pc.b == nil {
				close(pc.done)
				continue
			}
			if pc.st.asyncErr() == nil {
				if _, err := pc.st.sink.Write(pc.b); err != nil {
					pc.st.setAsyncErr(err)
				}
			}
			select { // the pool keeps pipeDepth buffers; a closed stream's last one may be extra
			case p.free <- pc.b[:0]:
			default:
			}
		}
	})
	return p
}

// buffer returns an empty buffer of the pool, waiting for one when pipeDepth are in
// flight.
func (p *pipe) buffer() []byte {
	select {
	case b := <-p.free:
		return b
	default:
	}
	if p.made < pipeDepth {
		p.made++
		return make([]byte, 0, max(streamBuffer, 8))
	}
	return <-p.free
}

// barrier waits until every buffer of the pipe handed over before it is written.
func (p *pipe) barrier() {
	done := make(chan struct{})
	p.hash <- piece{done: done}
	<-done
}

// stop writes what is in flight and ends the goroutines.
func (p *pipe) stop() {
	close(p.hash)
	p.wg.Wait()
}

// Stream is one payload being written: raw little-endian elements appended in order.
// Its first error sticks: every later call returns it.
type Stream struct {
	w      *Writer
	key    string
	dtype  DType
	path   string
	f      vfs.File
	h      hash.Hash // the logical bytes (the pipe's first goroutine)
	sink   io.Writer // f, or z (the pipe's second goroutine)
	buf    []byte    // being filled; handed to the pipe when full
	n      uint64
	err    error
	closed bool

	amu  sync.Mutex
	aerr error // the first error of the pipe's writes of this stream

	z      *zWriter      // compressing store: the block encoder
	stored *countingHash // compressing store: the file's bytes
}

// countingHash is a SHA-256 that counts the bytes written to it.
type countingHash struct {
	hash.Hash
	n uint64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += uint64(len(p))
	return c.Hash.Write(p)
}

func (st *Stream) asyncErr() error {
	st.amu.Lock()
	defer st.amu.Unlock()
	return st.aerr
}

func (st *Stream) setAsyncErr(err error) {
	st.amu.Lock()
	st.aerr = cmp.Or(st.aerr, err)
	st.amu.Unlock()
}

// handoff hands the buffer to the pipe and takes an empty one (none with last: the
// stream is closing); it reports a write of an earlier buffer that failed (then
// sticky).
func (st *Stream) handoff(last bool) error {
	if err := st.asyncErr(); err != nil {
		return st.failWith(err)
	}
	if len(st.buf) == 0 {
		return nil
	}
	p := st.w.p
	if p == nil {
		return st.failWith(&Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + st.key, Msg: "write after the writer was aborted"})
	}
	var b []byte
	if !last {
		b = p.buffer()
	}
	p.hash <- piece{st: st, b: st.buf}
	st.buf = b
	return nil
}

// makeRoom leaves at least need (at most 8) free bytes in st.buf: a buffer shorter than
// streamBuffer grows (doubling), a full one is handed over.
func (st *Stream) makeRoom(need int) error {
	if cap(st.buf)-len(st.buf) >= need {
		return nil
	}
	if c, full := cap(st.buf), max(streamBuffer, 8); c < full {
		b := make([]byte, len(st.buf), min(max(2*c, len(st.buf)+need), full))
		copy(b, st.buf)
		st.buf = b
		if cap(b)-len(b) >= need {
			return nil
		}
	}
	return st.handoff(false)
}

// failWith makes err the stream's sticky error and the writer's.
func (st *Stream) failWith(err error) error {
	st.err = st.w.fail(err)
	st.w.failed = st.err
	return st.err
}

// hashingWriter writes to f and hashes what f accepted: the stored bytes of a payload.
type hashingWriter struct {
	f io.Writer
	h hash.Hash
}

func (hw hashingWriter) Write(p []byte) (int, error) {
	n, err := hw.f.Write(p)
	hw.h.Write(p[:n])
	return n, err
}

// Write appends raw element bytes (any split: whole elements are checked at Close).
func (st *Stream) Write(p []byte) (int, error) {
	if st.err != nil {
		return 0, st.err
	}
	if st.closed {
		st.err = &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + st.key, Msg: "write after close"}
		return 0, st.err
	}
	n := 0
	for len(p) > 0 {
		if err := st.makeRoom(1); err != nil {
			return n, err
		}
		k := copy(st.buf[len(st.buf):cap(st.buf)], p)
		st.buf = st.buf[:len(st.buf)+k]
		st.n += uint64(k)
		n += k
		p = p[k:]
	}
	return n, nil
}

// AppendUint64 appends the elements v of a Uint64 or Int64 stream (as their bit
// patterns), little-endian.
func (st *Stream) AppendUint64(v ...uint64) error {
	if st.dtype.Width() != 8 {
		return &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + st.key, Msg: "AppendUint64 on a stream of " + st.dtype.String()}
	}
	for len(v) > 0 {
		// Encode straight into the buffer's free space (handed over when it is short).
		if st.err != nil || st.closed {
			_, err := st.Write(nil)
			return err
		}
		if err := st.makeRoom(8); err != nil {
			return err
		}
		k := min(len(v), (cap(st.buf)-len(st.buf))/8)
		for _, x := range v[:k] {
			st.buf = binary.LittleEndian.AppendUint64(st.buf, x)
		}
		st.n += 8 * uint64(k)
		v = v[k:]
	}
	return nil
}

// Len returns the bytes appended so far.
func (st *Stream) Len() uint64 { return st.n }

// Close flushes, fsyncs and closes the payload and records it for the manifest. The
// bytes must be whole elements.
func (st *Stream) Close() error {
	if st.closed {
		return st.err
	}
	st.closed = true
	// Every buffer of the stream is written before its file is touched here.
	if st.err == nil {
		_ = st.handoff(true) // a failure is st.err, reported below
	}
	st.buf = nil
	delete(st.w.open, st.key)
	if p := st.w.p; p != nil {
		p.barrier()
		if len(st.w.open) == 0 {
			p.stop()
			st.w.p = nil
		}
	}
	if err := st.asyncErr(); err != nil && st.err == nil {
		_ = st.failWith(err) // st.err, reported below
	}
	if st.err != nil {
		st.f.Close()
		st.w.failed = cmp.Or(st.w.failed, st.err)
		return st.err
	}
	if st.n%uint64(st.dtype.Width()) != 0 {
		st.f.Close()
		st.err = &Error{Code: CodeInvalidArray, Op: "publish", Field: "arrays." + st.key, Msg: "byte length is not a multiple of the dtype width"}
		st.w.failed = st.err
		return st.err
	}
	var err error
	if st.z != nil {
		err = st.z.Close()
	}
	if err == nil {
		err = st.f.Sync()
	}
	if err != nil {
		st.f.Close()
		st.err = st.w.fail(err)
		st.w.failed = st.err
		return st.err
	}
	if err := st.f.Close(); err != nil {
		st.err = st.w.fail(err)
		st.w.failed = st.err
		return st.err
	}
	var sum [32]byte
	st.h.Sum(sum[:0])
	e := entry{File: arrayFile(st.key), DType: st.dtype, Count: st.n / uint64(st.dtype.Width()), ByteLength: st.n, SHA256: sum}
	switch {
	case st.z != nil:
		e.Encoding, e.StoredLength = EncodingZstd, st.stored.n
		st.stored.Sum(e.StoredSHA256[:0])
	case st.w.version() == FormatVersion2:
		e.Encoding, e.StoredLength, e.StoredSHA256 = EncodingRaw, e.ByteLength, e.SHA256
	}
	st.w.entries[st.key] = e
	return nil
}

// ValidSpillName reports whether name can name a spill file: [a-z0-9][a-z0-9-]{0,63}.
func ValidSpillName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' {
		return false
	}
	return strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

// CreateSpill creates the scratch file name in the attempt's spill directory (made on
// first use), through the store's filesystem. Spill files never live anywhere but
// inside the attempt; Commit and Abort remove them.
func (w *Writer) CreateSpill(name string) (vfs.File, error) {
	if w.done {
		return nil, &Error{Code: CodeInvalidArray, Op: "spill", Path: w.attempt, Msg: "the writer is committed or aborted"}
	}
	if !ValidSpillName(name) {
		return nil, &Error{Code: CodeInvalidArray, Op: "spill", Field: "name", Msg: "spill file name does not match [a-z0-9][a-z0-9-]{0,63}"}
	}
	dir := filepath.Join(w.attempt, spillDir)
	if !w.spill {
		if err := w.s.fs.Mkdir(dir, 0o755); err != nil {
			return nil, &Error{Code: CodeIO, Op: "spill", Path: dir, Msg: "attempt kept for inspection", Err: err}
		}
		w.spill = true
	}
	p := filepath.Join(dir, name)
	f, err := w.s.fs.Create(p)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "spill", Path: p, Msg: "attempt kept for inspection", Err: err}
	}
	return spillFile{f: f, path: p}, nil
}

// spillFile gives the errors of a spill file the store's code (CodeIO) and its path.
type spillFile struct {
	f    vfs.File
	path string
}

func (f spillFile) wrap(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &Error{Code: CodeIO, Op: "spill", Path: f.path, Msg: "attempt kept for inspection", Err: err}
}

func (f spillFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	return n, f.wrap(err)
}

func (f spillFile) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, f.wrap(err)
}

func (f spillFile) Sync() error                { return f.wrap(f.f.Sync()) }
func (f spillFile) Close() error               { return f.wrap(f.f.Close()) }
func (f spillFile) Stat() (fs.FileInfo, error) { fi, err := f.f.Stat(); return fi, f.wrap(err) }

// OpenSpill opens the spill file name for reading.
func (w *Writer) OpenSpill(name string) (vfs.File, error) {
	if !ValidSpillName(name) {
		return nil, &Error{Code: CodeInvalidArray, Op: "spill", Field: "name", Msg: "spill file name does not match [a-z0-9][a-z0-9-]{0,63}"}
	}
	p := filepath.Join(w.attempt, spillDir, name)
	f, err := w.s.fs.Open(p)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "spill", Path: p, Err: err}
	}
	return spillFile{f: f, path: p}, nil
}

// RemoveSpill removes the spill file name (a merged run the writer no longer needs).
func (w *Writer) RemoveSpill(name string) error {
	if !ValidSpillName(name) {
		return &Error{Code: CodeInvalidArray, Op: "spill", Field: "name", Msg: "spill file name does not match [a-z0-9][a-z0-9-]{0,63}"}
	}
	p := filepath.Join(w.attempt, spillDir, name)
	if err := w.s.fs.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &Error{Code: CodeIO, Op: "spill", Path: p, Err: err}
	}
	return nil
}

// removeSpill deletes the spill directory and what is in it (files only: CreateSpill
// makes nothing else), never following a symbolic link.
func (w *Writer) removeSpill() error {
	if !w.spill {
		return nil
	}
	dir := filepath.Join(w.attempt, spillDir)
	ents, err := w.s.fs.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, de := range ents {
		if err := w.s.fs.Remove(filepath.Join(dir, de.Name())); err != nil {
			return err
		}
	}
	if err := w.s.fs.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	w.spill = false
	return nil
}

// Abort ends the writer without publishing: open streams are closed, the spill
// directory is removed, and the attempt (intent and any payloads written) stays in
// staging for InspectIncomplete and 'snapshot gc-staging'.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.p != nil { // the buffers in flight are written before the files close
		w.p.stop()
		w.p = nil
	}
	for _, k := range slices.Sorted(maps.Keys(w.open)) {
		w.open[k].f.Close()
		delete(w.open, k)
	}
	if err := w.removeSpill(); err != nil {
		return &Error{Code: CodeIO, Op: "abort", Path: w.attempt, Msg: "spill files kept", Err: err}
	}
	return nil
}

// Commit publishes what was written as snapshot md (md.ID must be the writer's ID):
// it validates the metadata, the fingerprint context (Options.VerifyContext) and the
// parent, removes the spill directory, then runs phases 3 to 5 of Publish: manifest,
// read-back of every payload and the manifest (StepVerify to fn), completion marker,
// rename. Errors are Publish's; the attempt stays in staging on any error before the
// rename.
func (w *Writer) Commit(ctx context.Context, md Metadata, fn ProgressFunc) error {
	if w.done {
		return &Error{Code: CodeInvalidArray, Op: "publish", Path: w.attempt, Msg: "the writer is committed or aborted"}
	}
	if len(w.open) > 0 {
		return &Error{Code: CodeInvalidArray, Op: "publish", Path: w.attempt, Msg: "a stream is still open"}
	}
	if w.failed != nil {
		return w.failed
	}
	md = md.clone()
	if err := md.Validate(); err != nil {
		return opErr(err, "publish")
	}
	if md.ID != w.id {
		return &Error{Code: CodeInvalidMetadata, Op: "publish", Field: "snapshot_id", Msg: "differs from the ID the writer was created with"}
	}
	if w.s.opts.VerifyContext != nil {
		if err := w.s.opts.VerifyContext(md.Fingerprint); err != nil {
			return &Error{Code: CodeContext, Op: "publish", Field: "fingerprint_context", Msg: "fingerprint context rejected", Err: err}
		}
	}
	if err := w.s.checkParent(md); err != nil {
		return err
	}
	if err := w.removeSpill(); err != nil {
		return w.fail(err)
	}
	return w.commit(ctx, md, fn)
}

// commit is phases 3 (manifest) to 5 of Publish on the payloads written; md is valid.
func (w *Writer) commit(ctx context.Context, md Metadata, fn ProgressFunc) error {
	w.done = true
	s := w.s
	m := manifest{Version: w.version(), Meta: md, Entries: w.entries}
	man := m.encode()
	if err := ctx.Err(); err != nil {
		return w.fail(err)
	}
	if err := s.writeFile(filepath.Join(w.attempt, manifestName), man, nil); err != nil {
		return w.fail(err)
	}

	// Phase 4: validate what was staged, then the completion marker.
	if err := s.checkStaged(w.attempt, &m, man, fn); err != nil {
		return w.fail(err)
	}
	sum := sha256.Sum256(man)
	marker := append([]byte(hex.EncodeToString(sum[:])), '\n')
	if err := s.writeFile(filepath.Join(w.attempt, markerName), marker, nil); err != nil {
		return w.fail(err)
	}
	if err := s.fs.SyncDir(w.attempt); err != nil {
		return w.fail(err)
	}

	// Phase 5: validate the complete package, then publish it by one rename.
	if _, _, err := s.check(w.attempt, md.ID, checkStructure, nil, nil); err != nil {
		return w.fail(err)
	}
	if err := ctx.Err(); err != nil {
		return w.fail(err)
	}
	final := s.Path(md.ID)
	if err := s.fs.RenameNoReplace(w.attempt, final); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &Error{Code: CodeExists, Op: "publish", Path: final,
				Msg: "another writer published this snapshot ID first; this attempt is kept at " + w.attempt, Err: err}
		}
		return w.fail(err)
	}
	for _, dir := range []string{filepath.Join(s.root, snapshotsDir), filepath.Join(s.root, stagingDir)} {
		if err := s.fs.SyncDir(dir); err != nil {
			return &Error{Code: CodeCommitUncertain, Op: "publish", Path: final,
				Msg: "the snapshot was renamed into place but its durability is uncertain; inspect this ID before any new action and never overwrite it", Err: err}
		}
	}
	return nil
}

// checkParent refuses a parent that is not a complete published snapshot.
func (s *Store) checkParent(md Metadata) error {
	if md.Parent == nil {
		return nil
	}
	if _, _, err := s.check(s.Path(*md.Parent), *md.Parent, checkStructure, nil, nil); err != nil {
		return &Error{Code: CodeParent, Op: "publish", Field: "parent_id", Msg: "parent is not a complete published snapshot", Err: err}
	}
	return nil
}
