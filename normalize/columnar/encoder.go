package columnar

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
	"github.com/pipewhy/pipewhy/normalize"
)

// Treatment is what the encoder does with a column.
type Treatment uint8

// Treatments. There is no implicit exclusion: every schema column must be listed, and
// an excluded column is reported by Encoder.Excluded.
const (
	Encode  Treatment = iota // encode the column as field Column.Field
	Exclude                  // leave the column out of every record (recorded)
)

// Column selects one Arrow column and says what to do with it. The column is found by
// Name when Name is not empty (it must name exactly one schema field), else by Index.
type Column struct {
	Name      string
	Index     int
	Field     normalize.FieldID // the C2 field id (Encode only)
	Treatment Treatment
}

// Exclusion reports a column left out by an explicit Exclude.
type Exclusion struct {
	Index int    // Arrow column index
	Name  string // Arrow field name
	Type  string // Arrow type
}

// EncodedColumn reports a column the encoder encodes.
type EncodedColumn struct {
	Index int
	Name  string
	Type  string
	Field normalize.FieldID
}

type kind uint8

const (
	kNull kind = iota
	kBool
	kInt8
	kInt16
	kInt32
	kInt64
	kUint8
	kUint16
	kUint32
	kUint64
	kFloat16
	kFloat32
	kFloat64
	kString
	kLargeString
	kStringView
	kBinary
	kLargeBinary
	kBinaryView
	kFixedBinary
	kDecimal32
	kDecimal64
	kDecimal128
	kDecimal256
	kDecimalText // decimaltext.Type: one DECIMAL per value, parsed from its text
	kTimestamp
	kDate32
	kDate64
	kTime32
	kTime64
	kDuration
	kNested
)

// plan is the encoding plan of one encoded column, fixed at construction; the scratch
// members are reused across batches.
type plan struct {
	index int
	name  string
	typ   arrow.DataType // the schema type (a dictionary type for dictionary columns)
	id    uint64
	kind  kind
	dict  bool // dictionary-encoded: decode through indices

	// fixed is the payload word count of every non-null value, or -1 when it varies.
	fixed int
	// check says the sizing pass must look at every value (range checks, UTF-8).
	check bool

	scale  int64 // decimal scale
	factor int64 // timestamp: microseconds per unit (0 for ns); time, duration: ns per unit
	ns     bool  // timestamp with nanosecond unit
	zone   tz
	nest   *nested // kNested

	// timestamps: the packed zone name written into every value, the bounds of the
	// raw values (see setup), and the civil date of the last day converted.
	nameWords             []uint64
	xLo, xHi              int64
	safeLo, safeHi        int64
	day, dayY, dayM, dayD int64

	// per-batch scratch
	seenType arrow.DataType // last array type found equal to typ
	v        view           // this batch's view of the column (prepare)
	sel      []int32        // dictionary: value index per row, -1 for a null index
	alt      []altText      // logical text whose NFC form differs, in row order
	altAt    int            // write pass: alt entries already written
	dec      []uint64       // kDecimalText: the DECIMAL payloads of the non-null rows, in row order
	decAt    int            // write pass: dec words already written
}

type altText struct {
	row int
	s   string
}

// Encoder encodes Arrow record batches of one schema into C2 records. It is not safe
// for concurrent use (it reuses scratch buffers); use one Encoder per goroutine.
type Encoder struct {
	schema   *arrow.Schema
	profile  normalize.Profile
	plans    []plan // encoded columns, in increasing field id order
	excluded []Exclusion
	base     int // words of every record before variable payloads: header, field headers, fixed payloads

	rowWords []int // per row: record length (sizing pass)
	pos      []int // per row: write cursor (write pass)
}

// NewEncoder returns an encoder for record batches with the given schema. columns must
// mention every schema column exactly once (by name or index), with Encode or Exclude;
// encoded columns need distinct field ids below UINT64_MAX. Column types outside the
// mapping of the package documentation, and the extension types under a v1 profile,
// are CodeUnsupported errors naming the column and its type; column list mistakes are
// CodeColumns (CodeFieldID for field ids); an invalid profile is CodeInput; an
// unusable timestamp timezone is CodeTimezone.
func NewEncoder(schema *arrow.Schema, columns []Column, profile normalize.Profile) (*Encoder, error) {
	if !profile.Valid() {
		return nil, &Error{Column: -1, Row: -1, Err: newError("schema", normalize.CodeInput, "invalid profile")}
	}
	if schema == nil {
		return nil, &Error{Column: -1, Row: -1, Err: newError("schema", CodeColumns, "nil schema")}
	}
	e := &Encoder{schema: schema, profile: profile}
	fields := schema.Fields()
	seen := make([]bool, len(fields))
	colErr := func(i int, code normalize.Code, msg string) error {
		ce := &Error{Column: i, Row: -1, Err: newError("schema", code, msg)}
		if i >= 0 {
			ce.Name, ce.Type = fields[i].Name, fields[i].Type.String()
		}
		return ce
	}
	for k, c := range columns {
		i := c.Index
		if c.Name != "" {
			idx := schema.FieldIndices(c.Name)
			if len(idx) != 1 {
				return nil, colErr(-1, CodeColumns, "column list entry "+strconv.Itoa(k)+": name matches "+strconv.Itoa(len(idx))+" schema fields")
			}
			i = idx[0]
		}
		if i < 0 || i >= len(fields) {
			return nil, colErr(-1, CodeColumns, "column list entry "+strconv.Itoa(k)+": index out of range")
		}
		if seen[i] {
			return nil, colErr(i, CodeColumns, "column listed twice")
		}
		seen[i] = true
		switch c.Treatment {
		case Exclude:
			e.excluded = append(e.excluded, Exclusion{Index: i, Name: fields[i].Name, Type: fields[i].Type.String()})
			continue
		case Encode:
		default:
			return nil, colErr(i, CodeColumns, "unknown treatment")
		}
		if c.Field > normalize.MaxFieldID {
			return nil, colErr(i, normalize.CodeFieldID, "field id UINT64_MAX is reserved")
		}
		p := plan{index: i, name: fields[i].Name, typ: fields[i].Type, id: uint64(c.Field)}
		if err := p.setup(profile); err != nil {
			err.Column, err.Name, err.Type = i, p.name, p.typ.String()
			return nil, err
		}
		e.plans = append(e.plans, p)
	}
	for i, ok := range seen {
		if !ok {
			return nil, colErr(i, CodeColumns, "schema column not mentioned: exclusions must be explicit")
		}
	}
	slices.SortFunc(e.plans, func(a, b plan) int { return cmp.Compare(a.id, b.id) })
	for k := 1; k < len(e.plans); k++ {
		if e.plans[k].id == e.plans[k-1].id {
			return nil, colErr(e.plans[k].index, normalize.CodeFieldID, "duplicate field id")
		}
	}
	slices.SortFunc(e.excluded, func(a, b Exclusion) int { return cmp.Compare(a.Index, b.Index) })
	e.base = 3 + 3*len(e.plans)
	for k := range e.plans {
		if f := e.plans[k].fixed; f > 0 {
			e.base += f
		}
	}
	return e, nil
}

// Profile returns the encoder's profile; Append declares its ID on the batch.
func (e *Encoder) Profile() normalize.Profile { return e.profile }

// Excluded returns the explicitly excluded columns, in schema order (a new slice).
func (e *Encoder) Excluded() []Exclusion { return slices.Clone(e.excluded) }

// Columns returns the encoded columns in field id order (a new slice).
func (e *Encoder) Columns() []EncodedColumn {
	out := make([]EncodedColumn, len(e.plans))
	for k, p := range e.plans {
		out[k] = EncodedColumn{Index: p.index, Name: p.name, Type: p.typ.String(), Field: normalize.FieldID(p.id)}
	}
	return out
}

func unsupported(msg string) *Error {
	return &Error{Row: -1, Err: newError("schema", normalize.CodeUnsupported, msg)}
}

// setup fills the plan for the column type under profile.
func (p *plan) setup(profile normalize.Profile) *Error {
	t := p.typ
	if d, ok := t.(*arrow.DictionaryType); ok {
		p.dict = true
		p.check = true // indices are range-checked
		t = d.ValueType
		if _, nested := t.(*arrow.DictionaryType); nested {
			return unsupported("nested dictionary type")
		}
	}
	ext := profile.Extended()
	needExt := func(what string) *Error {
		if ext {
			return nil
		}
		return unsupported(what + " is not representable in C2 v1; choose an extension profile or exclude the column")
	}
	p.fixed = 1
	switch t := t.(type) {
	case *arrow.NullType:
		p.kind, p.fixed = kNull, 0
	case *arrow.BooleanType:
		p.kind = kBool
	case *arrow.Int8Type:
		p.kind = kInt8
	case *arrow.Int16Type:
		p.kind = kInt16
	case *arrow.Int32Type:
		p.kind = kInt32
	case *arrow.Int64Type:
		p.kind = kInt64
	case *arrow.Uint8Type:
		p.kind = kUint8
	case *arrow.Uint16Type:
		p.kind = kUint16
	case *arrow.Uint32Type:
		p.kind = kUint32
	case *arrow.Uint64Type:
		p.kind = kUint64
	case *arrow.Float16Type:
		p.kind = kFloat16
	case *arrow.Float32Type:
		p.kind = kFloat32
	case *arrow.Float64Type:
		p.kind = kFloat64
	case *arrow.StringType:
		p.kind, p.fixed, p.check = kString, -1, true
	case *arrow.LargeStringType:
		p.kind, p.fixed, p.check = kLargeString, -1, true
	case *arrow.StringViewType:
		p.kind, p.fixed, p.check = kStringView, -1, true
	case *arrow.BinaryType:
		p.kind, p.fixed, p.check = kBinary, -1, true
	case *arrow.LargeBinaryType:
		p.kind, p.fixed, p.check = kLargeBinary, -1, true
	case *arrow.BinaryViewType:
		p.kind, p.fixed, p.check = kBinaryView, -1, true
	case *arrow.FixedSizeBinaryType:
		p.kind, p.fixed = kFixedBinary, 1+(t.ByteWidth+7)/8
	case *arrow.Decimal32Type:
		p.kind, p.fixed, p.check, p.scale = kDecimal32, -1, true, int64(t.Scale)
	case *arrow.Decimal64Type:
		p.kind, p.fixed, p.check, p.scale = kDecimal64, -1, true, int64(t.Scale)
	case *arrow.Decimal128Type:
		p.kind, p.fixed, p.check, p.scale = kDecimal128, -1, true, int64(t.Scale)
	case *arrow.Decimal256Type:
		p.kind, p.fixed, p.check, p.scale = kDecimal256, -1, true, int64(t.Scale)
	case arrow.ExtensionType:
		if !decimaltext.Is(t) {
			return unsupported("Arrow extension type " + t.ExtensionName() + " has no C2 mapping")
		}
		p.kind, p.fixed, p.check = kDecimalText, -1, true
	case *arrow.TimestampType:
		p.kind, p.check = kTimestamp, true
		switch t.Unit {
		case arrow.Second:
			p.factor = usPerSec
		case arrow.Millisecond:
			p.factor = 1000
		case arrow.Microsecond:
			p.factor = 1
		case arrow.Nanosecond:
			if err := needExt("timestamp[ns]"); err != nil {
				return err
			}
			p.ns = true
		default:
			return unsupported("unknown timestamp unit")
		}
		z, err := parseTZ(t.TimeZone)
		if err != nil {
			return &Error{Row: -1, Err: err.(*normalize.Error)}
		}
		p.zone = z
		name := z.name
		if profile.Logical() && z.kind != normalize.ZoneNaive {
			name = "UTC"
		}
		p.nameWords = make([]uint64, 1+(len(name)+7)/8)
		pack(p.nameWords, name)
		p.fixed = 10 + len(p.nameWords)
		// Bounds on the raw value: outside [xLo, xHi] no offset brings the wall time
		// into years 1..9999; inside [safeLo, safeHi] every offset (below a day) keeps
		// it there. Every nanosecond value (years 1677..2262) is safe.
		p.xLo, p.xHi, p.safeLo, p.safeHi = math.MinInt64, math.MaxInt64, math.MinInt64, math.MaxInt64
		if !p.ns {
			p.xLo, p.xHi = (minUS-usPerDay)/p.factor, (maxUS+usPerDay)/p.factor
			p.safeLo, p.safeHi = (minUS+usPerDay)/p.factor, (maxUS-usPerDay)/p.factor
		}
		p.day = math.MinInt64
	case *arrow.Date32Type:
		if err := needExt("date32"); err != nil {
			return err
		}
		p.kind, p.check = kDate32, true
	case *arrow.Date64Type:
		if err := needExt("date64"); err != nil {
			return err
		}
		p.kind, p.check = kDate64, true
	case *arrow.Time32Type:
		if err := needExt("time32"); err != nil {
			return err
		}
		p.kind, p.check, p.factor = kTime32, true, unitNanos(t.Unit)
	case *arrow.Time64Type:
		if err := needExt("time64"); err != nil {
			return err
		}
		p.kind, p.check, p.factor = kTime64, true, unitNanos(t.Unit)
	case *arrow.DurationType:
		if err := needExt("duration"); err != nil {
			return err
		}
		p.kind, p.fixed, p.factor = kDuration, 2, unitNanos(t.Unit)
	case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType, *arrow.StructType, *arrow.MapType:
		if err := needExt(t.Name()); err != nil {
			return err
		}
		nb, err := newNested(t)
		if err != nil {
			return err
		}
		p.kind, p.fixed, p.check, p.nest = kNested, -1, true, nb
	default:
		return unsupported("Arrow type " + t.Name() + " has no C2 mapping")
	}
	if p.factor < 0 {
		return unsupported("unknown time unit")
	}
	return nil
}

func unitNanos(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1_000_000_000
	case arrow.Millisecond:
		return 1_000_000
	case arrow.Microsecond:
		return 1_000
	case arrow.Nanosecond:
		return 1
	}
	return -1
}

// Append encodes every row of rec as one C2 record (fields in increasing field id
// order) at the end of dst.Words, and appends the records' offsets and lengths. A
// batch with an empty ProfileID takes the encoder profile's ID; a batch declared for
// another profile is CodeBatchProfile. rec's schema must equal the encoder's
// (CodeColumns). A value that cannot be encoded is an *Error with its code, column
// and row; on any error dst is unchanged. The output equals, record for record,
// normalize.AppendRecord over the equivalent scalar values.
func (e *Encoder) Append(dst *normalize.RecordBatch, rec arrow.RecordBatch) error {
	if dst.ProfileID != "" && dst.ProfileID != e.profile.ID() {
		return &Error{Column: -1, Row: -1, Err: newError("encode", normalize.CodeBatchProfile, "batch declares another profile")}
	}
	if rec == nil || !rec.Schema().Equal(e.schema) {
		return &Error{Column: -1, Row: -1, Err: newError("encode", CodeColumns, "record schema differs from the encoder's")}
	}
	n := int(rec.NumRows())
	cols := rec.Columns()
	if len(cols) != e.schema.NumFields() {
		return &Error{Column: -1, Row: -1, Err: newError("encode", CodeColumns, "record has another column count than its schema")}
	}
	for k := range e.plans {
		p := &e.plans[k]
		c := cols[p.index]
		if c.Len() != n {
			return p.err(-1, CodeColumns, "column length differs from the record's row count")
		}
		// The kernels assert the array's concrete type, so check it (once per type value).
		if dt := c.DataType(); dt != p.typ && dt != p.seenType {
			if !arrow.TypeEqual(dt, p.typ) {
				return p.err(-1, CodeColumns, "column type differs from the encoder's schema")
			}
			p.seenType = dt
		}
	}
	if n == 0 {
		dst.ProfileID = e.profile.ID()
		return nil
	}
	defer e.forget()

	// Sizing pass: the length of every record, and every check that can fail, so that
	// the write pass cannot fail and dst stays unchanged on error.
	e.rowWords = grow(e.rowWords, n)
	for r := range e.rowWords {
		e.rowWords[r] = e.base
	}
	for k := range e.plans {
		p := &e.plans[k]
		if err := e.size(p, cols[p.index], n); err != nil {
			return err
		}
	}
	total := 0
	for _, w := range e.rowWords {
		total += w
	}

	// Layout: records are contiguous, in row order.
	start := len(dst.Words)
	words := slices.Grow(dst.Words, total)[:start+total]
	e.pos = grow(e.pos, n)
	first := len(dst.Offsets)
	offsets := slices.Grow(dst.Offsets, n)
	lengths := slices.Grow(dst.Lengths, n)
	at := start
	for _, w := range e.rowWords {
		offsets = append(offsets, uint64(at))
		lengths = append(lengths, uint64(w))
		at += w
	}

	// Write pass over tiles of rows: the record headers of the tile, then one column at
	// a time, so that the tile's records stay in cache while every column writes into
	// them.
	for k := range e.plans {
		e.plans[k].altAt, e.plans[k].decAt = 0, 0
	}
	nf := uint64(len(e.plans))
	for lo := 0; lo < n; lo += tileRows {
		hi := min(n, lo+tileRows)
		for r := lo; r < hi; r++ {
			at := int(offsets[first+r])
			words[at], words[at+1], words[at+2] = normalize.WireVersion, normalize.RecordDomain, nf
			e.pos[r] = at + 3
		}
		for k := range e.plans {
			p := &e.plans[k]
			e.write(p, cols[p.index], lo, hi, words)
		}
	}
	dst.Words, dst.Offsets, dst.Lengths = words, offsets, lengths
	dst.ProfileID = e.profile.ID()
	return nil
}

// tileRows is the number of rows the write pass handles per column before moving to
// the next column: about 512 rows of a few hundred bytes each stay within L2.
const tileRows = 512

// forget drops the references to the last batch's buffers (views, NFC strings) so
// that the encoder never keeps a released record alive or reads it again.
func (e *Encoder) forget() {
	for k := range e.plans {
		p := &e.plans[k]
		p.v = view{}
		clear(p.alt)
		p.alt = p.alt[:0]
		p.dec = p.dec[:0]
		if p.nest != nil {
			p.nest.arena = p.nest.arena[:0]
		}
	}
}

// AppendTable appends every row of tbl, whose columns may be chunked at different row
// boundaries: the table is read as record batches that end at every chunk boundary of
// any column, and each is appended like Append does. Chunk boundaries do not change the
// output. On error dst is restored to its length before the call.
func (e *Encoder) AppendTable(dst *normalize.RecordBatch, tbl arrow.Table) error {
	if tbl == nil || !tbl.Schema().Equal(e.schema) {
		return &Error{Column: -1, Row: -1, Err: newError("encode", CodeColumns, "table schema differs from the encoder's")}
	}
	nw, no, nl, id := len(dst.Words), len(dst.Offsets), len(dst.Lengths), dst.ProfileID
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	for tr.Next() {
		if err := e.Append(dst, tr.RecordBatch()); err != nil {
			dst.Words, dst.Offsets, dst.Lengths, dst.ProfileID = dst.Words[:nw], dst.Offsets[:no], dst.Lengths[:nl], id
			return err
		}
	}
	if dst.ProfileID == "" {
		dst.ProfileID = e.profile.ID()
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// view resolves a row to the physical index in the value array, or -1 for null, and
// gives the offset-based string and binary kinds direct access to their buffers.
type view struct {
	bits   []byte // validity bitmap of the value array; nil when it has no nulls
	off    int    // the value array's offset into bits
	sel    []int32
	values arrow.Array

	// String, LargeString, Binary, LargeBinary: the value offsets (already shifted by
	// the array offset; checked monotonic and inside data) and the data buffer.
	o32   []int32
	o64   []int64
	data  string
	ascii bool // every byte of the values is ASCII (so valid UTF-8, and NFC)
}

func (v *view) phys(r int) int {
	j := r
	if v.sel != nil {
		j = int(v.sel[r])
		if j < 0 {
			return -1
		}
	}
	if v.bits != nil {
		b := v.off + j
		if v.bits[b>>3]&(1<<(b&7)) == 0 {
			return -1
		}
	}
	return j
}

// dense reports whether row r is always value r and never null.
func (v *view) dense() bool { return v.sel == nil && v.bits == nil }

// prepare builds p.v, the view of arr for this batch: for dictionary columns it decodes
// the indices into p.sel (range-checked) and views the dictionary; for offset-based
// string and binary kinds it checks the offsets, so that no later access can panic.
func (p *plan) prepare(arr arrow.Array, n int) *Error {
	p.v = view{}
	v := &p.v
	values := arr
	if p.dict {
		d, ok := arr.(*array.Dictionary)
		if !ok {
			return p.err(-1, CodeColumns, "dictionary column is not a dictionary array")
		}
		values = d.Dictionary()
		p.sel = grow(p.sel, n)
		dn := values.Len()
		for r := 0; r < n; r++ {
			if d.IsNull(r) {
				p.sel[r] = -1
				continue
			}
			j := d.GetValueIndex(r)
			if j < 0 || j >= dn {
				return p.err(r, normalize.CodeInput, "dictionary index out of range")
			}
			p.sel[r] = int32(j)
		}
		v.sel = p.sel
	}
	if p.kind == kDecimalText {
		ext, ok := values.(array.ExtensionArray)
		if !ok {
			return p.err(-1, CodeColumns, "decimal text column is not an extension array")
		}
		values = ext.Storage() // utf8: decimaltext.Is checked the storage type
	}
	v.values = values
	data := values.Data()
	if values.NullN() > 0 && values.DataType().ID() != arrow.NULL {
		v.bits = values.NullBitmapBytes()
		v.off = data.Offset()
		if v.bits != nil && len(v.bits)*8 < v.off+values.Len() {
			return p.err(-1, normalize.CodeInput, "validity bitmap shorter than the array")
		}
	}
	switch p.kind {
	case kString, kBinary, kDecimalText:
		return p.offsets32(data)
	case kLargeString, kLargeBinary:
		return p.offsets64(data)
	}
	return nil
}

func (p *plan) offsets32(d arrow.ArrayData) *Error {
	bufs := d.Buffers()
	if d.Len() == 0 {
		return nil
	}
	if len(bufs) < 3 || bufs[1] == nil {
		return p.err(-1, normalize.CodeInput, "string array without offsets")
	}
	all := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
	if len(all) < d.Offset()+d.Len()+1 {
		return p.err(-1, normalize.CodeInput, "offset buffer shorter than the array")
	}
	o := all[d.Offset() : d.Offset()+d.Len()+1]
	var b []byte
	if bufs[2] != nil {
		b = bufs[2].Bytes()
	}
	if o[0] < 0 || int64(o[len(o)-1]) > int64(len(b)) {
		return p.err(-1, normalize.CodeInput, "offsets outside the data buffer")
	}
	for i := 1; i < len(o); i++ {
		if o[i] < o[i-1] {
			return p.err(-1, normalize.CodeInput, "decreasing offsets")
		}
	}
	p.v.o32, p.v.data = o, unsafe.String(unsafe.SliceData(b), len(b))
	p.v.ascii = isASCII(p.v.data[o[0]:o[len(o)-1]])
	return nil
}

func (p *plan) offsets64(d arrow.ArrayData) *Error {
	bufs := d.Buffers()
	if d.Len() == 0 {
		return nil
	}
	if len(bufs) < 3 || bufs[1] == nil {
		return p.err(-1, normalize.CodeInput, "string array without offsets")
	}
	all := arrow.Int64Traits.CastFromBytes(bufs[1].Bytes())
	if len(all) < d.Offset()+d.Len()+1 {
		return p.err(-1, normalize.CodeInput, "offset buffer shorter than the array")
	}
	o := all[d.Offset() : d.Offset()+d.Len()+1]
	var b []byte
	if bufs[2] != nil {
		b = bufs[2].Bytes()
	}
	if o[0] < 0 || o[len(o)-1] > int64(len(b)) {
		return p.err(-1, normalize.CodeInput, "offsets outside the data buffer")
	}
	for i := 1; i < len(o); i++ {
		if o[i] < o[i-1] {
			return p.err(-1, normalize.CodeInput, "decreasing offsets")
		}
	}
	p.v.o64, p.v.data = o, unsafe.String(unsafe.SliceData(b), len(b))
	p.v.ascii = isASCII(p.v.data[o[0]:o[len(o)-1]])
	return nil
}

// isASCII reports whether every byte of s is below 0x80, eight bytes at a time.
func isASCII(s string) bool {
	for len(s) >= 8 {
		if binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8))&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// strAt returns value j of a string or binary column, borrowed.
func (p *plan) strAt(j int) string {
	v := &p.v
	if v.o32 != nil {
		return v.data[v.o32[j]:v.o32[j+1]]
	}
	if v.o64 != nil {
		return v.data[v.o64[j]:v.o64[j+1]]
	}
	return str(p.kind, v.values, j)
}
