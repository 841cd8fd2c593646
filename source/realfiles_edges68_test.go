package source

import (
	"context"
	"strings"
	"testing"
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
