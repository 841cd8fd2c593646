package arrowio

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipewhy/pipewhy/canonical"
)

// sample builds two batches: (id int64, label utf8 nullable) rows 1..5.
func sample(mem memory.Allocator) (*arrow.Schema, []arrow.RecordBatch) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for _, ids := range [][]int64{{1, 2, 3}, {4, 5}} {
		b := array.NewRecordBuilder(mem, schema)
		for _, id := range ids {
			b.Field(0).(*array.Int64Builder).Append(id)
			if id%2 == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append("x")
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return schema, recs
}

func ipcBytes(t testing.TB, stream bool, schema *arrow.Schema, recs []arrow.RecordBatch) []byte {
	var buf bytes.Buffer
	if stream {
		w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func parquetBytes(t testing.TB, schema *arrow.Schema, recs []arrow.RecordBatch) []byte {
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every file format gives the fingerprint of the same table in memory.
func TestFormatsAgree(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema, recs := sample(mem)
	want, err := canonical.FingerprintTable(canonical.DomainArrowResult, schema, recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	files := map[Format][]byte{
		ArrowFile:   ipcBytes(t, false, schema, recs),
		ArrowStream: ipcBytes(t, true, schema, recs),
		Parquet:     parquetBytes(t, schema, recs),
	}
	for _, r := range recs {
		r.Release()
	}
	dir := t.TempDir()
	for format, data := range files {
		path := filepath.Join(dir, "t."+string(format))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path, mem)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if f.Format != format {
			t.Errorf("detected %s, want %s", f.Format, format)
		}
		got, rows, err := f.Fingerprint(context.Background(), canonical.DomainArrowResult, nil)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if got.Sum != want.Sum || rows != 5 || got.PayloadBytes != want.PayloadBytes {
			t.Errorf("%s: fingerprint %s rows %d, want %s rows 5", format, got.Hex(), rows, want.Hex())
		}
	}
}

func TestMalformedInputIsAnError(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema, recs := sample(mem)
	good := ipcBytes(t, false, schema, recs)
	cases := map[string][]byte{
		"empty":            {},
		"garbage":          []byte("not an arrow file at all"),
		"truncated file":   good[:len(good)/2],
		"parquet magic":    []byte("PAR1 and then nothing PAR1"),
		"arrow magic only": []byte("ARROW1\x00\x00"),
	}
	for name, data := range cases {
		f, err := New(bytes.NewReader(data), int64(len(data)), "", mem)
		if err == nil {
			_, _, err = f.Fingerprint(context.Background(), canonical.DomainArrowResult, nil)
		}
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if canonical.CodeOf(err) != canonical.CodeEncoding {
			t.Errorf("%s: error without the stable code: %v", name, err)
		}
	}
}

// FuzzIPC feeds arbitrary bytes to the IPC (and Parquet) readers and the canonical
// encoder. arrow-go can panic on corrupt input; the recover boundaries must turn every
// failure into an error carrying a stable code, and nothing may panic.
func FuzzIPC(f *testing.F) {
	mem := memory.NewGoAllocator()
	schema, recs := sample(mem)
	f.Add(ipcBytes(f, false, schema, recs))
	f.Add(ipcBytes(f, true, schema, recs))
	f.Add(parquetBytes(f, schema, recs))
	f.Add([]byte("ARROW1"))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		if dir := os.Getenv("PIPEWHY_FUZZ_TRACE"); dir != "" {
			// Debug aid: the input being run stays on disk if the worker hangs or dies.
			p := filepath.Join(dir, fmt.Sprintf("current-%d", os.Getpid()))
			os.WriteFile(p, data, 0o644)
			defer os.Remove(p)
		}
		// Small caps so that a corrupt length cannot exhaust the fuzzer's memory.
		lim := NewLimitedAllocator(nil, 16<<20, 64<<20)
		af, err := New(bytes.NewReader(data), int64(len(data)), "", lim)
		if err != nil {
			if canonical.CodeOf(err) == "" {
				t.Fatalf("error without code: %v", err)
			}
			return
		}
		_, _, err = af.Fingerprint(context.Background(), canonical.DomainArrowResult, nil)
		if err != nil && canonical.CodeOf(err) == "" {
			t.Fatalf("error without code: %v", err)
		}
	})
}

// Empty tables read from files (no batch at all, or one zero-row batch) keep their
// schema and give the same fingerprint as the empty table in memory.
func TestEmptyTables(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema, recs := sample(mem)
	want, err := canonical.FingerprintTable(canonical.DomainArrowResult, schema, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	empty := recs[0].NewSlice(0, 0)
	for name, data := range map[string][]byte{
		"file no batch":       ipcBytes(t, false, schema, nil),
		"stream no batch":     ipcBytes(t, true, schema, nil),
		"file empty batch":    ipcBytes(t, false, schema, []arrow.RecordBatch{empty}),
		"stream empty batch":  ipcBytes(t, true, schema, []arrow.RecordBatch{empty}),
		"parquet empty batch": parquetBytes(t, schema, []arrow.RecordBatch{empty}),
	} {
		f, err := New(bytes.NewReader(data), int64(len(data)), "", mem)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, rows, err := f.Fingerprint(context.Background(), canonical.DomainArrowResult, nil)
		if err != nil || got.Sum != want.Sum || rows != 0 {
			t.Errorf("%s: %s rows %d err %v, want %s", name, got.Hex(), rows, err, want.Hex())
		}
	}
}

func TestAllocationCap(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema, recs := sample(mem)
	data := ipcBytes(t, false, schema, recs)
	lim := NewLimitedAllocator(nil, 8, 1<<20)
	f, err := New(bytes.NewReader(data), int64(len(data)), "", lim)
	if err == nil {
		_, _, err = f.Fingerprint(context.Background(), canonical.DomainArrowResult, nil)
	}
	if canonical.CodeOf(err) != canonical.CodeEncoding || !strings.Contains(err.Error(), "over the 8-byte cap") {
		t.Fatalf("a buffer over the cap: %v", err)
	}
}

// TestMutatedFiles runs byte-level mutations of valid IPC and Parquet files through the
// readers and the encoder without the fuzzing engine: every outcome is a fingerprint or
// an error with a stable code, never a panic.
func TestMutatedFiles(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema, recs := sample(mem)
	seeds := [][]byte{ipcBytes(t, false, schema, recs), ipcBytes(t, true, schema, recs), parquetBytes(t, schema, recs)}
	// Systematically: every 32-bit word of the metadata set to a huge count. Before the
	// flatbuffer pre-check, one of these made arrow-go call make() with billions of
	// schema fields: a fatal out-of-memory error that no recover can catch.
	for si, seed := range seeds {
		from := 0
		if si == 2 { // Parquet: the footer (thrift metadata) is at the end
			from = max(0, len(seed)-400)
		}
		for p := from; p+4 <= min(len(seed), from+400); p++ {
			data := bytes.Clone(seed)
			data[p], data[p+1], data[p+2], data[p+3] = 0xff, 0xff, 0xff, 0x7f
			af, err := New(bytes.NewReader(data), int64(len(data)), "", NewLimitedAllocator(nil, 16<<20, 64<<20))
			if err == nil {
				_, _, err = af.Fingerprint(context.Background(), canonical.DomainArrowResult, nil)
			}
			if err != nil && canonical.CodeOf(err) == "" {
				t.Fatalf("seed %d word %d: error without code: %v", si, p, err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		data := bytes.Clone(seeds[i%len(seeds)])
		for range 1 + rng.IntN(4) {
			switch rng.IntN(4) {
			case 0: // flip a byte
				if len(data) > 0 {
					data[rng.IntN(len(data))] ^= byte(1 + rng.IntN(255))
				}
			case 1: // truncate
				data = data[:rng.IntN(len(data)+1)]
			case 2: // set a 32-bit little-endian word to an extreme
				if len(data) >= 4 {
					p := rng.IntN(len(data) - 3)
					v := []uint32{0, 0xffffffff, 0x7fffffff, 0x80000000, uint32(rng.Uint32())}[rng.IntN(5)]
					data[p], data[p+1], data[p+2], data[p+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
				}
			case 3: // duplicate a span
				if len(data) > 8 {
					a := rng.IntN(len(data) - 8)
					data = append(data[:a+8:a+8], data[a:]...)
				}
			}
		}
		lim := NewLimitedAllocator(nil, 16<<20, 64<<20)
		af, err := New(bytes.NewReader(data), int64(len(data)), "", lim)
		if err == nil {
			_, _, err = af.Fingerprint(context.Background(), canonical.DomainArrowResult, nil)
		}
		if err != nil && canonical.CodeOf(err) == "" {
			t.Fatalf("mutation %d: error without code: %v", i, err)
		}
	}
}
