package scan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/snapshot"
)

// TestKeyTemplate: the template of an int64 key record [1 2 1 field 3 1 value] varies
// in its value word alone; keys of that shape match it, keys of another field, type or
// length do not; a record with a text frame varies in its byte count and text words.
// Malformed records have no template (every entry is stored whole).
func TestKeyTemplate(t *testing.T) {
	tm := newKeyTemplate([]uint64{1, 2, 1, 7, 3, 1, 42})
	if tm == nil || !slices.Equal(tm.vary, []int{6}) || !reflect.DeepEqual(tm.fixed, [][2]int{{0, 6}}) {
		t.Fatalf("template %+v, want vary [6], fixed [[0 6]]", tm)
	}
	for _, c := range []struct {
		key   []uint64
		match bool
	}{
		{[]uint64{1, 2, 1, 7, 3, 1, 99}, true},
		{[]uint64{1, 2, 1, 7, 3, 1, 42}, true},
		{[]uint64{1, 2, 1, 7, 1, 0}, false},       // NULL: shorter
		{[]uint64{1, 2, 1, 8, 3, 1, 99}, false},   // another field
		{[]uint64{1, 2, 1, 7, 4, 1, 99}, false},   // UINT64
		{[]uint64{1, 2, 1, 7, 3, 1, 9, 9}, false}, // longer
	} {
		if got := tm.match(c.key); got != c.match {
			t.Errorf("match(%v) = %v, want %v", c.key, got, c.match)
		}
		want := int64(len(c.key))
		if c.match {
			want = 1
		}
		if got := tm.entryKeyWords(c.key); got != want {
			t.Errorf("entryKeyWords(%v) = %d, want %d", c.key, got, want)
		}
	}
	if tm.headerWords() != 2+7+1 {
		t.Fatalf("header words %d, want 10", tm.headerWords())
	}
	// Two fields: an int64 and a 9-byte text (byte count 9, two packed words).
	two := newKeyTemplate([]uint64{1, 2, 2, 1, 3, 1, 5, 4, 6, 3, 9, 0x61, 0x62})
	if two == nil || !slices.Equal(two.vary, []int{6, 10, 11, 12}) || !reflect.DeepEqual(two.fixed, [][2]int{{0, 6}, {7, 10}}) {
		t.Fatalf("two-field template %+v", two)
	}
	var none *keyTemplate
	if none.match([]uint64{1, 2, 0}) || none.headerWords() != 2 || none.entryKeyWords([]uint64{1, 2, 0}) != 3 {
		t.Fatal("a nil template matches or sizes wrongly")
	}
	for _, bad := range [][]uint64{nil, {1, 2}, {1, 2, 1, 7, 3}, {1, 2, 1, 7, 3, 2, 1}, {1, 2, 1, 7, 3, 0, 1}, {1, 2, 9}} {
		if newKeyTemplate(bad) != nil {
			t.Errorf("template of malformed %v", bad)
		}
	}
}

// runOf is a run of n sorted entries with int64 key records, every fifth a NULL key
// (another shape, stored whole).
func runOf(n int) *fingerprint.Result {
	fr := &fingerprint.Result{KeyOffsets: []uint64{0}}
	for e := range n {
		fr.Records = append(fr.Records, uint64(e), 0, uint64(e*3), uint64(e*5))
		if e%5 == 4 {
			fr.KeyWords = append(fr.KeyWords, 1, 2, 1, 7, 1, 0)
		} else {
			fr.KeyWords = append(fr.KeyWords, 1, 2, 1, 7, 3, 1, uint64(1000+e))
		}
		fr.KeyOffsets = append(fr.KeyOffsets, uint64(len(fr.KeyWords)))
	}
	return fr
}

// readRun reads every entry of rr: its records and key records.
func readRun(t *testing.T, rr *runReader) (recs []uint64, keys [][]uint64) {
	t.Helper()
	if err := rr.start(); err != nil {
		t.Fatal(err)
	}
	for {
		ok, err := rr.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return recs, keys
		}
		recs = append(recs, rr.rec[:]...)
		keys = append(keys, slices.Clone(rr.key))
	}
}

// TestRunTemplateRoundTrip: a run encoded with its key template, kept in memory or
// written as a file, reads back entry for entry as the engine's result, and its size is
// the plan's: header 2+7+1 words, 6 words a matching entry, 5+6 a NULL key.
func TestRunTemplateRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 17} {
		fr := runOf(n)
		sp := &spiller{}
		rp := sp.planRun(fr, nil)
		nulls := n / 5
		want := 8 * int64(10+6*(n-nulls)+11*nulls)
		if rp.bytes != want || rp.tmpl == nil {
			t.Fatalf("%d entries: plan %d bytes (template %v), want %d", n, rp.bytes, rp.tmpl, want)
		}
		wantKeys := make([][]uint64, n)
		for e := range n {
			wantKeys[e] = fr.KeyWords[fr.KeyOffsets[e]:fr.KeyOffsets[e+1]]
		}
		// In memory.
		ww := &wordWriter{mem: true, kept: make([]uint64, 0, rp.bytes/8)}
		if err := sp.encodeRun(ww, fr, nil, rp.tmpl); err != nil {
			t.Fatal(err)
		}
		if int64(8*len(ww.kept)) != rp.bytes {
			t.Fatalf("encoded %d words, planned %d bytes", len(ww.kept), rp.bytes)
		}
		recs, keys := readRun(t, &runReader{mem: ww.kept})
		if !slices.Equal(recs, fr.Records) || !reflect.DeepEqual(keys, wantKeys) {
			t.Fatalf("%d entries in memory: read %v %v", n, recs, keys)
		}
		// Kept in memory unencoded (record resolution): the engine's records, one vary
		// word a matching entry, the NULL keys whole with their ordinal and offset.
		wantKept := 8 * int64(4*n+(n-nulls)+2*nulls+1+6*nulls)
		if rp.kept != wantKept {
			t.Fatalf("%d entries: kept plan %d bytes, want %d", n, rp.kept, wantKept)
		}
		kr, err := newKeptRun(fr, rp)
		if err != nil {
			t.Fatal(err)
		}
		recs, keys = readRun(t, &runReader{kr: kr})
		if !slices.Equal(recs, fr.Records) || !reflect.DeepEqual(keys, wantKeys) {
			t.Fatalf("%d entries kept: read %v %v", n, recs, keys)
		}
		// As a file's bytes, through a small buffer.
		var buf bytes.Buffer
		fw := &wordWriter{b: bufio.NewWriterSize(&buf, 16)}
		if err := sp.encodeRun(fw, fr, nil, rp.tmpl); err != nil || fw.flush() != nil {
			t.Fatal(err)
		}
		if int64(buf.Len()) != rp.bytes {
			t.Fatalf("file of %d bytes, planned %d", buf.Len(), rp.bytes)
		}
		recs, keys = readRun(t, &runReader{r: bufio.NewReaderSize(&buf, 16)})
		if !slices.Equal(recs, fr.Records) || !reflect.DeepEqual(keys, wantKeys) {
			t.Fatalf("%d entries from a file: read %v %v", n, recs, keys)
		}
	}
}

// TestKeptRunWithoutTemplate: a run whose first key is not a C2 record has no template:
// every key is kept whole, and reads back as it was.
func TestKeptRunWithoutTemplate(t *testing.T) {
	fr := &fingerprint.Result{Records: []uint64{1, 2, 3, 4, 5, 6, 7, 8},
		KeyWords: []uint64{1, 2, 9, 1, 2, 1, 7, 3, 1, 5}, KeyOffsets: []uint64{0, 3, 10}}
	sp := &spiller{}
	rp := sp.planRun(fr, nil)
	if rp.tmpl != nil || rp.odd != 2 || rp.kept != 8*(8+4+1+10) || rp.bytes != 8*(2+10+10) {
		t.Fatalf("plan %+v", rp)
	}
	kr, err := newKeptRun(fr, rp)
	if err != nil {
		t.Fatal(err)
	}
	recs, keys := readRun(t, &runReader{kr: kr})
	if !slices.Equal(recs, fr.Records) || !reflect.DeepEqual(keys, [][]uint64{{1, 2, 9}, {1, 2, 1, 7, 3, 1, 5}}) {
		t.Fatalf("read %v %v", recs, keys)
	}
}

// TestRunMalformed: a run whose header or entries break the format is refused with
// errMalformed, never read past.
func TestRunMalformed(t *testing.T) {
	rec := []uint64{1, 2, 3, 4}
	for name, words := range map[string][]uint64{
		"vary beyond template":   {2, 1, 2, 1, 5},
		"vary not ascending":     {3, 1, 2, 3, 2, 1, 1},
		"vary longer":            {1, 9, 2, 0, 0},
		"compact, no template":   append([]uint64{0, 0}, append(rec, compactTag|1, 5)...),
		"compact, other count":   append([]uint64{2, 1, 2, 1, 1}, append(rec, compactTag|2, 5, 6)...),
		"key length beyond 2^32": append([]uint64{0, 0}, append(rec, 1<<33)...),
	} {
		rr := &runReader{mem: words}
		err := rr.start()
		if err == nil {
			_, err = rr.next()
		}
		if err != errMalformed {
			t.Errorf("%s: error %v, want errMalformed", name, err)
		}
	}
}

// TestMergeBlocksMatchMemory: the merge's block writer publishes the arrays of the scan
// sorted in memory, byte for byte, with blocks of a few words (a block ends inside
// entries and value payloads) and with the portable encoding that big-endian machines
// take (forced here).
func TestMergeBlocksMatchMemory(t *testing.T) {
	tinyTiles(t)
	for _, le := range []bool{true, false} {
		saved, savedLE := outWords, littleEndian
		outWords, littleEndian = 5, le
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 62))
			path := randomCSV(t, rng, 300+rng.IntN(300), false)
			res := []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue}[seed%2]
			keys := [][]string{{"id"}, {"name", "id"}}[seed/2%2]
			null := ""
			base := Options{Address: path, Resolution: res, Key: keys, Workers: 2}
			base.Source.Null = &null
			mem, spill := base, base
			mem.Memory, spill.Memory = -1, 3000
			t.Run(fmt.Sprintf("le%v-seed%d-%s-key%v", le, seed, res, keys), func(t *testing.T) {
				want, _, _, err := publishedArrays(t, mem)
				if err != nil {
					t.Fatal(err)
				}
				got, gres, _, err := publishedArrays(t, spill)
				if err != nil {
					t.Fatal(err)
				}
				if gres.Runs < 2 {
					t.Fatalf("%d runs", gres.Runs)
				}
				for k, a := range want {
					if k != "observation_observed_at_ns" && !got[k].Equal(a) {
						t.Fatalf("array %s differs", k)
					}
				}
			})
		}
		outWords, littleEndian = saved, savedLE
	}
}

// TestKeptRunsAdviseHugePages: a run kept in memory is written once, front to back, into
// memory advised for huge pages (a fault per 2 MiB, not per 4 KiB): the encoded run of
// value resolution and the vary words of a record-resolution keptRun.
func TestKeptRunsAdviseHugePages(t *testing.T) {
	fr := runOf(1 << 20) // 1 Mi entries: 6.4 MiB of vary words
	sp := &spiller{}
	rp := sp.planRun(fr, nil)
	kr, err := newKeptRun(fr, rp)
	if err != nil {
		t.Fatal(err)
	}
	advised, err := hugemem.Advised(kr.vary)
	if errors.Is(err, hugemem.ErrUnobservable) {
		testenv.Missing(t, testenv.HugePages, "%v", err)
	}
	if err != nil || !advised {
		t.Fatalf("the kept run's vary words are not advised for huge pages (%v)", err)
	}
	// The encoded form kept at value resolution: records of 3 words, no fields.
	vsp := &spiller{values: true}
	vfr := runOf(1 << 19)
	vfr.ValueOffsets = make([]uint64, len(vfr.KeyOffsets)) // no value entries
	vfr.Origins = make([]uint64, len(vfr.Records)/fingerprint.RecordStride)
	for i := range vfr.Origins {
		vfr.Origins[i] = uint64(i)
	}
	tile := &normalize.RecordBatch{}
	for range vfr.Origins {
		tile.Offsets = append(tile.Offsets, uint64(len(tile.Words)))
		tile.Words = append(tile.Words, 1, 2, 0)
		tile.Lengths = append(tile.Lengths, 3)
	}
	vrp := vsp.planRun(vfr, []runTile{{first: 0, b: tile}})
	if err := vsp.keepRun(vfr, []runTile{{first: 0, b: tile}}, vrp); err != nil {
		t.Fatal(err)
	}
	advised, err = hugemem.Advised(vsp.kept[0])
	if err != nil || !advised {
		t.Fatalf("the encoded kept run is not advised for huge pages (%v)", err)
	}
}
