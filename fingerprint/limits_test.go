package fingerprint

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/normalize"
)

// Tests of the limits of the package's inputs, each at the limit and one past it: the
// lived mutants of the first tools/mutate sweep (issue 22, docs/mutation/fingerprint.txt)
// moved these bounds by one without a test failing.

// TestParseDecimalLimits: the canonical decimals of 20 digits, the uint64 range's end,
// and the digit '9'. The expected values are arithmetic, not the code's output.
func TestParseDecimalLimits(t *testing.T) {
	for s, want := range map[string]uint64{
		"9":                    9,
		"99":                   99,
		"18446744073709551615": math.MaxUint64,
		"18446744073709551609": math.MaxUint64 - 6,
		"10000000000000000000": 1e19,
		"1844674407370955161":  math.MaxUint64 / 10,
	} {
		if v, ok := parseDecimal(s); !ok || v != want {
			t.Errorf("parseDecimal(%q) = %d, %v; want %d", s, v, ok, want)
		}
	}
	for _, s := range []string{
		"18446744073709551616",  // MaxUint64 + 1
		"18446744073709551619",  // past the end by the last digit
		"18446744073709551620",  // past the end by the tens digit
		"99999999999999999999",  // 20 digits, over
		"100000000000000000000", // 21 digits
		"9:", "0x9", "/", "09", "",
	} {
		if v, ok := parseDecimal(s); ok {
			t.Errorf("parseDecimal(%q) = %d, accepted", s, v)
		}
	}
	// Through the public parser: a version of 20 digits is a well-formed identity of an
	// unknown version, not a malformed one.
	if _, err := ParseAlgorithm(identityPrefix + "xxh3-128/v18446744073709551615"); CodeOf(err) == CodeAlgorithm && strings.Contains(err.Error(), "canonical decimal") {
		t.Errorf("version MaxUint64 rejected as malformed: %v", err)
	}
}

// TestProfileIDCharacterLimits: '!' (0x21) and '~' (0x7e), the ends of printable ASCII,
// are allowed in a profile identity; space (0x20) and DEL (0x7f) are not.
func TestProfileIDCharacterLimits(t *testing.T) {
	suffix := "/sha256:" + strings.Repeat("ab", 32)
	for _, name := range []string{"a!b", "a~b"} {
		if err := checkProfileID("pipewhy.normalization/" + name + suffix); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"a b", "a\x7fb"} {
		if err := checkProfileID("pipewhy.normalization/" + name + suffix); CodeOf(err) != CodeContext {
			t.Errorf("%q: %v, want %s", name, err, CodeContext)
		}
	}
}

// TestEngineOptionLimits: Workers and ChunkRecords are accepted at their maxima, NewFeed
// at maxWorkers lanes.
func TestEngineOptionLimits(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	e, err := NewEngine(c, Options{Workers: maxWorkers, ChunkRecords: maxChunk})
	if err != nil {
		t.Fatalf("Workers %d, ChunkRecords %d: %v", maxWorkers, maxChunk, err)
	}
	if _, err := e.NewFeed(maxWorkers); err != nil {
		t.Errorf("NewFeed(%d): %v", maxWorkers, err)
	}
}

// TestFeedLastPosition: in Ordered mode a batch whose one record lies at position
// MaxUint64 exactly (Offset + first = MaxUint64) is accepted; one position further is not.
func TestFeedLastPosition(t *testing.T) {
	c := mustContext(t, XXH3, Ordered)
	good := rec(frame(1, normalize.Uint64, 5))
	one := &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(good))}}
	e, err := NewEngine(c, Options{Offset: math.MaxUint64 - 1})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := e.NewFeed(1)
	if err := f.Add(0, one, 0, 1); err != nil {
		t.Fatalf("record at MaxUint64: %v", err)
	}
	f, _ = e.NewFeed(1)
	if err := f.Add(0, one, 0, 2); CodeOf(err) != CodePosition {
		t.Fatalf("record past MaxUint64: %v, want %s", err, CodePosition)
	}
}

// TestFeedAddSumsLanes: AddSums takes lanes 0..n-1, the first and the last included.
func TestFeedAddSumsLanes(t *testing.T) {
	c := v2Context(t, Multiset)
	e, err := NewEngine(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := e.NewFeed(2)
	for _, w := range []int{0, 1} {
		if err := f.AddSums(w, 1, Digest{Lo: 1}, nil); err != nil {
			t.Errorf("lane %d: %v", w, err)
		}
	}
	for _, w := range []int{-1, 2} {
		if err := f.AddSums(w, 1, Digest{Lo: 1}, nil); CodeOf(err) != CodeOptions {
			t.Errorf("lane %d: %v, want %s", w, err, CodeOptions)
		}
	}
	// With column states, one sum per schema field: one fewer is refused.
	ec, err := NewEngine(c, Options{Columns: true})
	if err != nil {
		t.Fatal(err)
	}
	fc, _ := ec.NewFeed(1)
	nf := len(c.Schema().Fields)
	if err := fc.AddSums(0, 1, Digest{Lo: 1}, make([]Digest, nf-1)); CodeOf(err) != CodeOptions {
		t.Errorf("%d column sums of %d fields: %v, want %s", nf-1, nf, err, CodeOptions)
	}
	if err := fc.AddSums(0, 1, Digest{Lo: 1}, make([]Digest, nf)); err != nil {
		t.Errorf("%d column sums: %v", nf, err)
	}
}

// TestRecordSliceOutsidePool: a record slice that starts inside the word pool but runs
// past its end is CodeRecord, not a panic, whatever its start.
func TestRecordSliceOutsidePool(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	good := rec(frame(1, normalize.Uint64, 5))
	e, err := NewEngine(c, Options{Resolution: RecordResolution})
	if err != nil {
		t.Fatal(err)
	}
	pool := uint64(len(good))
	for _, sl := range [][2]uint64{{1, pool}, {pool, 1}, {pool + 1, 0}, {2, pool - 1}} {
		f, _ := e.NewFeed(1)
		b := &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{sl[0]}, Lengths: []uint64{sl[1]}}
		if err := f.Add(0, b, 0, 0); CodeOf(err) != CodeRecord {
			t.Errorf("slice at %d of %d words: %v, want %s", sl[0], sl[1], err, CodeRecord)
		}
	}
	// The bound is the pool's length, not its capacity: a valid record just past the
	// pool, in its spare capacity, is not read.
	spare := append(slices.Clone(good), good...)[:len(good)]
	f, _ := e.NewFeed(1)
	b := &normalize.RecordBatch{ProfileID: strictID, Words: spare, Offsets: []uint64{pool}, Lengths: []uint64{pool}}
	if err := f.Add(0, b, 0, 0); CodeOf(err) != CodeRecord {
		t.Errorf("record in the pool's spare capacity: %v, want %s", err, CodeRecord)
	}
}

// TestTileWithoutColumns: a tile of no columns has no rows (not a division by zero).
func TestTileWithoutColumns(t *testing.T) {
	if n := NewTile(5, 0).Rows(); n != 0 {
		t.Errorf("Rows of a 0-column tile: %d", n)
	}
	if n := (Tile{Digests: make([]Digest, 3), Cols: -1}).Rows(); n != 0 {
		t.Errorf("Rows of a tile of -1 columns: %d", n)
	}
}

// TestColumnarNoRows: every kernel and finisher accepts zero rows (no values at all, a
// nil boolean bitmap, an Ordered first position of MaxUint64) and writes nothing.
func TestColumnarNoRows(t *testing.T) {
	for _, mode := range []Mode{Multiset, Ordered} {
		_, k := kernelColumnar(t, mode)
		tile := NewTile(0, len(kernelFields))
		if s, err := k.Bools(tile, colBool, 0, nil, 0, Validity{}); err != nil || s != (Digest{}) {
			t.Errorf("%v Bools of no rows, nil bits: %x %v", mode, s, err)
		}
		if _, err := k.Bools(tile, colBool, 1, nil, 0, Validity{}); CodeOf(err) != CodeColumn {
			t.Errorf("%v Bools of 1 row, nil bits: %v, want %s", mode, err, CodeColumn)
		}
		if s, err := k.Records(nil, tile, math.MaxUint64); err != nil || s != (Digest{}) {
			t.Errorf("%v Records of no rows at MaxUint64: %x %v", mode, s, err)
		}
		if s, err := k.Values(nil, tile, colInt, math.MaxUint64); err != nil || s != (Digest{}) {
			t.Errorf("%v Values of no rows at MaxUint64: %x %v", mode, s, err)
		}
	}
}

// TestColumnarKeysLimits: key columns must be ascending tile columns (a repeated column
// and the column one past the last are refused), and Keys over a tile of no columns gives
// the key digest of the empty record, H(K_R), per row.
func TestColumnarKeysLimits(t *testing.T) {
	c, k := kernelColumnar(t, Multiset)
	tile := NewTile(2, len(kernelFields))
	dst := make([]Digest, 2)
	for _, kc := range [][]int{{1, 1}, {len(kernelFields)}, {0, len(kernelFields)}, {-1}} {
		if err := k.Keys(dst, tile, kc); CodeOf(err) != CodeKeyField {
			t.Errorf("key columns %v: %v, want %s", kc, err, CodeKeyField)
		}
	}
	if err := k.Keys(dst, tile, []int{0, len(kernelFields) - 1}); err != nil {
		t.Errorf("first and last columns: %v", err)
	}
	if err := k.Keys(make([]Digest, 3), tile, nil); CodeOf(err) != CodeColumn {
		t.Errorf("3 keys of a 2-row tile: %v, want %s", err, CodeColumn)
	}

	k0, err := NewColumnar(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := refHash(refV2Keys(c).record)
	if err := k0.Keys(dst, Tile{}, nil); err != nil {
		t.Fatal(err)
	}
	for r, d := range dst {
		if d != want {
			t.Errorf("row %d of a 0-column tile: %x, want H(K_R) %x", r, d, want)
		}
	}
}

// TestDescriptorNameEscapes: under RenameChangesIdentity a name's controls below U+0020
// are \u00xx escapes and everything from U+0020 on is raw, as Python's
// json.dumps(ensure_ascii=False) writes them (the expected bytes are written from that
// rule, not taken from Descriptor).
func TestDescriptorNameEscapes(t *testing.T) {
	s := SchemaDescriptor{RenamePolicy: RenameChangesIdentity, Fields: []SchemaField{{ID: 3, Name: "a b\x1f!\x7f~", Type: TypeInt}}}
	want := `{"domain":"pipewhy.fingerprint.schema","fields":[{"id":"3","name":"a b\u001f!` + "\x7f" + `~","type":"` + string(TypeInt) + `"}],"rename_policy":"` + string(RenameChangesIdentity) + `","version":1}`
	if d, err := s.Descriptor(); err != nil || string(d) != want {
		t.Errorf("Descriptor:\n got %q %v\nwant %q", d, err, want)
	}
}

// TestFieldTableEmpty: the field table of no fields answers every id absent.
func TestFieldTableEmpty(t *testing.T) {
	ft := newFieldTable(nil)
	if ft.dense != nil || len(ft.ids) != 0 {
		t.Errorf("empty field table: %+v", ft)
	}
}

// TestRunBatchIndexAfterEmpty: an empty batch counts in the batch index that later
// errors report.
func TestRunBatchIndexAfterEmpty(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	e, err := NewEngine(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	empty := &normalize.RecordBatch{ProfileID: strictID}
	bad := &normalize.RecordBatch{ProfileID: otherProfileID}
	_, err = e.Run(context.Background(), seqOf(empty, empty, bad))
	var x *Error
	if !errors.As(err, &x) || x.Code != CodeForeignContext || x.Batch != 2 {
		t.Fatalf("%v, want %s in batch 2", err, CodeForeignContext)
	}
}

// TestObservationShortRowColumns: a row whose fingerprint is present but which lies just
// past the end of the status, algorithm or policy column is CodeObservation, not a panic.
func TestObservationShortRowColumns(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	ids := Identities{Algorithms: map[uint64]string{3: XXH3.ID()}, Policies: map[uint64]string{9: strictID}}
	s := NewState(c)
	s.Add(Digest{Lo: 1, Hi: 2})
	var full arrays.ObservationTable
	for i := range 2 {
		if err := AppendObservation(&full, Observation{ObservationID: 100 + uint64(i), ArtifactID: 1, SnapshotID: 2, PolicyID: 9, AlgorithmID: 3}, s, ids); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ObservationState(&full, 1, c, ids, c.ID()); err != nil {
		t.Fatal(err)
	}
	for name, cut := range map[string]func(*arrays.ObservationTable){
		"status":    func(t *arrays.ObservationTable) { t.StatusID = t.StatusID[:1] },
		"algorithm": func(t *arrays.ObservationTable) { t.AlgorithmID = t.AlgorithmID[:1] },
		"policy":    func(t *arrays.ObservationTable) { t.PolicyID = t.PolicyID[:1] },
	} {
		tab := full
		cut(&tab)
		if _, err := ObservationState(&tab, 1, c, ids, c.ID()); CodeOf(err) != CodeObservation {
			t.Errorf("%s column of 1 row, row 1: %v, want %s", name, err, CodeObservation)
		}
	}
}

// TestStateLengthMessage: the error for a state of the wrong length names the length the
// algorithm needs, 3 + lanes words.
func TestStateLengthMessage(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	lanes := uint64(c.Algorithm().Lanes())
	words := []uint64{StateVersion, lanes, 0}
	_, err := FromWords(c, c.ID(), words)
	if want := "want " + strconv.FormatUint(3+lanes, 10); CodeOf(err) != CodeState || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %s naming %q", err, CodeState, want)
	}
}

// TestTrustedFieldIDZero: field id 0 is a valid first field under TrustedFrames too (the
// increasing-id check starts at the second field).
func TestTrustedFieldIDZero(t *testing.T) {
	schema := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{{ID: 0, Type: TypeInt}, {ID: 1, Type: TypeInt}}}
	c, err := NewContext(XXH3, strictID, schema, Multiset)
	if err != nil {
		t.Fatal(err)
	}
	good := rec(frame(0, normalize.Int64, 5), frame(1, normalize.Int64, 6))
	b := &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(good))}}
	for _, trusted := range []bool{false, true} {
		e, err := NewEngine(c, Options{TrustedFrames: trusted})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run(context.Background(), seqOf(b))
		if err != nil || res.State.Count() != 1 {
			t.Errorf("trusted %v: %v", trusted, err)
		}
	}
}

// TestReleaseAfterLastChunk: Release is called only after every chunk of the batch has
// been read, so a Release that recycles the batch (here: overwrites its words) cannot
// change the result. One chunk per batch and several workers: a batch released early
// (say, by a spare empty chunk counted among its pending ones) is hashed from clobbered
// words on some worker.
func TestReleaseAfterLastChunk(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 1))
	c := mustContext(t, XXH3, Multiset)
	const perBatch = 8
	var all [][]uint64
	bs := make([]*normalize.RecordBatch, 1000)
	for i := range bs {
		recs := make([][]uint64, perBatch)
		for j := range recs {
			recs[j] = randRecord(r)
		}
		all = append(all, recs...)
		bs[i] = batchOf(r, strictID, recs)
	}
	want := reference(c, all, 0, nil)
	clobber := func(b *normalize.RecordBatch) { clear(b.Words) }
	got := run(t, c, Options{Workers: 8, ChunkRecords: perBatch, Resolution: RecordResolution, Release: clobber}, bs)
	if eq, _ := got.State.Equal(want.State); !eq || !slices.Equal(got.Records, want.Records) {
		t.Fatal("a batch was released before all its chunks were read")
	}
}

// TestFramesSecondFramePastTheWords: the bound on a frame's payload length is checked
// from the frame's own start, not only for the first frame: a second frame whose payload
// length runs one word past the words is CodeColumn with its row, not a panic.
func TestFramesSecondFramePastTheWords(t *testing.T) {
	_, k := kernelColumnar(t, Multiset)
	tile := NewTile(2, len(kernelFields))
	first := frame(1, normalize.Uint64, 7)
	for _, extra := range []uint64{1, 2, 3, uint64(len(first))} {
		words := append(slices.Clone(first), 1, uint64(normalize.Uint64), 1+extra, 9)
		_, err := k.Frames(tile, colInt, 2, words)
		var x *Error
		if !errors.As(err, &x) || x.Code != CodeColumn || x.Record != 1 {
			t.Errorf("second frame %d words past the end: %v, want %s at record 1", extra, err, CodeColumn)
		}
	}
	ok := append(slices.Clone(first), frame(1, normalize.Uint64, 9)...)
	if _, err := k.Frames(tile, colInt, 2, ok); err != nil {
		t.Errorf("two whole frames: %v", err)
	}
}

// TestValuesColumnLimit: Values takes tile columns 0..Cols-1; Cols itself is CodeColumn
// (it would read the next row's first column).
func TestValuesColumnLimit(t *testing.T) {
	_, k := kernelColumnar(t, Multiset)
	tile := NewTile(2, len(kernelFields))
	if _, err := k.Values(make([]Digest, 1), tile, len(kernelFields)-1, 0); err != nil {
		t.Errorf("last column: %v", err)
	}
	if _, err := k.Values(make([]Digest, 1), tile, len(kernelFields), 0); CodeOf(err) != CodeColumn {
		t.Errorf("column Cols: %v, want %s", err, CodeColumn)
	}
}

// TestEmptySliceAtPoolEnd: an empty record slice at the pool's end lies inside the pool;
// it is refused as a malformed record (no header), not as a slice leaving the pool.
func TestEmptySliceAtPoolEnd(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	good := rec(frame(1, normalize.Uint64, 5))
	e, err := NewEngine(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := e.NewFeed(1)
	b := &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{uint64(len(good))}, Lengths: []uint64{0}}
	err = f.Add(0, b, 0, 0)
	if CodeOf(err) != CodeRecord || strings.Contains(err.Error(), "leaves the word pool") {
		t.Errorf("empty slice at the pool end: %v, want %s for the record itself", err, CodeRecord)
	}
}

// kernelColumnar returns an XXH3Columnar context of mode and its Columnar for the tile
// columns kernelFields.
func kernelColumnar(t *testing.T, mode Mode) (Context, *Columnar) {
	t.Helper()
	c := v2Context(t, mode)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	return c, k
}

// TestErrorText: batch and record index 0 are shown, -1 (not applicable) is not; the
// detail and the cause follow when present.
func TestErrorText(t *testing.T) {
	cause := errors.New("cause")
	for want, e := range map[string]*Error{
		"fingerprint: run: PW_FP_RECORD batch 0 record 0":               {Code: CodeRecord, Op: "run", Batch: 0, Record: 0},
		"fingerprint: run: PW_FP_RECORD":                                {Code: CodeRecord, Op: "run", Batch: -1, Record: -1},
		"fingerprint: run: PW_FP_RECORD record 2: bad: cause":           {Code: CodeRecord, Op: "run", Batch: -1, Record: 2, Msg: "bad", Err: cause},
		"fingerprint: feed: PW_FP_OPTIONS batch 3: cause":               {Code: CodeOptions, Op: "feed", Batch: 3, Record: -1, Err: cause},
		"fingerprint: state: PW_FP_STATE batch 1 record 1: three words": {Code: CodeState, Op: "state", Batch: 1, Record: 1, Msg: "three words"},
	} {
		if got := e.Error(); got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// TestZeroContextID: the zero Context has no identity; String is the identity or says invalid.
func TestZeroContextID(t *testing.T) {
	if id := (Context{}).ID(); id != "" {
		t.Errorf("zero Context ID %q", id)
	}
	if s := (Context{}).String(); s != "Context(invalid)" {
		t.Errorf("zero Context String %q", s)
	}
	if c := mustContext(t, XXH3, Ordered); c.String() != c.ID() {
		t.Errorf("String %q, ID %q", c.String(), c.ID())
	}
	if c := mustContext(t, XXH3, Multiset); !strings.HasPrefix(c.ID(), ContextIDPrefix) {
		t.Errorf("context ID %q lacks %q", c.ID(), ContextIDPrefix)
	}
}

// TestColumnarPathBoundaries: the lengths where the columnar kernels hand a message from
// one XXH3-128 computation to another (the head states up to 16 bytes, the in-place short
// kernel up to a 240-byte message, the AVX2 long kernel up to 1024 bytes, the generic one
// beyond), at and one past each, against the reference (zeebo/xxh3 over the encoded
// frame or row). They back the equivalence of the mutants that move these bounds by one.
func TestColumnarPathBoundaries(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 2))
	c, k := kernelColumnar(t, Multiset)
	// A frame of a w-word value is 4+w words, the message 32+8(4+w) bytes: short up to
	// w = 22 (maxShortBytes = 176), long for w = 23..120 (up to 960 bytes).
	for _, n := range []int{1, 8, 9, 15, 16, 17, maxShortBytes - 1, maxShortBytes, maxShortBytes + 1, maxShortBytes + 8, 953, 960, 961, 968} {
		data := make([]byte, n+r.IntN(20))
		for i := range data {
			data[i] = byte(r.Uint32()) | 0x80
		}
		for _, lo := range []int{0, len(data) - n} {
			tile := NewTile(1, len(kernelFields))
			if _, err := Strings(k, tile, colText, normalize.Text, []int32{int32(lo), int32(lo + n)}, data, Validity{}); err != nil {
				t.Fatal(err)
			}
			if want := refField(c, frame(kernelFields[colText], normalize.Text, packed(data[lo:lo+n])...)); tile.Digests[colText] != want {
				t.Errorf("TEXT of %d bytes at %d of %d: %x, want %x", n, lo, len(data), tile.Digests[colText], want)
			}
		}
	}
	// Record rows of 2*cols words: short for 1..13 columns, long from 14.
	wide := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity}
	for id := range uint64(14) {
		wide.Fields = append(wide.Fields, SchemaField{ID: id, Type: TypeInt})
	}
	cw, err := NewContext(XXH3Columnar, ext1ID, wide, Multiset)
	if err != nil {
		t.Fatal(err)
	}
	ids := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	for _, cols := range []int{1, 2, 12, 13, 14} {
		kc, err := NewColumnar(cw, ids[:cols])
		if err != nil {
			t.Fatal(err)
		}
		tile := NewTile(3, cols)
		for i := range tile.Digests {
			tile.Digests[i] = Digest{Lo: r.Uint64(), Hi: r.Uint64()}
		}
		got := make([]Digest, 3)
		if _, err := kc.Records(got, tile, 0); err != nil {
			t.Fatal(err)
		}
		for row := range got {
			var w []uint64
			for _, d := range tile.Row(row) {
				w = append(w, d.Lo, d.Hi)
			}
			if want := refHash(refV2Keys(cw).record, w...); got[row] != want {
				t.Errorf("record row of %d fields: %x, want %x", cols, got[row], want)
			}
		}
	}
}
