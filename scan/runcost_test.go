package scan

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// TestRunCostBasis pins what a run's memory estimate counts (spill.go, runCost): per
// record runRecordBytes and per key word runKeyWordBytes, the key words being the
// engine's own (the key record of the declared key fields, else the whole record),
// and at value resolution 32 bytes per record word. On a scan that fits one run, the
// estimate summed over its tiles is exactly that of the records and key words the
// engine returned; the bytes per record and per word are measured figures
// (runRecordBytes' comment), not asserted here.
func TestRunCostBasis(t *testing.T) {
	tinyTiles(t)
	rng := rand.New(rand.NewPCG(3, 11))
	path := randomCSV(t, rng, 500, false)
	null := ""
	for _, res := range []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		for _, key := range [][]string{nil, {"id"}, {"name", "id"}} {
			src, err := source.Open(context.Background(), path, source.Options{Null: &null})
			if err != nil {
				t.Fatal(err)
			}
			st, err := snapshot.Open(t.TempDir(), snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Address: path, Name: "t", Resolution: res, Key: key, Workers: 2, Source: source.Options{Null: &null}}
			plan := &spillPlan{open: func() (*snapshot.Store, error) { return st, nil }, id: snapshot.NewID()}
			o.spill = plan
			r, err := ObserveSource(context.Background(), source.NewRegistry(), src, o)
			src.Close()
			if err != nil {
				t.Fatal(err)
			}
			if plan.spilled() {
				t.Fatalf("%s %v: 500 rows spilled under the default budget", res, key)
			}
			rows := int64(r.Scan.Descriptor.Rows)
			want := rows*runRecordBytes + int64(len(r.Scan.KeyWords))*runKeyWordBytes
			if res == snapshot.ResolutionValue {
				var words int64
				for _, v := range r.Scan.ValueTable.PayloadLength {
					words += int64(v) + 3 // a frame: id, type, length, payload
				}
				want += 32 * (words + 3*rows) // and each record's 3 header words
			}
			if got := plan.sp.used.Load(); got != want || rows != 500 {
				t.Errorf("%s key %v: estimate %d for %d rows, want %d", res, key, got, rows, want)
			}
		}
	}
}

// TestKeyWords counts a hand-built batch's key words: per record the 3 header words and
// the frames (3 words and the payload) of the key fields; without key fields, every word.
func TestKeyWords(t *testing.T) {
	// Two records: fields 1 (1 payload word), 2 (3), 3 (0); then 1 (2), 3 (1).
	r1 := []uint64{9, 9, 3, 1, 0, 1, 7, 2, 0, 3, 7, 7, 7, 3, 0, 0}
	r2 := []uint64{9, 9, 2, 1, 0, 2, 7, 7, 3, 0, 1, 7}
	b := &normalize.RecordBatch{Words: append(append([]uint64{}, r1...), r2...),
		Offsets: []uint64{0, uint64(len(r1))}, Lengths: []uint64{uint64(len(r1)), uint64(len(r2))}}
	for _, c := range []struct {
		keys []uint64
		want int
	}{
		{nil, 16 + 12},
		{[]uint64{1}, (3 + 4) + (3 + 5)},
		{[]uint64{2}, (3 + 6) + 3},
		{[]uint64{3, 1}, (3 + 4 + 3) + (3 + 5 + 4)},
	} {
		if got := keyWords(b, c.keys); got != c.want {
			t.Errorf("keys %v: %d key words, want %d", c.keys, got, c.want)
		}
	}
}
