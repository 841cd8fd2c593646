package source_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/sourcetest"
	"github.com/pipewhy/pipewhy/source/sourcetest/confdata"
)

// TestConformance reads the conformance dataset (confdata) through every adapter of this
// package, in several batch sizes, and requires the same Arrow values, names and complete
// coverage (sourcetest.Conformance).
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	rec := confdata.Record()
	defer rec.Release()
	null := "NULL"
	source.WriteParquet(t, filepath.Join(dir, "c.parquet"), rec, 2)
	source.WriteIPC(t, filepath.Join(dir, "c.arrow"), rec, false, 2)
	source.WriteIPC(t, filepath.Join(dir, "c.arrows"), rec, true, 3)
	source.WriteIPC(t, filepath.Join(dir, "f.ipc"), rec, false, 4)
	source.WriteIPC(t, filepath.Join(dir, "s.ipc"), rec, true, 1)
	source.WriteSQLiteConf(t, filepath.Join(dir, "c.db"))
	cases := []struct {
		name, addr  string
		opts        source.Options
		kind        source.Kind
		consistency string
	}{
		{"csv", source.WriteFile(t, dir, "c.csv", []byte(confdata.CSV)), source.Options{Columns: source.ConfColumns, Null: &null}, source.KindCSV, source.ConsistencyFileRead},
		{"jsonl", source.WriteFile(t, dir, "c.jsonl", []byte(confdata.JSONL)), source.Options{Columns: source.ConfColumns}, source.KindJSONL, source.ConsistencyFileRead},
		{"parquet", filepath.Join(dir, "c.parquet"), source.Options{}, source.KindParquet, source.ConsistencyFileRead},
		{"arrow-file", filepath.Join(dir, "c.arrow"), source.Options{}, source.KindArrowFile, source.ConsistencyFileRead},
		{"arrow-stream", filepath.Join(dir, "c.arrows"), source.Options{}, source.KindArrowStream, source.ConsistencyFileRead},
		{"ipc-sniff-file", filepath.Join(dir, "f.ipc"), source.Options{}, source.KindArrowFile, source.ConsistencyFileRead},
		{"ipc-sniff-stream", filepath.Join(dir, "s.ipc"), source.Options{}, source.KindArrowStream, source.ConsistencyFileRead},
		{"sqlite-table", "sqlite:" + filepath.Join(dir, "c.db") + "#conf", source.Options{}, source.KindSQLite, source.ConsistencySQLiteTransaction},
		{"sqlite-query", "sqlite:" + filepath.Join(dir, "c.db"), source.Options{Query: "SELECT id, name, amount, payload FROM conf ORDER BY rowid"}, source.KindSQLite, source.ConsistencySQLiteTransaction},
	}
	for _, tc := range cases {
		for _, bs := range []int{1, 2, 1000} {
			t.Run(fmt.Sprintf("%s/batch%d", tc.name, bs), func(t *testing.T) {
				opts := tc.opts
				opts.BatchSize = bs
				src, err := source.Open(context.Background(), tc.addr, opts)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				ev := sourcetest.Conformance(t, src, tc.kind, tc.consistency)
				if err := src.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				if tc.kind != source.KindSQLite && !strings.HasPrefix(ev.Namespace, "file:/") {
					t.Errorf("namespace %q", ev.Namespace)
				}
			})
		}
	}
}

// The conformance suite over each Parquet reader explicitly (the plain TestConformance
// takes the automatic choice, i.e. parquet-go).
func TestConformancePQArrow(t *testing.T) {
	t.Setenv(source.ParquetReaderEnv, "pqarrow")
	TestConformance(t)
}

func TestConformanceParquetGo(t *testing.T) {
	t.Setenv(source.ParquetReaderEnv, "parquet-go")
	TestConformance(t)
}
