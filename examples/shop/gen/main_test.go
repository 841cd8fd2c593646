package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedDataIsGenerated regenerates the sample data and requires the
// committed files to be byte-identical, so README.md and the CSVs cannot
// drift from the generator's rules.
func TestCommittedDataIsGenerated(t *testing.T) {
	dir := t.TempDir()
	generate(dir)
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		want, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			t.Errorf("%s: %v (run go run ./examples/shop/gen)", rel, err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output (run go run ./examples/shop/gen)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
