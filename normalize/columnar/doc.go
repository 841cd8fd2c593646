// Package columnar encodes Arrow record batches straight into C2 records: one
// normalize.RecordBatch record per row, equal word for word to normalize.AppendRecord
// over the scalar values a Python adapter would hold for the row (the scalar encoder is
// the reference; property tests compare the two on every supported type).
//
// # Columns
//
// NewEncoder takes the schema, one Column per schema column and a profile. Every schema
// column must be listed, either encoded under a C2 field id or explicitly excluded
// (Exclude; Encoder.Excluded reports them): C2 PW-03.10 allows no implicit exclusion.
// Column types the profile cannot represent fail at construction with
// PW_NORM_UNSUPPORTED naming the column and its Arrow type.
//
// # Arrow → C2 mapping
//
//	Arrow type                         C2 type (payload as the scalar encoder's)
//	null                               NULL
//	bool                               BOOL
//	int8..int64                        INT64 when negative, else UINT64 (width is schema metadata)
//	uint8..uint64                      UINT64
//	float64                            FLOAT64 (bits)
//	float32, float16                   FLOAT64, widened exactly on the bits (Widen32, Widen16):
//	                                   NaN sign, payload and signalling bit kept
//	utf8, large_utf8, utf8_view        TEXT (strict UTF-8; NFC under logical profiles)
//	binary, large_binary, binary_view,
//	fixed_size_binary                  BYTES
//	decimal32/64/128/256(p, s)         DECIMAL of v·10^-s: coefficient |v|, exponent -s
//	extension pipewhy.decimal_text     DECIMAL of each value's text as normalize.ParseDecimal
//	  (internal/decimaltext, utf8)     reads it (the typed-values JSON decimal): sign,
//	                                   digits and exponent as written, so "1.50" and "1.5"
//	                                   differ under strict profiles; text that is not a
//	                                   decimal is PW_NORM_DECIMAL, as is an exponent C2
//	                                   cannot hold
//	timestamp[s|ms|us]                 TIMESTAMP; tz "" naive, "UTC" datetime.timezone.utc,
//	                                   "±HH:MM" fixed with tzname "UTC±HH:MM" ("UTC" for a zero
//	                                   offset), anything else a zoneinfo key (wall time, offset
//	                                   and PEP 495 fold computed from the instant)
//	timestamp[ns]                      TIMESTAMP, or TIMESTAMP_NS for a nonzero sub-µs part (ext)
//	date32, date64                     DATE (ext)
//	time32, time64                     TIME (ext)
//	duration                           DURATION (ext)
//	dictionary<_, V>                   as V, decoded
//	list, large_list, fixed_size_list,
//	struct, map                        NESTED (ext): graphforge-canonical/1 type and value
//	                                   bytes, where that contract accepts the type
//	union, interval, views of lists,
//	other extension types              rejected (PW_NORM_UNSUPPORTED) under every profile
//
// (ext) marks the PipeWhy extension 1 types, accepted only under normalize.StrictV1Ext1
// and normalize.LogicalV1Ext1; docs/contracts/C2-extensions.md is the contract.
// Timestamps must lie in Python's years 1..9999 (the wall time, and under logical profiles
// the UTC time of aware values), else PW_NORM_OVERFLOW.
//
// # How it is fast
//
// Append works a column at a time and never boxes a value in an interface. A sizing pass
// computes every record's length and performs every check that can fail (UTF-8,
// ranges, dictionary indices, buffer offsets), so the batch is unchanged on error; the
// records are then laid out contiguously in one growth of the word pool, and a write
// pass per column fills each record's field at a per-row cursor, in tiles of rows that
// stay in cache. Fixed-size columns without nulls skip the sizing pass. Scratch buffers
// live in the Encoder and are reused across batches: after warm-up, Append allocates
// only to grow the batch, except for logical-profile text that is not already NFC, the
// first use of an IANA zone, decimal text with a fraction (normalize.ParseDecimal joins
// its digits into one string), and nested values (each is encoded through the canonical
// package as a one-row table).
//
// # Invariants
//
//   - Output equals normalize.AppendRecord on the equivalent scalar values, for every
//     profile, batch split, array slice offset and dictionary encoding.
//   - On error the batch is unchanged; errors are *Error with a stable code (a
//     *normalize.Error inside, so normalize.CodeOf works), the column and the row within
//     the record batch, and never a data value.
//   - An Encoder is not safe for concurrent use; use one per goroutine.
package columnar
