// Package canonical implements graphforge-canonical/1 over Apache Arrow: the canonical
// bytes of Arrow schemas and tables, their domain-separated SHA-256 fingerprints and the
// deterministic UUIDv8 projection, byte for byte as the GraphForge project's own (Rust)
// implementation produces them. The contract is docs/contracts/graphforge-canonical-1.md
// (restating the seed it names); the JSON vector vocabulary and the layout facts settled
// from the reference implementation are docs/contracts/graphforge-vectors-json.md. The official golden vectors are in
// testdata/graphforge (unchanged); PipeWhy's own hand-derived vectors, covering every
// type, tag and error code, are in testdata/pipewhy.
//
// # Invariants
//
// Canonicalisation is a pure function of the contract version and the logical values:
// buffers, offsets, slices, offset widths, dictionary ids and order, and record-batch
// boundaries never participate. Rows keep their order; only map entries are sorted.
// Invalid input fails with a stable code; nothing is dropped, substituted or repaired.
//
// # Primitives
//
// Counts and lengths are unsigned big-endian; signed integers are two's complement
// big-endian at their declared width. A bytes item is u64 length + bytes; a text item is
// a bytes item holding valid UTF-8 (never normalised). Every field, list element, struct
// child and map value begins with a presence byte: 00 null, 01 present. A null in a
// non-nullable position is GF_CANONICAL_NULLABILITY.
//
// # Schema bytes (payload of graphforge/schema)
//
//	"GFS1" u32 field_count field[field_count] metadata
//	field    = text name, u8 nullable (00|01), data_type, metadata
//	metadata = u32 entry_count, (text key, text value)[entry_count] sorted by raw key bytes
//
// Metadata filtering: keys beginning "graphforge.contract." participate;
// graphforge.query_id, ontology_mode and ontology_version are excluded as volatile; the
// owning registry (Options.Metadata, a MetadataRegistry) classifies the other graphforge.*
// keys: its semantic keys participate, its volatile keys are excluded. A result-contract
// key (ResultContractKeys) the registry does not declare, and any other unclassified
// "graphforge." key, is rejected (GF_CANONICAL_ENCODING); everything else (producer,
// writer, comments, ARROW:extension:*) is excluded. The default registry of
// graphforge/arrow-result is GraphForge's standard result registry
// (StandardResultRegistry: the seven result-contract keys and four more its engine writes,
// taken from GraphForge's own source); other domains declare nothing by default
// (DefaultOptions). Duplicate keys are rejected, invalid UTF-8 is GF_CANONICAL_UTF8.
// Child fields (list item, struct children, map key and value) use the same field
// grammar; the map key field is always written non-nullable and the entries struct is not
// encoded.
//
// # Data-type tags
//
//	01 null            02 bool            10-13 int8..int64   14-17 uint8..uint64
//	20-22 float16..64  30 utf8/large_utf8 31 binary/large_binary
//	32 fixed_size_binary u32 width        40/41 decimal128/256 u8 precision, i8 scale
//	50 date32/date64   51 time (all units, as u64 µs)   52 timestamp u8 tz_kind (00 absent, 01 UTC)
//	53 duration (i64 µs) 54 interval year-month (i32)    55 day-time (i32 days, i32 ms)
//	56 month-day-nano (i32, i32, i64)
//	60 list/large_list child_field        61 fixed_size_list u32 length, child_field
//	62 struct u32 count, child_fields     63 map key_field, value_field
//	70 registered extension: text name, u32 version, storage data_type
//
// A dictionary encodes as its value type. The accepted timestamp zones are absent, "UTC",
// "Etc/UTC", "Z" and "+00:00"; any other zone is rejected (GF_CANONICAL_TEMPORAL: the
// contract names no code). Union, run-end encoded, view types, decimal32/64 and every
// other type outside the table are GF_CANONICAL_ARROW_TYPE. Extensions are accepted only
// when Options.Extensions registers the (name, version) and the storage's canonical type
// bytes equal the registered ones; PipeWhy reads the version as the decimal digits of
// ARROW:extension:metadata. The contract publishes no registry entry, so the default
// registry is empty and every extension is rejected.
//
// # Values
//
// Fixed-width values are their big-endian bytes; utf8/binary are bytes items; a list is
// u64 count + elements; a fixed-size list is exactly its elements; a struct is its
// children in order; a map is u64 count + (key, value) pairs sorted by the complete
// canonical key bytes (presence and length prefix included), and two equal keys are
// GF_CANONICAL_MAP_KEY. Floats: -0 becomes +0 and every NaN the positive quiet NaN
// (7e00, 7fc00000, 7ff8000000000000). Temporal conversions to microseconds (and date64
// to days) must be exact and must not overflow, time of day must lie in
// [0, 86_400_000_000), else GF_CANONICAL_TEMPORAL. Decimals outside the declared
// precision, invalid dictionary indexes and malformed offsets are GF_CANONICAL_ENCODING.
//
// # Table bytes and the envelope
//
//	table    = "GFT1" u64 schema_length schema u64 row_count row[row_count]
//	row      = the values of the fields in schema order (no row-level presence byte)
//	preimage = "GFFP" u8 1 u16 domain_length domain u32 version u64 payload_length payload
//	sha256   = SHA-256(preimage), rendered as 64 lowercase hex characters
//	uuid_v8  = sha256[0:16], byte 6 high nibble = 8, byte 8 high bits = 10
//
// Domains are the closed set Domains; an unknown domain (GF_CANONICAL_ENCODING) or a
// contract version other than 1 (GF_UNSUPPORTED_CONTRACT_VERSION) fails before anything
// is hashed. Store maps fingerprints to bytes and fails closed with
// GF_FINGERPRINT_COLLISION when a fingerprint or its UUID meets different bytes.
//
// # Limits
//
// Nesting depth 32 (container levels: list<int64> is 1), 4096 fields per struct or
// schema, 256 metadata entries per field or schema (counted before filtering), 16 MiB per
// text value, field name or metadata text, 64 MiB per binary value (and fixed-size
// binary width), 10,000,000 elements per list or map value (and fixed-size list length),
// 100,000,000 rows, 2 GiB payload. Type-level limits are checked when the schema is
// compiled; value limits in the sizing pass, which runs before any output buffer is
// allocated. Length arithmetic is checked.
//
// # Errors
//
// Every failure is an *Error with a stable Code (GF_CANONICAL_NULLABILITY, _ENCODING,
// _ARROW_TYPE, _TEMPORAL, _MAP_KEY, _UTF8, _LIMIT, GF_FINGERPRINT_COLLISION,
// GF_UNSUPPORTED_CONTRACT_VERSION) and only the domain, version, a type/path position
// ("row 12 field[1].item"), and observed size with limit: never text, binary, key or
// payload bytes. errors.Is matches the sentinels ErrNullability ... ErrUnsupported.
//
// # Streaming
//
// The length prefixes need sizes before bytes, so an Encoder makes two passes over a
// re-iterable Batches sequence. The sizing pass computes the exact payload length
// column by column (fixed-width columns without touching values; variable-size values
// from their offsets) and checks nullability, offsets and limits. The encoding pass then
// appends rows into one reusable 64 KiB chunk buffer (no per-value allocation; map
// entries are sorted in a per-column scratch buffer) and writes each chunk to the
// destination: to SHA-256 for Fingerprint (hashed in a second goroutine fed by a ring of
// three chunk buffers, so encoding overlaps hashing), into an io.Writer for WriteTable,
// or into a buffer allocated once at the exact size for AppendTable. The two passes must
// agree on length and rows, else the result is an error rather than a hash of a wrong
// prefix. A table is therefore fingerprinted in memory proportional to one batch.
//
// arrow-go arrays read from corrupt files can panic on access; the Encoder's entry points
// recover such panics into GF_CANONICAL_ENCODING errors (as does package arrowio around
// its readers), so malformed input is an error, never a crash.
package canonical
