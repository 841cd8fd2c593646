package normalize

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestValidateRecordWords(t *testing.T) {
	const max = math.MaxUint64
	ok := [][]uint64{
		{1, 2, 0},
		{1, 2, 1, 0, 0, 0},                      // MISSING
		{1, 2, 1, 5, 1, 0},                      // NULL
		{1, 2, 1, 5, 2, 1, 7},                   // BOOL payload 7: semantics are the producer's
		{1, 2, 1, max - 1, 3, 1, 0},             // largest id
		{1, 2, 2, 0, 6, 1, 0, 1, 7, 2, 8, 0},    // TEXT "" then BYTES of 8
		{1, 2, 1, 0, 6, 3, 9, 0, 0},             // TEXT 9 bytes: 2 words
		{1, 2, 1, 0, 8, 7, 0, 0, 0, 0, 1, 1, 0}, // DECIMAL zero
		{1, 2, 1, 0, 8, 8, 0, 0, 0, 0, 20, 2, 0, 1},
		{1, 2, 1, 0, 9, 11, 2021, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		{1, 2, 1, 0, 9, 12, 2021, 1, 1, 0, 0, 0, 0, 0, 1, 0, 3, 0x435455},
		{1, 2, 1, 0, 5, 1, 0x7ff8000000000001},
	}
	for i, w := range ok {
		if err := ValidateRecordWords(w); err != nil {
			t.Errorf("ok[%d] %v: %v", i, w, err)
		}
	}
	bad := []struct {
		words []uint64
		code  Code
		word  int
	}{
		{nil, CodeBatchHeader, 0},
		{[]uint64{1, 2}, CodeBatchHeader, 0},
		{[]uint64{2, 2, 0}, CodeBatchHeader, 0},
		{[]uint64{1, 1, 0}, CodeBatchHeader, 1},
		{[]uint64{1, 2, 1}, CodeBatchFrame, 2},                     // field promised, none there
		{[]uint64{1, 2, max}, CodeBatchFrame, 2},                   // absurd count: rejected before looping
		{[]uint64{1, 2, 0, 0}, CodeBatchFrame, 3},                  // trailing word
		{[]uint64{1, 2, 1, 0, 1, 0, 9}, CodeBatchFrame, 6},         // trailing word after a field
		{[]uint64{1, 2, 2, 0, 1, 0, 0, 1}, CodeBatchFrame, 2},      // two fields cannot fit in 5 words
		{[]uint64{1, 2, 2, 0, 4, 1, 5, 1, 1}, CodeBatchFrame, 7},   // second header truncated
		{[]uint64{1, 2, 1, 0, 4, 2, 1}, CodeBatchFrame, 5},         // payload past the end
		{[]uint64{1, 2, 1, 0, 4, max, 1}, CodeBatchFrame, 5},       // overflowing payload count
		{[]uint64{1, 2, 1, max, 1, 0}, CodeBatchFieldID, 3},        // UINT64_MAX id
		{[]uint64{1, 2, 2, 4, 1, 0, 4, 1, 0}, CodeBatchFieldID, 6}, // duplicate
		{[]uint64{1, 2, 2, 4, 1, 0, 3, 1, 0}, CodeBatchFieldID, 6}, // descending
		{[]uint64{1, 2, 1, 0, 10, 0}, CodeBatchTag, 4},             // unknown tag
		{[]uint64{1, 2, 1, 0, max, 0}, CodeBatchTag, 4},            // unknown tag
		{[]uint64{1, 2, 1, 0, 0, 1, 0}, CodeBatchPayload, 5},       // MISSING with payload
		{[]uint64{1, 2, 1, 0, 3, 0}, CodeBatchPayload, 5},          // INT64 without payload
		{[]uint64{1, 2, 1, 0, 5, 2, 0, 0}, CodeBatchPayload, 5},    // FLOAT64 of 2 words
		{[]uint64{1, 2, 1, 0, 6, 0}, CodeBatchPayload, 5},          // TEXT without byte count
		{[]uint64{1, 2, 1, 0, 6, 2, 9, 0}, CodeBatchPayload, 5},    // 9 bytes need 2 words
		{[]uint64{1, 2, 1, 0, 7, 2, 0, 0}, CodeBatchPayload, 5},    // 0 bytes need 0 words
		{[]uint64{1, 2, 1, 0, 7, 1, max}, CodeBatchPayload, 5},     // huge byte count
		{[]uint64{1, 2, 1, 0, 8, 6, 0, 0, 0, 0, 1, 1}, CodeBatchPayload, 5},
		{[]uint64{1, 2, 1, 0, 8, 7, 0, 0, 0, 0, 1, 0, 0}, CodeBatchPayload, 5}, // zero coefficient words
		{[]uint64{1, 2, 1, 0, 8, 7, 0, 0, 0, 0, 1, 2, 0}, CodeBatchPayload, 5},
		{[]uint64{1, 2, 1, 0, 9, 10, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0}, CodeBatchPayload, 5},
		{[]uint64{1, 2, 1, 0, 9, 11, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 3}, CodeBatchPayload, 5},
	}
	for i, c := range bad {
		err := ValidateRecordWords(c.words)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("bad[%d] %v: got %v, want %s", i, c.words, err, c.code)
			continue
		}
		if e.Code != c.code || e.Word != c.word || e.Record != -1 {
			t.Errorf("bad[%d] %v: got %s at word %d record %d, want %s at word %d", i, c.words, e.Code, e.Word, e.Record, c.code, c.word)
		}
	}
}

func TestBatchValidate(t *testing.T) {
	// Pool: junk, record B (3 words), junk, record A (6 words), trailing unused word.
	words := []uint64{99, 1, 2, 0, 42, 1, 2, 1, 7, 1, 0, 55}
	b := &RecordBatch{ProfileID: StrictV1.ID(), Words: words, Offsets: []uint64{5, 1, 5}, Lengths: []uint64{6, 3, 6}}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 3 {
		t.Fatalf("Len %d", b.Len())
	}
	r := b.Record(0)
	if len(r) != 6 || cap(r) != 6 || &r[0] != &words[5] {
		t.Fatalf("Record(0) is not a clipped borrowed view: len %d cap %d", len(r), cap(r))
	}
	if r1 := b.Record(1); &r1[0] != &words[1] || len(r1) != 3 {
		t.Fatal("Record(1) does not borrow words[1:4]")
	}
	if n := testing.AllocsPerRun(20, func() { _ = b.Validate() }); n != 0 {
		t.Errorf("Validate allocates %v times", n)
	}

	empty := &RecordBatch{}
	if err := empty.Validate(); err != nil || empty.Len() != 0 {
		t.Fatalf("empty batch: %v, %d", err, empty.Len())
	}

	bad := []struct {
		name   string
		b      RecordBatch
		code   Code
		record int
		word   int
	}{
		{"counts differ", RecordBatch{Words: words, Offsets: []uint64{1}, Lengths: nil}, CodeBatchShape, -1, -1},
		{"offset past pool", RecordBatch{Words: words, Offsets: []uint64{1, 13}, Lengths: []uint64{3, 0}}, CodeBatchBounds, 1, -1},
		{"length past pool", RecordBatch{Words: words, Offsets: []uint64{5, 10}, Lengths: []uint64{6, 3}}, CodeBatchBounds, 1, -1},
		{"overflowing slice", RecordBatch{Words: words, Offsets: []uint64{1, 5}, Lengths: []uint64{3, math.MaxUint64 - 2}}, CodeBatchBounds, 1, -1},
		{"empty record", RecordBatch{Words: words, Offsets: []uint64{1, 4}, Lengths: []uint64{3, 0}}, CodeBatchHeader, 1, 4},
		{"record cut short", RecordBatch{Words: words, Offsets: []uint64{5}, Lengths: []uint64{5}}, CodeBatchFrame, 0, 7},
		{"record runs on", RecordBatch{Words: words, Offsets: []uint64{1}, Lengths: []uint64{4}}, CodeBatchFrame, 0, 4},
		{"misaligned", RecordBatch{Words: words, Offsets: []uint64{0}, Lengths: []uint64{3}}, CodeBatchHeader, 0, 0},
	}
	for _, c := range bad {
		err := c.b.Validate()
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || e.Record != c.record || e.Word != c.word {
			t.Errorf("%s: got %v, want %s record %d word %d", c.name, err, c.code, c.record, c.word)
		}
	}
}

func TestErrorMatching(t *testing.T) {
	err := ValidateRecordWords([]uint64{1, 2, 1, 0, 10, 0})
	if !errors.Is(err, &Error{Code: CodeBatchTag}) {
		t.Error("errors.Is by code failed")
	}
	if errors.Is(err, &Error{Code: CodeBatchFrame}) {
		t.Error("errors.Is matched another code")
	}
	if CodeOf(err) != CodeBatchTag || CodeOf(errors.New("x")) != "" || CodeOf(nil) != "" {
		t.Error("CodeOf")
	}
	var coder interface{ ErrorCode() string }
	if !errors.As(err, &coder) || coder.ErrorCode() != string(CodeBatchTag) {
		t.Error("ErrorCode accessor")
	}
}

func TestBatchAppend(t *testing.T) {
	var b RecordBatch
	if err := b.Append([]Field{{2, Int(-1)}, {1, Nil}}, LogicalV1); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(nil, LogicalV1); err != nil {
		t.Fatal(err)
	}
	before := len(b.Words)
	if err := b.Append([]Field{{1, Nil}, {1, Nil}}, LogicalV1); CodeOf(err) != CodeFieldID || len(b.Words) != before || b.Len() != 2 {
		t.Fatalf("failed append changed the batch: %v", err)
	}
	if err := b.Append(nil, StrictV1); CodeOf(err) != CodeBatchProfile || b.Len() != 2 {
		t.Fatalf("profile mix: %v", err)
	}
	if b.ProfileID != LogicalV1.ID() {
		t.Fatalf("ProfileID %q", b.ProfileID)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	want := [][]uint64{{1, 2, 2, 1, 1, 0, 2, 3, 1, math.MaxUint64}, {1, 2, 0}}
	for i, w := range want {
		if got := b.Record(i); !slices.Equal(got, w) {
			t.Errorf("record %d: %v, want %v", i, got, w)
		}
	}
}
