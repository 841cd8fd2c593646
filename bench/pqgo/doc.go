// Package pqgo measures parquet-go (github.com/parquet-go/parquet-go) as a
// Parquet reader beside pqarrow and DuckDB's Arrow export (issue 7). It is a
// benchmark helper, not a source adapter: nothing outside bench/ imports it.
//
// It offers two things:
//
//   - Sum, an order-independent checksum of every value of a table, computed
//     the same way from Arrow records (pqarrow, DuckDB) and from parquet-go
//     pages, so that every `duckhash drain` reader touches every value with the
//     same work and prints a total that must agree across readers;
//   - Drain, DrainArrow and DrainRows, which read a file with parquet-go's
//     columnar page API (Drain: values touched in the pages; DrainArrow: pages
//     built into one Arrow record per row group first, as a source adapter
//     would; both optionally over disjoint row groups on several goroutines)
//     and with its row-by-row GenericReader (DrainRows, bench/gen's schema only).
//
// Guarantees: every drain reads every value of every page and returns an
// error, never a panic, for a column it does not cover (ErrUnsupported), a
// dictionary index out of range or a page inconsistent with its row count
// (ErrCorrupt); a PageView aliases parquet-go's pooled page buffers and is
// valid only until Pages releases the page. exact_test.go proves the page API
// exact against pqarrow on hand-picked values; drain_test.go proves each
// drain's Sum against sums computed from the written values.
//
// The per-column checksum, for the physical types of bench/gen's file:
//
//	INT64 (int64, timestamp)  Acc += uint64(v)
//	DOUBLE                    Acc += math.Float64bits(v)   (NaN payloads and -0.0 count)
//	BYTE_ARRAY (utf8, binary) Acc += xxh3.Hash(bytes)
//
// plus the counts of non-null values and of nulls. Sums wrap modulo 2^64 and
// are commutative, so row-group parallel readers add their partial sums in any
// order. The checksum is a sanity check that the readers agree on the bench
// file; value-by-value exactness is proven by this package's tests.
package pqgo
