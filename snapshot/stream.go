package snapshot

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// VerifyArrays validates the published snapshot id as OpenArrays does (marker,
// manifest, fingerprint context, exact inventory, every payload's size) and streams
// the stored bytes of the payloads whose keys keep accepts through SHA-256, keeping
// none of them: the first pass of a reader that then streams those payloads
// (ReadArray) in memory independent of their size. Every stored byte is checked
// against the manifest before ReadArray reads it. A zstd-blocks payload is not decoded
// here: its stored_sha256 is checked, and its block rules and logical sha256 are
// checked by the ReadArray stream as it decodes it, the last when it ends (ArrayReader.End;
// PW-C5Z.04 in docs/contracts/C5-compressed.md), so that a diff decodes each payload
// once, not twice. A nil keep verifies every payload; fn receives StepRead of the
// stored bytes.
func (s *Store) VerifyArrays(id ID, keep func(key string) bool, fn ProgressFunc) error {
	dir, err := s.published(id, "verify")
	if err != nil {
		return err
	}
	_, _, err = s.check(dir, id, checkStored, keep, fn)
	return opErr(err, "verify")
}

// readBuffer is the buffer of an ArrayReader.
var readBuffer = 256 << 10

// ReadArray opens the payload of key in the published snapshot id for reading from
// start to end. It checks the package's structure (marker, manifest, inventory, sizes)
// but not the stored bytes' checksum: VerifyArrays first, so that nothing is read from
// bytes that fail it. A zstd-blocks payload is decoded as it is read, checking the
// block rules of PW-C5Z.03 and, at its end, the SHA-256 of the decoded bytes against
// the manifest's sha256: the caller reports nothing derived from the payload until End
// has returned nil (PW-C5Z.04). A key the snapshot lacks matches fs.ErrNotExist.
func (s *Store) ReadArray(id ID, key string) (*ArrayReader, error) {
	dir, err := s.published(id, "read")
	if err != nil {
		return nil, err
	}
	m, _, err := s.check(dir, id, checkStructure, nil, nil)
	if err != nil {
		return nil, opErr(err, "read")
	}
	e, ok := m.Entries[key]
	if !ok {
		return nil, &Error{Code: CodeNotFound, Op: "read", Path: dir, Field: "arrays." + key, Msg: "the snapshot has no such array"}
	}
	p := filepath.Join(dir, e.File)
	f, err := s.fs.Open(p)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "read", Path: p, Err: err}
	}
	var src io.Reader = f
	if e.zstd() {
		z := newZReader(f, p, e.DType.Width(), e.ByteLength)
		z.sum, z.wantSum = sha256.New(), e.SHA256
		src = z
	}
	return &ArrayReader{f: f, r: bufio.NewReaderSize(src, readBuffer), path: p, dtype: e.DType, left: e.Count}, nil
}

// ArrayReader reads one payload's elements in order. It is not safe for concurrent use.
type ArrayReader struct {
	f     vfs.File
	r     *bufio.Reader
	path  string
	dtype DType
	left  uint64 // elements not read yet
}

// DType is the array's element type.
func (r *ArrayReader) DType() DType { return r.dtype }

// Left is the number of elements not read yet.
func (r *ArrayReader) Left() uint64 { return r.left }

// short is the error of a read past the manifest's count, or of a file that ends
// before it (a file changed since it was verified).
func (r *ArrayReader) short(err error) error {
	return &StorageIntegrityError{Path: r.path, Reason: "payload ended before its manifest count", Err: err}
}

// Uint64s reads len(dst) elements of a Uint64 (or Int64) array into dst.
func (r *ArrayReader) Uint64s(dst []uint64) error {
	if r.dtype.Width() != 8 {
		return &Error{Code: CodeInvalidArray, Op: "read", Path: r.path, Msg: "array dtype is " + r.dtype.String()}
	}
	if uint64(len(dst)) > r.left {
		return r.short(nil)
	}
	for len(dst) > 0 {
		b, err := r.r.Peek(min(8*len(dst), r.r.Size()))
		k := len(b) / 8
		if k == 0 {
			return r.short(cmpErr(err))
		}
		for i := range k {
			dst[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		// k whole elements were just peeked: discarding them cannot fail.
		_, _ = r.r.Discard(8 * k)
		dst = dst[k:]
		r.left -= uint64(k)
	}
	return nil
}

// Uint8s reads len(dst) elements of a Uint8 (or Int8) array into dst.
func (r *ArrayReader) Uint8s(dst []uint8) error {
	if r.dtype.Width() != 1 {
		return &Error{Code: CodeInvalidArray, Op: "read", Path: r.path, Msg: "array dtype is " + r.dtype.String()}
	}
	if uint64(len(dst)) > r.left {
		return r.short(nil)
	}
	if _, err := io.ReadFull(r.r, dst); err != nil {
		return r.short(err)
	}
	r.left -= uint64(len(dst))
	return nil
}

func cmpErr(err error) error {
	if err == nil || err == io.EOF || err == bufio.ErrBufferFull {
		return io.ErrUnexpectedEOF
	}
	return err
}

// End checks that the whole payload has been read and is valid to its end: no element
// is left, the file ends there and, for a zstd-blocks payload, the SHA-256 of its
// decoded bytes equals the manifest's sha256. A failure is a *StorageIntegrityError
// naming the file, or an *Error with CodeIO when the file cannot be read. A streaming
// consumer calls it on every array before it reports a result read from them.
func (r *ArrayReader) End() error {
	if r.left != 0 {
		return &StorageIntegrityError{Path: r.path, Reason: "payload not read to its manifest count"}
	}
	var one [1]byte
	n, err := r.r.Read(one[:])
	if n != 0 {
		return &StorageIntegrityError{Path: r.path, Reason: "payload is longer than its manifest count"}
	}
	if err != io.EOF {
		var ie *StorageIntegrityError
		var e *Error
		if errors.As(err, &ie) || errors.As(err, &e) {
			return err // the zstd reader's verdict, or its I/O error
		}
		return &Error{Code: CodeIO, Op: "read", Path: r.path, Err: err}
	}
	return nil
}

// Drain reads the rest of the payload and returns End's verdict on it. A consumer that
// stops on bad content calls it to learn whether the stored payload fails its checksum
// (the storage integrity error then explains the bad content); it costs the rest of
// the read, on a path that fails anyway.
func (r *ArrayReader) Drain() error {
	for r.left > 0 {
		k := min(uint64(r.r.Size()), r.left*uint64(r.dtype.Width()))
		n, err := r.r.Discard(int(k))
		r.left -= uint64(n / r.dtype.Width())
		if err != nil {
			return r.short(cmpErr(err))
		}
	}
	return r.End()
}

// Close closes the payload file.
func (r *ArrayReader) Close() error { return r.f.Close() }
