// Package source reads datasets (CSV, JSON lines, JSON arrays, Parquet, Arrow IPC files
// and streams, SQLite tables and queries) as streams of Arrow record
// batches, with the evidence a snapshot needs: where the data came from,
// which state of it was read, every decision that shaped the values, and
// exact coverage. It also keeps the schema registry that gives columns
// stable field ids across scans.
//
// It implements the adapter side of C2 (PW-03.04, PW-03.09, PW-03.10: source
// widths are field metadata; no implicit exclusions, widening or coercions;
// unsupported types fail visibly; adapters preserve read and coverage
// evidence) and the coverage rules of C5 PW-07.01.
//
// # Addresses
//
//	PATH.csv                        CSV
//	PATH.jsonl, PATH.ndjson         JSON lines
//	PATH.json                       a JSON document whose top-level value is an array of objects
//	PATH.parquet                    Parquet
//	PATH.arrow, PATH.feather        Arrow IPC file format
//	PATH.arrows                     Arrow IPC stream format
//	PATH.ipc                        Arrow IPC (KindArrowAuto): file or stream by the magic "ARROW1" at offset 0
//	csv:PATH, jsonl:PATH, json:PATH, parquet:PATH, arrow-file:PATH, arrow-stream:PATH
//	sqlite:PATH#TABLE               a SQLite table or view
//	PATH.db#TABLE, PATH.sqlite#TABLE, PATH.sqlite3#TABLE
//	sqlite:PATH                     with Options.Query, a SELECT
//
// Extensions match case-insensitively. The table name is everything after
// the first '#'. Relative paths become absolute.
//
// # Reading contract
//
// Open validates the options (an option that does not apply to the chosen
// adapter is an error, never silently ignored), opens the source and fixes
// the schema before the first batch. Next returns batches of at most
// Options.BatchSize rows (IPC files keep their own batch boundaries), owned
// by the caller. Memory is bounded by one batch plus fixed buffers (a few
// batches for the CSV reader, which converts cells on several goroutines); no
// adapter holds the whole file. A record that cannot be read is never
// returned and never silently skipped: it is a Failure (stable Code,
// 1-based line or row number, column name, a detail without the value) and
// counts in Coverage.FailedRecords. A record is returned whole or not at
// all. Batch boundaries never change values.
//
// # Coverage
//
// Coverage follows C5 PW-07.01. Expected is the number of records the
// source holds: the records seen in a full read of a CSV, JSON lines or JSON file
// (good plus failed), the Parquet footer's row count, the sum of the batch
// lengths of an IPC file or stream read to its end, and a COUNT(*) in the
// same SQLite transaction as the rows. Returned counts rows handed out.
// COMPLETE: expected known and equal to returned, no failures. PARTIAL:
// at least one failure; returned <= expected when expected is known.
// UNAVAILABLE: the read failed before any row (UnavailableCoverage for a
// source that did not open). Reading that stopped early (Evidence before
// io.EOF, cancellation, a fatal read error) adds a PW_SOURCE_INCOMPLETE
// failure and leaves expected unknown when it was not known up front. A
// file whose size or modification time changed between open and end adds
// PW_SOURCE_CHANGED. Coverage.Reasons gives the failure-reason strings
// (Failure.String: `CODE line N column "name": detail`).
//
// # Evidence
//
// Namespace: "file:" + absolute path for files; "sqlite:" + path + "#" +
// table; "sqlite:" + path + "?query-sha256=" + hex SHA-256 of the query
// text. Version: files "size=N;mtime_ns=T", plus ";sha256=HEX" of the file
// bytes with Options.HashContent (one extra read); SQLite
// "schema_version=N;db_size=…;db_mtime_ns=…;wal_size=…;wal_mtime_ns=…"
// (or "wal=absent"), with the schema cookie read inside the transaction.
// Versions are cheap change indicators, not content proofs, except the
// optional SHA-256. Consistency: "file-read" (one pass over the file;
// for inference modes two passes, guarded by the size/mtime check) or
// "sqlite-transaction". Choices records value-shaping decisions, e.g.
// "schema=explicit", "schema=inferred(full-scan)", "null=none",
// `null="NULL"`, "missing=fail", "mixed-storage=fail-row", "bom=stripped".
// Excluded lists columns dropped by Options.Exclude (each must exist).
//
// # Type vocabulary (Options.Columns)
//
//	bool                     true | false (exactly)
//	int8 int16 int32 int64   optional sign, ASCII digits; range-checked, never wrapped
//	uint8 … uint64           ASCII digits, no sign
//	float32 float64          [+-]digits[.[digits]] or [+-].digits, then [(e|E)[+-]digits];
//	                         NaN, Inf, +Inf, -Inf; nearest binary value
//	text                     the text itself (valid UTF-8 required)
//	bytes, bytes(hex)        hexadecimal, either case, even length
//	bytes(base64)            standard padded base64 (RFC 4648 §4), strict
//	decimal(P,S)             -?digits[.digits], at most S fraction digits and P-S
//	                         integer digits, never rounded; P<=38 decimal128, else decimal256 (P<=76)
//	timestamp(U)             naive: YYYY-MM-DD[T| ]HH:MM:SS[.f], no zone; stored as if UTC
//	timestamp(U,TZ)          zoned: the same followed by Z or ±hh:mm; TZ is UTC, ±hh:mm or an IANA name
//
// U is s, ms, us or ns; a fraction finer than U is an error. Each column's
// MetaSourceType metadata is its vocabulary spelling ("number" for an inferred JSON
// number column, which has none); MetaSourceWidth holds the bit width of fixed-width
// numeric types.
//
// # CSV
//
// RFC 4180 with encoding/csv's exact rules (parsed in csvparse.go, which is
// differentially fuzzed against encoding/csv): comma delimiter, double-quote
// quoting, CRLF or LF. A header line is required; names must be nonempty,
// valid UTF-8 and unique. A leading UTF-8 BOM is removed and recorded. Without Columns or
// Infer every column is text, non-nullable: the empty cell is the empty
// string. Options.Null names the one spelling that means null (recorded);
// columns are then nullable. Columns must type every header column not
// excluded. Infer reads the file once first and types each column as the
// first of int64, uint64, bool that every non-null cell parses as and
// renders back to exactly (the same bytes), else text: "00501", "+5", "-0",
// " 7" keep their column text, so no value loses its spelling and two
// different texts never become one value; floats and decimals are never
// inferred, because inference cannot know the intended rounding or scale. Failures: wrong field count
// or broken quoting PW_SOURCE_CSV_ROW (at the record's first line), invalid
// UTF-8 PW_SOURCE_UTF8, unparsable cell PW_SOURCE_TYPE. A record longer
// than MaxLineBytes bytes (its lines and the line breaks inside it, not its
// final newline) stops the read (PW_SOURCE_LIMIT) after the records before it.
//
// Files of 4 MiB or more are read on GOMAXPROCS goroutines (csv_parallel.go):
// one splits records, in order, the others convert cells to Arrow, and Next
// hands out the batches in source order. Values, failures (in order) and
// coverage are exactly those of the serial read (a differential test and a
// fuzz target compare them); only the rows per batch may differ, since a
// failed record no longer leaves room for a later one in its batch. At most
// about 2×(GOMAXPROCS+2) batches, and no more than 2 Mi rows, are in flight.
// The int64, float64, timestamp and text columns are written straight into
// Arrow buffers from Options.Allocator; a released batch's buffers are kept
// for the next batches (those of at most GOMAXPROCS+1 batches, two for a
// serial read) until Close, or the end of a parallel read, returns them to the
// allocator (a batch released later returns its buffers then).
//
// # JSON lines and JSON arrays
//
// A JSON lines file holds one flat JSON object (RFC 8259) per line; a JSON file (KindJSON)
// holds one JSON document whose top-level value is an array, each element one record. Both
// are parsed by this package so that numbers stay exact literals, duplicate members, lone
// surrogate escapes and invalid UTF-8 are detected (never replaced by U+FFFD). JSON lines:
// a final line without newline is accepted; "\r\n" is accepted; a blank line is a failure.
// A leading UTF-8 BOM (which RFC 8259 lets a parser ignore) is removed and recorded
// ("bom=stripped"), in both, as in CSV.
//
// A JSON array is read in one streaming pass (jsonarray.go): the reader finds where each
// element ends by tracking strings, escapes and brackets, holding a 64 KiB read buffer and
// one element of at most MaxLineBytes, never the document, so memory does not grow with
// the file. An element is then parsed exactly as a JSON line is. An element that is not a
// flat object fails alone (PW_SOURCE_JSON_LINE, or the code of what is wrong inside it) and
// the read goes on; its failure names the line the element starts on and, in the detail,
// the element's position ("array element 12: ..."). An element longer than MaxLineBytes
// fails alone (PW_SOURCE_LIMIT). A document that is not an array (an object, a scalar) is
// PW_SOURCE_UNSUPPORTED; an array whose structure is broken (not closed, a missing or
// extra comma, text after it) is PW_SOURCE_CORRUPT with its line: the elements after it
// cannot be delimited, so Open fails (the inference pass reads the whole file first) or,
// with Columns, the read stops there after returning the elements before it.
//
// With Columns, members map by name: JSON numbers feed integer, float and decimal columns
// (integer columns reject fractions and exponents; a decimal column takes any number,
// exponent included, that it holds exactly), strings feed text, bytes, decimal and
// timestamp columns, booleans feed bool; anything else is PW_SOURCE_TYPE. A member not in
// the schema is PW_SOURCE_EXTRA, a missing one PW_SOURCE_MISSING unless MissingAsNull
// (recorded), a repeated one PW_SOURCE_DUPLICATE, a nested object or array
// PW_SOURCE_UNSUPPORTED.
//
// Without Columns the schema is inferred in a first full pass: see Type mapping.
//
// # Type mapping
//
// JSON lines and JSON arrays without Columns: the schema is inferred in a first full
// pass, columns in first-appearance order, from the JSON kinds of each column's values
// (null is null in every column and decides nothing):
//
//	only strings, or only nulls       text
//	strings and numbers or booleans   text; each number or boolean is its literal as written
//	                                  ("1776" for 1776, "6.10e0" for 6.10e0), recorded in the
//	                                  evidence as the choice mixed-as-text="NAME"
//	only booleans                     bool
//	only integer literals             int64 when all fit, else uint64 when all are nonnegative
//	                                  and fit, else as below
//	numbers (fraction or exponent)    number: each value its literal as written, in an Arrow
//	                                  decimal_text column (source type "number"), a decimal
//	                                  with its own digits and exponent
//	booleans and numbers              PW_SOURCE_TYPE
//	an exponent beyond ±1048576       PW_SOURCE_TYPE
//	nested objects or arrays          PW_SOURCE_UNSUPPORTED
//
// Every value is exact in its column's type: nothing is read through binary floating
// point unless Columns asks for a float. A number column gives no value a scale it did not
// write, so a value never depends on the other rows: 2.5 is 2.5 beside 1.50, and 7 stays 7
// beside 6.1 (a decimal(P,S) would store them as 2.50 and 7.0, and a row added elsewhere
// in the file could change them). The C2 encoder reads each literal as Python's
// Decimal(literal) (normalize.ParseDecimal; for such a column, json.loads with
// parse_float and parse_int set to Decimal), so under strict-v1 1.50 and 1.5 differ, as
// their literals do, and under logical-v1 they are equal; -0.0 keeps its sign under
// strict-v1. There is no digit limit: the exponent bound keeps every value inside what C2
// DECIMAL holds under every profile. A column the rules reject fails Open naming it: give
// Columns, or Exclude it; Exclude applies before inference, so an excluded column is never
// typed (every name in Exclude must still occur). Columns may instead declare a number
// column decimal(P,S): each value then takes the scale S, by the user's choice. Records
// that do not parse are skipped by inference and counted as failures by the read. All
// JSON columns are nullable. A member absent from a record is not a null: the record fails
// (PW_SOURCE_MISSING) unless MissingAsNull (pipewhy scan --missing-as-null), recorded as
// the choice missing=null.
//
// # Parquet and Arrow IPC
//
// Parquet is read row group by row group, in batches of at most BatchSize
// rows, by one of two readers chosen per file at open and recorded as the
// evidence choice "reader=parquet-go" or "reader=pqarrow". The schema is
// always pqarrow's, derived from the footer (and the ARROW:schema that
// arrow-go writers store) before any data is read. parquet-go's page API
// (parquetgo.go) reads the file when every kept column is a flat leaf
// (no repetition, definition level at most 1) that pqarrow maps by copying
// the stored value: BOOLEAN; INT32 as int8/16/32, uint8/16/32 (narrowed by
// Go conversion, as pqarrow does) or date32; INT64 as int64, uint64 or a
// timestamp of the stored unit (any zone); FLOAT; DOUBLE; BYTE_ARRAY (None
// or String) as utf8, binary or their large variants; decimals stored as
// INT32, INT64 or FIXED_LEN_BYTE_ARRAY(1–16) as decimal128 of the same
// precision and scale (sign-extended, as pqarrow does); and every page of
// every chunk uses PLAIN, dictionary, RLE or BYTE_STREAM_SPLIT encodings
// with no compression, Snappy, Gzip or Zstd. Anything else (nested columns,
// INT96, decimal256, time, float16, DELTA_* encodings, LZ4, Brotli, a footer
// parquet-go reads differently, a compressed column chunk whose footer
// records a total uncompressed size of 0 (as DuckDB's writer of 2021 did), a row group of more than 16 Mi rows, which
// the parquet-go reader would hold decoded at once) is read by pqarrow, as is
// every file when
// the environment variable PIPEWHY_PARQUET_READER is "pqarrow"
// ("parquet-go" demands the fast path and fails Open with
// PW_SOURCE_UNSUPPORTED for a file outside it). A kept column compressed, in
// any row group, with a codec pqarrow does not implement (LZ4 with Hadoop
// framing, as parquet-mr wrote it, and LZO) fails Open with
// PW_SOURCE_UNSUPPORTED naming the column and the codec. So does an encrypted
// file (Parquet modular encryption, no keys are taken): the whole file when
// its footer is encrypted, else each encrypted kept column, which Exclude
// leaves out; and a file with a logical type newer than arrow-go (its footer
// cannot be parsed, so Exclude cannot help). Both readers return the same
// schema, field metadata, values (bit for bit: NaN payloads, -0.0), nulls,
// coverage and failures; a batch of the parquet-go reader never spans row
// groups, and its arrays share the values and offsets of one row group's
// decoded Go buffers (a column chunk of one dense page: that page, retained
// with them; validity bitmaps are the batch's own), which are reused for a
// later row group once every batch over them has been released. The next row
// group, when it has at most 256 Ki rows, is decoded ahead, on its own goroutines,
// while the caller consumes the batches of the current one (memory: the decoded row groups that the
// caller's unreleased batches refer to, plus the current and the next, plus
// two kept idle for reuse; with Options.ReleasedPromptly, as the scan sets it,
// the decoding ahead waits for earlier row groups' batches instead, and two
// row groups' memory serve the whole file).
//
// IPC files are read one batch at a time from the footer; IPC streams
// message by message. Supported Arrow types are those TypeName
// knows (see Type names): bool, int8–64, uint8–64, float32, float64, utf8,
// large_utf8, binary, large_binary, decimal128, decimal256, timestamp (any
// unit, with or without zone), date32, date64, time32(s|ms), time64(us|ns),
// duration (any unit), and list, large_list, fixed_size_list, struct and map
// whose children are supported types. The adapter reads these exactly;
// whether a type is representable is the C2 profile's decision (dates,
// times, durations, nanosecond timestamps and nested values need a C2
// extension profile, see normalize/columnar). Any other column (float16,
// dictionaries, views, intervals, unions, extension types) fails Open with
// PW_SOURCE_UNSUPPORTED naming it, unless excluded. A Parquet duration column
// stored as INT64 with a duration type in the file's ARROW:schema (as pyarrow
// writes it; pqarrow cannot decode it as a duration) is read as int64 and
// given its duration type without a copy. A nested Parquet column reads all
// its leaves. IPC batches are checked structurally before use, nested
// children included. Text values that are not valid UTF-8 are PW_SOURCE_UTF8
// failures of their rows (row numbers count from 1 in file order) and the
// rows are dropped; text inside nested values is not screened here (the
// canonical encoder rejects it). A damaged file fails with PW_SOURCE_CORRUPT;
// panics of the third-party readers are recovered into that error. Before arrow-go
// decodes them, the flatbuffer metadata of every IPC message (and an IPC file's footer)
// and a Parquet footer's ARROW:schema are bounds-checked (internal/arrowfb), so damaged
// metadata fails Open instead of making the reader allocate without bound; an IPC stream
// cut short is still read up to the cut.
// MetaSourceType is the Parquet "PHYSICAL/Logical" type ("group/List",
// "group/Map", "group/None" for nested columns) or the IPC TypeName; the
// reader's own field metadata is kept. Field nullability is the file's.
//
// # Type names
//
// TypeName gives every supported Arrow type one stable spelling, used in
// schema identities, registry files and snapshots (never arrow-go's String):
//
//	bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64
//	utf8 large_utf8 binary large_binary
//	decimal128(P,S) decimal256(P,S)
//	decimal_text                      the extension type pipewhy.decimal_text (internal/decimaltext)
//	timestamp(U) timestamp(U,TZ)      U = s | ms | us | ns; TZ as in the schema
//	date32 date64
//	time32(s) time32(ms) time64(us) time64(ns)
//	duration(U)
//	list<C> large_list<C> fixed_size_list(N)<C>
//	struct<C,C,...>                   (struct<> when it has no children)
//	map<K,V> map(keys_sorted)<K,V>    K, V the key and item fields
//
// where a child C is "NAME":TYPE, followed by " not null" when the child is
// not nullable; NAME is the child's name (valid UTF-8) with '"' and '\'
// backslash-escaped and bytes below 0x20 written \u00xx, so names cannot be
// confused with the grammar. Child metadata is not spelled. Nesting deeper
// than 64 levels is unsupported. Examples: `list<"element":int64>`,
// `struct<"a":int64,"b":utf8 not null>`, `map<"key":utf8 not null,"value":float64>`.
// MetaSourceWidth is set for fixed-width numbers only (not for temporal or
// nested types).
//
// # SQLite
//
// Opened read-only (mode=ro) with modernc.org/sqlite; one read transaction
// holds the schema cookie, the COUNT(*) and the rows. Column types follow
// SQLite's affinity rules on the declared type:
//
//	INTEGER affinity (declared type contains INT)         int64,   values must be INTEGER
//	TEXT    affinity (CHAR, CLOB, TEXT)                    utf8,    values must be TEXT
//	BLOB    affinity (BLOB, or no declared type)           binary,  values must be BLOB
//	REAL    affinity (REAL, FLOA, DOUB)                    float64, values must be REAL
//	NUMERIC affinity (anything else: DECIMAL, BOOLEAN, DATE…) unsupported unless declared in Columns
//
// Columns declared NOT NULL are non-nullable fields, all others nullable
// (query result columns are nullable). NULL is null in every column. A
// value whose storage class differs from the column's (SQLite's flexible
// typing allows it) fails its row visibly with PW_SOURCE_TYPE ("mixed-storage=fail-row"): nothing is converted.
// Options.Columns may declare a column as int64, float64, text or bytes,
// which selects the one storage class accepted; query result columns
// without a declared type (expressions) must be declared. Query result
// names must be unique. Rows come in the engine's order.
//
// A table's PRIMARY KEY columns (pragma_table_info's pk, in key order) are
// its PrimaryKey, the default key of scan and compare; a view, a query and
// a rowid table without a declared key have none.
//
// # Optional interfaces
//
// A Source may implement two more interfaces, which callers probe only through
// their names:
//
//   - Keyed: the adapters of database tables (SQLite, DuckDB, PostgreSQL,
//     MySQL) know their primary key. PrimaryKey(src) is the one place scan and
//     compare ask a source for its key, so both default to the same columns.
//   - FileProgress: the adapters that read one file from start to end (CSV,
//     JSON lines, JSON arrays) report the bytes read, for progress.
//
// # Adapters in packages of their own
//
// An adapter with its own driver (source/postgres, source/mysql,
// source/duckdb) calls Register(prefix, opener) from an init function and
// builds on the toolkit the adapters of this package use (adapter.go):
// Options.Refuse rejects the options it does not take, Exclude resolves
// Options.Exclude, WithMeta annotates a field with the source's type, a Tracker
// derives the coverage and Tracker.Evidence the Evidence method, DropRows removes
// the rows counted as failures from a batch,
// RedactAddress and ScrubError keep credentials out of addresses and error texts. Each asserts
// var _ source.Source = (*T)(nil), and the optional interfaces it implements,
// beside its type. CONTRIBUTING.md has the checklist.
//
// # Schema registry
//
// Registry assigns field ids per namespace: a name keeps its id forever
// (also after it disappears and returns); a new name gets the next id,
// starting at 1; ids are never reused. Only Rename moves an id to a new
// name, and it is recorded. Assign reports added, removed, renamed, retyped
// and physical fields against the last assigned schema; it never hides a
// change. A field whose type spelling, width or nullability changed is
// retyped when the family of its values (ValueFamily) changed and physical
// otherwise (int32 → int64, decimal128(3,2) → decimal_text, nullable → not
// null): how the values are stored, not what they are. TypeChange is that
// rule, and package compare's diff uses it too. Save writes crash-safely (temporary
// file, fsync, close, rename, fsync directory). The file is JSON:
//
//	{"format":"pipewhy.source-registry","version":1,"namespaces":{NS:{
//	   "next_id":"N","names":[{"id":"1","name":"…"}…],
//	   "renames":[{"id":"4","from":"…","to":"…","applied":true}…],
//	   "current":{"schema_id":"HEX","fields":[{"id":"1","name":"…","type":"int64","width":"64","nullable":false}…]}}}}
//
// with uint64 values as decimal strings; it is validated completely on load
// (unknown fields, bad ids, duplicate names are PW_SOURCE_REGISTRY).
//
// Schema identity is the lowercase hex SHA-256 of SchemaDescriptor:
//
//	"pipewhy.source-schema.v1\n"
//	u64 field_count
//	per field in increasing field id: u64 id, u64 len, name, u64 len, type, u64 width, u8 nullable
//
// with little-endian u64s, type in TypeName spelling and width from
// MetaSourceWidth (else the type's bit width, else 0).
package source
