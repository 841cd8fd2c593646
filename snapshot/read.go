package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// Snapshot is an opened snapshot: its metadata and its arrays. Both are owned copies:
// changing them changes nothing stored, and Array values cannot be changed at all.
type Snapshot struct {
	Metadata Metadata
	Arrays   map[string]Array
}

// Keys returns the array keys in sorted order.
func (s *Snapshot) Keys() []string {
	keys := make([]string, 0, len(s.Arrays))
	for k := range s.Arrays {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Open validates the published snapshot id completely (marker, manifest, inventory,
// sizes, checksums, fingerprint context) and returns it with its arrays in memory. A
// missing ID gives an error matching fs.ErrNotExist; failed validation gives a
// *StorageIntegrityError naming the file. Opening never needs the parent.
func (s *Store) Open(id ID) (*Snapshot, error) { return s.OpenWithProgress(id, nil) }

// OpenWithProgress is Open reporting StepRead: the payload bytes read and checked of
// their total. A nil fn reports nothing.
func (s *Store) OpenWithProgress(id ID, fn ProgressFunc) (*Snapshot, error) {
	dir, err := s.published(id, "open")
	if err != nil {
		return nil, err
	}
	m, arrays, err := s.check(dir, id, checkLoad, nil, fn)
	if err != nil {
		return nil, opErr(err, "open")
	}
	return &Snapshot{Metadata: m.Meta.clone(), Arrays: arrays}, nil
}

// OpenArrays is OpenWithProgress for the arrays whose keys keep accepts: the package
// is checked as Open checks it (marker, manifest, fingerprint context, exact
// inventory, every payload's size), and the accepted payloads are read, checksummed
// and returned. The other payloads are not read, so their checksums are not verified:
// a reader that needs only a snapshot's small arrays does not pay for its large ones.
// A nil fn reports nothing.
func (s *Store) OpenArrays(id ID, keep func(key string) bool, fn ProgressFunc) (*Snapshot, error) {
	dir, err := s.published(id, "open")
	if err != nil {
		return nil, err
	}
	m, arrays, err := s.check(dir, id, checkLoad, keep, fn)
	if err != nil {
		return nil, opErr(err, "open")
	}
	return &Snapshot{Metadata: m.Meta.clone(), Arrays: arrays}, nil
}

// Verify validates the published snapshot id exactly as Open does, streaming the
// payloads through SHA-256 instead of keeping them.
func (s *Store) Verify(id ID) error {
	dir, err := s.published(id, "verify")
	if err != nil {
		return err
	}
	_, _, err = s.check(dir, id, checkSums, nil, nil)
	return opErr(err, "verify")
}

// Stat validates the published snapshot id as Verify does and returns its metadata and
// its array inventory (key, dtype, count), without keeping the payloads.
func (s *Store) Stat(id ID) (Metadata, []ArrayInfo, error) {
	dir, err := s.published(id, "stat")
	if err != nil {
		return Metadata{}, nil, err
	}
	m, _, err := s.check(dir, id, checkSums, nil, nil)
	if err != nil {
		return Metadata{}, nil, opErr(err, "stat")
	}
	return m.Meta.clone(), m.inventory(), nil
}

// ArrayInfo describes one stored array.
type ArrayInfo struct {
	Key        string
	File       string
	DType      DType
	Count      uint64
	ByteLength uint64
	SHA256     string // of the logical bytes: 64 lowercase hexadecimal characters

	// Encoding is how the file stores the logical bytes: "" in a C5 version 1 snapshot
	// (the file is the logical bytes), EncodingRaw or EncodingZstd in a C5-compressed one.
	// StoredLength and StoredSHA256 are the file's size and SHA-256; in version 1 they
	// equal ByteLength and SHA256.
	Encoding     string
	StoredLength uint64
	StoredSHA256 string
}

func (m *manifest) inventory() []ArrayInfo {
	out := make([]ArrayInfo, 0, len(m.Entries))
	for k, e := range m.Entries {
		n, sum := e.stored()
		out = append(out, ArrayInfo{Key: k, File: e.File, DType: e.DType, Count: e.Count,
			ByteLength: e.ByteLength, SHA256: hex.EncodeToString(e.SHA256[:]),
			Encoding: e.Encoding, StoredLength: n, StoredSHA256: hex.EncodeToString(sum[:])})
	}
	slices.SortFunc(out, func(a, b ArrayInfo) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// payloadBytes is the total byte_length of the manifest's payloads.
func (m *manifest) payloadBytes() uint64 {
	var n uint64
	for _, e := range m.Entries {
		n += e.ByteLength
	}
	return n
}

// storedOf is the stored_length (the file size) of the entries keys names.
func (m *manifest) storedOf(keys []string) uint64 {
	var n uint64
	for _, k := range keys {
		stored, _ := m.Entries[k].stored()
		n += stored
	}
	return n
}

// bytesOf is the payload bytes of the entries keys names.
func (m *manifest) bytesOf(keys []string) uint64 {
	var n uint64
	for _, k := range keys {
		n += m.Entries[k].ByteLength
	}
	return n
}

// List validates every published snapshot (as Verify does) and returns their metadata
// ordered by finish time, then ID. Any corrupt package, or any entry of root/snapshots
// that is not a snapshot directory, fails the whole listing visibly: a corrupt snapshot
// never silently disappears. A store with nothing published lists nothing.
func (s *Store) List() ([]Metadata, error) {
	dir := filepath.Join(s.root, snapshotsDir)
	ents, err := s.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "list", Path: dir, Err: err}
	}
	var out []Metadata
	for _, de := range ents {
		p := filepath.Join(dir, de.Name())
		id, err := ParseID(de.Name())
		if err != nil || !de.IsDir() {
			return nil, &StorageIntegrityError{Path: p, Reason: "unexpected entry in the snapshots directory"}
		}
		m, _, err := s.check(p, id, checkSums, nil, nil)
		if err != nil {
			return nil, opErr(err, "list")
		}
		out = append(out, m.Meta.clone())
	}
	slices.SortFunc(out, func(a, b Metadata) int {
		if a.FinishedAtNs != b.FinishedAtNs {
			if a.FinishedAtNs < b.FinishedAtNs {
				return -1
			}
			return 1
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	return out, nil
}

// published returns the directory of published id, or an error matching fs.ErrNotExist.
func (s *Store) published(id ID, op string) (string, error) {
	dir := s.Path(id)
	fi, err := s.fs.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &Error{Code: CodeNotFound, Op: op, Path: dir, Msg: "no published snapshot has this ID", Err: err}
	}
	if err != nil {
		return "", &Error{Code: CodeIO, Op: op, Path: dir, Err: err}
	}
	if !fi.IsDir() {
		return "", &StorageIntegrityError{Path: dir, Reason: "not a directory"}
	}
	return dir, nil
}

type checkLevel int

const (
	checkStructure checkLevel = iota // marker, manifest, exact inventory, file sizes
	checkStored                      // and every payload's stored_sha256, streamed (no decoding)
	checkSums                        // and every payload's SHA-256, streamed
	checkLoad                        // and the payloads read into owned Arrays
)

// check validates the package in dir, which must hold snapshot id. Staged and published
// packages are the same directory (publication renames it), so both hold intent.json.
// A non-nil sel limits the payloads checksummed (and, at checkLoad, read) to those
// whose keys it accepts; the structure is checked whole. fn, when not nil, receives
// StepRead progress of the payloads (checkLoad only).
func (s *Store) check(dir string, id ID, level checkLevel, sel func(string) bool, fn ProgressFunc) (*manifest, map[string]Array, error) {
	ents, err := s.fs.ReadDir(dir)
	if err != nil {
		return nil, nil, &Error{Code: CodeIO, Path: dir, Err: err}
	}
	files := make(map[string]fs.DirEntry, len(ents))
	for _, de := range ents {
		files[de.Name()] = de
	}
	markerPath := filepath.Join(dir, markerName)
	manPath := filepath.Join(dir, manifestName)
	for _, p := range []string{markerPath, manPath} {
		if _, ok := files[filepath.Base(p)]; !ok {
			return nil, nil, &StorageIntegrityError{Path: p, Reason: "missing"}
		}
	}
	marker, err := s.readSmall(markerPath, 65)
	if err != nil {
		return nil, nil, err
	}
	if len(marker) != 65 || marker[64] != '\n' || !isLowerHex(string(marker[:64]), 64) {
		return nil, nil, &StorageIntegrityError{Path: markerPath, Reason: "not 64 lowercase hexadecimal characters and a newline"}
	}
	man, err := s.readSmall(manPath, s.opts.MaxManifestBytes)
	if err != nil {
		return nil, nil, err
	}
	if sum := sha256.Sum256(man); hex.EncodeToString(sum[:]) != string(marker[:64]) {
		return nil, nil, &StorageIntegrityError{Path: manPath, Reason: "SHA-256 does not match " + markerName}
	}
	m, err := decodeManifest(man)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == CodeUnsupported {
			e.Path = manPath
			return nil, nil, err
		}
		return nil, nil, &StorageIntegrityError{Path: manPath, Reason: "invalid manifest", Err: err}
	}
	if m.Meta.ID != id {
		return nil, nil, &StorageIntegrityError{Path: manPath, Reason: "snapshot_id does not match the directory"}
	}
	// Readers check the fingerprint context; the structural checks of a parent (whose
	// historical context may differ and stays explicit) and of a package being
	// published (already checked in phase 1) do not.
	if s.opts.VerifyContext != nil && level != checkStructure {
		if err := s.opts.VerifyContext(m.Meta.Fingerprint); err != nil {
			return nil, nil, &Error{Code: CodeContext, Path: manPath, Field: "snapshot.fingerprint_context", Msg: "fingerprint context rejected", Err: err}
		}
	}
	// Exact inventory: nothing missing, nothing extra, only regular files.
	want := map[string]bool{markerName: true, manifestName: true, intentName: true}
	for _, e := range m.Entries {
		want[e.File] = true
	}
	for name := range want {
		if _, ok := files[name]; !ok {
			return nil, nil, &StorageIntegrityError{Path: filepath.Join(dir, name), Reason: "missing"}
		}
	}
	for _, de := range ents {
		p := filepath.Join(dir, de.Name())
		if !want[de.Name()] {
			return nil, nil, &StorageIntegrityError{Path: p, Reason: "unexpected file"}
		}
		if !de.Type().IsRegular() {
			return nil, nil, &StorageIntegrityError{Path: p, Reason: "not a regular file"}
		}
	}
	{
		ip := filepath.Join(dir, intentName)
		b, err := s.readSmall(ip, 256)
		if err != nil {
			return nil, nil, err
		}
		if iid, err := decodeIntent(b); err != nil {
			return nil, nil, &StorageIntegrityError{Path: ip, Reason: "invalid intent", Err: err}
		} else if iid != id {
			return nil, nil, &StorageIntegrityError{Path: ip, Reason: "intent names another snapshot ID"}
		}
	}
	keys := make([]string, 0, len(m.Entries))
	for k := range m.Entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// Sizes first: cheap, and they bound every allocation below.
	for _, k := range keys {
		e := m.Entries[k]
		p := filepath.Join(dir, e.File)
		fi, err := s.fs.Lstat(p)
		if err != nil {
			return nil, nil, &Error{Code: CodeIO, Path: p, Err: err}
		}
		if n, _ := e.stored(); !fi.Mode().IsRegular() || fi.Size() < 0 || uint64(fi.Size()) != n {
			return nil, nil, &StorageIntegrityError{Path: p, Reason: "file size does not match the manifest byte_length"}
		}
	}
	if level == checkStructure {
		return m, nil, nil
	}
	if sel != nil {
		keys = slices.DeleteFunc(keys, func(k string) bool { return !sel(k) })
	}
	var arrays map[string]Array
	if level == checkLoad {
		arrays = make(map[string]Array, len(keys))
	}
	total := m.bytesOf(keys)
	if level == checkStored {
		total = m.storedOf(keys)
	}
	data, err := s.hashFiles(dir, m, keys, level == checkLoad, level == checkStored, "SHA-256 does not match the manifest", newMeter(fn, StepRead, total))
	if err != nil {
		return nil, nil, err
	}
	if arrays != nil {
		for i, k := range keys {
			arrays[k] = Array{dtype: m.Entries[k].DType, data: data[i]}
		}
	}
	return m, arrays, nil
}

// checkStaged is phase 4 of Publish: the staged manifest and payloads read back equal
// what was meant to be written.
func (s *Store) checkStaged(dir string, m *manifest, man []byte, fn ProgressFunc) error {
	manPath := filepath.Join(dir, manifestName)
	got, err := s.readSmall(manPath, int64(len(man)))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, man) {
		return &StorageIntegrityError{Path: manPath, Reason: "staged manifest differs from the one written"}
	}
	if _, err := decodeManifest(got); err != nil {
		return &StorageIntegrityError{Path: manPath, Reason: "invalid manifest", Err: err}
	}
	_, err = s.hashFiles(dir, m, slices.Sorted(maps.Keys(m.Entries)), false, false, "staged payload SHA-256 does not match", newMeter(fn, StepVerify, m.payloadBytes()))
	return err
}

// readSmall reads a whole file of at most max bytes.
func (s *Store) readSmall(path string, max int64) ([]byte, error) {
	f, err := s.fs.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &StorageIntegrityError{Path: path, Reason: "missing", Err: err}
		}
		return nil, &Error{Code: CodeIO, Path: path, Err: err}
	}
	defer f.Close()
	// io.ReadAll's first 512 bytes would grow five times for a 5 KB manifest, read by
	// the thousand when a report or why checks summaries.
	b := make([]byte, 0, min(max+1, 8<<10))
	for int64(len(b)) <= max {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(int64(cap(b)), max+1)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{Code: CodeIO, Path: path, Err: err}
		}
	}
	if int64(len(b)) > max {
		return nil, &StorageIntegrityError{Path: path, Reason: "file is larger than allowed"}
	}
	return b, nil
}

// hashFiles checks the payload files of the manifest entries keys in dir: each holds
// exactly its byte_length and has its SHA-256 (else a StorageIntegrityError with reason
// mismatch). With keep it returns their bytes, in the order of keys. With storedOnly a
// zstd-blocks payload is checked against its stored_sha256 only, without decoding it:
// the first pass of a streaming reader, whose second pass (ReadArray) decodes it and
// checks the block rules and its logical sha256 (PW-C5Z.04). The files are opened
// one after another in key order, so a filesystem hook sees the operations in the same
// order whatever the core count; they are read and hashed on up to GOMAXPROCS goroutines,
// since SHA-256 is most of the cost of loading a large snapshot. The error is the one a
// check of one key after the other would meet first: the files before a file that cannot
// be opened are checked first.
func (s *Store) hashFiles(dir string, m *manifest, keys []string, keep, storedOnly bool, mismatch string, progress *meter) ([][]byte, error) {
	files := make([]vfs.File, 0, len(keys))
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var openErr error
	for _, k := range keys {
		p := filepath.Join(dir, m.Entries[k].File)
		f, err := s.fs.Open(p)
		if err != nil {
			openErr = &Error{Code: CodeIO, Path: p, Err: err}
			if errors.Is(err, fs.ErrNotExist) {
				openErr = &StorageIntegrityError{Path: p, Reason: "missing", Err: err}
			}
			break
		}
		files = append(files, f)
	}
	n := len(files)
	data := make([][]byte, n)
	sums := make([][32]byte, n)
	logical := make([][32]byte, n) // of the decoded bytes of zstd-blocks payloads
	errs := make([]error, n)
	// Read scratch per worker: 1 MiB, or the largest file when all are smaller (a small
	// snapshot, loaded by the thousand in a report, must not allocate megabytes).
	var largest uint64
	for _, k := range keys[:n] {
		stored, _ := m.Entries[k].stored()
		largest = max(largest, stored)
	}
	scratch := int(min(1<<20, max(largest, 512)))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			buf := make([]byte, scratch)
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				e := m.Entries[keys[i]]
				if e.zstd() && !storedOnly {
					data[i], sums[i], logical[i], errs[i] = hashZstd(files[i], filepath.Join(dir, e.File), &e, keep, progress)
					continue
				}
				n, _ := e.stored()
				data[i], sums[i], errs[i] = hashFile(files[i], filepath.Join(dir, e.File), n, keep, buf, progress)
			}
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			return nil, errs[i]
		}
		e := m.Entries[keys[i]]
		if _, stored := e.stored(); sums[i] != stored || (e.zstd() && !storedOnly && logical[i] != e.SHA256) {
			return nil, &StorageIntegrityError{Path: filepath.Join(dir, e.File), Reason: mismatch}
		}
	}
	if openErr != nil {
		return nil, openErr
	}
	return data, nil
}

// hashFile streams the open file f (at path) through SHA-256, checking it holds exactly n
// bytes; with keep it also returns the bytes. buf is read scratch; progress counts the
// bytes hashed.
func hashFile(f vfs.File, path string, n uint64, keep bool, buf []byte, progress *meter) ([]byte, [32]byte, error) {
	var sum [32]byte
	h := sha256.New()
	var data []byte
	var got int64
	if keep {
		if fi, err := f.Stat(); err != nil || fi.Size() != int64(n) {
			return nil, sum, &StorageIntegrityError{Path: path, Reason: "file size does not match the manifest byte_length"}
		}
		data = make([]byte, n)
		// Huge pages before the first touch: a large array then faults in 2 MiB at a
		// time rather than 4 KiB (a 10 M-row record snapshot is about 1 GB).
		hugemem.Advise(data)
		for off := 0; off < len(data); {
			chunk := data[off:min(off+hashChunk, len(data))]
			k, err := io.ReadFull(f, chunk)
			if err != nil {
				return nil, sum, &StorageIntegrityError{Path: path, Reason: "file is shorter than the manifest byte_length", Err: err}
			}
			h.Write(chunk)
			progress.add(k)
			off += k
		}
		got = int64(len(data))
	} else {
		var err error
		got, err = io.CopyBuffer(h, &meteredReader{r: io.LimitReader(f, int64(n)), m: progress}, buf)
		if err != nil {
			return nil, sum, &Error{Code: CodeIO, Path: path, Err: err}
		}
	}
	if uint64(got) != n {
		return nil, sum, &StorageIntegrityError{Path: path, Reason: "file is shorter than the manifest byte_length"}
	}
	var one [1]byte
	if k, _ := f.Read(one[:]); k != 0 {
		return nil, sum, &StorageIntegrityError{Path: path, Reason: "file is longer than the manifest byte_length"}
	}
	h.Sum(sum[:0])
	return data, sum, nil
}

// hashZstd streams the zstd-blocks payload f (at path) of entry e once: the SHA-256 of
// its stored bytes, the block rules of PW-C5Z.03, and the SHA-256 of the decoded bytes
// (the logical payload, kept when keep). progress counts the logical bytes, as the
// manifest's byte_length totals them.
func hashZstd(f vfs.File, path string, e *entry, keep bool, progress *meter) ([]byte, [32]byte, [32]byte, error) {
	var stored, logical [32]byte
	src := &teeHash{r: f, h: sha256.New()}
	z := newZReader(src, path, e.DType.Width(), e.ByteLength)
	h := sha256.New()
	var data []byte
	if keep {
		data = make([]byte, 0, e.ByteLength)
		hugemem.Advise(data[:cap(data)])
	}
	for {
		if z.off == len(z.raw) {
			if err := z.next(); err == io.EOF {
				break
			} else if err != nil {
				return nil, stored, logical, err
			}
		}
		h.Write(z.raw)
		progress.add(len(z.raw))
		if keep {
			data = append(data, z.raw...)
		}
		z.off = len(z.raw)
	}
	if src.n != e.StoredLength {
		return nil, stored, logical, &StorageIntegrityError{Path: path, Reason: "file size does not match the manifest stored_length"}
	}
	src.h.Sum(stored[:0])
	h.Sum(logical[:0])
	return data, stored, logical, nil
}

// meteredReader counts the bytes read through it on m.
type meteredReader struct {
	r io.Reader
	m *meter
}

func (r *meteredReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.m.add(n)
	return n, err
}
