package fingerprint

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/pipewhy/pipewhy/normalize"
)

// The tile columns of the kernel tests: fields of v2Schema.
var kernelFields = []uint64{1, 2, 5, 7, 8, 10, 11, 12, 13, 16, 40}

const (
	colInt, colBool, colFloat, colText, colBytes, colDecimal, colTime, colDate, colClock, colQty, colAny = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
)

// scalarFrame returns the C2 frame of value v in field id as normalize encodes it under
// strict-v1+ext1: the words the kernels must digest as FieldDigest does.
func scalarFrame(t *testing.T, id uint64, v normalize.Value) []uint64 {
	t.Helper()
	code, words, err := normalize.EncodeValue(v, normalize.StrictV1Ext1)
	if err != nil {
		t.Fatal(err)
	}
	return append([]uint64{id, uint64(code), uint64(len(words))}, words...)
}

// randValidity returns nil Bits (all valid) or a random bitmap at a random bit offset.
func randValidity(r *rand.Rand, rows int) Validity {
	if r.IntN(3) == 0 {
		return Validity{}
	}
	off := r.IntN(20)
	bits := make([]byte, (off+rows+7)/8+r.IntN(2))
	for i := range bits {
		bits[i] = byte(r.Uint32())
	}
	if r.IntN(4) == 0 { // mostly valid
		for i := range bits {
			bits[i] |= byte(r.Uint32())
		}
	}
	return Validity{Bits: bits, Offset: off}
}

func isValid(v Validity, r int) bool { return v.Bits == nil || v.valid(r) }

// kernelCheck compares tile column col of rows rows with the scalar field digests of
// frames (frame(r) is row r's frame) and the returned sum with their sum.
func kernelCheck(t *testing.T, what string, c Context, tile Tile, col, rows int, sum Digest, err error, frame func(r int) []uint64) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var want Digest
	for r := range rows {
		f := frame(r)
		d, err := c.FieldDigest(f)
		if err != nil {
			t.Fatalf("%s row %d: frame %v: %v", what, r, f, err)
		}
		if got := tile.Digests[r*tile.Cols+col]; got != d {
			t.Fatalf("%s row %d: kernel %x, scalar %x (frame %v)", what, r, got, d, f)
		}
		want.Lo += d.Lo
		want.Hi += d.Hi
	}
	if sum != want {
		t.Fatalf("%s: sum %x, want %x", what, sum, want)
	}
}

func randInts[T signed](r *rand.Rand, n int) []T {
	bits := 8 * int(unsafeSizeof[T]())
	lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
	v := make([]T, n)
	for i := range v {
		switch r.IntN(5) {
		case 0:
			v[i] = T([]int64{lo, hi, -1, 0, 1}[r.IntN(5)])
		case 1:
			v[i] = T(int64(r.IntN(5)) - 2)
		default:
			v[i] = T(int64(r.Uint64()))
		}
	}
	return v
}

func randUints[T unsigned](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		if r.IntN(4) == 0 {
			v[i] = T([]uint64{0, 1, math.MaxUint64}[r.IntN(3)])
		} else {
			v[i] = T(r.Uint64())
		}
	}
	return v
}

func unsafeSizeof[T signed | unsigned]() uintptr {
	var x T
	switch any(x).(type) {
	case int8, uint8:
		return 1
	case int16, uint16:
		return 2
	case int32, uint32:
		return 4
	}
	return 8
}

func checkInts[T signed](t *testing.T, r *rand.Rand, c Context, k *Columnar, tile Tile, rows int) {
	vals := randInts[T](r, rows)
	valid := randValidity(r, rows)
	sum, err := Ints(k, tile, colInt, vals, valid)
	kernelCheck(t, fmt.Sprintf("Ints[%T]", vals), c, tile, colInt, rows, sum, err, func(i int) []uint64 {
		if !isValid(valid, i) {
			return frame(1, normalize.Null)
		}
		return scalarFrame(t, 1, normalize.Int(int64(vals[i])))
	})
}

func checkUints[T unsigned](t *testing.T, r *rand.Rand, c Context, k *Columnar, tile Tile, rows int) {
	vals := randUints[T](r, rows)
	valid := randValidity(r, rows)
	sum, err := Uints(k, tile, colQty, vals, valid)
	kernelCheck(t, fmt.Sprintf("Uints[%T]", vals), c, tile, colQty, rows, sum, err, func(i int) []uint64 {
		if !isValid(valid, i) {
			return frame(16, normalize.Null)
		}
		return scalarFrame(t, 16, normalize.Uint(uint64(vals[i])))
	})
}

// randBytesColumn returns an Arrow-layout column of n values (empty ones, lengths around
// every word boundary and the short-path limit, long ones) and the values themselves.
func randBytesColumn[O int32 | int64](r *rand.Rand, n int) ([]O, []byte, [][]byte) {
	offs := []O{O(r.IntN(3))}
	data := make([]byte, offs[0])
	vals := make([][]byte, n)
	for i := range vals {
		size := []int{0, 1, 7, 8, 9, 12, 15, 16, 17, maxShortBytes - 1, maxShortBytes, maxShortBytes + 1, 300, 2000}[r.IntN(14)]
		if r.IntN(2) == 0 {
			size = r.IntN(24)
		}
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(r.IntN(256))
			if r.IntN(3) == 0 {
				b[j] = 0
			}
		}
		vals[i] = b
		data = append(data, b...)
		offs = append(offs, O(len(data)))
	}
	if r.IntN(2) == 0 {
		data = append(data, 0xff, 0xee) // bytes after the last value
	}
	return offs, data, vals
}

// TestColumnarKernels: every kernel equals the scalar field digest of the frame normalize
// encodes for the same value, row by row, on random columns with nulls, empty values,
// boundary values and long strings, at random validity offsets, in one column of a
// wider tile (whose other columns it leaves alone); and returns the sum of what it wrote.
func TestColumnarKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 3))
	for _, mode := range []Mode{Multiset, Ordered} {
		c := v2Context(t, mode)
		k, err := NewColumnar(c, kernelFields)
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 60 {
			rows := r.IntN(300)
			if trial%10 == 0 {
				rows = 0
			}
			tile := NewTile(rows+r.IntN(3), len(kernelFields))
			sentinel := Digest{Lo: 0x5e5e, Hi: uint64(trial)}
			for i := range tile.Digests {
				tile.Digests[i] = sentinel
			}

			checkInts[int64](t, r, c, k, tile, rows)
			checkInts[int32](t, r, c, k, tile, rows)
			checkInts[int16](t, r, c, k, tile, rows)
			checkInts[int8](t, r, c, k, tile, rows)
			checkUints[uint64](t, r, c, k, tile, rows)
			checkUints[uint32](t, r, c, k, tile, rows)
			checkUints[uint8](t, r, c, k, tile, rows)

			// FLOAT64 from bits, with signed zeros, infinities and NaN payloads.
			fl := randUints[uint64](r, rows)
			for i := range fl {
				if r.IntN(3) == 0 {
					fl[i] = []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000001, 0xfff4000000000000}[r.IntN(6)]
				}
			}
			valid := randValidity(r, rows)
			sum, err := Words(k, tile, colFloat, normalize.Float64, fl, valid)
			kernelCheck(t, "Words FLOAT64", c, tile, colFloat, rows, sum, err, func(i int) []uint64 {
				if !isValid(valid, i) {
					return frame(5, normalize.Null)
				}
				return scalarFrame(t, 5, normalize.FloatValue{Bits: fl[i]})
			})

			// DATE from date32 days, TIME from time64[ns].
			days := make([]int32, rows)
			for i := range days {
				days[i] = int32(r.IntN(3652059)) - 719162 // 0001-01-01 .. 9999-12-31
			}
			valid = randValidity(r, rows)
			sum, err = Words(k, tile, colDate, normalize.Date, days, valid)
			kernelCheck(t, "Words DATE", c, tile, colDate, rows, sum, err, func(i int) []uint64 {
				if !isValid(valid, i) {
					return frame(12, normalize.Null)
				}
				d := time0.AddDate(0, 0, int(days[i]))
				return scalarFrame(t, 12, normalize.DateValue{Year: d.Year(), Month: int(d.Month()), Day: d.Day()})
			})
			ns := make([]int64, rows)
			for i := range ns {
				ns[i] = r.Int64N(86_400_000_000_000)
			}
			valid = randValidity(r, rows)
			sum, err = Words(k, tile, colClock, normalize.Time, ns, valid)
			kernelCheck(t, "Words TIME", c, tile, colClock, rows, sum, err, func(i int) []uint64 {
				if !isValid(valid, i) {
					return frame(13, normalize.Null)
				}
				v := ns[i]
				return scalarFrame(t, 13, normalize.TimeValue{Hour: int(v / 3600e9), Minute: int(v / 60e9 % 60), Second: int(v / 1e9 % 60), Nanosecond: int(v % 1e9)})
			})

			// Booleans from an Arrow bitmap at an offset.
			boff := r.IntN(9)
			bits := make([]byte, (boff+rows+7)/8)
			for i := range bits {
				bits[i] = byte(r.Uint32())
			}
			valid = randValidity(r, rows)
			sum, err = k.Bools(tile, colBool, rows, bits, boff, valid)
			kernelCheck(t, "Bools", c, tile, colBool, rows, sum, err, func(i int) []uint64 {
				if !isValid(valid, i) {
					return frame(2, normalize.Null)
				}
				return scalarFrame(t, 2, normalize.BoolValue((Validity{Bits: bits, Offset: boff}).valid(i)))
			})

			// TEXT (32-bit offsets) and BYTES (64-bit offsets).
			to, td, tv := randBytesColumn[int32](r, rows)
			valid = randValidity(r, rows)
			sum, err = Strings(k, tile, colText, normalize.Text, to, td, valid)
			kernelCheck(t, "Strings TEXT", c, tile, colText, rows, sum, err, func(i int) []uint64 {
				if !isValid(valid, i) {
					return frame(7, normalize.Null)
				}
				return frame(7, normalize.Text, packed(tv[i])...) // any bytes: the kernel does not check UTF-8
			})
			bo, bd, bv := randBytesColumn[int64](r, rows)
			valid = randValidity(r, rows)
			sum, err = Strings(k, tile, colBytes, normalize.Bytes, bo, bd, valid)
			kernelCheck(t, "Strings BYTES", c, tile, colBytes, rows, sum, err, func(i int) []uint64 {
				if !isValid(valid, i) {
					return frame(8, normalize.Null)
				}
				return scalarFrame(t, 8, normalize.BytesValue(bv[i]))
			})

			// Frames: DECIMAL, TIMESTAMP/TIMESTAMP_NS and every type of an "any" field.
			for _, col := range []int{colDecimal, colTime, colAny} {
				f := v2Schema.Fields[slices.IndexFunc(v2Schema.Fields, func(f SchemaField) bool { return f.ID == kernelFields[col] })]
				var words []uint64
				var frames [][]uint64
				for range rows {
					fr := randValue(r, f, true)
					frames = append(frames, fr)
					words = append(words, fr...)
				}
				sum, err := k.Frames(tile, col, rows, words)
				kernelCheck(t, "Frames "+string(f.Type), c, tile, col, rows, sum, err, func(i int) []uint64 { return frames[i] })
			}
			// Every tile column was written for rows 0..rows-1, and nothing else.
			for i, d := range tile.Digests {
				if (i < rows*tile.Cols) == (d == sentinel) {
					t.Fatalf("trial %d: tile entry %d (row %d) written %v", trial, i, i/tile.Cols, d != sentinel)
				}
			}

			// MISSING and NULL fills.
			for _, code := range []normalize.TypeCode{normalize.Missing, normalize.Null} {
				sum, err := k.Absent(tile, colAny, code, rows)
				kernelCheck(t, "Absent "+code.String(), c, tile, colAny, rows, sum, err, func(int) []uint64 { return frame(40, code) })
			}
		}
	}
}

// TestColumnarRecords: record, key and value digests from a tile filled by the kernels
// equal Context.RecordDigest, the engine's key and value entries and the reference, in
// both modes, at any position; a slice of the tile gives the same digests as the rows
// it holds.
func TestColumnarRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	for _, mode := range []Mode{Multiset, Ordered} {
		c := v2Context(t, mode)
		for trial := range 20 {
			// A random subset of the schema's fields, the same in every record (a columnar
			// source), including field 1.
			var fields []SchemaField
			for _, f := range v2Schema.Fields {
				if f.ID == 1 || r.IntN(2) == 0 {
					fields = append(fields, f)
				}
			}
			if trial == 0 {
				fields = fields[:1]
			}
			ids := make([]uint64, len(fields))
			for i, f := range fields {
				ids[i] = f.ID
			}
			k, err := NewColumnar(c, ids)
			if err != nil {
				t.Fatal(err)
			}
			rows := 1 + r.IntN(200)
			tile := NewTile(rows, len(ids))
			recs := make([][]uint64, rows)
			colWords := make([][]uint64, len(ids))
			for i := range recs {
				var frames [][]uint64
				for j, f := range fields {
					fr := randValue(r, f, true)
					frames = append(frames, fr)
					colWords[j] = append(colWords[j], fr...)
				}
				recs[i] = rec(frames...)
			}
			for j := range ids {
				if _, err := k.Frames(tile, j, rows, colWords[j]); err != nil {
					t.Fatal(err)
				}
			}
			first := r.Uint64() >> 1
			if trial == 1 {
				first = math.MaxUint64 - uint64(rows) + 1 // the last positions there are
			}
			got := make([]Digest, rows)
			sum, err := k.Records(got, tile, first)
			if err != nil {
				t.Fatal(err)
			}
			var want Digest
			for i, rw := range recs {
				d, err := c.RecordDigest(first+uint64(i), rw)
				if err != nil {
					t.Fatal(err)
				}
				if got[i] != d || d != refRecordDigest(c, mode == Ordered, first+uint64(i), rw) {
					t.Fatalf("%v trial %d row %d: columnar %x, scalar %x", mode, trial, i, got[i], d)
				}
				want.Lo += d.Lo
				want.Hi += d.Hi
			}
			if sum != want {
				t.Fatalf("%v trial %d: record sum %x, want %x", mode, trial, sum, want)
			}
			// A slice of rows gives the digests of those rows at their positions.
			lo := r.IntN(rows)
			part := make([]Digest, rows-lo)
			if _, err := k.Records(part, tile.Slice(lo, rows), first+uint64(lo)); err != nil || !slices.Equal(part, got[lo:]) {
				t.Fatalf("%v trial %d: sliced records differ (%v)", mode, trial, err)
			}

			// Keys over columns {0} and over a second column when there is one, and over
			// the whole record; values of every column.
			keyCols := []int{0}
			if len(ids) > 1 {
				keyCols = append(keyCols, 1+r.IntN(len(ids)-1))
			}
			var keyIDs []uint64
			for _, kc := range keyCols {
				keyIDs = append(keyIDs, ids[kc])
			}
			keys := make([]Digest, rows)
			whole := make([]Digest, rows)
			if err := k.Keys(keys, tile, keyCols); err != nil {
				t.Fatal(err)
			}
			if err := k.Keys(whole, tile, nil); err != nil {
				t.Fatal(err)
			}
			for i, rw := range recs {
				proj := []uint64{1, 2, uint64(len(keyIDs))}
				for _, fr := range refFrames(rw) {
					if slices.Contains(keyIDs, fr[0]) {
						proj = append(proj, fr...)
					}
				}
				if keys[i] != refRecordDigest(c, false, 0, proj) || whole[i] != refRecordDigest(c, false, 0, rw) {
					t.Fatalf("%v trial %d row %d: key digest differs", mode, trial, i)
				}
			}
			for j := range ids {
				vals := make([]Digest, rows)
				sum, err := k.Values(vals, tile, j, first)
				if err != nil {
					t.Fatal(err)
				}
				var want Digest
				for i, rw := range recs {
					d := refValueDigest(c, first+uint64(i), refFrames(rw)[j])
					if vals[i] != d {
						t.Fatalf("%v trial %d row %d column %d: value digest differs", mode, trial, i, j)
					}
					want.Lo += d.Lo
					want.Hi += d.Hi
				}
				if sum != want {
					t.Fatalf("%v trial %d column %d: value sum differs", mode, trial, j)
				}
			}
		}
	}
}

// TestColumnarNoFields: a tile of no columns describes records of no fields, whose
// record digest is H(K_R ‖ [position]).
func TestColumnarNoFields(t *testing.T) {
	for _, mode := range []Mode{Multiset, Ordered} {
		c := v2Context(t, mode)
		k, err := NewColumnar(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]Digest, 3)
		if _, err := k.Records(got, Tile{}, 5); err != nil {
			t.Fatal(err)
		}
		for i, d := range got {
			if want := refRecordDigest(c, mode == Ordered, 5+uint64(i), rec()); d != want {
				t.Fatalf("%v row %d: %x, want %x", mode, i, d, want)
			}
		}
	}
}

func TestColumnarErrors(t *testing.T) {
	c := v2Context(t, Multiset)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	tile := NewTile(4, len(kernelFields))
	ints := []int64{1, 2, 3, 4}
	for name, tc := range map[string]struct {
		err  error
		code Code
	}{
		"tile of another width": {second(Ints(k, NewTile(4, 3), colInt, ints, Validity{})), CodeColumn},
		"column out of range":   {second(Ints(k, tile, len(kernelFields), ints, Validity{})), CodeColumn},
		"negative column":       {second(Ints(k, tile, -1, ints, Validity{})), CodeColumn},
		"tile too short":        {second(Ints(k, tile, colInt, []int64{1, 2, 3, 4, 5}, Validity{})), CodeColumn},
		"validity too short":    {second(Ints(k, tile, colInt, ints, Validity{Bits: []byte{0xff}, Offset: 5})), CodeColumn},
		"validity offset < 0":   {second(Ints(k, tile, colInt, ints, Validity{Bits: []byte{0xff}, Offset: -1})), CodeColumn},
		"ints in a text field":  {second(Ints(k, tile, colText, ints, Validity{})), CodeSchemaMismatch},
		"uints in a bool field": {second(Uints(k, tile, colBool, []uint8{1}, Validity{})), CodeSchemaMismatch},
		"words of TEXT":         {second(Words(k, tile, colText, normalize.Text, ints, Validity{})), CodeColumn},
		"words of DATE in int":  {second(Words(k, tile, colInt, normalize.Date, ints, Validity{})), CodeSchemaMismatch},
		"bools short":           {second(k.Bools(tile, colBool, 4, []byte{0xff}, 5, Validity{})), CodeColumn},
		"bools nil":             {second(k.Bools(tile, colBool, 4, nil, 0, Validity{})), CodeColumn},
		"strings of INT64":      {second(Strings(k, tile, colText, normalize.Int64, []int32{0, 0}, nil, Validity{})), CodeColumn},
		"strings in bytes col":  {second(Strings(k, tile, colBytes, normalize.Text, []int32{0, 0}, nil, Validity{})), CodeSchemaMismatch},
		"offsets decrease":      {second(Strings(k, tile, colText, normalize.Text, []int32{0, 3, 2}, []byte("abc"), Validity{})), CodeColumn},
		"offsets past the data": {second(Strings(k, tile, colText, normalize.Text, []int32{0, 4}, []byte("abc"), Validity{})), CodeColumn},
		"negative offset":       {second(Strings(k, tile, colText, normalize.Text, []int64{-1, 2}, []byte("abc"), Validity{})), CodeColumn},
		"frame of another id":   {second(k.Frames(tile, colInt, 1, frame(2, normalize.Uint64, 1))), CodeColumn},
		"frame past the words":  {second(k.Frames(tile, colInt, 1, []uint64{1, 4, 2, 1})), CodeColumn},
		"frame header cut":      {second(k.Frames(tile, colInt, 1, []uint64{1, 4})), CodeColumn},
		"fewer frames":          {second(k.Frames(tile, colInt, 2, frame(1, normalize.Uint64, 1))), CodeColumn},
		"words after frames":    {second(k.Frames(tile, colInt, 1, append(frame(1, normalize.Uint64, 1), 0))), CodeColumn},
		"frame type":            {second(k.Frames(tile, colInt, 1, frame(1, normalize.Text, 0))), CodeSchemaMismatch},
		"frame unknown code":    {second(k.Frames(tile, colAny, 1, frame(40, 15))), CodeSchemaMismatch},
		"absent of UINT64":      {second(k.Absent(tile, colInt, normalize.Uint64, 1)), CodeColumn},
		"records tile width":    {second(k.Records(make([]Digest, 1), NewTile(1, 2), 0)), CodeColumn},
		"records too many":      {second(k.Records(make([]Digest, 5), tile, 0)), CodeColumn},
		"keys not ascending":    {k.Keys(make([]Digest, 1), tile, []int{2, 1}), CodeKeyField},
		"keys out of range":     {k.Keys(make([]Digest, 1), tile, []int{len(kernelFields)}), CodeKeyField},
		"values column":         {second(k.Values(make([]Digest, 1), tile, -1, 0)), CodeColumn},
	} {
		if CodeOf(tc.err) != tc.code {
			t.Errorf("%s: %v, want %s", name, tc.err, tc.code)
		}
	}

	// Positions past 2**64-1 in ordered mode.
	co := v2Context(t, Ordered)
	ko, err := NewColumnar(co, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ko.Records(make([]Digest, 2), tile, math.MaxUint64); CodeOf(err) != CodePosition {
		t.Errorf("records past the last position: %v", err)
	}
	if _, err := ko.Values(make([]Digest, 2), tile, 0, math.MaxUint64); CodeOf(err) != CodePosition {
		t.Errorf("values past the last position: %v", err)
	}
	if _, err := ko.Records(make([]Digest, 1), tile, math.MaxUint64); err != nil {
		t.Errorf("the last position: %v", err)
	}

	// Construction.
	for name, tc := range map[string]struct {
		c      Context
		fields []uint64
		code   Code
	}{
		"v1 context":    {mustContext(t, XXH3, Multiset), []uint64{1}, CodeAlgorithm},
		"zero context":  {Context{}, []uint64{1}, CodeContext},
		"not ascending": {c, []uint64{2, 1}, CodeSchemaMismatch},
		"duplicate":     {c, []uint64{1, 1}, CodeSchemaMismatch},
		"not in schema": {c, []uint64{1, 3}, CodeSchemaMismatch},
	} {
		if _, err := NewColumnar(tc.c, tc.fields); CodeOf(err) != tc.code {
			t.Errorf("NewColumnar %s: %v, want %s", name, err, tc.code)
		}
	}
	// Extension codes in an "any" field need an extension profile.
	v1p, err := NewContext(XXH3Columnar, strictID, testSchema, Multiset)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := NewColumnar(v1p, []uint64{40})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Words(kv, NewTile(1, 1), 0, normalize.Date, []int32{1}, Validity{}); CodeOf(err) != CodeSchemaMismatch {
		t.Errorf("DATE under a v1 profile: %v", err)
	}
	if _, err := kv.Frames(NewTile(1, 1), 0, 1, frame(40, normalize.Date, 1)); CodeOf(err) != CodeSchemaMismatch {
		t.Errorf("DATE frame under a v1 profile: %v", err)
	}
}

var time0 = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

func second[T any](_ T, err error) error { return err }

// TestHead17: head17, tailMix and finishShort together are XXH3-128 for every message
// length of the 17–128-byte path, on random bytes; secret16 and secret24 are the default
// secret's words.
func TestHead17(t *testing.T) {
	if secret16 != sw[16] || secret24 != sw[24] {
		t.Fatalf("secret words %x %x, default secret %x %x", uint64(secret16), uint64(secret24), sw[16], sw[24])
	}
	r := rand.New(rand.NewPCG(21, 11))
	for n := 17; n <= 128; n++ {
		for range 50 {
			msg := make([]byte, n)
			for i := range msg {
				msg[i] = byte(r.Uint32())
			}
			lo, hi := head17(msg)
			lo, hi = tailMix(headState{lo, hi}, binary.LittleEndian.Uint64(msg[n-16:]), binary.LittleEndian.Uint64(msg[n-8:]))
			x := binary.LittleEndian.Uint64(msg) + binary.LittleEndian.Uint64(msg[8:])
			got := finishShort(lo, hi^x, uint64(n))
			if want := xxh3.Hash128(msg); got.Lo != want.Lo || got.Hi != want.Hi {
				t.Fatalf("%d bytes: %x, xxh3 %x", n, got, want)
			}
		}
	}
}

// TestColumnarShortStrings checks the Strings kernel on values of 0 to 24 bytes at every
// position of a buffer whose other bytes are random (so the bytes after a value are not
// zero), the last values of the buffer included (where fewer than 16 bytes follow the
// value's start), against XXH3-128 (zeebo/xxh3) of the C2 frame.
func TestColumnarShortStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 12))
	c := v2Context(t, Multiset)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []normalize.TypeCode{normalize.Text, normalize.Bytes} {
		col := map[normalize.TypeCode]int{normalize.Text: colText, normalize.Bytes: colBytes}[code]
		for n := 0; n <= 24; n++ {
			data := make([]byte, 40+n)
			for i := range data {
				data[i] = byte(r.Uint32()) | 0x80 // no zero byte: a missing mask shows
			}
			var offs []int32
			for lo := 0; lo+n <= len(data); lo++ {
				offs = append(offs, int32(lo), int32(lo+n))
			}
			// Row i is data[offs[2i]:offs[2i+1]]: one-row calls, every start position.
			tile := NewTile(1, len(kernelFields))
			for i := 0; i < len(offs); i += 2 {
				sum, err := Strings(k, tile, col, code, offs[i:i+2], data, Validity{})
				if err != nil {
					t.Fatal(err)
				}
				want := refField(c, frame(kernelFields[col], code, packed(data[offs[i]:offs[i+1]])...))
				if got := tile.Digests[col]; got != want || sum != want {
					t.Fatalf("%v of %d bytes at %d of %d: %x (sum %x), XXH3-128 %x", code, n, offs[i], len(data), got, sum, want)
				}
			}
		}
	}
}
