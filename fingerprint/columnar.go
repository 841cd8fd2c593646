package fingerprint

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

	"github.com/pipewhy/pipewhy/normalize"
)

// CodeColumn reports column buffers that do not describe the rows a Columnar kernel was
// asked for: a tile too small or of another width, a column index out of range, a
// validity bitmap shorter than the rows, text offsets out of order or outside the data, a
// frame of another field or running past its words, a type code that is not the kernel's.
// (Kept beside the kernels; a code is only ever appended.)
const CodeColumn Code = "PW_FP_COLUMN"

// Validity is an Arrow validity bitmap: row r of a column is valid (not null) when bit
// Offset+r of Bits is set, least significant bit first. Nil Bits means every row is valid.
type Validity struct {
	Bits   []byte
	Offset int
}

// valid reports whether row r is valid (the bitmap was checked to cover it).
func (v Validity) valid(r int) bool {
	i := v.Offset + r
	return v.Bits[i>>3]>>(i&7)&1 != 0
}

func (v Validity) check(rows int) error {
	if v.Bits == nil {
		return nil
	}
	if v.Offset < 0 || len(v.Bits) > math.MaxInt/8 || v.Offset > len(v.Bits)*8-rows {
		return newErr("columnar", CodeColumn, "validity bitmap does not cover the rows")
	}
	return nil
}

// Tile holds the field digests of a run of records, row-major: the digest of record r's
// field in tile column c is Digests[r*Cols+c]. Tile columns are the records' fields in
// ascending field id (record order), so a row is, word for word, what the record digest
// hashes after its key.
type Tile struct {
	Digests []Digest
	Cols    int
}

// NewTile returns a tile of rows records of cols fields.
func NewTile(rows, cols int) Tile { return Tile{Digests: make([]Digest, rows*cols), Cols: cols} }

// Rows returns the number of records the tile holds.
func (t Tile) Rows() int {
	if t.Cols <= 0 {
		return 0
	}
	return len(t.Digests) / t.Cols
}

// Row returns record r's field digests.
func (t Tile) Row(r int) []Digest { return t.Digests[r*t.Cols : (r+1)*t.Cols] }

// Slice returns the tile of records lo up to hi, sharing t's memory.
func (t Tile) Slice(lo, hi int) Tile {
	return Tile{Digests: t.Digests[lo*t.Cols : hi*t.Cols], Cols: t.Cols}
}

// Columnar computes XXH3Columnar digests a column at a time (contract §13.7): field
// digests of whole columns into a Tile, straight from column buffers, then record, key
// and value digests from the tile. Every digest equals the one the scalar definition gives
// from the C2 words of the same values (Context.FieldDigest, Context.RecordDigest; tested
// on random columns of every type).
//
// The kernels (Ints, Uints, Words, Bools, Strings, Frames, Absent) each fill one tile
// column for rows 0..n-1 and return the wrapping sums of the digests they wrote: in
// Multiset mode a column state's lanes, since value digests are field digests there. They
// hash values as given: the caller supplies C2 payloads (strict UTF-8 text, NFC under
// logical profiles, canonical floats under logical profiles); what they check is the
// shape of their inputs and that the field's schema type admits every type code they
// produce.
//
// A Columnar is not safe for concurrent use: use one per goroutine.
type Columnar struct {
	ctx     Context
	keys    *v2Keys
	ordered bool
	maxTag  uint64
	cols    []column
	x01     uint64 // K_F words 0 + 1: the final round's first 16 bytes
	buf     []byte
	words   []uint64
}

// column holds one tile column's field and the parts of its field digests that do not
// depend on the value.
type column struct {
	id     uint64
	tags   uint16                          // type codes the schema type admits
	absent [2]Digest                       // FD([id, MISSING, 0]), FD([id, NULL, 0])
	bools  [2]Digest                       // FD([id, BOOL, 1, 0]), FD([id, BOOL, 1, 1])
	one    [normalize.Nested + 1]headState // per type code: [id, code, 1 | v]
	empty  [2]Digest                       // TEXT, BYTES: FD([id, code, 1, 0])
	// TEXT, BYTES of n bytes: [id, code, 2 | n, x] for n = 1..8, [id, code, 3, n | x0, x1]
	// for n = 9..16 (short[j][0] unused)
	short [2][17]headState
	mid   [2]midText // TEXT, BYTES of midTextMin..midTextMax bytes
}

// headState is XXH3-128's 17–128-byte path over K_F ‖ frame up to the frame's last 16
// bytes (head17), for a frame shape whose other words are the same for every value of a
// column: a one-word frame [id, code, 1 | v], a short text [id, code, 2 | n, x]. The
// path mixes the last 16 bytes only in its final round, so a value costs that round (one
// 64×64→128-bit multiplication) and the final avalanche (tail17).
type headState struct{ lo, hi uint64 }

// NewColumnar returns the kernels of context c, an XXH3Columnar context (else
// CodeAlgorithm), for tiles whose columns are the fields fields: ascending ids, each in
// the schema (CodeSchemaMismatch), every field every record of the tile carries.
func NewColumnar(c Context, fields []uint64) (*Columnar, error) {
	if !c.Valid() {
		return nil, newErr("columnar", CodeContext, "invalid context")
	}
	if c.Algorithm() != XXH3Columnar {
		return nil, newErr("columnar", CodeAlgorithm, "columnar digests are defined by "+XXH3Columnar.ID()+" only")
	}
	k := &Columnar{ctx: c, keys: newV2Keys(c), ordered: c.Mode() == Ordered, maxTag: uint64(normalize.Timestamp)}
	if c.c.ext {
		k.maxTag = uint64(normalize.Nested)
	}
	k.x01 = k.keys.sField.k[0] + k.keys.sField.k[1]
	h := &v2Hasher{v2Keys: k.keys}
	for i, id := range fields {
		if i > 0 && id <= fields[i-1] {
			return nil, newErr("columnar", CodeSchemaMismatch, "tile fields are not in ascending id order")
		}
		x := c.c.fields.index(id)
		if x < 0 {
			return nil, newErr("columnar", CodeSchemaMismatch, "field "+uitoa(id)+" is not in the schema")
		}
		col := column{id: id, tags: c.c.fields.tags[x]}
		head := func(frame ...uint64) headState {
			msg := append(k.keys.kField[:], make([]byte, 8*len(frame))...)
			putWords(msg[keySize:], frame)
			lo, hi := head17(msg)
			return headState{lo, hi}
		}
		for code := range col.one {
			col.one[code] = head(id, uint64(code), 1, 0)
		}
		for j, code := range []uint64{uint64(normalize.Text), uint64(normalize.Bytes)} {
			col.empty[j] = h.field([]uint64{id, code, 1, 0})
			col.mid[j] = newMidText(&k.keys.sField, id, code)
			for n := 1; n <= 8; n++ {
				col.short[j][n] = head(id, code, 2, 0, 0)
			}
			for n := 9; n <= 16; n++ {
				col.short[j][n] = head(id, code, 3, uint64(n), 0, 0)
			}
		}
		col.absent[0] = h.field([]uint64{id, uint64(normalize.Missing), 0})
		col.absent[1] = h.field([]uint64{id, uint64(normalize.Null), 0})
		col.bools[0] = h.field([]uint64{id, uint64(normalize.Bool), 1, 0})
		col.bools[1] = h.field([]uint64{id, uint64(normalize.Bool), 1, 1})
		k.cols = append(k.cols, col)
	}
	return k, nil
}

// Fields returns the number of tile columns.
func (k *Columnar) Fields() int { return len(k.cols) }

// tailMix is the final round of XXH3-128's 17–128-byte path over a message whose last
// 16 bytes are the words a, b, from its headState; finishShort(lo, hi^x01, len) ends it.
// (Two functions so that both inline into the kernels' loops.)
func tailMix(h headState, a, b uint64) (lo, hi uint64) {
	return h.lo ^ (a + b), h.hi + mulFold64(a^secret16, b^secret24)
}

// head17 returns the state of XXH3-128's 17–128-byte path over msg (17 ≤ len(msg) ≤
// 128) before msg's last 16 bytes enter it: every round but the final one, in the
// specification's loop form, and of the final round the part that reads msg's first 16
// bytes. tailMix and finishShort complete it. Construction time only (it reads bytes).
func head17(msg []byte) (lo, hi uint64) {
	rd := func(i int) uint64 { return binary.LittleEndian.Uint64(msg[i:]) }
	lo = uint64(len(msg)) * xxhPrime64_1
	for i := (len(msg) - 1) / 32; i >= 1; i-- {
		// mix32B(acc, msg+16i, msg+len-16(i+1), secret+32i)
		a, b, s := 16*i, len(msg)-16*(i+1), 32*i
		lo += mulFold64(rd(a)^sw[s], rd(a+8)^sw[s+8])
		lo ^= rd(b) + rd(b+8)
		hi += mulFold64(rd(b)^sw[s+16], rd(b+8)^sw[s+24])
		hi ^= rd(a) + rd(a+8)
	}
	return lo + mulFold64(rd(0)^sw[0], rd(8)^sw[8]), hi
}

// secret16 and secret24 are the default secret's words at bytes 16 and 24 (sw[16],
// sw[24]; tested), which the final round mixes with the message's last 16 bytes.
const (
	secret16 = 0xdb979083e96dd4de
	secret24 = 0x1f67b3b7a4a44072
)

// admits reports whether column c's field may hold type code code under the context.
func (k *Columnar) admits(c *column, code uint64) bool {
	return code <= k.maxTag && c.tags&(1<<code) != 0
}

// start checks what every kernel filling rows of tile column col needs, and the type
// codes it produces (NULL too where valid has a bitmap).
func (k *Columnar) start(t Tile, col, rows int, valid Validity, codes ...normalize.TypeCode) (*column, error) {
	if t.Cols != len(k.cols) || col < 0 || col >= len(k.cols) {
		return nil, newErr("columnar", CodeColumn, "tile width or column index does not match the tile fields")
	}
	if rows < 0 || t.Rows() < rows {
		return nil, newErr("columnar", CodeColumn, "tile holds fewer rows than the column")
	}
	if err := valid.check(rows); err != nil {
		return nil, err
	}
	c := &k.cols[col]
	if valid.Bits != nil {
		codes = append(codes, normalize.Null)
	}
	for _, code := range codes {
		if !k.admits(c, uint64(code)) {
			return nil, newErr("columnar", CodeSchemaMismatch, "field "+uitoa(c.id)+" does not admit type code "+code.String())
		}
	}
	return c, nil
}

// tileColumn returns the tile from column col of row 0 on: row r's entry is
// out[r*t.Cols]. A tile of no rows gives nil.
func tileColumn(t Tile, col int) []Digest {
	if col >= len(t.Digests) {
		return nil
	}
	return t.Digests[col:]
}

// nullMask returns all ones when row r is valid, else 0.
func nullMask(valid Validity, r int) uint64 {
	if valid.Bits == nil {
		return ^uint64(0)
	}
	i := valid.Offset + r
	return -(uint64(valid.Bits[i>>3]>>(i&7)) & 1)
}

// pick returns d where mask is all ones, else null.
func pick(d, null Digest, mask uint64) Digest {
	return Digest{Lo: null.Lo ^ (d.Lo^null.Lo)&mask, Hi: null.Hi ^ (d.Hi^null.Hi)&mask}
}

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Ints fills tile column col with the field digests of integer values (C2 PW-03.04):
// [id, INT64, 1, two's complement] for a negative value, [id, UINT64, 1, value]
// otherwise, [id, NULL, 0] where valid marks the row null. It returns the sums of the
// digests written.
func Ints[T signed](k *Columnar, t Tile, col int, vals []T, valid Validity) (Digest, error) {
	c, err := k.start(t, col, len(vals), valid, normalize.Int64, normalize.Uint64)
	if err != nil {
		return Digest{}, err
	}
	return oneWords(k, c, t, col, vals, valid, c.one[normalize.Int64], c.one[normalize.Uint64]), nil
}

// Uints fills tile column col with the field digests [id, UINT64, 1, value], or
// [id, NULL, 0] where valid marks the row null, and returns their sums.
func Uints[T unsigned](k *Columnar, t Tile, col int, vals []T, valid Validity) (Digest, error) {
	return Words(k, t, col, normalize.Uint64, vals, valid)
}

// Words fills tile column col with the field digests of one-word frames
// [id, code, 1, word], word = the value widened to 64 bits (sign-extended for signed T),
// or [id, NULL, 0] where valid marks the row null, and returns their sums. code is one
// of BOOL, INT64, UINT64, FLOAT64, DATE and TIME, the C2 types whose payload is one word
// (CodeColumn otherwise): FLOAT64 from a column's bits (C2 PW-03.08; logical profiles
// canonicalize first), DATE from days (date32), TIME from nanoseconds (time64[ns]). The
// words are not checked against their type's range.
func Words[T signed | unsigned](k *Columnar, t Tile, col int, code normalize.TypeCode, vals []T, valid Validity) (Digest, error) {
	switch code {
	case normalize.Bool, normalize.Int64, normalize.Uint64, normalize.Float64, normalize.Date, normalize.Time:
	default:
		return Digest{}, newErr("columnar", CodeColumn, "type code "+code.String()+" does not have a one-word payload")
	}
	c, err := k.start(t, col, len(vals), valid, code)
	if err != nil {
		return Digest{}, err
	}
	return oneWords(k, c, t, col, vals, valid, c.one[code], c.one[code]), nil
}

// oneWords is the loop of Ints and Words: the frame [id, code, 1, v] with the head state
// neg where v (as a signed 64-bit integer) is negative, else pos; NULL where valid says.
// Everything but the final round and the avalanche is in the head states, and the choice
// between them is made without a branch. Columns without a validity bitmap take a loop
// of their own, with fewer live values.
func oneWords[T signed | unsigned](k *Columnar, c *column, t Tile, col int, vals []T, valid Validity, neg, pos headState) Digest {
	dl, dh := neg.lo^pos.lo, neg.hi^pos.hi
	x := k.x01
	out := tileColumn(t, col)
	stride := t.Cols
	var slo, shi uint64
	if valid.Bits == nil {
		done := 0
		if g := len(vals) / 8; midKernel && g > 0 && unsafe.Sizeof(vals[0]) == 8 {
			// 64-bit values, eight at a time in the vector routine.
			l := uint64(64)
			kw := oneWordsKey{pos.lo, pos.hi, dl, dh, x, l * xxhPrime64_2}
			var lanes [16]uint64
			oneWordsAVX512(&out[0], 16*stride, (*uint64)(unsafe.Pointer(&vals[0])), g, &kw, &lanes)
			for i := range 8 {
				slo += lanes[i]
				shi += lanes[8+i]
			}
			done = 8 * g
		}
		for r := done; r < len(vals); r++ {
			w := uint64(vals[r]) // sign-extended for signed T
			m := uint64(int64(w) >> 63)
			lo, hi := tailMix(headState{pos.lo ^ dl&m, pos.hi ^ dh&m}, 1, w)
			d := finishShort(lo, hi^x, 64)
			out[r*stride] = d
			slo += d.Lo
			shi += d.Hi
		}
		return Digest{Lo: slo, Hi: shi}
	}
	null := c.absent[1]
	for r, v := range vals {
		w := uint64(v)
		m := uint64(int64(w) >> 63)
		lo, hi := tailMix(headState{pos.lo ^ dl&m, pos.hi ^ dh&m}, 1, w)
		d := pick(finishShort(lo, hi^x, 64), null, nullMask(valid, r))
		out[r*stride] = d
		slo += d.Lo
		shi += d.Hi
	}
	return Digest{Lo: slo, Hi: shi}
}

// Bools fills tile column col with the field digests of an Arrow boolean column, whose
// value r is bit offset+r of bits (least significant bit first): [id, BOOL, 1, 0|1], or
// [id, NULL, 0] where valid marks the row null. It returns their sums.
func (k *Columnar) Bools(t Tile, col int, rows int, bits []byte, offset int, valid Validity) (Digest, error) {
	c, err := k.start(t, col, rows, valid, normalize.Bool)
	if err != nil {
		return Digest{}, err
	}
	if err := (Validity{Bits: bits, Offset: offset}).check(rows); err != nil || bits == nil && rows > 0 {
		return Digest{}, newErr("columnar", CodeColumn, "boolean values do not cover the rows")
	}
	out := tileColumn(t, col)
	var sum Digest
	for r := range rows {
		i := offset + r
		d := pick(c.bools[bits[i>>3]>>(i&7)&1], c.absent[1], nullMask(valid, r))
		out[r*t.Cols] = d
		sum.Lo += d.Lo
		sum.Hi += d.Hi
	}
	return sum, nil
}

// Strings fills tile column col with the field digests of a string or binary column in
// Arrow's layout (value r is data[offsets[r]:offsets[r+1]], len(offsets)-1 rows):
// [id, code, 1+w, byte_count, the bytes packed into w little-endian words] with code TEXT
// or BYTES (C2 PW-03.05), or [id, NULL, 0] where valid marks the row null. It returns
// their sums. The offsets of every valid row must lie in order inside data (CodeColumn).
func Strings[O int32 | int64](k *Columnar, t Tile, col int, code normalize.TypeCode, offsets []O, data []byte, valid Validity) (Digest, error) {
	if code != normalize.Text && code != normalize.Bytes {
		return Digest{}, newErr("columnar", CodeColumn, "type code "+code.String()+" is not TEXT or BYTES")
	}
	rows := max(len(offsets)-1, 0)
	c, err := k.start(t, col, rows, valid, code)
	if err != nil {
		return Digest{}, err
	}
	out := tileColumn(t, col)
	var sum Digest
	var fr [shortMaxWords]uint64
	fr[0], fr[1] = c.id, uint64(code)
	j := int(code - normalize.Text) // 0 TEXT, 1 BYTES
	heads, x01 := &c.short[j], k.x01
	var a midRunArgs
	for r := 0; r < rows; r++ {
		if n := offsets[r+1] - offsets[r]; midKernel && n >= midTextMin && n <= midTextMax && r+8 <= rows {
			if n, groups, step := midGroups(&a, offsets[r:], data, valid, r); groups > 0 {
				// Groups of eight valid values of one length of 65 to 176 bytes: the
				// vector routine.
				s := c.mid[j].run(&a, data, n, groups, step, out[r*t.Cols:], t.Cols)
				sum.Lo += s.Lo
				sum.Hi += s.Hi
				r += 8*groups - 1
				continue
			}
		}
		var d Digest
		if valid.Bits != nil && !valid.valid(r) {
			d = c.absent[1]
		} else {
			lo, hi := int64(offsets[r]), int64(offsets[r+1])
			if lo < 0 || hi < lo || hi > int64(len(data)) {
				x := newErr("columnar", CodeColumn, "string offsets out of order or outside the data")
				x.Record = r
				return Digest{}, x
			}
			if n := hi - lo; n >= 1 && n <= 16 && lo <= int64(len(data))-16 {
				// 1 to 16 bytes with 16 readable from the first (Arrow pads its
				// buffers; the last values of a buffer take bytesDigest): the frame's
				// last two words without a branch on the length, [n, x] up to 8 bytes,
				// [x0, x1] above, the bytes after the value masked off.
				v := data[lo : lo+16]
				a, b := binary.LittleEndian.Uint64(v), binary.LittleEndian.Uint64(v[8:])
				big := uint64(n-1) >> 3 // 0 for 1..8 bytes, 1 for 9..16
				w0, w1 := uint64(n), a
				if big != 0 {
					w0, w1 = a, b
				}
				w1 &= ^uint64(0) >> (64 - 8*(uint64(n)-8*big))
				l, h := tailMix(heads[n], w0, w1)
				d = finishShort(l, h^x01, 72+8*big)
			} else if n >= midTextMin && n <= midTextMax && lo <= int64(len(data))-8*((n+7)>>3) {
				// 65 to 176 bytes, whole words readable: the 129–240-byte path over
				// the value's bytes where they lie.
				d = c.mid[j].sum(data[lo:], int(n))
			} else {
				d = k.bytesDigest(c, j, &fr, data, int(lo), int(hi))
			}
		}
		out[r*t.Cols] = d
		sum.Lo += d.Lo
		sum.Hi += d.Hi
	}
	return sum, nil
}

// midGroups reports how many groups of eight rows from row r (offs from row r on, at
// least nine offsets) the vector text routine can take: 0 unless the first eight values
// are valid, of one length n of midTextMin to midTextMax bytes, with 8*ceil(n/8) bytes
// readable in data from their starts; then, when they lie one after another, as many
// further groups of such values as follow one after another (step 8n), else one group.
// It sets a.offs to the first group's starts.
func midGroups[O int32 | int64](a *midRunArgs, offs []O, data []byte, valid Validity, r int) (n int, groups int, step int64) {
	rows := len(offs) - 1
	n64 := int64(offs[1]) - int64(offs[0])
	if n64 < midTextMin || n64 > midTextMax {
		return 0, 0, 0
	}
	end := int64(len(data)) - 8*((n64+7)>>3) // the last start with the words readable
	ok := func(i int) bool {
		lo := int64(offs[i])
		return int64(offs[i+1])-lo == n64 && lo >= 0 && lo <= end && (valid.Bits == nil || valid.valid(r+i))
	}
	for i := range a.offs {
		if !ok(i) {
			return 0, 0, 0
		}
		a.offs[i] = int64(offs[i])
	}
	if a.offs[7]-a.offs[0] != 7*n64 {
		return int(n64), 1, 0
	}
	groups = 1
	for g := 8; g+8 <= rows && int64(offs[g]) == a.offs[0]+int64(g)*n64; g += 8 {
		for i := g; i < g+8; i++ {
			if !ok(i) {
				return int(n64), groups, 8 * n64
			}
		}
		groups++
	}
	return int(n64), groups, 8 * n64
}

// maxShortBytes is the longest text or bytes value whose frame (4 + ceil(n/8) words)
// makes a message of at most 240 bytes.
const maxShortBytes = 8 * (shortMaxWords - 4)

// bytesDigest returns the field digest of the value data[lo:hi] of code TEXT (j = 0) or
// BYTES (j = 1), with the frame header fr[0], fr[1] (id, code) already set. Values of up
// to 16 bytes take the head states (one multiplication and the avalanche); longer ones
// are framed in fr, or beyond maxShortBytes in k.words, and hashed there.
func (k *Columnar) bytesDigest(c *column, j int, fr *[shortMaxWords]uint64, data []byte, lo, hi int) Digest {
	n := hi - lo
	switch {
	case n == 0:
		return c.empty[j]
	case n <= 8:
		l, h := tailMix(c.short[j][n], uint64(n), loadTail(data, lo, n))
		return finishShort(l, h^k.x01, 72)
	case n <= 16:
		l, h := tailMix(c.short[j][n], binary.LittleEndian.Uint64(data[lo:]), loadTail(data, lo+8, n-8))
		return finishShort(l, h^k.x01, 80)
	}
	w := (n + 7) / 8
	var frame []uint64
	if n <= maxShortBytes {
		frame = fr[:4+w]
	} else {
		frame = slices.Grow(k.words[:0], 4+w)[:4+w]
		k.words = frame
		frame[0], frame[1] = fr[0], fr[1]
	}
	frame[2], frame[3] = uint64(1+w), uint64(n)
	p := frame[4:]
	if hostLittleEndian {
		// The packed words are the bytes themselves, zero padded.
		p[w-1] = 0
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), 8*w), data[lo:hi])
	} else {
		i := 0
		for ; i+8 <= n; i += 8 {
			p[i/8] = binary.LittleEndian.Uint64(data[lo+i:])
		}
		if i < n {
			p[i/8] = loadTail(data, lo+i, n-i)
		}
	}
	if n <= maxShortBytes {
		return k.keys.sField.sum(frame)
	}
	return keyed(&k.buf, &k.keys.kField, &k.keys.sField, frame)
}

// loadTail returns the n bytes (1 ≤ n ≤ 8) at data[at:] as a little-endian word, zero
// padded: C2's packing of a value's last word.
func loadTail(data []byte, at, n int) uint64 {
	if at+8 <= len(data) {
		// A whole word, masked: the bytes after the value are inside data, just not
		// part of it.
		return binary.LittleEndian.Uint64(data[at:]) & (^uint64(0) >> (64 - 8*n))
	}
	var x uint64
	for j := at + n - 1; j >= at; j-- {
		x = x<<8 | uint64(data[j])
	}
	return x
}

// Frames fills tile column col with the field digests of rows C2 frames that lie one
// after another in words, row r's frame first after row r-1's: the general path, for the
// types whose payload is not one word or a byte string (DECIMAL, TIMESTAMP,
// TIMESTAMP_NS, DURATION, NESTED) and for values converted row by row. Every frame must
// be of the column's field, of a type code its schema type admits, and inside words, and
// the frames must end exactly at the end of words (CodeColumn, CodeSchemaMismatch);
// payload shapes are not checked (as Options.TrustedFrames). It returns their sums.
func (k *Columnar) Frames(t Tile, col int, rows int, words []uint64) (Digest, error) {
	c, err := k.start(t, col, rows, Validity{})
	if err != nil {
		return Digest{}, err
	}
	out := tileColumn(t, col)
	var sum Digest
	at := 0
	for r := range rows {
		fail := func(code Code, msg string) (Digest, error) {
			x := newErr("columnar", code, msg)
			x.Record = r
			return Digest{}, x
		}
		if len(words)-at < 3 || words[at+2] > uint64(len(words)-at-3) {
			return fail(CodeColumn, "frame runs past the column's words")
		}
		if words[at] != c.id {
			return fail(CodeColumn, "frame of another field")
		}
		if !k.admits(c, words[at+1]) {
			return fail(CodeSchemaMismatch, "field "+uitoa(c.id)+" does not admit the frame's type code")
		}
		end := at + 3 + int(words[at+2])
		d := keyed(&k.buf, &k.keys.kField, &k.keys.sField, words[at:end])
		out[r*t.Cols] = d
		sum.Lo += d.Lo
		sum.Hi += d.Hi
		at = end
	}
	if at != len(words) {
		return Digest{}, newErr("columnar", CodeColumn, "words left after the last frame")
	}
	return sum, nil
}

// Absent fills rows of tile column col with the field digest of [id, code, 0], code
// MISSING or NULL (an Arrow null column, or a field a source does not have), and returns
// their sums.
func (k *Columnar) Absent(t Tile, col int, code normalize.TypeCode, rows int) (Digest, error) {
	if code != normalize.Missing && code != normalize.Null {
		return Digest{}, newErr("columnar", CodeColumn, "type code "+code.String()+" is not MISSING or NULL")
	}
	c, err := k.start(t, col, rows, Validity{}, code)
	if err != nil {
		return Digest{}, err
	}
	d := c.absent[code]
	out := tileColumn(t, col)
	for r := range rows {
		out[r*t.Cols] = d
	}
	return Digest{Lo: d.Lo * uint64(rows), Hi: d.Hi * uint64(rows)}, nil
}

// rowWords returns the tile's digests as the words the record digest hashes: row r is
// words[2*Cols*r : 2*Cols*(r+1)], each digest Lo then Hi (the struct's field order, on
// every host).
func rowWords(t Tile) []uint64 {
	if len(t.Digests) == 0 {
		return nil
	}
	return unsafe.Slice(&t.Digests[0].Lo, 2*len(t.Digests))
}

// Records writes the record digests of the tile's first len(dst) rows to dst and returns
// their sums (the dataset state's lanes). In Ordered mode row r is at global position
// first+r (CodePosition when that overflows); in Multiset mode first is ignored.
func (k *Columnar) Records(dst []Digest, t Tile, first uint64) (Digest, error) {
	rows := len(dst)
	if t.Cols != len(k.cols) || t.Cols > 0 && t.Rows() < rows {
		return Digest{}, newErr("columnar", CodeColumn, "tile width or rows do not match")
	}
	if k.ordered && rows > 0 && uint64(rows-1) > math.MaxUint64-first {
		return Digest{}, newErr("columnar", CodePosition, "record positions overflow uint64")
	}
	words := rowWords(t)
	n := 2 * t.Cols
	var sum Digest
	if !k.ordered && n == 4 {
		// Two fields: a 64-byte message, two rounds of XXH3's 17–128-byte path (the
		// key's halves precomputed), inlined.
		return k.keys.sRecord.records2(dst, words), nil
	}
	if !k.ordered && n >= shortMinWords && n <= shortMaxWords {
		// Up to 13 fields: XXH3's short paths, where the row lies.
		s := &k.keys.sRecord
		for r := range dst {
			d := s.sum(words[r*n : r*n+n])
			dst[r] = d
			sum.Lo += d.Lo
			sum.Hi += d.Hi
		}
		return sum, nil
	}
	for r := range dst {
		row := words[r*n : r*n+n]
		var d Digest
		if k.ordered {
			d = k.positional(first+uint64(r), row)
		} else {
			d = keyed(&k.buf, &k.keys.kRecord, &k.keys.sRecord, row)
		}
		dst[r] = d
		sum.Lo += d.Lo
		sum.Hi += d.Hi
	}
	return sum, nil
}

// positional returns H(K_R ‖ position ‖ row).
func (k *Columnar) positional(pos uint64, row []uint64) Digest {
	w := append(append(k.words[:0], pos), row...)
	k.words = w
	return keyed(&k.buf, &k.keys.kRecord, &k.keys.sRecord, w)
}

// Keys writes the key digests of the tile's first len(dst) rows to dst: the record digest,
// never positional, of each record projected onto the tile columns keyCols (ascending
// column indices; the key fields); with no keyCols, of the whole record.
func (k *Columnar) Keys(dst []Digest, t Tile, keyCols []int) error {
	if t.Cols != len(k.cols) || t.Cols > 0 && t.Rows() < len(dst) {
		return newErr("columnar", CodeColumn, "tile width or rows do not match")
	}
	for i, c := range keyCols {
		if c < 0 || c >= t.Cols || i > 0 && c <= keyCols[i-1] {
			return newErr("columnar", CodeKeyField, "key columns are not ascending tile columns")
		}
	}
	words := rowWords(t)
	n := 2 * t.Cols
	for r := range dst {
		row := words[r*n : r*n+n]
		if len(keyCols) > 0 {
			kw := k.words[:0]
			for _, c := range keyCols {
				kw = append(kw, row[2*c], row[2*c+1])
			}
			k.words = kw
			row = kw
		}
		dst[r] = keyed(&k.buf, &k.keys.kRecord, &k.keys.sRecord, row)
	}
	return nil
}

// Values writes the value digests of tile column col for the tile's first len(dst) rows
// to dst and returns their sums (the column state's lanes): the field digests in Multiset
// mode, H(K_V ‖ first+r ‖ field digest) for row r in Ordered mode (CodePosition when a
// position overflows).
func (k *Columnar) Values(dst []Digest, t Tile, col int, first uint64) (Digest, error) {
	rows := len(dst)
	if t.Cols != len(k.cols) || col < 0 || col >= t.Cols || t.Rows() < rows {
		return Digest{}, newErr("columnar", CodeColumn, "tile width, column or rows do not match")
	}
	if k.ordered && rows > 0 && uint64(rows-1) > math.MaxUint64-first {
		return Digest{}, newErr("columnar", CodePosition, "record positions overflow uint64")
	}
	var sum Digest
	for r := range dst {
		d := t.Digests[r*t.Cols+col]
		if k.ordered {
			m := [3]uint64{first + uint64(r), d.Lo, d.Hi}
			d = k.keys.sValue.sum(m[:])
		}
		dst[r] = d
		sum.Lo += d.Lo
		sum.Hi += d.Hi
	}
	return sum, nil
}
