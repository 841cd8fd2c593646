package arrays_test

// The C2 → C1 handoff (C2 seed, "tests/unit/test_normalization_model"): the hand-derived
// record words of the normalization fixture are split into value-table rows (one row per
// field, payload slices into shared words, NULL as an invalid row of zero length), the
// table crosses the C1 validators, and the rows rebuild exactly the same record words.
// The record's profile travels as a local policy id that resolves, through explicitly
// supplied metadata, to the full profile identity string.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/normalize"
)

type c2Record struct {
	id      string
	profile string
	words   []uint64
}

// loadC2Records returns every record vector of the C2 fixture that expects words.
func loadC2Records(t *testing.T) []c2Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "tests", "fixtures", "normalization_v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Vectors []struct {
			ID      string          `json:"id"`
			Profile string          `json:"profile"`
			Fields  json.RawMessage `json:"fields"`
			Words   []string        `json:"words"`
			Error   string          `json:"error"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var recs []c2Record
	for _, v := range doc.Vectors {
		if v.Fields == nil || v.Error != "" {
			continue
		}
		w := make([]uint64, len(v.Words))
		for i, s := range v.Words {
			if w[i], err = strconv.ParseUint(s, 10, 64); err != nil {
				t.Fatalf("%s: word %d: %v", v.ID, i, err)
			}
		}
		recs = append(recs, c2Record{id: v.ID, profile: v.Profile, words: w})
	}
	if len(recs) < 5 {
		t.Fatalf("only %d record vectors in the C2 fixture", len(recs))
	}
	return recs
}

func TestC2RecordsCrossValueTable(t *testing.T) {
	recs := loadC2Records(t)

	// Local integer ids for the profiles; the identity is the full string they resolve to.
	policyIdentity := map[uint64]string{}
	policyOf := map[string]uint64{}
	for i, name := range []string{"strict-v1", "logical-v1"} {
		p, err := normalize.ParseProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		policyIdentity[uint64(i)] = p.ID()
		policyOf[name] = uint64(i)
	}

	// One root artifact for the dataset and one child artifact per record.
	arts := &arrays.ArtifactTable{
		ArtifactID: []uint64{1000},
		ParentID:   []uint64{arrays.Absent},
		KindID:     []uint8{0},
		NameID:     []uint64{0},
	}
	vals := &arrays.ValueTable{}
	var valid []bool
	recordPolicy := map[uint64]uint64{} // artifact id -> local policy id
	fieldIDs := map[uint64]bool{}
	for r, rec := range recs {
		w := rec.words
		if w[0] != 1 || w[1] != 2 {
			t.Fatalf("%s: fixture words do not start with the record header", rec.id)
		}
		if err := normalize.ValidateRecordWords(w); err != nil {
			t.Fatalf("%s: fixture record does not validate: %v", rec.id, err)
		}
		art := uint64(r)
		arts.ArtifactID = append(arts.ArtifactID, art)
		arts.ParentID = append(arts.ParentID, 1000)
		arts.KindID = append(arts.KindID, 1)
		arts.NameID = append(arts.NameID, 0)
		recordPolicy[art] = policyOf[rec.profile]
		pos := 3
		for f := uint64(0); f < w[2]; f++ {
			id, tag, n := w[pos], w[pos+1], int(w[pos+2])
			payload := w[pos+3 : pos+3+n]
			off := uint64(len(vals.PayloadWords))
			// Reuse an identical earlier payload: overlapping slices are allowed (PW-02.06).
			if i := indexOfRun(vals.PayloadWords, payload); i >= 0 {
				off = uint64(i)
			} else {
				vals.PayloadWords = append(vals.PayloadWords, payload...)
			}
			vals.ValueID = append(vals.ValueID, uint64(len(vals.ValueID)))
			vals.ArtifactID = append(vals.ArtifactID, art)
			vals.FieldID = append(vals.FieldID, id)
			vals.TypeID = append(vals.TypeID, uint8(tag))
			vals.PayloadOffset = append(vals.PayloadOffset, off)
			vals.PayloadLength = append(vals.PayloadLength, uint64(n))
			valid = append(valid, normalize.TypeCode(tag) != normalize.Null)
			fieldIDs[id] = true
			pos += 3 + n
		}
	}
	vals.ValidityBitmap = arrays.NewBitmap(valid)

	ids := make([]uint64, 0, len(fieldIDs))
	for id := range fieldIDs {
		ids = append(ids, id)
	}
	fields, err := arrays.NewIDSet(ids...)
	if err != nil {
		t.Fatal(err)
	}
	types, err := arrays.NewIDSet(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := arrays.NewIDSet(0)
	kinds, _ := arrays.NewIDSet(0, 1)
	ctx := &arrays.Context{Names: names, Kinds: kinds, Fields: fields, Types: types}
	if err := arts.Validate(ctx); err != nil {
		t.Fatalf("artifact table: %v", err)
	}
	if err := vals.Validate(ctx, arts); err != nil {
		t.Fatalf("value table: %v", err)
	}

	// Rebuild each record from its rows and compare with the fixture's words.
	rows := map[uint64][]int{}
	for i, a := range vals.ArtifactID {
		rows[a] = append(rows[a], i)
	}
	for r, rec := range recs {
		art := uint64(r)
		idx := rows[art]
		slices.SortFunc(idx, func(a, b int) int { return cmpUint64(vals.FieldID[a], vals.FieldID[b]) })
		got := []uint64{1, 2, uint64(len(idx))}
		for _, i := range idx {
			payload, ok, err := vals.Payload(i)
			if err != nil {
				t.Fatalf("%s: row %d: %v", rec.id, i, err)
			}
			if !ok && (len(payload) != 0 || normalize.TypeCode(vals.TypeID[i]) != normalize.Null) {
				t.Fatalf("%s: row %d: invalid row that is not a zero-length NULL", rec.id, i)
			}
			got = append(got, vals.FieldID[i], uint64(vals.TypeID[i]), uint64(len(payload)))
			got = append(got, payload...)
		}
		if !slices.Equal(got, rec.words) {
			t.Errorf("%s: rebuilt record\n got %v\nwant %v", rec.id, got, rec.words)
		}
		if id := policyIdentity[recordPolicy[art]]; id != mustProfileID(t, rec.profile) {
			t.Errorf("%s: policy resolves to %q", rec.id, id)
		}
	}

	// A null row with a nonzero payload length must be rejected by the validator.
	for i := range vals.ValueID {
		if !vals.ValidityBitmap.Valid(i) {
			bad := *vals
			bad.PayloadLength = slices.Clone(vals.PayloadLength)
			bad.PayloadLength[i] = 1
			if err := bad.Validate(ctx, arts); err == nil {
				t.Fatalf("row %d: null row with a payload word was accepted", i)
			}
			return
		}
	}
	t.Fatal("no NULL field in the fixture's record vectors: the null-row check above never ran")
}

func mustProfileID(t *testing.T, name string) string {
	t.Helper()
	p, err := normalize.ParseProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID()
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// indexOfRun returns the first index at which run occurs in words, or -1. An empty run
// is found at len(words), the end (PW-02.06: empty payloads may start at the end).
func indexOfRun(words, run []uint64) int {
	if len(run) == 0 {
		return len(words)
	}
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return i
		}
	}
	return -1
}
