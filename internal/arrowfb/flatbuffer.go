package arrowfb

import "encoding/binary"

// Type and MessageHeader union values of format/Schema.fbs and Message.fbs that the walk
// treats specially.
const (
	typeTimestamp = 10
	typeUnion     = 14

	headerSchema          = 1
	headerDictionaryBatch = 2
	headerRecordBatch     = 3
)

// buffer is one flatbuffer (a message's metadata or a file's footer). Every read is
// bounds-checked; a check that fails returns false.
type buffer struct {
	b        []byte
	maxDepth int
	tooDeep  bool // a false result came from the nesting bound, not from bounds
}

func (f *buffer) u8(pos int) (int, bool) {
	if pos < 0 || pos >= len(f.b) {
		return 0, false
	}
	return int(f.b[pos]), true
}

func (f *buffer) u32(pos int) (int, bool) {
	if pos < 0 || pos > len(f.b)-4 {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(f.b[pos:])), true
}

// i64 reads the little-endian int64 at pos.
func (f *buffer) i64(pos int) (int64, bool) {
	if pos < 0 || pos > len(f.b)-8 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(f.b[pos:])), true
}

// deref follows the unsigned offset stored at pos (a table, vector or string reference).
func (f *buffer) deref(pos int) (int, bool) {
	off, ok := f.u32(pos)
	if !ok {
		return 0, false
	}
	t := pos + off
	return t, t < len(f.b)
}

// table is a table whose vtable lies in bounds.
type table struct {
	f           *buffer
	pos, vt, vs int // the table, its vtable, the vtable's size in bytes
}

// table checks the table at pos: its vtable and its inline part lie in the buffer.
func (f *buffer) table(pos int) (table, bool) {
	so, ok := f.u32(pos)
	if !ok {
		return table{}, false
	}
	vt := pos - int(int32(uint32(so)))
	if vt < 0 || vt > len(f.b)-4 {
		return table{}, false
	}
	vs := int(binary.LittleEndian.Uint16(f.b[vt:]))
	size := int(binary.LittleEndian.Uint16(f.b[vt+2:]))
	if vs < 4 || vs > len(f.b)-vt || size > len(f.b)-pos {
		return table{}, false
	}
	return table{f: f, pos: pos, vt: vt, vs: vs}, true
}

// slot returns the position of field i, 0 when it is absent. The flatbuffers runtime
// reads a slot whenever its offset is below the vtable size, even when an odd size cuts
// it in half, so the check does the same: no field the reader sees is left unchecked.
func (t table) slot(i int) (int, bool) {
	o := 4 + 2*i
	if o >= t.vs {
		return 0, true
	}
	if t.vt+o > len(t.f.b)-2 {
		return 0, false
	}
	off := int(binary.LittleEndian.Uint16(t.f.b[t.vt+o:]))
	if off == 0 {
		return 0, true
	}
	return t.pos + off, true
}

// field runs check on the position of field i when the field is present.
func (t table) field(i int, check func(pos int) bool) bool {
	p, ok := t.slot(i)
	return ok && (p == 0 || check(p))
}

// vector checks the vector of elem-byte elements referred to at pos and returns its
// length and first element.
func (f *buffer) vector(pos, elem int) (n, first int, ok bool) {
	v, ok := f.deref(pos)
	if !ok {
		return 0, 0, false
	}
	n, ok = f.u32(v)
	if !ok || n > (len(f.b)-v-4)/elem {
		return 0, 0, false
	}
	return n, v + 4, true
}

func (f *buffer) str(pos int) bool {
	_, _, ok := f.vector(pos, 1)
	return ok
}

// structs checks a vector of size-byte structs.
func (f *buffer) structs(size int) func(pos int) bool {
	return func(pos int) bool {
		_, _, ok := f.vector(pos, size)
		return ok
	}
}

// tables checks a vector of tables, each with check.
func (f *buffer) tables(pos int, check func(t table) bool) bool {
	n, first, ok := f.vector(pos, 4)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		p, ok := f.deref(first + 4*i)
		if !ok {
			return false
		}
		t, ok := f.table(p)
		if !ok || !check(t) {
			return false
		}
	}
	return true
}

// sub checks the table referred to at pos with check.
func (f *buffer) sub(check func(t table) bool) func(pos int) bool {
	return func(pos int) bool {
		p, ok := f.deref(pos)
		if !ok {
			return false
		}
		t, ok := f.table(p)
		return ok && check(t)
	}
}

func anyTable(table) bool { return true }

// keyValue: 0 key, 1 value.
func (f *buffer) keyValue(t table) bool {
	return t.field(0, f.str) && t.field(1, f.str)
}

// metadata checks a custom_metadata vector of KeyValue tables.
func (f *buffer) metadata(pos int) bool { return f.tables(pos, f.keyValue) }

// schema: 0 endianness, 1 fields, 2 custom_metadata, 3 features ([long]).
func (f *buffer) schema(t table) bool {
	return t.field(1, func(p int) bool {
		return f.tables(p, func(c table) bool { return f.fieldTable(c, 0) })
	}) && t.field(2, f.metadata) && t.field(3, f.structs(8))
}

// fieldTable checks a Field at nesting depth (0 for a schema's own fields): 0 name,
// 1 nullable, 2 type_type, 3 type, 4 dictionary, 5 children, 6 custom_metadata.
func (f *buffer) fieldTable(t table, depth int) bool {
	if depth > f.maxDepth {
		f.tooDeep = true
		return false
	}
	typeType := -1
	if !t.field(0, f.str) || !t.field(2, func(p int) bool {
		var ok bool
		typeType, ok = f.u8(p)
		return ok
	}) {
		return false
	}
	ok := t.field(3, f.sub(func(tt table) bool {
		switch typeType {
		case typeTimestamp: // 0 unit, 1 timezone
			return tt.field(1, f.str)
		case typeUnion: // 0 mode, 1 typeIds ([int])
			return tt.field(1, f.structs(4))
		}
		return true
	})) && t.field(4, f.sub(func(de table) bool { // DictionaryEncoding: 1 indexType (Int)
		return de.field(1, f.sub(anyTable))
	})) && t.field(5, func(p int) bool {
		return f.tables(p, func(c table) bool { return f.fieldTable(c, depth+1) })
	}) && t.field(6, f.metadata)
	return ok
}

// recordBatch: 0 length, 1 nodes ([FieldNode], 16 bytes), 2 buffers ([Buffer], 16 bytes),
// 3 compression, 4 variadicBufferCounts ([long]).
func (f *buffer) recordBatch(t table) bool {
	return t.field(1, f.structs(16)) && t.field(2, f.structs(16)) &&
		t.field(3, f.sub(anyTable)) && t.field(4, f.structs(8))
}

// message checks a Message (0 version, 1 header_type, 2 header, 3 bodyLength,
// 4 custom_metadata) and returns its body length, which may be negative.
func (f *buffer) message() (body int64, ok bool) {
	root, ok := f.deref(0)
	if !ok {
		return 0, false
	}
	m, ok := f.table(root)
	if !ok {
		return 0, false
	}
	header := -1
	ok = m.field(1, func(p int) bool {
		var ok bool
		header, ok = f.u8(p)
		return ok
	}) && m.field(2, f.sub(func(h table) bool {
		switch header {
		case headerSchema:
			return f.schema(h)
		case headerDictionaryBatch: // 0 id, 1 data (RecordBatch), 2 isDelta
			return h.field(1, f.sub(f.recordBatch))
		case headerRecordBatch:
			return f.recordBatch(h)
		}
		return true
	})) && m.field(4, f.metadata) && m.field(3, func(p int) bool {
		var ok bool
		body, ok = f.i64(p)
		return ok
	})
	return body, ok
}

// block is a Block struct of a file footer: where one message and its body lie.
type block struct{ offset, meta, body int64 }

// footer checks a file Footer (0 version, 1 schema, 2 dictionaries and 3 recordBatches
// ([Block], 24 bytes), 4 custom_metadata) and returns its blocks, dictionaries first.
func (f *buffer) footer() (blocks []block, dictionaries int, ok bool) {
	root, ok := f.deref(0)
	if !ok {
		return nil, 0, false
	}
	t, ok := f.table(root)
	if !ok || !t.field(1, f.sub(f.schema)) || !t.field(4, f.metadata) {
		return nil, 0, false
	}
	for _, slot := range []int{2, 3} {
		ok := t.field(slot, func(p int) bool {
			n, first, ok := f.vector(p, 24)
			for i := 0; ok && i < n; i++ {
				b := f.b[first+24*i:]
				blocks = append(blocks, block{
					offset: int64(binary.LittleEndian.Uint64(b)),
					meta:   int64(int32(binary.LittleEndian.Uint32(b[8:]))),
					body:   int64(binary.LittleEndian.Uint64(b[16:])),
				})
			}
			return ok
		})
		if !ok {
			return nil, 0, false
		}
		if slot == 2 {
			dictionaries = len(blocks)
		}
	}
	return blocks, dictionaries, true
}
