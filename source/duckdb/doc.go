// Package duckdb reads DuckDB tables and queries as a source.Source: a
// table or view of a database file, a query over a database file, or a
// query over an in-memory database, typically reading Parquet or CSV files
// (read_parquet('dir/*.parquet'), read_csv(...)). Each data chunk of the
// engine is decoded into Arrow arrays straight from DuckDB's vectors,
// fixed-width columns by bulk copy.
//
// It follows the contract of package source (C2 PW-03.04, PW-03.09,
// PW-03.10; C5 PW-07.01): no implicit exclusion, widening or coercion;
// unsupported types fail visibly; read and coverage evidence are kept.
//
// # Build
//
// The adapter is compiled into every cgo build (the default where a C
// compiler is found); no build tag and nothing to install. It links
// DuckDB's prebuilt static library from github.com/duckdb/duckdb-go-bindings
// (about 130 MB of archives for linux-amd64; the parquet, json, icu and
// core_functions extensions are linked in, nothing is downloaded at run
// time). It reads the engine's data chunks through the C API's vector
// functions (vectors.go), not through DuckDB's Arrow export, which the
// bindings compile only with the build tag duckdb_arrow. With
// CGO_ENABLED=0 the package still compiles: Available is false and Open
// fails with source.CodeUnsupported, so the rest of the module builds
// without DuckDB.
//
// The build tag duckdb_arrow adds tests only: they decode the same chunks
// through DuckDB's Arrow export as well and require identical arrays,
// floats bit for bit (go test -tags duckdb_arrow ./source/duckdb/).
//
// # Addresses
//
//	duckdb:PATH#TABLE     a table or view of the database file's default schema
//	duckdb:PATH           a database file, with Options.Query
//	duckdb::memory:       an in-memory database, with Options.Query
//
// The table name is everything after the first '#', one identifier (quoted
// by the adapter, so any name works; tables of other schemas are read with
// a query). A relative PATH becomes absolute. The query is one SELECT
// (a trailing ';' is allowed); anything else (DDL, INSERT, COPY, several
// statements, parameters) fails Open with PW_SOURCE_SCHEMA before it runs.
//
// # Engine settings
//
// A database file is opened with access_mode=READ_ONLY. Every database is
// opened with autoinstall_known_extensions=false and
// autoload_known_extensions=false (no network), preserve_insertion_order=
// true, arrow_large_buffer_size=false, produce_arrow_string_view=false,
// arrow_output_list_view=false, arrow_lossless_conversion=false, and the
// session TimeZone is UTC, so the Arrow types and the order of rows depend
// neither on the environment nor on DuckDB's defaults.
//
// # Reading
//
// Open starts one transaction on one connection. It prepares the query
// (for a table, SELECT * FROM "TABLE"; tables and views are looked up in
// duckdb_tables() and duckdb_views() first) to learn the result columns,
// checks them, counts the rows with SELECT count(*) FROM (QUERY), and then
// runs the query as a streaming result: the engine produces a data chunk
// (at most MaxChunkRows = 2048 rows) per fetch. Next returns one chunk, or
// a slice of it when BatchSize is smaller; a batch never spans two chunks.
// Memory is bounded by the engine's pipeline plus one chunk, except where
// the query itself must materialize (ORDER BY, aggregates). Rows come in
// insertion order for tables and in the engine's order for queries (use
// ORDER BY for a defined order). Column names must be unique, nonempty and
// valid UTF-8. A table name is matched exactly (DuckDB itself would also
// accept other letter cases). Options.Exclude drops columns by selecting the others
// (SELECT "a", "b" FROM (QUERY)); each excluded column must exist.
//
// The count runs the query a second time: cheap for tables and for
// read_parquet (footer counts), a full evaluation for an expensive query.
// A cancelled context interrupts the engine (duckdb_interrupt) during the
// count, the execution and every fetch.
//
// # Primary key
//
// (source.Keyed) PrimaryKey returns a table's PRIMARY KEY columns in key
// order, read from duckdb_constraints() in the read transaction (nil for a
// view, a query, or a table without one): the default key of scan and
// compare. DuckDB columns are all read as nullable fields.
//
// # Type mapping
//
// The Arrow type each DuckDB type is read as, which is also what DuckDB's
// Arrow export yields with the settings above (source.MetaSourceType is
// the DuckDB spelling in the first column; MetaSourceWidth is set for
// fixed-width numbers):
//
//	BOOLEAN                       bool
//	TINYINT SMALLINT INTEGER BIGINT        int8 int16 int32 int64
//	UTINYINT USMALLINT UINTEGER UBIGINT    uint8 uint16 uint32 uint64
//	FLOAT DOUBLE                  float32 float64 (bits kept: -0.0, ±inf, NaN payloads)
//	DECIMAL(P,S)                  decimal128(P,S), same precision and scale (P <= 38)
//	VARCHAR, JSON (alias)         utf8 (MetaSourceType "VARCHAR" or "JSON")
//	BLOB                          binary
//	TIMESTAMP_S / _MS / TIMESTAMP / _NS    timestamp(s) (ms) (us) (ns), no zone
//	TIMESTAMPTZ                   timestamp(us, "UTC") (instants; the zone is the pinned session zone)
//	HUGEINT, UHUGEINT             exported as decimal128(38,0): rejected (a conversion; UHUGEINT does not fit)
//	UUID                          exported as utf8 text: rejected (a conversion)
//	DATE, TIME, TIME_NS, TIMETZ, INTERVAL   date32, time64(us), fixed_size_binary, month_day_nano: rejected
//	LIST, ARRAY, STRUCT, MAP, UNION         nested Arrow types: rejected
//	ENUM                          dictionary: rejected
//	BIT, BIGNUM (VARINT), GEOMETRY, VARIANT engine encodings: rejected
//
// A rejected column fails Open with PW_SOURCE_UNSUPPORTED naming the column
// and its DuckDB type; exclude it, or CAST it in a query (CAST(u AS
// VARCHAR), CAST(h AS DECIMAL(38,0)), CAST(d AS TIMESTAMP)), which records
// the conversion in the query text and so in the namespace. Note that
// sum() of integers is HUGEINT in DuckDB. The adapter also checks that
// the executed query has exactly the columns and DuckDB types the prepared
// one declared, so a column it has no decoding for fails Open instead of
// changing values. The decoder copies each type's storage: integers,
// floats and timestamps bit for bit, BOOLEAN bytes into a bitmap, DECIMAL
// (stored as int16, int32, int64 or hugeint by precision) sign-extended to
// 128 bits, VARCHAR and BLOB bytes as stored.
//
// DuckDB's timestamps infinity and -infinity are stored as the int64
// values MaxInt64 and -MaxInt64, which no finite DuckDB timestamp uses and
// which Arrow would read as ordinary instants: a row holding one is not
// returned but counted as a PW_SOURCE_TYPE failure (its row number and
// column), so the coverage is PARTIAL.
//
// DuckDB keeps NaN payloads, the sign of -0.0 and infinities bit for bit
// through read_parquet, table storage and the adapter (tested against
// package source's Parquet reader and against DuckDB's Arrow export).
// DuckDB validates UTF-8 itself: a Parquet file with invalid text fails the
// query (PW_SOURCE_CORRUPT); the adapter screens utf8 columns anyway and
// drops such rows as PW_SOURCE_UTF8 failures, as package source does.
//
// # Evidence
//
// Adapter "duckdb". Namespace "duckdb:PATH#TABLE" for tables,
// "duckdb:PATH?query-sha256=HEX" for queries (HEX the SHA-256 of the query
// text as given), PATH ":memory:" for the in-memory database. Version:
// for a database file "db_size=N;db_mtime_ns=T" plus ";wal_size=N;
// wal_mtime_ns=T" for PATH.wal or ";wal=absent", taken at open; a change
// seen at the end of the read adds a PW_SOURCE_CHANGED failure. For the
// in-memory database the version is "query-sha256=HEX": it identifies the
// query, not the state of the files it reads, which the adapter cannot
// see. Consistency: ConsistencyTransaction ("duckdb-transaction") for
// database files (read-only, so no writer can hold the file meanwhile;
// count and rows in one transaction), ConsistencyQuery ("duckdb-query")
// for the in-memory database (one transaction, but external files are
// scanned twice without a lock: a change between the count and the read
// shows only as a PW_SOURCE_COUNT failure when the counts differ). A query
// over a database file that also reads external files has the weaker
// guarantee for those files, though it is recorded as
// "duckdb-transaction".
// Choices: "schema=engine", "timezone=UTC", then "order=insertion" (tables)
// or "order=query".
//
// # Coverage and errors
//
// Expected is the count from the same transaction; Returned counts rows
// handed out. Coverage follows package source: COMPLETE when all counted
// rows were returned, PARTIAL after any failure, UNAVAILABLE when reading
// failed before any row. Open errors: missing file PW_SOURCE_NOT_FOUND; not
// a regular file, a locked database, an engine failure PW_SOURCE_IO; not a
// DuckDB database (junk, empty, truncated) PW_SOURCE_CORRUPT; unknown
// table, view or file PW_SOURCE_NOT_FOUND; a query that does not prepare
// PW_SOURCE_SCHEMA; duplicate result names PW_SOURCE_DUPLICATE;
// cancellation PW_SOURCE_INCOMPLETE. A query that fails while rows are
// read (a cast or error() on some row) stops the read with PW_SOURCE_IO;
// later calls return the same error. Errors wrap an *EngineError with
// DuckDB's message when the query is prepared (it concerns the query
// text), and only DuckDB's error category once the query runs, because
// DuckDB's messages quote data values; failure reasons in the coverage
// never contain engine messages.
package duckdb
