// Package mysql reads a MariaDB or MySQL table or query as a stream of
// Arrow record batches, with the evidence and coverage of package source
// (C2 PW-03.04/09/10, C5 PW-07.01). *Source implements source.Source.
//
// # Addresses
//
//	mysql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE#TABLE
//	mysql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE#SCHEMA.TABLE
//	mysql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE          with Options.Query
//	parameters: ?socket=PATH  ?tls=true|false|skip-verify|preferred  ?timeout=10s
//
// Userinfo, path and fragment are percent-decoded; PORT defaults to 3306;
// the fragment splits at its first '.'. Address.Config converts the address
// to a go-sql-driver Config (documented there; its FormatDSN is the DSN
// string "USER:PASSWORD@tcp(HOST:PORT)/DATABASE?collation=utf8mb4_general_ci&timeout=10s",
// or "@unix(PATH)/..." with ?socket). Address.String, every error message
// and Evidence.Namespace omit the password; driver error texts are scrubbed
// of it as well.
//
// # Reading
//
// Open uses one connection (database/sql Conn) for everything: it sets
// time_zone = '+00:00' and net_write_timeout = 3600 for the session, runs
// START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY at REPEATABLE READ,
// reads the catalog (information_schema: columns, engine, primary key), the
// COUNT(*) of the table or of the query as a derived table, and then
// streams the rows of one server-side prepared statement (interpolateParams
// off, so rows travel in the binary protocol: integers and floats arrive as
// their binary values, never printed). Each value is received without
// copying (a database/sql Scanner) and parsed exactly into an Arrow
// builder; a batch holds at most Options.BatchSize rows and is built only
// when asked for, so memory is one batch plus the driver's buffers. A row
// with a value that cannot be mapped (a zero date) is a counted
// PW_SOURCE_TYPE failure (row number, column, detail without the value) and
// is not returned; all other rows are. A query is executed as written (its
// ORDER BY holds) unless Options.Exclude is set, when it is wrapped as
// SELECT cols FROM (query) AS pw_query, where the server may ignore an
// inner ORDER BY. Options.Columns, Infer, Null, MissingAsNull, HashContent
// and MaxLineBytes do not apply and are rejected.
//
// OpenSource returns the source as a source.Source (nil on error), the
// form a scheme router next to source.Open needs.
//
// Close of a read that has not reached the end drops the connection
// instead of draining the remaining rows.
//
// # Evidence
//
// Adapter "mysql". Namespace "mysql://HOST:PORT/SCHEMA#TABLE" or
// "mysql://HOST:PORT/DATABASE?query-sha256=HEX" (HOST:PORT is
// "unix(PATH)" for sockets; the user is not part of the identity). Version
// "server=@@version;BINLOG[;table_created=CREATE_TIME]" where BINLOG is
// "binlog_snapshot=FILE:POS" (MariaDB's binlog_snapshot_file/position,
// exact for the snapshot, no privilege needed), "binlog=off" (@@log_bin = 0:
// the server keeps no log position, so the version cannot identify the data
// state) or "binlog=unavailable". Consistency ConsistencySnapshot
// ("mysql-consistent-snapshot"), or ConsistencyNonTransactional for a table
// whose engine ignores snapshots (MyISAM, Aria, MEMORY). Choices, in this
// order: "schema=declared" (table) or "schema=query-declared", "order=engine",
// "time_zone=+00:00", "char-padding=stripped" (or "full" under
// PAD_CHAR_TO_FULL_LENGTH), "bool=int8", "time=duration(us)", "enum-set=text",
// "json=text", "zero-date=fail-row", "sql_mode=@@sql_mode", and for tables
// "engine=ENGINE" ("view" for views).
//
// Coverage: Expected is the COUNT(*) of the same transaction. A read that
// fails mid-way (connection killed or lost, statement aborted) returns a
// non-EOF *source.Error with PW_SOURCE_IO (later calls return it again)
// and records the failure "PW_SOURCE_IO: reading stopped: …": PARTIAL, or
// UNAVAILABLE when no row was returned. Never a silent short read.
//
// # Primary key
//
// (*Source).PrimaryKey returns the table's PRIMARY KEY columns in key
// order (nil for queries and tables without one): the default --key of
// scan.
//
// # Errors
//
// Errors are *source.Error. Codes: PW_SOURCE_ADDRESS (address, or neither/both
// of #TABLE and Query), PW_SOURCE_OPTION, PW_SOURCE_AUTH (CodeAuth = source.CodeAuth:
// server errors 1044, 1045, 1142, 1143, 1227, 1698), PW_SOURCE_NOT_FOUND
// (unknown database 1049, table 1146 or excluded column), PW_SOURCE_UNSUPPORTED
// (a column type below marked unsupported: exclude it or CAST it in a query),
// PW_SOURCE_SCHEMA (a query the server rejects, duplicate result names),
// PW_SOURCE_CHANGED (the columns changed between catalog and read),
// PW_SOURCE_IO (connection and read failures), PW_SOURCE_INCOMPLETE
// (cancelled Next).
//
// # Type mapping
//
//	MySQL / MariaDB type        Arrow type              MetaSourceWidth  Notes
//	TINYINT                     int8                    8                BOOL/BOOLEAN is TINYINT(1): int8, 0/1 and any other stored value kept
//	TINYINT UNSIGNED            uint8                   8
//	SMALLINT [UNSIGNED]         int16 / uint16          16
//	MEDIUMINT [UNSIGNED]        int32 / uint32          24
//	INT [UNSIGNED]              int32 / uint32          32
//	BIGINT [UNSIGNED]           int64 / uint64          64               unsigned values above 2^63-1 arrive as decimal text, parsed exactly
//	YEAR                        uint16                  16               1901..2155, and 0 for the zero year 0000
//	BIT(n)                      uint8/16/32/64          n                smallest unsigned type holding n bits; big-endian bytes; queries: uint64, width 64
//	DECIMAL(p,s) [UNSIGNED]     decimal128(p,s)         -                p <= 38; decimal256(p,s) for 39..65; from the server's text, never via float, never rounded
//	FLOAT                       float32                 32               exact bits (binary protocol)
//	DOUBLE                      float64                 64               exact bits; MariaDB stores and sends -0.0 as +0.0
//	CHAR(n)                     utf8                    -                MariaDB strips trailing spaces of CHAR on read unless sql_mode has PAD_CHAR_TO_FULL_LENGTH (recorded)
//	VARCHAR, *TEXT              utf8                    -                converted to UTF-8 by the server (utf8mb4 connection); invalid UTF-8 fails the row
//	JSON                        utf8                    -                MariaDB JSON is LONGTEXT: the stored text as is (source type "longtext")
//	ENUM, SET                   utf8                    -                the member text; SET as its comma-separated members
//	BINARY(n), VARBINARY, *BLOB binary                  -                bytes as stored; BINARY(n) keeps its 0x00 padding
//	DATE                        date32                  -                days since 1970-01-01, proleptic Gregorian
//	DATETIME(fsp)               timestamp(us)           -                naive wall clock, stored as if UTC
//	TIMESTAMP(fsp)              timestamp(us, "UTC")    -                the instant: the session time zone is +00:00
//	TIME(fsp)                   duration(us)            -                signed, -838:59:59.999999..838:59:59.999999 (not a time of day)
//	GEOMETRY types, VECTOR,
//	untyped NULL columns         unsupported            -                Open fails with PW_SOURCE_UNSUPPORTED naming the column
//
// MetaSourceType is "mysql:" + the catalog's COLUMN_TYPE for tables (e.g.
// "mysql:bigint(20) unsigned", "mysql:decimal(10,2)", "mysql:tinyint(1)",
// "mysql:enum('a','b')"), and "mysql:" + the lower-case wire type for query
// columns (with "(p,s)" for decimals and "(fsp)" for temporal types).
// Nullability is the catalog's (tables) or the result metadata's (queries).
// For tables the catalog's DATA_TYPE also decides text versus bytes and
// gives DECIMAL precision and BIT width exactly. Query columns have only
// the result metadata, where go-sql-driver derives DECIMAL precision from
// the display length assuming a sign: an UNSIGNED DECIMAL(p,s) query
// column maps to decimal(p-1,s), and its values with p-s integer digits
// fail their rows visibly (PW_SOURCE_TYPE) — CAST such columns to a signed
// DECIMAL in the query.
// NULL is null in every column; the empty string and empty bytes are values.
//
// Zero and impossible dates ('0000-00-00', '2024-00-10', '2023-02-30'
// stored under relaxed sql_mode) have no calendar value: their rows fail
// with PW_SOURCE_TYPE ("zero-date=fail-row"), never NULL. Temporal result
// columns whose fractional precision the server does not fix (decimals
// 0x1f) are unsupported, because the driver would drop their fraction.
//
// DATE (date32) and TIME (duration(us)) columns scan under the C2 extension
// profiles (strict-v1+ext1, logical-v1+ext1: DATE and DURATION words).
package mysql
