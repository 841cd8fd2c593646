// Package postgres reads a PostgreSQL table, view or query as a stream of
// Arrow record batches with the evidence a snapshot needs. It implements
// source.Source for addresses
//
//	postgres://[user[:password]@][host][:port][/database][?params]#[schema.]table
//	postgres://…/database                           with source.Options.Query
//
// (postgresql:// too). The connection URL is pgx's (libpq-compatible
// parameters: sslmode, host=/socket/dir, …). The fragment follows
// PostgreSQL's identifier rules: unquoted parts fold to lower case,
// double-quoted parts are exact ("" is a quote), percent-escapes are
// decoded first. Without a schema the table is found through the session's
// search_path and the schema found is recorded.
//
// # Reading contract
//
// Open connects (pgx/v5 pgconn, one connection), sets the session
// parameters TimeZone=UTC, DateStyle=ISO, MDY, IntervalStyle=postgres,
// extra_float_digits=3, bytea_output=hex, client_encoding=UTF8 (overriding
// any spelling in the DSN), and runs BEGIN ISOLATION LEVEL REPEATABLE READ,
// READ ONLY. The first statement fixes the snapshot; the catalog lookups,
// the COUNT(*) and the rows are all read in it, so Expected and the rows
// describe one state of the database. Rows are requested in the binary
// wire format and streamed: Next decodes at most Options.BatchSize rows
// into arrow-go builders; memory is one batch plus pgconn's read buffer
// (the server is held back by TCP flow control). The transaction holds an
// ACCESS SHARE lock on the relation until Close, which blocks DDL (ALTER
// TABLE) on it meanwhile. Close before the end drops the connection without
// reading the rest; the read-only transaction has nothing to commit.
//
// Rows come in the server's order (no ORDER BY; recorded "order=engine").
// A value with no exact Arrow form fails its row (code PW_SOURCE_TYPE, the
// 1-based row number in read order, the column, a detail without the
// value): the row is counted in Coverage.FailedRecords and not returned;
// nothing is rounded, clamped or replaced. A connection that fails during
// the read (backend terminated, network error, a query error such as a
// division by zero raised mid-stream) ends the read with a non-EOF
// PW_SOURCE_IO error; the coverage is then PARTIAL (UNAVAILABLE when no row
// was returned) with the reason "PW_SOURCE_IO: reading stopped: reading
// rows failed". Cancelling Next's context interrupts a blocked read
// (PW_SOURCE_INCOMPLETE).
//
// # Evidence
//
//	Adapter      "postgres"
//	Namespace    postgres://HOST:PORT/DATABASE#SCHEMA.TABLE  (identifiers quoted as needed)
//	             postgres://HOST:PORT/DATABASE?query-sha256=HEX (queries: SHA-256 of the query text)
//	Version      server_version=15.20 (Debian …);server_version_num=150020;wal_lsn=0/1A2B3C;snapshot=XMIN:XMAX:XIP,…
//	             (pg_current_wal_lsn(), pg_last_wal_replay_lsn() on a standby, and
//	             txid_current_snapshot(), read inside the transaction)
//	Consistency  "postgres-repeatable-read"
//	Choices      "schema=catalog" | "schema=query" (+ "+explicit" with Columns),
//	             "format=binary", "timezone=UTC", "char=blank-padded",
//	             "jsonb=server-text", "uuid=text", "special-values=fail-row",
//	             "order=engine", then `column "NAME"=TYPE` per Columns entry
//	Excluded     Options.Exclude, in column order
//
// Neither the namespace nor any error message contains the user or the
// password: errors name the address through Address.Redacted (password
// replaced by "xxxxx"), and third-party error texts are scrubbed of the
// password. The version is a change indicator, not a content hash: the WAL
// position moves with any write to the cluster.
//
// # Primary key
//
// (*Source).PrimaryKey returns the relation's primary key columns in key
// order (nil for queries and tables without one); scan uses it as the
// default key. Primary key columns, like all NOT NULL columns, are
// non-nullable fields; query columns are nullable.
//
// # Type mapping
//
// Column types come from the statement description (a domain arrives as its
// base type). MetaSourceType is "postgres:" and the type name below, with
// the modifier where it shapes values; MetaSourceWidth is the bit width of
// integer and float columns.
//
//	PostgreSQL                 Arrow                      notes
//	smallint  (int2)           int16                      width 16
//	integer   (int4)           int32                      width 32
//	bigint    (int8)           int64                      width 64
//	oid                        uint32                     width 32
//	real      (float4)         float32                    bits kept (NaN payload, -0, ±Inf)
//	double precision (float8)  float64                    bits kept
//	numeric(p,s), 0<=s<=p<=38  decimal128(p,s)            exact
//	numeric(p,s), 38<p<=76     decimal256(p,s)            exact
//	numeric (no typmod)        — unsupported              unless Columns gives decimal(P,S) or text
//	numeric NaN, ±Infinity     — the row fails            PW_SOURCE_TYPE
//	text, varchar(n), name     utf8                       as stored; UTF-8 checked
//	character(n) (bpchar)      utf8                       blank-padded to n as PostgreSQL returns it; kept
//	bytea                      binary
//	boolean                    bool
//	timestamp[(p)]             timestamp(us)              wall clock read as UTC (Arrow naive)
//	timestamptz[(p)]           timestamp(us, "UTC")       the instant; the session TimeZone plays no part
//	date                       date32                     days since 1970-01-01
//	time[(p)]                  time64(us)                 24:00:00 has no time64 value: the row fails
//	interval                   month_day_nano_interval    months, days, µs·1000 (overflow fails the row)
//	uuid                       utf8                       lowercase 8-4-4-4-12 text (bijective with the 16 bytes)
//	json                       utf8                       the stored text, byte for byte
//	jsonb                      utf8                       the server's serialisation (keys sorted, duplicates dropped)
//	±infinity timestamps/dates — the row fails            PW_SOURCE_TYPE
//	timestamp beyond 294247-01-10 04:00:54.775807 — the row fails (int64 µs since 1970 overflows)
//	anything else              — unsupported              arrays, enums, composites, ranges, timetz, money,
//	                                                      xml, bit, inet, "char", …: PW_SOURCE_UNSUPPORTED
//	                                                      naming the column and type, unless excluded or
//	                                                      declared text in Columns
//
// NULL is null in every column; the empty string and empty bytea are
// values. Nothing passes through float64 unless the column is a float.
// numeric(p,s) with a negative scale or a scale above the precision
// (PostgreSQL 15) or a precision above 76 is unsupported (declare text).
//
// date and time columns scan under the C2 extension profiles
// (strict-v1+ext1, logical-v1+ext1: DATE and TIME words). interval columns
// read as month_day_nano_interval, which neither source.TypeName nor C2 ext1
// represents yet: scan them with Exclude or declare them text.
//
// # Options
//
// BatchSize, Exclude (each name must exist), Query, MaxFailureDetails and
// Allocator apply as in package source. Columns may declare, per column:
// "text" (any column: the server's text output under the fixed session
// parameters above, read in text format) or "decimal(P,S)" (numeric
// columns: values must fit exactly, else the row fails). Infer, Null,
// MissingAsNull and HashContent are PW_SOURCE_OPTION errors; MaxLineBytes is
// ignored.
//
// # Errors
//
// Errors are *source.Error with stable codes: PW_SOURCE_ADDRESS (address or
// connection settings), PW_SOURCE_IO (connection refused or lost),
// PW_SOURCE_AUTH (CodeAuth: authentication or privilege failure, SQLSTATE
// class 28 or 42501), PW_SOURCE_NOT_FOUND (unknown database, schema, table,
// or excluded column), PW_SOURCE_SCHEMA (query does not prepare, bad
// Columns), PW_SOURCE_DUPLICATE (duplicate result column names),
// PW_SOURCE_UNSUPPORTED (column types above), PW_SOURCE_OPTION.
package postgres
