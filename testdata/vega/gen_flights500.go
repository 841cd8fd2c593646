//go:build ignore

// gen_flights500 writes flights-500.arrow and flights-500.json of this directory from
// vega-datasets' flights-200k.arrow and flights-200k.json (see README.md): the first
// 500 records of each, which are the same records in the same order.
//
//   - flights-500.arrow: the first 500 rows of flights-200k.arrow, written by Apache
//     Arrow Go's IPC file writer with the original schema (delay int16, distance
//     int16, time float32);
//
//   - flights-500.json: the first 500 objects of flights-200k.json, their text
//     unchanged (the file is one JSON array of flat objects), in an array.
//
//     go run ./testdata/vega/gen_flights500.go /path/to/vega-datasets/data
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

const rows = 500

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./testdata/vega/gen_flights500.go VEGA_DATA_DIR")
		os.Exit(2)
	}
	out := filepath.Join("testdata", "vega")
	if err := writeArrow(filepath.Join(os.Args[1], "flights-200k.arrow"), filepath.Join(out, "flights-500.arrow")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := writeJSON(filepath.Join(os.Args[1], "flights-200k.json"), filepath.Join(out, "flights-500.json")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func writeArrow(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return err
	}
	defer r.Close()
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	w, err := ipc.NewFileWriter(o, ipc.WithSchema(r.Schema()))
	if err != nil {
		return err
	}
	left := int64(rows)
	for i := 0; i < r.NumRecords() && left > 0; i++ {
		rec, err := r.RecordAt(i)
		if err != nil {
			return err
		}
		n := min(rec.NumRows(), left)
		s := rec.NewSlice(0, n)
		err = w.Write(s)
		s.Release()
		rec.Release()
		if err != nil {
			return err
		}
		left -= n
	}
	if left > 0 {
		return fmt.Errorf("%s has fewer than %d rows", in, rows)
	}
	if err := w.Close(); err != nil {
		return err
	}
	return o.Close()
}

func writeJSON(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	data = bytes.TrimSpace(data)
	if len(data) < 2 || data[0] != '[' || data[len(data)-1] != ']' {
		return fmt.Errorf("%s is not a JSON array", in)
	}
	// Flat objects: each ends at the first '}' after its '{'.
	objs := bytes.SplitAfterN(data[1:len(data)-1], []byte("},"), rows+1)
	if len(objs) <= rows {
		return fmt.Errorf("%s has fewer than %d records", in, rows)
	}
	body := bytes.Join(objs[:rows], nil)
	body = bytes.TrimSuffix(body, []byte(","))
	return os.WriteFile(out, append(append([]byte("["), body...), ']', '\n'), 0o644)
}
