package arrowio

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/pipewhy/pipewhy/canonical"
)

// A bounds pre-check of Arrow IPC flatbuffer metadata.
//
// arrow-go trusts the element counts of flatbuffer vectors: a corrupt count makes it call
// make() with a huge length (for example the number of schema fields), which is a fatal
// out-of-memory error, not a recoverable panic, and deep nesting can exhaust the stack.
// Before a file reaches arrow-go, checkIPC walks every message (stream format) or the
// footer and every block it names (file format) and verifies that every table, string and
// vector arrow-go will size an allocation from lies inside the metadata buffer, and that
// field nesting is bounded. It reads the Arrow Message, Schema, Field, KeyValue,
// RecordBatch, DictionaryBatch and Footer tables as the Arrow format (format/Schema.fbs,
// Message.fbs, File.fbs) defines them.

// maxFieldDepth bounds field nesting in IPC metadata: a map is two field levels per
// container level, and canonicalisation rejects more than MaxDepth containers anyway.
const maxFieldDepth = 2*canonical.MaxDepth + 4

var errFlatbuffer = errors.New("malformed IPC flatbuffer metadata")

type fb struct {
	b []byte
}

func (f fb) u32(pos int) (int, bool) {
	if pos < 0 || pos+4 > len(f.b) {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(f.b[pos:])), true
}

// table checks the table at pos and its vtable, and returns a field locator.
func (f fb) table(pos int) (func(slot int) int, bool) {
	if pos < 0 || pos+4 > len(f.b) {
		return nil, false
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(f.b[pos:])))
	if vt < 0 || vt+4 > len(f.b) {
		return nil, false
	}
	vtSize := int(binary.LittleEndian.Uint16(f.b[vt:]))
	tblSize := int(binary.LittleEndian.Uint16(f.b[vt+2:]))
	if vtSize < 4 || vt+vtSize > len(f.b) || pos+tblSize > len(f.b) {
		return nil, false
	}
	return func(slot int) int {
		o := 4 + 2*slot
		if o+2 > vtSize {
			return 0
		}
		off := int(binary.LittleEndian.Uint16(f.b[vt+o:]))
		if off == 0 {
			return 0
		}
		return pos + off
	}, true
}

// deref follows the uoffset stored at pos (a table, vector or string reference).
func (f fb) deref(pos int) (int, bool) {
	off, ok := f.u32(pos)
	if !ok {
		return 0, false
	}
	t := pos + off
	return t, t >= 0 && t < len(f.b)
}

// vector checks a vector of n elements of size elem and returns n and the first element.
func (f fb) vector(pos, elem int) (n, first int, ok bool) {
	v, ok := f.deref(pos)
	if !ok {
		return 0, 0, false
	}
	n, ok = f.u32(v)
	if !ok || n < 0 || n > (len(f.b)-v-4)/elem {
		return 0, 0, false
	}
	return n, v + 4, true
}

// optional runs check on a present field; absent fields are fine.
func optional(field int, check func(int) bool) bool {
	return field == 0 || check(field)
}

func (f fb) str(pos int) bool {
	_, _, ok := f.vector(pos, 1)
	return ok
}

func (f fb) tables(pos int, check func(table int) bool) bool {
	n, first, ok := f.vector(pos, 4)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		t, ok := f.deref(first + 4*i)
		if !ok || !check(t) {
			return false
		}
	}
	return true
}

func (f fb) structs(size int) func(int) bool {
	return func(pos int) bool { _, _, ok := f.vector(pos, size); return ok }
}

func (f fb) keyValue(t int) bool {
	field, ok := f.table(t)
	return ok && optional(field(0), f.str) && optional(field(1), f.str)
}

func (f fb) metadata(pos int) bool { return f.tables(pos, f.keyValue) }

func (f fb) schema(t int) bool {
	field, ok := f.table(t)
	if !ok {
		return false
	}
	return optional(field(1), func(p int) bool {
		return f.tables(p, func(t int) bool { return f.field(t, 1) })
	}) && optional(field(2), f.metadata) && optional(field(3), f.structs(8))
}

func (f fb) field(t, depth int) bool {
	if depth > maxFieldDepth {
		return false
	}
	field, ok := f.table(t)
	if !ok || !optional(field(0), f.str) {
		return false
	}
	typeType := -1
	if p := field(2); p != 0 {
		if p >= len(f.b) {
			return false
		}
		typeType = int(f.b[p])
	}
	if !optional(field(3), func(p int) bool {
		tt, ok := f.deref(p)
		if !ok {
			return false
		}
		tf, ok := f.table(tt)
		if !ok {
			return false
		}
		switch typeType {
		case 10: // Timestamp: timezone string
			return optional(tf(1), f.str)
		case 14: // Union: typeIds [int]
			return optional(tf(1), f.structs(4))
		}
		return true
	}) {
		return false
	}
	if !optional(field(4), func(p int) bool { // DictionaryEncoding, with its Int index type
		dt, ok := f.deref(p)
		if !ok {
			return false
		}
		df, ok := f.table(dt)
		return ok && optional(df(1), func(p int) bool {
			it, ok := f.deref(p)
			if !ok {
				return false
			}
			_, ok = f.table(it)
			return ok
		})
	}) {
		return false
	}
	return optional(field(5), func(p int) bool {
		return f.tables(p, func(c int) bool { return f.field(c, depth+1) })
	}) && optional(field(6), f.metadata)
}

func (f fb) recordBatch(t int) bool {
	field, ok := f.table(t)
	if !ok {
		return false
	}
	return optional(field(1), f.structs(16)) && optional(field(2), f.structs(16)) &&
		optional(field(3), func(p int) bool { c, ok := f.deref(p); _, ok2 := f.table(c); return ok && ok2 }) &&
		optional(field(4), f.structs(8))
}

// message checks one Message flatbuffer and returns its body length.
func (f fb) message() (int64, bool) {
	root, ok := f.deref(0)
	if !ok {
		return 0, false
	}
	field, ok := f.table(root)
	if !ok {
		return 0, false
	}
	headerType := -1
	if p := field(1); p != 0 {
		if p >= len(f.b) {
			return 0, false
		}
		headerType = int(f.b[p])
	}
	if p := field(2); p != 0 {
		h, ok := f.deref(p)
		if !ok {
			return 0, false
		}
		switch headerType {
		case 1:
			ok = f.schema(h)
		case 2: // DictionaryBatch: data RecordBatch at slot 1
			var df func(int) int
			if df, ok = f.table(h); ok {
				ok = optional(df(1), func(p int) bool { r, ok := f.deref(p); return ok && f.recordBatch(r) })
			}
		case 3:
			ok = f.recordBatch(h)
		default:
			_, ok = f.table(h)
		}
		if !ok {
			return 0, false
		}
	}
	if !optional(field(4), f.metadata) {
		return 0, false
	}
	var body int64
	if p := field(3); p != 0 {
		if p+8 > len(f.b) {
			return 0, false
		}
		body = int64(binary.LittleEndian.Uint64(f.b[p:]))
	}
	return body, body >= 0
}

// checkMessages walks the encapsulated messages of a stream starting at off, up to end.
func checkMessages(r io.ReaderAt, off, end int64) error {
	var word [8]byte
	for off < end {
		if end-off < 4 {
			return errFlatbuffer
		}
		if _, err := r.ReadAt(word[:4], off); err != nil {
			return errFlatbuffer
		}
		n := int64(int32(binary.LittleEndian.Uint32(word[:4])))
		off += 4
		if n == -1 { // continuation marker, then the length
			if end-off < 4 {
				return errFlatbuffer
			}
			if _, err := r.ReadAt(word[:4], off); err != nil {
				return errFlatbuffer
			}
			n = int64(int32(binary.LittleEndian.Uint32(word[:4])))
			off += 4
		}
		if n == 0 { // end of stream
			return nil
		}
		body, err := checkMessageAt(r, off, n, end)
		if err != nil {
			return err
		}
		off += n + body
	}
	return nil
}

// checkMessageAt verifies the n-byte Message flatbuffer at off and its body's extent.
func checkMessageAt(r io.ReaderAt, off, n, end int64) (int64, error) {
	if n < 4 || n > end-off {
		return 0, errFlatbuffer
	}
	buf := make([]byte, n) // n is bounded by the file size
	if _, err := r.ReadAt(buf, off); err != nil {
		return 0, errFlatbuffer
	}
	body, ok := fb{buf}.message()
	if !ok || body > end-off-n {
		return 0, errFlatbuffer
	}
	return body, nil
}

// checkIPC pre-checks an Arrow IPC file or stream of size bytes.
func checkIPC(r io.ReaderAt, size int64, format Format) error {
	if format != ArrowFile {
		return checkMessages(r, 0, size)
	}
	const magic = 6
	if size < 2*magic+4 {
		return errFlatbuffer
	}
	var word [4]byte
	if _, err := r.ReadAt(word[:], size-magic-4); err != nil {
		return errFlatbuffer
	}
	n := int64(int32(binary.LittleEndian.Uint32(word[:])))
	footerAt := size - magic - 4 - n
	if n < 4 || footerAt < 8 {
		return errFlatbuffer
	}
	buf := make([]byte, n) // bounded by the file size
	if _, err := r.ReadAt(buf, footerAt); err != nil {
		return errFlatbuffer
	}
	f := fb{buf}
	root, ok := f.deref(0)
	if !ok {
		return errFlatbuffer
	}
	field, ok := f.table(root)
	if !ok || !optional(field(1), func(p int) bool { s, ok := f.deref(p); return ok && f.schema(s) }) ||
		!optional(field(4), f.metadata) {
		return errFlatbuffer
	}
	for _, slot := range []int{2, 3} { // dictionaries, recordBatches: [Block]
		p := field(slot)
		if p == 0 {
			continue
		}
		cnt, first, ok := f.vector(p, 24)
		if !ok {
			return errFlatbuffer
		}
		for i := 0; i < cnt; i++ {
			blk := buf[first+24*i:]
			off := int64(binary.LittleEndian.Uint64(blk[0:]))
			meta := int64(int32(binary.LittleEndian.Uint32(blk[8:])))
			body := int64(binary.LittleEndian.Uint64(blk[16:]))
			if off < 0 || meta < 8 || body < 0 || off > footerAt || meta > footerAt-off || body > footerAt-off-meta {
				return errFlatbuffer
			}
			if err := checkBlock(r, off, meta, body); err != nil {
				return err
			}
		}
	}
	// The schema message at the start of the file, as a stream reader would see it.
	return checkMessages(r, 8, footerAt)
}

// checkBlock verifies a file block: meta bytes of prefix (continuation marker, length)
// and Message flatbuffer, then body bytes.
func checkBlock(r io.ReaderAt, off, meta, body int64) error {
	var word [4]byte
	if _, err := r.ReadAt(word[:], off); err != nil {
		return errFlatbuffer
	}
	prefix := int64(4)
	n := int64(int32(binary.LittleEndian.Uint32(word[:])))
	if n == -1 {
		if _, err := r.ReadAt(word[:], off+4); err != nil {
			return errFlatbuffer
		}
		prefix = 8
		n = int64(int32(binary.LittleEndian.Uint32(word[:])))
	}
	if n < 4 || prefix+n > meta {
		return errFlatbuffer
	}
	_, err := checkMessageAt(r, off+prefix, n, off+meta+body)
	return err
}
