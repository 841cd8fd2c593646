package source

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileProgress: CSV (with and without inference, serial and parallel) and JSON
// lines report the bytes of the file read, ending at its size; the inference pass
// reports its own progress, also ending at the size, and the reading pass starts again
// from 0.
func TestFileProgress(t *testing.T) {
	dir := t.TempDir()
	var csvText, jsonText strings.Builder
	csvText.WriteString("id,name\n")
	for i := range 10000 {
		fmt.Fprintf(&csvText, "%d,n%d\n", i, i)
		fmt.Fprintf(&jsonText, "{\"id\":%d,\"name\":\"n%d\"}\n", i, i)
	}
	files := map[string]string{"t.csv": csvText.String(), "t.jsonl": jsonText.String()}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		file    string
		opts    Options
		infers  bool
		workers int // CSV: 0 serial, else parallel with that many converters
	}{
		{"csv text", "t.csv", Options{}, false, 0},
		{"csv infer", "t.csv", Options{Infer: true}, true, 0},
		{"csv parallel", "t.csv", Options{Infer: true}, true, 2},
		{"jsonl", "t.jsonl", Options{}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := uint64(len(files[tc.file]))
			var inferred []uint64
			tc.opts.InferProgress = func(read, total uint64) {
				if total != size {
					t.Errorf("infer progress of %d bytes, want %d", total, size)
				}
				inferred = append(inferred, read)
			}
			tc.opts.BatchSize = 1000
			src, err := Open(context.Background(), filepath.Join(dir, tc.file), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if cs, ok := src.(*csvSource); ok {
				cs.workers = tc.workers
			}
			if tc.infers != (len(inferred) > 0) {
				t.Fatalf("infer progress reports %v", inferred)
			}
			// 10000 records: reports at records 0, 4096 and 8192, and at the end.
			if tc.infers && (len(inferred) != 4 || inferred[len(inferred)-1] != size) {
				t.Errorf("infer progress %v, want 4 reports ending at %d", inferred, size)
			}
			fp, ok := src.(FileProgress)
			if !ok {
				t.Fatalf("%T does not report file progress", src)
			}
			// The reader reads ahead (the CSV reader may hold this whole file already).
			if read, total := fp.BytesRead(); total != size || read > size {
				t.Errorf("before reading: %d of %d", read, total)
			}
			last := uint64(0)
			for {
				rec, err := src.Next(context.Background())
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				rec.Release()
				read, _ := fp.BytesRead()
				if read < last {
					t.Errorf("bytes read went back from %d to %d", last, read)
				}
				last = read
			}
			if read, _ := fp.BytesRead(); read != size {
				t.Errorf("after reading: %d of %d bytes", read, size)
			}
		})
	}
}
