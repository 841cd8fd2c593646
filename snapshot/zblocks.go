package snapshot

import (
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Payload encodings of a version 2 manifest (docs/contracts/C5-compressed.md, PW-C5Z.02).
const (
	EncodingRaw  = "raw"
	EncodingZstd = "zstd-blocks"
)

// Bounds of the zstd-blocks stream (PW-C5Z.03). They bound a reader's memory: one
// block's frame and one block's decompressed bytes.
const (
	zMaxRaw    = 4 << 20
	zMaxFrame  = 4<<20 + 64<<10
	zMaxWindow = 8 << 20
	zHeader    = 8
)

// zBlock is the decompressed size of the blocks this package writes (the last one of a
// payload may be shorter). A multiple of every dtype width, at most zMaxRaw. Each open
// reader of a payload holds about two blocks (frame and decoded bytes) beside its read
// buffer, and a diff opens some twenty: 256 KiB keeps that near the version 1 readers'
// memory at a compression ratio close to that of whole payloads.
var zBlock = 256 << 10

// zEncoder and zDecoder are shared: EncodeAll and DecodeAll are safe for concurrent use,
// and sharing keeps their (large) internal state to one per process.
var (
	zEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<20))
		if err != nil {
			panic("snapshot: zstd encoder options: " + err.Error()) // constant options: a programming error
		}
		return e
	})
	zDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(zMaxRaw), zstd.WithDecoderMaxWindow(zMaxWindow),
			zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(0))
		if err != nil {
			panic("snapshot: zstd decoder options: " + err.Error()) // constant options: a programming error
		}
		return d
	})
)

// zWriter compresses logical payload bytes into zstd-blocks, one block per zBlock bytes
// of input, written to dst as each block fills. It keeps one block of input and its
// frame: memory independent of the payload's size.
type zWriter struct {
	dst   io.Writer
	raw   []byte
	frame []byte
}

func newZWriter(dst io.Writer) *zWriter {
	return &zWriter{dst: dst, raw: make([]byte, 0, zBlock)}
}

func (z *zWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if len(z.raw) == 0 && len(p) >= cap(z.raw) {
			// A whole block of input at a block boundary (the Stream's buffer flushes
			// whole blocks): encoded where it lies, not copied first. The blocks are
			// cut at the same offsets either way, so the bytes written are the same.
			if err := z.encode(p[:cap(z.raw)]); err != nil {
				return n, err
			}
			p = p[cap(z.raw):]
			n += cap(z.raw)
			continue
		}
		k := min(len(p), cap(z.raw)-len(z.raw))
		z.raw = append(z.raw, p[:k]...)
		p = p[k:]
		n += k
		if len(z.raw) == cap(z.raw) {
			if err := z.flush(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// flush writes the buffered input as one block (nothing when it is empty).
func (z *zWriter) flush() error {
	if len(z.raw) == 0 {
		return nil
	}
	err := z.encode(z.raw)
	z.raw = z.raw[:0]
	return err
}

// encode writes raw (1 to zBlock bytes) as one block.
func (z *zWriter) encode(raw []byte) error {
	z.frame = append(z.frame[:0], make([]byte, zHeader)...)
	z.frame = zEncoder().EncodeAll(raw, z.frame)
	binary.LittleEndian.PutUint32(z.frame[0:], uint32(len(raw)))
	binary.LittleEndian.PutUint32(z.frame[4:], uint32(len(z.frame)-zHeader))
	_, err := z.dst.Write(z.frame)
	return err
}

// Close writes the last, partial block. It does not close dst.
func (z *zWriter) Close() error { return z.flush() }

// zReader decodes a zstd-blocks stream from src into the payload's logical bytes,
// checking every rule of PW-C5Z.03 against the manifest's byte_length (want) and dtype
// width. Every violation is a *StorageIntegrityError naming path; it never panics on
// any input. Memory: one frame and one block, whatever the payload's size.
type zReader struct {
	src   io.Reader
	path  string
	width int
	want  uint64 // logical bytes the manifest promises
	got   uint64 // logical bytes decoded so far
	frame []byte
	raw   []byte
	off   int // read position in raw
	err   error
	hdr   [zHeader]byte // a field, not a local: a local escapes, one allocation a block
	// sum, when set, hashes the decoded bytes; at the end of the stream they must hash
	// to wantSum (the manifest's logical sha256), else the stream ends in an error.
	sum     hash.Hash
	wantSum [32]byte
}

func newZReader(src io.Reader, path string, width int, want uint64) *zReader {
	return &zReader{src: src, path: path, width: width, want: want}
}

func (z *zReader) corrupt(reason string, err error) error {
	return &StorageIntegrityError{Path: z.path, Reason: reason, Err: err}
}

func (z *zReader) Read(p []byte) (int, error) {
	for z.off == len(z.raw) {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.next()
		if z.sum != nil {
			z.sum.Write(z.raw)
			if z.err == io.EOF {
				var got [32]byte
				if z.sum.Sum(got[:0]); got != z.wantSum {
					z.err = z.corrupt("SHA-256 of the decoded payload does not match the manifest sha256", nil)
				}
			}
		}
	}
	n := copy(p, z.raw[z.off:])
	z.off += n
	return n, nil
}

// next decodes the next block into raw, or returns io.EOF after the last one (once the
// stream has ended exactly at byte_length) or the error that stops the stream.
func (z *zReader) next() error {
	z.raw, z.off = z.raw[:0], 0
	h := &z.hdr
	k, err := io.ReadFull(z.src, h[:])
	if k == 0 && errors.Is(err, io.EOF) {
		if z.got != z.want {
			return z.corrupt("compressed payload ends before its manifest byte_length", nil)
		}
		return io.EOF
	}
	if err != nil {
		return z.readErr("compressed payload ends inside a block header", err)
	}
	if z.got == z.want {
		return z.corrupt("bytes after the last block of a compressed payload", nil)
	}
	rawLen := uint64(binary.LittleEndian.Uint32(h[0:]))
	frameLen := int(binary.LittleEndian.Uint32(h[4:]))
	switch {
	case rawLen == 0 || rawLen > zMaxRaw:
		return z.corrupt("block raw_length out of bounds", nil)
	case rawLen%uint64(z.width) != 0:
		return z.corrupt("block raw_length is not whole elements", nil)
	case rawLen > z.want-z.got:
		return z.corrupt("blocks hold more than the manifest byte_length", nil)
	case frameLen == 0 || frameLen > zMaxFrame:
		return z.corrupt("block frame_length out of bounds", nil)
	}
	if cap(z.frame) < frameLen {
		z.frame = make([]byte, frameLen)
	}
	z.frame = z.frame[:frameLen]
	if _, err := io.ReadFull(z.src, z.frame); err != nil {
		return z.readErr("compressed payload ends inside a block's frames", err)
	}
	if cap(z.raw) < int(rawLen) {
		z.raw = make([]byte, 0, rawLen)
	}
	out, err := zDecoder().DecodeAll(z.frame, z.raw[:0:rawLen])
	if err != nil {
		return z.corrupt("block frames do not decode", err)
	}
	if uint64(len(out)) != rawLen {
		return z.corrupt("block frames do not decode to raw_length bytes", nil)
	}
	z.raw = out
	z.got += rawLen
	return nil
}

// readErr is a short read of the stored file (an integrity failure) or an I/O error.
func (z *zReader) readErr(reason string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return z.corrupt(reason, err)
	}
	var ie *StorageIntegrityError
	if errors.As(err, &ie) {
		return err
	}
	return &Error{Code: CodeIO, Op: "read", Path: z.path, Err: err}
}

// teeHash hashes everything read through it (the stored bytes of a payload).
type teeHash struct {
	r io.Reader
	h hash.Hash
	n uint64
}

func (t *teeHash) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.h.Write(p[:n])
	t.n += uint64(n)
	return n, err
}
