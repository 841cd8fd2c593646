package normalize

import (
	"fmt"
	"math"
)

// RecordBatch is the PW-09.13 flat batch: record i is Words[Offsets[i] : Offsets[i]+Lengths[i]].
//
// The three buffers are plain uint64 slices shared with the caller; nothing here copies
// them. Pool order may differ from record order, records may overlap or repeat, and pool
// words that no record covers are allowed. A batch with no offsets holds zero records.
// ProfileID is the full profile identity string (Profile.ID) of the encoder that
// produced the words; Validate does not check it and never infers a default: consumers
// compare it with the profile of their own explicit context.
type RecordBatch struct {
	ProfileID string
	Words     []uint64
	Offsets   []uint64
	Lengths   []uint64
}

// Len returns the number of records in b.
func (b *RecordBatch) Len() int { return len(b.Offsets) }

// Record returns the words of record i, borrowed from b.Words (no copy). Its capacity
// is clipped to its length, so appending to it never overwrites the pool. Call it only
// after Validate succeeded; it panics on out-of-range bounds like any slice expression.
func (b *RecordBatch) Record(i int) []uint64 {
	off, n := b.Offsets[i], b.Lengths[i]
	return b.Words[off : off+n : off+n]
}

// Append encodes fields under profile p as one more record at the end of b.Words and
// records its offset and length. A batch with an empty ProfileID takes p.ID(); a batch
// declared for another profile is refused with CodeBatchProfile, so one batch never
// mixes profiles. On error b is unchanged.
func (b *RecordBatch) Append(fields []Field, p Profile) error {
	if !p.Valid() {
		return newErr("encode", CodeInput, "invalid profile")
	}
	if b.ProfileID != "" && b.ProfileID != p.ID() {
		return newErr("encode", CodeBatchProfile, "batch declares another profile")
	}
	off := len(b.Words)
	words, err := AppendRecord(b.Words, fields, p)
	if err != nil {
		return err
	}
	b.Words = words
	b.Offsets = append(b.Offsets, uint64(off))
	b.Lengths = append(b.Lengths, uint64(len(words)-off))
	b.ProfileID = p.ID()
	return nil
}

// Validate checks that Offsets and Lengths have equal counts, that every record slice
// lies inside Words without overflow, and that every record is a complete C2 frame
// (see ValidateRecordWords). Errors carry the record index and the absolute word offset
// in Words. Validate allocates nothing on success and never copies a buffer.
//
// The extension type codes 10..14 are accepted only when ProfileID is exactly the
// identity of an extension profile (StrictV1Ext1.ID() or LogicalV1Ext1.ID()); every
// other batch, v1 and undeclared ones included, keeps rejecting tags above 9.
func (b *RecordBatch) Validate() error {
	maxTag := maxTypeCode
	if b.ProfileID == StrictV1Ext1.ID() || b.ProfileID == LogicalV1Ext1.ID() {
		maxTag = maxExtTypeCode
	}
	if len(b.Offsets) != len(b.Lengths) {
		e := newErr("validate", CodeBatchShape, fmt.Sprintf("%d offsets but %d lengths", len(b.Offsets), len(b.Lengths)))
		return e
	}
	pool := uint64(len(b.Words))
	for i, off := range b.Offsets {
		n := b.Lengths[i]
		if off > pool || n > pool-off {
			e := newErr("validate", CodeBatchBounds, fmt.Sprintf("slice of %d words at offset %d leaves the %d-word pool", n, off, pool))
			e.Record = i
			return e
		}
		if err := validateRecord(b.Words[off:off+n], maxTag); err != nil {
			err.Record = i
			err.Word += int(off)
			return err
		}
	}
	return nil
}

// ValidateRecordWords checks that words is one complete C2 wire-version-1 record frame:
//
//   - a header [WireVersion=1, RecordDomain=2, field_count];
//   - field ids strictly increasing (so unique), none equal to UINT64_MAX;
//   - every type code in 0..9;
//   - exact framing: each field's payload_word_count words follow its 3-word field header,
//     and the record ends exactly after the last field's payload;
//   - structural payload lengths, the minimum needed to walk the layouts:
//     MISSING and NULL have 0 words; BOOL, INT64, UINT64 and FLOAT64 have 1;
//     TEXT and BYTES have 1+ceil(byte_count/8); DECIMAL has at least 7 and exactly
//     6+coefficient_word_count with coefficient_word_count >= 1; TIMESTAMP has
//     11+ceil(name_byte_count/8).
//
// Payload semantics are NOT checked; they are the producer's responsibility (C2,
// PW-09.13): a BOOL word other than 0/1, nonzero text padding, invalid UTF-8, exponent
// kinds above 3, calendar-invalid timestamp fields and non-canonical logical-v1 values
// all pass. Errors carry the word offset within words. No allocation on success.
func ValidateRecordWords(words []uint64) error {
	if err := validateRecord(words, maxTypeCode); err != nil {
		return err
	}
	return nil
}

// ValidateRecordWordsIn is ValidateRecordWords for a record produced under profile p:
// under an extension profile it also accepts the extension type codes 10..14 with their
// payload lengths (DATE and TIME 1 word, DURATION 2, TIMESTAMP_NS as TIMESTAMP, NESTED
// two packed byte strings); under a v1 profile it is exactly ValidateRecordWords. An
// invalid p is CodeInput.
func ValidateRecordWordsIn(words []uint64, p Profile) error {
	if !p.Valid() {
		return newErr("validate", CodeInput, "invalid profile")
	}
	maxTag := maxTypeCode
	if p.Extended() {
		maxTag = maxExtTypeCode
	}
	if err := validateRecord(words, maxTag); err != nil {
		return err
	}
	return nil
}

// validateRecord returns a concrete *Error (nil on success) so Validate can annotate it.
// maxTag is the largest type code accepted.
func validateRecord(w []uint64, maxTag TypeCode) *Error {
	fail := func(code Code, at int, msg string) *Error {
		e := newErr("validate", code, msg)
		e.Word = at
		return e
	}
	if len(w) < 3 {
		return fail(CodeBatchHeader, 0, fmt.Sprintf("record of %d words is shorter than its 3-word header", len(w)))
	}
	if w[0] != WireVersion {
		return fail(CodeBatchHeader, 0, "wire version is not 1")
	}
	if w[1] != RecordDomain {
		return fail(CodeBatchHeader, 1, "record domain is not 2")
	}
	count := w[2]
	// Every field needs at least 3 words, which bounds count before we loop on it.
	if count > uint64(len(w)-3)/3 {
		return fail(CodeBatchFrame, 2, fmt.Sprintf("field count %d cannot fit in %d words", count, len(w)))
	}
	pos := 3
	var prev uint64
	for f := uint64(0); f < count; f++ {
		if len(w)-pos < 3 {
			// Point at the missing header's first word, or, when the record ends right
			// before it, at the field count that promised it (offsets stay inside words).
			at := pos
			if at >= len(w) {
				at = 2
			}
			return fail(CodeBatchFrame, at, fmt.Sprintf("field %d header truncated", f))
		}
		id, tag, n := w[pos], w[pos+1], w[pos+2]
		if id == math.MaxUint64 {
			return fail(CodeBatchFieldID, pos, "field id UINT64_MAX is reserved")
		}
		if f > 0 && id <= prev {
			return fail(CodeBatchFieldID, pos, fmt.Sprintf("field %d id is not greater than the previous field id", f))
		}
		if tag > uint64(maxTag) {
			return fail(CodeBatchTag, pos+1, fmt.Sprintf("field %d has unknown type code %d", f, tag))
		}
		if n > uint64(len(w)-pos-3) {
			return fail(CodeBatchFrame, pos+2, fmt.Sprintf("field %d payload of %d words runs past the record end", f, n))
		}
		p := w[pos+3 : pos+3+int(n)]
		if msg := checkPayloadShape(TypeCode(tag), p); msg != "" {
			return fail(CodeBatchPayload, pos+2, fmt.Sprintf("field %d (%s): %s", f, TypeCode(tag), msg))
		}
		prev = id
		pos += 3 + int(n)
	}
	if pos != len(w) {
		return fail(CodeBatchFrame, pos, fmt.Sprintf("%d words follow the last field", len(w)-pos))
	}
	return nil
}

// packedWords is ceil(byteCount/8) without overflow.
func packedWords(byteCount uint64) uint64 {
	return byteCount>>3 + (byteCount&7+7)>>3
}

// checkPayloadShape returns "" when p has the word count the layout of tag requires.
func checkPayloadShape(tag TypeCode, p []uint64) string {
	n := uint64(len(p))
	switch tag {
	case Missing, Null:
		if n != 0 {
			return "payload must be empty"
		}
	case Bool, Int64, Uint64, Float64, Date, Time:
		if n != 1 {
			return "payload must be one word"
		}
	case Text, Bytes:
		if n == 0 {
			return "payload lacks its byte count"
		}
		if packedWords(p[0]) != n-1 {
			return "byte count disagrees with the packed word count"
		}
	case Decimal:
		if n < 7 {
			return "payload shorter than 7 words"
		}
		if p[5] == 0 || p[5] != n-6 {
			return "coefficient word count disagrees with the payload length"
		}
	case Duration:
		if n != 2 {
			return "payload must be two words"
		}
	case Nested:
		if n == 0 {
			return "payload lacks its type byte count"
		}
		k := packedWords(p[0])
		if n < 2 || k > n-2 {
			return "type bytes run past the payload"
		}
		if packedWords(p[1+k]) != n-2-k {
			return "value byte count disagrees with the packed word count"
		}
	case Timestamp, TimestampNS:
		if n < 11 {
			return "payload shorter than 11 words"
		}
		if packedWords(p[10]) != n-11 {
			return "zone name byte count disagrees with the packed word count"
		}
	}
	return ""
}
