package arrowfb

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
)

// Format is the layout of an Arrow IPC input.
type Format int

const (
	Stream Format = iota // the IPC stream format: messages from byte 0
	File                 // the IPC file format: "ARROW1", a stream, a footer, "ARROW1"
)

// Options says what Check reads and how much it accepts.
type Options struct {
	Format Format
	// MaxDepth is the deepest field nesting accepted: a schema's own fields are at depth
	// 0, their children at 1.
	MaxDepth int
	// PartialTail leaves a truncated stream to the reader: a message after the first whose
	// length prefix, metadata or body runs past the end of the input ends the check without
	// an error, and the reader reports the truncation when it reaches that message. Only a
	// message whose claimed metadata and body lengths are each no longer than the input is
	// left to it (arrow-go's stream reader allocates them before reading and, as of
	// v18.8.0, ignores its size limits), so what the reader allocates stays bounded by the
	// input. Everything before that message is checked. Files are always checked whole.
	PartialTail bool
}

// Error is a check that failed.
type Error struct {
	Part   string // what failed: "file", "footer", "message", "record batch block 2", ...
	Offset int64  // where that part starts in the input
	Msg    string // what is wrong with it

	truncated bool // the part runs past the end of the input, and claims no more than it holds
}

func (e *Error) Error() string {
	return fmt.Sprintf("Arrow IPC %s at byte %d: %s", e.Part, e.Offset, e.Msg)
}

// magic begins and ends the IPC file format.
var magic = []byte("ARROW1")

// ParquetSchemaKey is the Parquet footer key under which arrow-go writers store the
// Arrow schema (base64 of an IPC stream's schema message).
const ParquetSchemaKey = "ARROW:schema"

// Check checks the IPC file or stream r of size bytes as the package documentation says.
func Check(r io.ReaderAt, size int64, o Options) error {
	c := checker{r: r, o: o}
	if o.Format == File {
		return c.file(size)
	}
	return c.stream(0, size, "message", 0)
}

// CheckParquetSchema checks value, the ParquetSchemaKey entry of a Parquet footer, before
// pqarrow decodes it: the base64 is decoded as pqarrow decodes it and the first message
// of the stream it holds is checked (pqarrow reads only that one). A value that is not
// base64 is left to pqarrow, which rejects it. o.Format and o.PartialTail are ignored.
func CheckParquetSchema(value string, o Options) error {
	var data []byte
	var err error
	if len(value)%4 == 0 {
		data, err = base64.StdEncoding.DecodeString(value)
	}
	if len(data) == 0 || err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(value); err != nil {
			return nil
		}
	}
	c := checker{r: bytes.NewReader(data), o: Options{MaxDepth: o.MaxDepth}}
	return c.stream(0, int64(len(data)), ParquetSchemaKey+" message", 1)
}

type checker struct {
	r io.ReaderAt
	o Options
}

// read fills b from off, which the caller has bounded by the input (a ReaderAt may
// return io.EOF with a full read at the end).
func (c *checker) read(b []byte, off int64) error {
	n, err := c.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// int32At reads the little-endian int32 at off.
func (c *checker) int32At(off int64) (int64, error) {
	var w [4]byte
	if err := c.read(w[:], off); err != nil {
		return 0, err
	}
	return int64(int32(binary.LittleEndian.Uint32(w[:]))), nil
}

// stream walks the encapsulated messages from off to end: at most limit of them (0: all),
// until the end-of-stream marker or end.
func (c *checker) stream(off, end int64, part string, limit int) error {
	for i := 0; off < end && (limit == 0 || i < limit); i++ {
		at := off
		fail := func(truncated bool, format string, args ...any) error {
			if truncated && i > 0 && c.o.PartialTail {
				return nil
			}
			return &Error{Part: part, Offset: at, Msg: fmt.Sprintf(format, args...), truncated: truncated}
		}
		// [0xFFFFFFFF] int32 metadata length, Message flatbuffer, body.
		if end-off < 4 {
			return fail(true, "%d bytes remain, too few for a message length", end-off)
		}
		n, err := c.int32At(off)
		if err != nil {
			return fail(false, "unreadable: %v", err)
		}
		off += 4
		if n == -1 { // the continuation marker, then the length
			if end-off < 4 {
				return fail(true, "%d bytes remain, too few for a message length", end-off)
			}
			if n, err = c.int32At(off); err != nil {
				return fail(false, "unreadable: %v", err)
			}
			off += 4
		}
		if n == 0 { // the end-of-stream marker
			return nil
		}
		body, err := c.message(at, off, n, end, part)
		if err != nil {
			if e, ok := err.(*Error); ok && e.truncated && i > 0 && c.o.PartialTail {
				return nil
			}
			return err
		}
		off += n + body
	}
	return nil
}

// message checks the n-byte Message flatbuffer at off (its part begins at at) and that its
// body ends by end, and returns the body length.
func (c *checker) message(at, off, n, end int64, part string) (int64, error) {
	fail := func(truncated bool, format string, args ...any) (int64, error) {
		return 0, &Error{Part: part, Offset: at, Msg: fmt.Sprintf(format, args...), truncated: truncated}
	}
	if n < 4 {
		return fail(false, "metadata length %d is invalid", n)
	}
	if n > end-off {
		return fail(n <= end, "claims %d bytes of metadata, %d remain", n, end-off)
	}
	b := make([]byte, n) // n is bounded by the input
	if err := c.read(b, off); err != nil {
		return fail(false, "unreadable: %v", err)
	}
	f := buffer{b: b, maxDepth: c.o.MaxDepth}
	body, ok := f.message()
	switch {
	case !ok:
		return fail(false, "%s", f.reason())
	case body < 0:
		return fail(false, "body length %d is negative", body)
	case body > end-off-n:
		return fail(body <= end, "claims a %d-byte body, %d bytes remain", body, end-off-n)
	}
	return body, nil
}

// reason says why a walk of f failed.
func (f *buffer) reason() string {
	if f.tooDeep {
		return fmt.Sprintf("fields nest deeper than %d levels", f.maxDepth)
	}
	return "a table, vector or string lies outside the flatbuffer"
}

// file checks an IPC file of size bytes: ... footer flatbuffer, int32 footer length,
// "ARROW1".
func (c *checker) file(size int64) error {
	fail := func(part string, at int64, format string, args ...any) error {
		return &Error{Part: part, Offset: at, Msg: fmt.Sprintf(format, args...)}
	}
	const tail = 4 + 6 // footer length, magic
	if size < 8+tail {
		return fail("file", 0, "%d bytes are too few for an IPC file", size)
	}
	var end [tail]byte
	if err := c.read(end[:], size-tail); err != nil {
		return fail("file", size-tail, "unreadable: %v", err)
	}
	if !bytes.Equal(end[4:], magic) {
		return fail("file", size-6, "no %s magic at the end", magic)
	}
	n := int64(int32(binary.LittleEndian.Uint32(end[:])))
	footerAt := size - tail - n
	if n < 4 || footerAt < 8 {
		return fail("footer", size-tail, "footer length %d does not fit the file", n)
	}
	b := make([]byte, n) // bounded by the file size
	if err := c.read(b, footerAt); err != nil {
		return fail("footer", footerAt, "unreadable: %v", err)
	}
	f := buffer{b: b, maxDepth: c.o.MaxDepth}
	blocks, dictionaries, ok := f.footer()
	if !ok {
		return fail("footer", footerAt, "%s", f.reason())
	}
	for i, blk := range blocks {
		part := fmt.Sprintf("record batch block %d", i-dictionaries)
		if i < dictionaries {
			part = fmt.Sprintf("dictionary block %d", i)
		}
		if err := c.block(blk, footerAt, part); err != nil {
			return err
		}
	}
	// The stream between the leading magic (padded to 8 bytes) and the footer.
	return c.stream(8, footerAt, "message", 0)
}

// block checks a footer block: meta bytes of length prefix ([0xFFFFFFFF] int32) and
// Message flatbuffer, then body bytes, all before the footer.
func (c *checker) block(b block, footerAt int64, part string) error {
	fail := func(format string, args ...any) error {
		return &Error{Part: part, Offset: b.offset, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case b.meta < 8:
		return fail("metadata length %d is below 8", b.meta)
	case b.offset < 0 || b.body < 0 || b.offset > footerAt || b.meta > footerAt-b.offset || b.body > footerAt-b.offset-b.meta:
		return fail("%d bytes of metadata and %d of body do not fit before the footer at byte %d", b.meta, b.body, footerAt)
	}
	prefix := int64(4)
	n, err := c.int32At(b.offset)
	if err == nil && n == -1 {
		prefix = 8
		n, err = c.int32At(b.offset + 4)
	}
	if err != nil {
		return fail("unreadable: %v", err)
	}
	if n < 4 || prefix+n > b.meta {
		return fail("a message of %d bytes does not fit the block's %d bytes of metadata", n, b.meta)
	}
	_, err = c.message(b.offset, b.offset+prefix, n, b.offset+b.meta+b.body, part)
	return err
}
