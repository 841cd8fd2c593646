package source

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
)

// TestParquetUnimplementedCodecIsUnsupported: a Parquet file whose column
// chunks use a codec arrow-go does not implement is refused as
// PW_SOURCE_UNSUPPORTED naming the column and the codec, not as a damaged
// file. testdata/parquet-testing/hadoop_lz4_compressed.parquet is
// apache/parquet-testing's data/hadoop_lz4_compressed.parquet (Apache-2.0,
// commit 1a2a751), written by parquet-mr 1.10.1: 4 rows, columns c0 (int64),
// c1 (byte array) and v11 (double), every chunk LZ4 (Hadoop framing), which
// pyarrow and Spark read. Before the check, Open failed with PW_SOURCE_CORRUPT
// "cannot read row groups: compression for LZ4 unimplemented".
func TestParquetUnimplementedCodecIsUnsupported(t *testing.T) {
	const path = "testdata/parquet-testing/hadoop_lz4_compressed.parquet"
	for _, mode := range []string{"", "pqarrow", "parquet-go"} {
		t.Run("reader="+mode, func(t *testing.T) {
			t.Setenv(ParquetReaderEnv, mode)
			for _, tc := range []struct {
				exclude []string
				col     string
			}{
				{nil, `"c0"`},
				{[]string{"c0"}, `"c1"`},        // the first kept column is named
				{[]string{"c0", "c1"}, `"v11"`}, // every kept leaf is checked
			} {
				src, err := Open(context.Background(), path, Options{Exclude: tc.exclude})
				if err == nil {
					src.Close()
					t.Fatalf("exclude %v: opened an LZ4 file", tc.exclude)
				}
				if CodeOf(err) != CodeUnsupported {
					t.Fatalf("exclude %v: %v, want %s", tc.exclude, err, CodeUnsupported)
				}
				if mode == "parquet-go" {
					continue // refused for the reader choice, before any codec is checked
				}
				if msg := err.Error(); !strings.Contains(msg, tc.col) || !strings.Contains(msg, "LZ4") {
					t.Fatalf("exclude %v: %q does not name column %s and the codec", tc.exclude, msg, tc.col)
				}
			}
		})
	}
}

// TestParquetZeroUncompressedTotal: DuckDB's writer of 2021 recorded a
// compressed column chunk's total_uncompressed_size as 0.
// testdata/duckdb/boolean_stats.parquet (MIT, see its README) is such a file:
// 3 rows, an OPTIONAL BOOLEAN column i = null, false, true, Snappy. The
// parquet-go reader's page check bounds the pages' uncompressed sizes by that
// total, so it refused the file with PW_SOURCE_CORRUPT ("uncompressed sizes
// past the chunk's total") while pqarrow, DuckDB and the forced pqarrow reader
// read it: the default reader must now leave it to pqarrow and read the three
// values.
func TestParquetZeroUncompressedTotal(t *testing.T) {
	const path = "testdata/duckdb/boolean_stats.parquet"
	for _, mode := range []string{"", "pqarrow"} {
		t.Run("reader="+mode, func(t *testing.T) {
			t.Setenv(ParquetReaderEnv, mode)
			sc, cols, ev := openRead(t, path, Options{})
			if sc.NumFields() != 1 || sc.Field(0).Name != "i" {
				t.Fatalf("schema %v", sc)
			}
			b, ok := cols[0].(*array.Boolean)
			if !ok || b.Len() != 3 || !b.IsNull(0) || b.Value(1) || !b.Value(2) {
				t.Fatalf("values %v, want [null false true]", cols[0])
			}
			if c := ev.Coverage; c.Status != StatusComplete || c.Returned != 3 {
				t.Fatalf("coverage %+v", c)
			}
			if !slices.Contains(ev.Choices, choiceReaderPQArrow) {
				t.Fatalf("choices %v, want %s", ev.Choices, choiceReaderPQArrow)
			}
		})
	}
	// Demanding the parquet-go reader is refused as out of its scope, not as
	// a damaged file.
	t.Setenv(ParquetReaderEnv, "parquet-go")
	if src, err := Open(context.Background(), path, Options{}); CodeOf(err) != CodeUnsupported {
		if err == nil {
			src.Close()
		}
		t.Fatalf("parquet-go reader: %v, want %s", err, CodeUnsupported)
	}
}

// TestParquetEncryptedIsUnsupported: an encrypted Parquet file (the modular
// encryption of the Parquet spec, as in apache/parquet-testing's
// data/*.parquet.encrypted and DuckDB's data/parquet-testing/encryption/) is
// not damaged; PipeWhy has no keys to read it. It must fail Open with
// PW_SOURCE_UNSUPPORTED, not PW_SOURCE_CORRUPT "not a readable Parquet file"
// or "cannot read row groups": with an encrypted footer (magic "PARE") the
// whole file, with a plaintext footer each encrypted column, which Exclude
// leaves out so that the plaintext columns are read.
func TestParquetEncryptedIsUnsupported(t *testing.T) {
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "secret", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	const footerKey, colKey = "0123456789012345", "1234567890123450"
	encFooter := filepath.Join(dir, "footer.parquet")
	writeParquetWith(t, encFooter, rec, parquet.WithEncryptionProperties(parquet.NewFileEncryptionProperties(footerKey)))
	plainFooter := filepath.Join(dir, "columns.parquet")
	writeParquetWith(t, plainFooter, rec, parquet.WithEncryptionProperties(parquet.NewFileEncryptionProperties(footerKey,
		parquet.WithPlaintextFooter(),
		parquet.WithEncryptedColumns(parquet.ColumnPathToEncryptionPropsMap{
			"secret": parquet.NewColumnEncryptionProperties("secret", parquet.WithKey(colKey)),
		}))))
	for _, mode := range []string{"", "pqarrow"} {
		t.Run("reader="+mode, func(t *testing.T) {
			t.Setenv(ParquetReaderEnv, mode)
			for _, tc := range []struct{ path, want string }{
				{encFooter, "encrypted footer"},
				{plainFooter, `column "secret" is encrypted`},
			} {
				src, err := Open(context.Background(), tc.path, Options{})
				if err == nil {
					src.Close()
					t.Fatalf("%s: opened an encrypted file", tc.path)
				}
				if CodeOf(err) != CodeUnsupported || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%s: %v, want %s naming %q", tc.path, err, CodeUnsupported, tc.want)
				}
			}
			_, cols, ev := openRead(t, plainFooter, Options{Exclude: []string{"secret"}})
			if len(cols) != 1 || cols[0].Len() != 2 || ev.Coverage.Status != StatusComplete {
				t.Fatalf("plaintext column: %v, coverage %+v", cols, ev.Coverage)
			}
		})
	}
}

// TestJSONLeadingBOM: a JSON array or JSON lines file that starts with a
// UTF-8 byte order mark (Windows tools write one; DuckDB's
// data/json/sample_utf8_bom.json is such a file) reads as the same file
// without it, with the choice bom=stripped recorded, as for CSV. Before, the
// array was refused with PW_SOURCE_UNSUPPORTED "the top-level JSON value is
// not an array" and the first JSON line failed as "not a JSON object".
func TestJSONLeadingBOM(t *testing.T) {
	dir := t.TempDir()
	const bom = "\xef\xbb\xbf"
	for _, tc := range []struct{ name, doc string }{
		{"a.json", "[{\"id\": 1, \"s\": \"x\"},\n {\"id\": 2, \"s\": \"\xc3\xa9\"}]\n"},
		{"a.jsonl", "{\"id\": 1, \"s\": \"x\"}\r\n{\"id\": 2, \"s\": \"\xc3\xa9\"}\r\n"},
	} {
		plain, marked := filepath.Join(dir, "plain-"+tc.name), filepath.Join(dir, "bom-"+tc.name)
		if err := os.WriteFile(plain, []byte(tc.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(marked, []byte(bom+tc.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		wantSc, wantCols, wantEv := openRead(t, plain, Options{})
		sc, cols, ev := openRead(t, marked, Options{})
		if !sc.Equal(wantSc) {
			t.Fatalf("%s: schema %v, want %v", tc.name, sc, wantSc)
		}
		for i := range cols {
			if !array.Equal(cols[i], wantCols[i]) {
				t.Fatalf("%s: column %d = %v, want %v", tc.name, i, cols[i], wantCols[i])
			}
		}
		if ev.Coverage.Status != StatusComplete || ev.Coverage.Returned != 2 {
			t.Fatalf("%s: coverage %+v", tc.name, ev.Coverage)
		}
		if !slices.Contains(ev.Choices, "bom=stripped") || slices.Contains(wantEv.Choices, "bom=stripped") {
			t.Fatalf("%s: choices %v (without the mark %v), want bom=stripped only with it", tc.name, ev.Choices, wantEv.Choices)
		}
	}
}

// TestParquetUnknownLogicalTypeIsUnsupported: apache/parquet-testing's
// unknown-logical-type.parquet (Apache-2.0, see testdata/parquet-testing)
// annotates a column with a logical type newer than arrow-go v18.8.0, whose
// footer parser panics on it. The file is valid: Open must fail with
// PW_SOURCE_UNSUPPORTED naming the cause, not PW_SOURCE_CORRUPT "the reader
// failed on malformed input (recovered panic)". Another panic of the reader
// stays PW_SOURCE_CORRUPT (TestArrowFilesMalformed and the fuzz tests).
func TestParquetUnknownLogicalTypeIsUnsupported(t *testing.T) {
	for _, mode := range []string{"", "pqarrow", "parquet-go"} {
		t.Setenv(ParquetReaderEnv, mode)
		src, err := Open(context.Background(), "testdata/parquet-testing/unknown-logical-type.parquet", Options{})
		if err == nil {
			src.Close()
			t.Fatalf("reader=%s: opened", mode)
		}
		if CodeOf(err) != CodeUnsupported || !strings.Contains(err.Error(), "logical type") {
			t.Fatalf("reader=%s: %v, want %s about the logical type", mode, err, CodeUnsupported)
		}
	}
}
