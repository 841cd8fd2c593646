// Package normalize implements the PipeWhy Normalization Contract C2, version 1.0
// (docs/contracts/C2-normalization.md, PW-03.01..PW-03.23), with the decisions of
// docs/contracts/typed-values-json.md where C2 is silent, and the shared flat record
// batch of PW-09.13. It turns typed scalar values into canonical uint64 words, frames
// records, and validates batches of framed records.
//
// # Values
//
// C2 is written against Python's types; Go models them as one closed sum type, Value:
//
//	MissingValue (Absent)   MISSING, type code 0, its own singleton type
//	NullValue (Nil)         None, type code 1
//	BoolValue               bool, type code 2
//	IntValue                any integer: Int(int64), Uint(uint64), BigInt(*big.Int);
//	                        negative -> INT64 (3), nonnegative -> UINT64 (4), range-checked
//	FloatValue              binary64 bit pattern, type code 5
//	TextValue               UTF-8 bytes (must be strict UTF-8 of scalar values), type code 6
//	BytesValue              raw bytes, type code 7
//	DecimalValue            sign, form, exponent, ASCII coefficient digits; type code 8
//	TimestampValue          civil fields, microsecond, fold, Zone; type code 9
//
// Under the extension profiles (below) there are also DateValue, TimeValue,
// DurationValue and NestedValue, and TimestampValue may carry nanoseconds.
//
// Go has no naive time and no fold, so TimestampValue is not a time.Time. Field ids are
// FieldID (uint64): a negative id cannot be built in Go, and ParseFieldID rejects
// negative and oversized decimal ids; the encoder rejects UINT64_MAX and duplicates.
// ParseValueJSON and ParseFieldsJSON read the typed-values JSON form.
//
// # Word layouts (wire version 1)
//
// A scalar is a type code and payload words:
//
//	MISSING, NULL   (no words)
//	BOOL            [0 | 1]
//	INT64           [two's complement of v]           (-2**63 <= v < 0)
//	UINT64          [v]                               (0 <= v <= 2**64-1)
//	FLOAT64         [binary64 bits]
//	TEXT, BYTES     [byte_count, w0, w1, ...]         ceil(byte_count/8) words
//	DECIMAL         [sign, exponent_kind, exponent_sign, exponent_magnitude,
//	                 digit_count, coefficient_word_count, c0, c1, ...]
//	TIMESTAMP       [year, month, day, hour, minute, second, microsecond, fold,
//	                 tz_kind, offset_us, name_byte_count, n0, n1, ...]
//
// Byte strings pack little-endian, eight bytes a word, zero padding in the last word:
// "abcdefghi" is [9, 0x6867666564636261, 0x69]. Decimal coefficients are little-endian
// base-2**64 words (zero is one zero word); exponent_kind is 0 finite, 1 infinity,
// 2 quiet NaN, 3 signaling NaN, and special values have a zero exponent. digit_count is
// len(Decimal.as_tuple().digits): 1 for an infinity, 0 for a NaN without payload.
// tz_kind is 0 naive, 1 fixed, 2 IANA; offset_us is utcoffset() in microseconds as a
// two's-complement word (0 when naive); the name is empty (naive), the fixed zone's
// tzname(), or the IANA key.
//
// A record is
//
//	+---+---+-------------+----------+-----------+--------------------+---------+----
//	| 1 | 2 | field_count | field_id | type_code | payload_word_count | payload | ...
//	+---+---+-------------+----------+-----------+--------------------+---------+----
//	 wire   record          repeated for each field, in increasing field_id order
//	 version domain
//
// On the wire every word is little-endian; in memory words are native uint64.
//
// # Profiles and identities
//
// StrictV1 (the zero Profile, the default) preserves representation exactly. LogicalV1
// applies only these equivalences, never across types: text to NFC (case and
// whitespace kept; golang.org/x/text/unicode/norm); float zeros to +0 and every NaN to
// 0x7ff8000000000000; decimal trailing coefficient zeros stripped with an exact exponent
// adjustment, finite zeros to [0,0,0,0,1,1,0], NaNs to an unsigned quiet NaN without
// payload (infinities keep their sign); aware timestamps to UTC (tz_kind 1, offset 0,
// name "UTC") and every timestamp to fold 0, naive ones keeping their wall fields.
//
// A profile's identity is the SHA-256 of a fixed, compact, key-sorted JSON descriptor
// (Profile.Descriptor); the identity string (Profile.ID) is
//
//	pipewhy.normalization/strict-v1/wire-1/sha256:<64 hex>
//	pipewhy.normalization/logical-v1/wire-1/unicode-<norm.Version>/sha256:<64 hex>
//
// The logical-v1 identity includes the Unicode version of the NFC tables, so it changes
// when golang.org/x/text does, by design.
//
// # Extension 1
//
// StrictV1Ext1 ("strict-v1+ext1") and LogicalV1Ext1 ("logical-v1+ext1") are PipeWhy's
// extension of C2 (docs/contracts/C2-extensions.md), with their own descriptors and
// identities; the v1 ones are unchanged. They encode every v1 value exactly as their
// base profile does and add five type codes:
//
//	DATE (10)          [days since 1970-01-01, two's complement]     DateValue
//	TIME (11)          [nanoseconds since midnight]                  TimeValue
//	DURATION (12)      [lo, hi] 128-bit two's-complement nanoseconds DurationValue
//	TIMESTAMP_NS (13)  TIMESTAMP's layout, word 6 the nanosecond of the second
//	NESTED (14)        [type_byte_count, type words..., value_byte_count, value words...]
//	                   graphforge-canonical/1 schema and value bytes  NestedValue
//
// A TimestampValue with a nonzero Nanosecond, which v1 rejects with CodePrecision, is
// TIMESTAMP_NS under an extension profile; with Nanosecond 0 it stays TIMESTAMP, word
// for word. v1 profiles reject the extension values with CodeUnsupported.
//
// # Timestamps and the tz database
//
// IANA offsets follow Python's zoneinfo (PEP 495) exactly: in a gap fold=0 takes the
// offset before the transition and fold=1 the one after; in a fold fold=0 is the first
// occurrence; before a zone's first transition its local mean time applies; beyond the
// table the TZif footer rule does. The tz data is Go's: the host's zoneinfo, else the
// copy embedded by time/tzdata. Keys are accepted only in zoneinfo's form (relative,
// normalized paths); "", "Local", absolute and up-level paths are CodeTimezone. Nonzero
// sub-microsecond input is CodePrecision, never rounded.
//
// # Batches
//
// RecordBatch is the PW-09.13 flat batch: ProfileID plus three uint64 buffers, with
// record i at Words[Offsets[i]:Offsets[i]+Lengths[i]]. Validate checks counts, bounds
// (without overflow) and every record frame (ValidateRecordWords: header, strictly
// increasing non-UINT64_MAX ids, type codes 0..9, exact framing and the per-type payload
// lengths). The extension codes 10..14 pass only in a batch whose ProfileID is an
// extension profile's identity, or through ValidateRecordWordsIn with such a profile. It does not check payload semantics (a BOOL word of 7, nonzero padding,
// invalid UTF-8, calendar fields), which are the producer's responsibility, and it does
// not check ProfileID: consumers compare it with their own explicit context.
// RecordBatch.Append encodes a record straight into the pool and refuses to mix
// profiles in one batch.
//
// # Errors
//
// Every error is an *Error carrying a stable Code, the operation, and, for batches, the
// record index and word offset. Encoder and parser codes are the contract's:
// PW_NORM_INT_RANGE, PW_NORM_UTF8 (also for a fixed zone name that is not UTF-8),
// PW_NORM_DECIMAL, PW_NORM_TIMEZONE, PW_NORM_OVERFLOW, PW_NORM_PRECISION,
// PW_NORM_UNSUPPORTED, PW_NORM_FIELD_ID and PW_NORM_INPUT (also for an unknown profile
// name). Batch codes are PipeWhy's: PW_BATCH_SHAPE (offset and length counts differ),
// PW_BATCH_BOUNDS (a slice leaves the pool), PW_BATCH_HEADER (short record, wrong
// version or domain), PW_BATCH_FIELD_ID (ids not strictly increasing, or UINT64_MAX),
// PW_BATCH_TAG (type code above 9, or above 13 under an extension profile), PW_BATCH_FRAME (field count and payload lengths do
// not tile the record), PW_BATCH_PAYLOAD (payload length wrong for its type) and
// PW_BATCH_PROFILE (Append under another profile).
//
// # Invariants
//
//   - Results are caller-owned: EncodeValue and EncodeRecord return new slices, the
//     Append functions only append to dst; nothing is cached or shared.
//   - On error, the Append functions return dst with its original length.
//   - Batch validation never copies or retains a buffer and allocates nothing on
//     success; Record returns a borrowed, capacity-clipped view.
//   - The Append paths allocate only to grow dst, except logical-v1 text that is not
//     already NFC and the first use of each IANA key.
//   - Every error is an *Error with a stable Code (CodeOf, errors.As), and messages never
//     contain user data values. Codes are only ever appended.
package normalize
