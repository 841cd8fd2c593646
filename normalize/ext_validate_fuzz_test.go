package normalize

import "testing"

// FuzzValidateRecordWordsIn: under an extension profile the validator accepts a
// superset of what v1 accepts, differing exactly on records that use tags 10..14, and
// never panics; an extension batch agrees with the per-record validator.
func FuzzValidateRecordWordsIn(f *testing.F) {
	f.Add([]byte{1, 2, 0})
	f.Add([]byte{1, 2, 1, 7, 10, 1, 5})
	f.Add([]byte{1, 2, 2, 1, 12, 2, 1, 2, 2, 13, 11, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 1, 0, 14, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		w := fuzzWords(data)
		v1 := ValidateRecordWords(w)
		ext := ValidateRecordWordsIn(w, LogicalV1Ext1)
		if ext != nil {
			var e *Error
			if !asError(ext, &e) || !knownCode(e.Code) || e.Word < 0 || e.Word >= max(len(w), 1) {
				t.Fatalf("%v: bad error %v", w, ext)
			}
		}
		if v1 == nil && ext != nil {
			t.Fatalf("%v: v1 accepts, extension rejects: %v", w, ext)
		}
		if v1 != nil && ext == nil && !usesExtTag(w) {
			t.Fatalf("%v: extension accepts without extension tags, v1 rejects: %v", w, v1)
		}
		if err := ValidateRecordWordsIn(w, StrictV1); (err == nil) != (v1 == nil) {
			t.Fatalf("%v: ValidateRecordWordsIn(strict-v1) %v, ValidateRecordWords %v", w, err, v1)
		}
		b := RecordBatch{ProfileID: StrictV1Ext1.ID(), Words: w, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(w))}}
		if err := b.Validate(); (err == nil) != (ext == nil) {
			t.Fatalf("%v: batch %v, record %v", w, err, ext)
		}
	})
}

// usesExtTag reports whether a record that validates under an extension profile has
// a field with tag 10..14.
func usesExtTag(w []uint64) bool {
	pos := 3
	for f := uint64(0); f < w[2]; f++ {
		if w[pos+1] >= 10 {
			return true
		}
		pos += 3 + int(w[pos+2])
	}
	return false
}

// TestTruncatedHeaderWord: a record that ends exactly where a promised field header
// should start reports the field count word, never an offset past the record (found
// by FuzzValidateRecordWords; seed kept in testdata/fuzz).
func TestTruncatedHeaderWord(t *testing.T) {
	w := []uint64{1, 2, 3, 1, 4, 1, 48, 48, 6, 2, 1, 48}
	err := ValidateRecordWords(w)
	var e *Error
	if !asError(err, &e) || e.Code != CodeBatchFrame || e.Word != 2 {
		t.Fatalf("%v", err)
	}
	w = append(w, 5) // one word of the third header: points at it
	if err := ValidateRecordWords(w); !asError(err, &e) || e.Code != CodeBatchFrame || e.Word != 12 {
		t.Fatalf("%v", err)
	}
}
