//go:build duckdb_arrow

package duckdb

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bindings "github.com/duckdb/duckdb-go-bindings"
)

// The tests of this file compare the vector decoder (vectors.go) with
// DuckDB's own Arrow export (duckdb_data_chunk_to_arrow), which the
// bindings compile only with the duckdb_arrow tag: the same data chunks,
// decoded both ways, must give identical arrays, floats compared by their
// bits.

// identical reports how a and b differ: type, length, validity, and the
// value of every valid row (fixed-width values byte for byte, so float
// bits count; text and blobs byte for byte).
func identical(a, b arrow.Array) error {
	if !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return fmt.Errorf("types %s and %s", a.DataType(), b.DataType())
	}
	if a.Len() != b.Len() || a.NullN() != b.NullN() {
		return fmt.Errorf("%d rows (%d null) and %d rows (%d null)", a.Len(), a.NullN(), b.Len(), b.NullN())
	}
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) != b.IsNull(i) {
			return fmt.Errorf("row %d: null %v and %v", i, a.IsNull(i), b.IsNull(i))
		}
		if a.IsNull(i) {
			continue
		}
		var va, vb []byte
		switch x := a.(type) {
		case *array.Boolean:
			if x.Value(i) != b.(*array.Boolean).Value(i) {
				return fmt.Errorf("row %d: %v and %v", i, x.Value(i), b.(*array.Boolean).Value(i))
			}
			continue
		case *array.String:
			va, vb = []byte(x.Value(i)), []byte(b.(*array.String).Value(i))
		case *array.Binary:
			va, vb = x.Value(i), b.(*array.Binary).Value(i)
		default:
			fw, ok := a.DataType().(arrow.FixedWidthDataType)
			if !ok {
				return fmt.Errorf("no comparison for %s", a.DataType())
			}
			w := fw.BitWidth() / 8
			va = a.Data().Buffers()[1].Bytes()[(a.Data().Offset()+i)*w:][:w]
			vb = b.Data().Buffers()[1].Bytes()[(b.Data().Offset()+i)*w:][:w]
		}
		if !bytes.Equal(va, vb) {
			return fmt.Errorf("row %d: %x and %x", i, va, vb)
		}
	}
	return nil
}

// crossCheck runs q on conn and decodes every chunk of its result both
// ways. It returns the number of rows compared.
func crossCheck(t *testing.T, conn bindings.Connection, q string) int {
	t.Helper()
	var res bindings.Result
	defer bindings.DestroyResult(&res)
	if bindings.Query(conn, q, &res) == bindings.StateError {
		t.Fatalf("%s: %s", q, bindings.ResultError(&res))
	}
	plan, ours := planResult(t, &res)
	aopts := bindings.ResultGetArrowOptions(&res)
	defer bindings.DestroyArrowOptions(&aopts)
	n := int(bindings.ColumnCount(&res))
	lts := make([]bindings.LogicalType, n)
	names := make([]string, n)
	for i := range n {
		lts[i] = bindings.ColumnLogicalType(&res, bindings.IdxT(i))
		names[i] = bindings.ColumnName(&res, bindings.IdxT(i))
	}
	theirs, ed := bindings.NewArrowSchema(aopts, lts, names)
	for i := range lts {
		bindings.DestroyLogicalType(&lts[i])
	}
	if err := errorDataErr(ed); err != nil {
		t.Fatal(err)
	}
	// The export's types are the adapter's, without extension types.
	for i := range n {
		f := theirs.Field(i)
		if !arrow.TypeEqual(f.Type, ours.Field(i).Type) || f.Metadata.FindKey("ARROW:extension:name") >= 0 {
			t.Fatalf("%s: column %s exported as %s %v, decoded as %s", q, f.Name, f.Type, f.Metadata, ours.Field(i).Type)
		}
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rows := 0
	for {
		chunk := bindings.FetchChunk(res)
		if chunk.Ptr == nil {
			break
		}
		got, err := decodeChunk(mem, ours, plan, chunk)
		if err != nil {
			bindings.DestroyDataChunk(&chunk)
			t.Fatal(err)
		}
		want, ed := bindings.DataChunkToArrowArray(aopts, theirs, chunk)
		bindings.DestroyDataChunk(&chunk)
		if err := errorDataErr(ed); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := identical(got.Column(i), want.Column(i)); err != nil {
				t.Errorf("%s: column %s, chunk rows %d..: %v", q, names[i], rows, err)
			}
		}
		rows += int(got.NumRows())
		got.Release()
		want.Release()
	}
	if msg := bindings.ResultError(&res); msg != "" {
		t.Fatalf("%s: %s", q, msg)
	}
	return rows
}

func errorDataErr(ed bindings.ErrorData) error {
	defer bindings.DestroyErrorData(&ed)
	if ed.Ptr == nil || !bindings.ErrorDataHasError(ed) {
		return nil
	}
	return engineError(bindings.ErrorDataMessage(ed), bindings.ErrorDataErrorType(ed))
}

// xcheckColumns are the columns of the cross-check table: every type the
// adapter supports, decimals of every storage width.
const xcheckColumns = `k INTEGER, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INTEGER, i64 BIGINT,
	u8 UTINYINT, u16 USMALLINT, u32 UINTEGER, u64 UBIGINT, f32 FLOAT, f64 DOUBLE,
	d4 DECIMAL(4,2), d9 DECIMAL(9,4), d18 DECIMAL(18,6), d38 DECIMAL(38,10),
	s VARCHAR, bl BLOB, j JSON,
	ts TIMESTAMP, tss TIMESTAMP_S, tsms TIMESTAMP_MS, tsns TIMESTAMP_NS, tstz TIMESTAMPTZ`

// TestCrossCheckExport: literal edge values (limits, NaN with payloads,
// -0.0, ±inf, decimals at their limits, timestamps before 1970 and far in
// the future, infinite timestamps, text at the 12-byte inline limit,
// non-ASCII, empty strings, NULLs in every column) and generated rows over
// several chunks, read as a table, filtered, and through read_parquet.
func TestCrossCheckExport(t *testing.T) {
	dir := t.TempDir()
	// NaN payloads come from a Parquet file written by arrow-go (DuckDB's
	// SQL has no bit cast to floats).
	pq := filepath.Join(dir, "nan.parquet")
	writeParquet(t, pq, nanRecord(t), 3)
	conn, done := engineConn(t, Memory)
	defer done()
	execSQL(t, conn,
		"CREATE TABLE x("+xcheckColumns+")",
		`INSERT INTO x VALUES
		(1, true, -128, -32768, -2147483648, -9223372036854775808, 0, 0, 0, 0, '-0.0'::FLOAT, '-0.0'::DOUBLE,
		 -99.99, -99999.9999, -999999999999.999999, -9999999999999999999999999999.9999999999,
		 '', ''::BLOB, '{}', '0001-01-01 00:00:00', '0001-01-01 00:00:00', '0001-01-01 00:00:00', '1677-09-22 00:00:00', '0001-01-01 00:00:00+00'),
		(2, false, 127, 32767, 2147483647, 9223372036854775807, 255, 65535, 4294967295, 18446744073709551615, 'inf'::FLOAT, 'inf'::DOUBLE,
		 99.99, 99999.9999, 999999999999.999999, 9999999999999999999999999999.9999999999,
		 'abcdefghijkl', 'abcdefghijkl'::BLOB, '[1,2,3]', '294246-12-31 23:59:59.999999', '294246-12-31 23:59:59', '294246-12-31 23:59:59.999', '2262-04-11 23:47:16.854775806', '294246-12-31 23:59:59+00'),
		(3, true, 0, 0, 0, 0, 1, 1, 1, 1, '-inf'::FLOAT, '-inf'::DOUBLE, 0, 0, 0, 0,
		 'abcdefghijklm', '\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c'::BLOB, '"é"', '1969-12-31 23:59:59.999999', '1969-12-31 23:59:59', '1969-12-31 23:59:59.999', '1969-12-31 23:59:59.999999999', '1969-12-31 23:59:59.999999+00'),
		(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		(5, false, -1, -1, -1, -1, 254, 65534, 4294967294, 18446744073709551614, 'nan'::FLOAT, 'nan'::DOUBLE,
		 -0.01, -0.0001, -0.000001, -0.0000000001,
		 'zoë 🙂 日本語 — long enough to live outside the string header', '\xff\xfe'::BLOB, 'null', 'infinity', 'infinity', 'infinity', 'infinity', 'infinity'),
		(6, true, 1, 1, 1, 1, 2, 2, 2, 2, -('nan'::FLOAT), -('nan'::DOUBLE), 0.01, 0.0001, 0.000001, 0.0000000001,
		 'é', 'x'::BLOB, '1', '-infinity', '-infinity', '-infinity', '-infinity', '-infinity'),
		(7, NULL, 5, NULL, 5, NULL, 5, NULL, 5, NULL, 1.4e-45::FLOAT, 4.9e-324::DOUBLE, NULL, 1, NULL, 1, NULL, 'y'::BLOB, NULL, '1900-01-01', NULL, '1900-01-01', NULL, '1900-01-01 00:00:00+00')`,
		// Generated rows over several chunks: values and NULLs vary with
		// hash(i), text lengths 0..39 around the inline limit. Decimals are
		// made by exact multiplication (DuckDB divides decimals as doubles).
		`INSERT INTO x SELECT 100 + i,
		 CASE WHEN h % 9 = 0 THEN NULL ELSE h % 2 = 0 END,
		 CASE WHEN h % 8 = 1 THEN NULL ELSE (h % 256 - 128)::TINYINT END,
		 (h % 65536 - 32768)::SMALLINT,
		 CASE WHEN h % 7 = 2 THEN NULL ELSE (h % 4294967296 - 2147483648)::INTEGER END,
		 ((h >> 1) * CASE WHEN h % 2 = 0 THEN 1 ELSE -1 END)::BIGINT,
		 (h % 256)::UTINYINT, (h % 65536)::USMALLINT, (h % 4294967296)::UINTEGER, h::UBIGINT,
		 CASE WHEN h % 13 = 3 THEN NULL ELSE (h::DOUBLE / 7.0e15)::FLOAT END,
		 CASE WHEN h % 13 = 4 THEN NULL ELSE h::DOUBLE / 3.0e12 * CASE WHEN h % 3 = 0 THEN -1 ELSE 1 END END,
		 (h % 19999 - 9999)::DECIMAL(4,0) * 0.01, (h % 1999999999 - 999999999)::DECIMAL(9,0) * 0.0001,
		 (h % 1999999999999999999 - 999999999999999999)::DECIMAL(18,0) * 0.000001,
		 (h * 1000000007 - 9000000000000000000000000000)::DECIMAL(38,0) * 0.0000000001,
		 CASE WHEN h % 5 = 0 THEN NULL ELSE repeat(chr((65 + h % 26)::INTEGER), (h % 20)::INTEGER) || repeat('é', (h % 20 / 2)::INTEGER) END,
		 CASE WHEN h % 6 = 0 THEN NULL ELSE repeat('\xAB'::BLOB, (h % 40)::INTEGER) END,
		 CASE WHEN h % 4 = 0 THEN NULL ELSE '{"i":' || i || '}' END,
		 make_timestamp((h % 8000000000000000 - 4000000000000000)::BIGINT),
		 CASE WHEN h % 10 = 0 THEN NULL ELSE make_timestamp((h % 100000000000 - 50000000000)::BIGINT * 1000000)::TIMESTAMP_S END,
		 make_timestamp((h % 100000000000000 - 50000000000000)::BIGINT)::TIMESTAMP_MS,
		 make_timestamp((h % 1000000000000000 - 500000000000000)::BIGINT)::TIMESTAMP_NS,
		 CASE WHEN h % 11 = 0 THEN NULL ELSE to_timestamp((h % 10000000000 - 5000000000)::DOUBLE) END
		 FROM (SELECT i, hash(i)::HUGEINT AS h FROM range(5000) t(i))`,
		"CREATE TABLE nans AS SELECT * FROM read_parquet("+quoteLiteral(pq)+")",
	)
	queries := []struct {
		q    string
		rows int
	}{
		{"SELECT * FROM x", 5007},
		{"SELECT * FROM x WHERE k % 3 <> 1 ORDER BY k DESC", 3337}, // sliced, reordered vectors
		{"SELECT * FROM nans", 6},
		{"SELECT * FROM read_parquet(" + quoteLiteral(pq) + ")", 6},
		// Constant and dictionary vectors, flattened by the C API.
		{"SELECT 'a constant long enough to be a pointer' AS c, NULL::INTEGER AS n, 1.5::DECIMAL(4,1) AS d, true AS b, i FROM range(3000) t(i)", 3000},
		{"SELECT CAST(CAST(['ab', 'a string longer than twelve'][(i % 2 + 1)::INTEGER] AS ENUM('ab', 'a string longer than twelve')) AS VARCHAR) AS e FROM range(3000) t(i)", 3000},
	}
	for _, c := range queries {
		if got := crossCheck(t, conn, c.q); got != c.rows {
			t.Errorf("%s: %d rows compared, want %d", c.q, got, c.rows)
		}
	}
}

// BenchmarkChunksArrowExport: DuckDB's Arrow export
// (duckdb_data_chunk_to_arrow) of the same chunks as
// BenchmarkChunksVectorDecoder.
func BenchmarkChunksArrowExport(b *testing.B) {
	benchChunks(b, func(b *testing.B, res *bindings.Result) (chunkDecoder, func()) {
		aopts := bindings.ResultGetArrowOptions(res)
		n := int(bindings.ColumnCount(res))
		lts := make([]bindings.LogicalType, n)
		names := make([]string, n)
		for i := range n {
			lts[i] = bindings.ColumnLogicalType(res, bindings.IdxT(i))
			names[i] = bindings.ColumnName(res, bindings.IdxT(i))
		}
		sc, ed := bindings.NewArrowSchema(aopts, lts, names)
		for i := range lts {
			bindings.DestroyLogicalType(&lts[i])
		}
		if err := errorDataErr(ed); err != nil {
			b.Fatal(err)
		}
		return func(chunk bindings.DataChunk) (arrow.RecordBatch, error) {
				rec, ed := bindings.DataChunkToArrowArray(aopts, sc, chunk)
				return rec, errorDataErr(ed)
			}, func() {
				bindings.DestroyArrowOptions(&aopts)
			}
	})
}
