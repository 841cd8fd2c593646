package source

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/internal/testenv"
)

// pgType is one Arrow type the differential test writes, and whether the
// fast path is expected to read it (false: the file must fall back to pqarrow).
type pgType struct {
	t    arrow.DataType
	fast bool
}

var pgTypes = []pgType{
	{arrow.FixedWidthTypes.Boolean, true},
	{arrow.PrimitiveTypes.Int8, true}, {arrow.PrimitiveTypes.Int16, true},
	{arrow.PrimitiveTypes.Int32, true}, {arrow.PrimitiveTypes.Int64, true},
	{arrow.PrimitiveTypes.Uint8, true}, {arrow.PrimitiveTypes.Uint16, true},
	{arrow.PrimitiveTypes.Uint32, true}, {arrow.PrimitiveTypes.Uint64, true},
	{arrow.PrimitiveTypes.Float32, true}, {arrow.PrimitiveTypes.Float64, true},
	{arrow.BinaryTypes.String, true}, {arrow.BinaryTypes.Binary, true},
	{arrow.BinaryTypes.LargeString, true}, {arrow.BinaryTypes.LargeBinary, true},
	{&arrow.TimestampType{Unit: arrow.Millisecond}, true},
	{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, true},
	{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Paris"}, true},
	{&arrow.TimestampType{Unit: arrow.Microsecond}, true},
	{&arrow.TimestampType{Unit: arrow.Nanosecond}, true},
	{&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "America/New_York"}, true},
	{arrow.FixedWidthTypes.Date32, true},
	// arrow-go stores seconds as ms, and pqarrow reads them back as
	// timestamp[ms] even with ARROW:schema: in scope.
	{&arrow.TimestampType{Unit: arrow.Second}, true},
	{arrow.FixedWidthTypes.Date64, true}, // stored as INT32 days, read back by pqarrow as date32
	{&arrow.Decimal128Type{Precision: 1, Scale: 0}, true},
	{&arrow.Decimal128Type{Precision: 9, Scale: 3}, true},
	{&arrow.Decimal128Type{Precision: 18, Scale: 6}, true},
	{&arrow.Decimal128Type{Precision: 19, Scale: 0}, true},
	{&arrow.Decimal128Type{Precision: 38, Scale: 10}, true},
	// Out of scope: the file is read by pqarrow.
	{&arrow.Decimal256Type{Precision: 40, Scale: 2}, false},
	{arrow.FixedWidthTypes.Float16, false},
	{arrow.ListOf(arrow.PrimitiveTypes.Int64), false},
	{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, false},
}

var (
	pgF64 = []uint64{0x7ff8000000000000, 0x7ff8000000000001, 0x7ff0000000000001, 0xfff8000000000000,
		0xffffffffffffffff, 0x8000000000000000, 0, 0x7ff0000000000000, 0xfff0000000000000, 1, 0x800fffffffffffff}
	pgF32 = []uint32{0x7fc00000, 0x7fc00001, 0x7f800001, 0xffc00000, 0xffffffff, 0x80000000, 0, 0x7f800000, 0xff800000, 1}
	pgI64 = []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MaxInt32 + 1, math.MinInt32 - 1,
		-62135596800000000, 253402300799999999}
	pgStr = []string{"", "a", "zoë 🙂", "日本語", "nul\x00byte", "tab\tnew\nline", string(bytes.Repeat([]byte("xy"), 300))}
	pgBin = []string{"", "\xff\xfe", "\x00", "\xc3\x28", "plain", "\xed\xa0\x80"}
)

// pgColumn builds a random column of n values of type t: a mix of the
// tricky values above and random ones, with nulls at rate nullRate (and a
// run of nulls when run is set).
func pgColumn(r *rand.Rand, t arrow.DataType, n int, nullRate float64, badUTF8 bool) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t)
	defer b.Release()
	runAt := r.IntN(n + 1)
	for i := range n {
		if r.Float64() < nullRate || (i >= runAt && i < runAt+5 && nullRate > 0) {
			b.AppendNull()
			continue
		}
		tricky := r.IntN(3) == 0
		switch b := b.(type) {
		case *array.BooleanBuilder:
			b.Append(r.IntN(2) == 0)
		case *array.Int8Builder:
			b.Append(int8(r.Uint64()))
		case *array.Int16Builder:
			b.Append(int16(r.Uint64()))
		case *array.Int32Builder:
			b.Append(int32(r.Uint64()))
		case *array.Uint8Builder:
			b.Append(uint8(r.Uint64()))
		case *array.Uint16Builder:
			b.Append(uint16(r.Uint64()))
		case *array.Uint32Builder:
			b.Append(uint32(r.Uint64()))
		case *array.Int64Builder:
			v := int64(r.Uint64())
			if tricky {
				v = pgI64[r.IntN(len(pgI64))]
			}
			b.Append(v)
		case *array.Uint64Builder:
			v := r.Uint64()
			if tricky {
				v = uint64(pgI64[r.IntN(len(pgI64))])
			}
			b.Append(v)
		case *array.Float32Builder:
			v := r.Uint32()
			if tricky {
				v = pgF32[r.IntN(len(pgF32))]
			}
			b.Append(math.Float32frombits(v))
		case *array.Float64Builder:
			v := r.Uint64()
			if tricky {
				v = pgF64[r.IntN(len(pgF64))]
			}
			b.Append(math.Float64frombits(v))
		case *array.TimestampBuilder:
			v := int64(r.Uint64())
			if tricky {
				v = pgI64[r.IntN(len(pgI64))]
			}
			if t.(*arrow.TimestampType).Unit == arrow.Second {
				v /= 1000 // arrow-go multiplies seconds by 1000 to store them as ms
			}
			b.Append(arrow.Timestamp(v))
		case *array.Decimal128Builder:
			p := t.(*arrow.Decimal128Type).Precision
			var v decimal128.Num
			if p <= 18 {
				lim := int64(math.Pow10(int(p)))
				v = decimal128.FromI64(r.Int64N(2*lim-1) - (lim - 1)) // |v| <= 10^p-1
				if tricky {
					v = decimal128.FromI64([]int64{lim - 1, -(lim - 1), 0, -1}[r.IntN(4)])
				}
			} else {
				v = decimal128.New(int64(r.Uint64()>>4), r.Uint64()) // < 2^124 < 10^37
				if r.IntN(2) == 0 {
					v = v.Negate()
				}
			}
			b.Append(v)
		case *array.Date32Builder:
			b.Append(arrow.Date32(int32(r.Uint64())))
		case *array.Date64Builder:
			b.Append(arrow.Date64(int64(r.Int32()) * 86400000))
		case *array.StringBuilder:
			s := pgStr[r.IntN(len(pgStr))]
			if badUTF8 && r.IntN(50) == 0 {
				s = "bad\xff"
			}
			b.Append(s)
		case *array.LargeStringBuilder:
			b.Append(pgStr[r.IntN(len(pgStr))])
		case *array.BinaryBuilder:
			v := []byte(pgBin[r.IntN(len(pgBin))])
			if !tricky {
				v = binary8(r.Uint64())
			}
			b.Append(v)
		default:
			b.AppendNull() // other out-of-scope types: nulls are enough to select pqarrow
		}
	}
	return b.NewArray()
}

func binary8(v uint64) []byte {
	return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24), byte(v >> 32)}
}

// pgFile writes a random file of the scope (and, with probability, one
// out-of-scope column) with random writer settings, and returns its path and
// whether the fast path must read it.
func pgFile(t testing.TB, r *rand.Rand, dir string, seed int) (_ string, _ bool) {
	defer func() {
		// arrow-go v18.8.0's DELTA_BINARY_PACKED encoder panics on some inputs
		// ("slice bounds out of range" in FlushValues): no file.
		if e := recover(); e != nil {
			t.Logf("seed %d: arrow-go cannot write the file: %v", seed, e)
		}
	}()
	ncols := 1 + r.IntN(7)
	stored := r.IntN(4) != 0    // ARROW:schema stored in the file
	fast, allFast := true, true // allFast: every type in scope
	var fields []arrow.Field
	var cols []arrow.Array
	rows := r.IntN(3000)
	if r.IntN(8) == 0 {
		rows = r.IntN(3)
	}
	for i := range ncols {
		pt := pgTypes[r.IntN(len(pgTypes))]
		if !pt.fast && r.IntN(3) != 0 {
			pt = pgTypes[r.IntN(29)] // out-of-scope columns in about one file in ten
		}
		// Without ARROW:schema, pqarrow reads a dictionary column as its plain
		// values, which the fast path reads.
		switch pt.t.ID() {
		case arrow.DICTIONARY:
			fast = fast && (pt.fast || !stored)
		default:
			fast = fast && pt.fast
		}
		allFast = fast
		nullRate := []float64{0, 0, 0.1, 0.5, 1}[r.IntN(5)]
		nullable := nullRate > 0 || r.IntN(2) == 0
		if !nullable {
			nullRate = 0
		}
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d_%s", i, pt.t.Name()), Type: pt.t, Nullable: nullable})
		cols = append(cols, pgColumn(r, pt.t, rows, nullRate, r.IntN(4) == 0))
	}
	sc := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sc, cols, int64(rows))
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip,
		compress.Codecs.Zstd, compress.Codecs.Lz4Raw}
	codec := codecs[r.IntN(len(codecs)-1)]
	if r.IntN(12) == 0 {
		codec = compress.Codecs.Lz4Raw
	}
	if codec == compress.Codecs.Lz4Raw {
		fast = false // left to pqarrow (see pgCodecs)
	}
	props := []pq.WriterProperty{
		pq.WithMaxRowGroupLength(int64(1 + r.IntN(1500))),
		pq.WithDataPageSize(int64([]int{64, 512, 4096, 1 << 20}[r.IntN(4)])),
		pq.WithDictionaryDefault(r.IntN(2) == 0),
		pq.WithDictionaryPageSizeLimit(int64([]int{64, 1 << 20}[r.IntN(2)])),
		pq.WithCompression(codec),
		pq.WithBatchSize(int64([]int{7, 100, 1024}[r.IntN(3)])),
	}
	if r.IntN(2) == 0 {
		props = append(props, pq.WithDataPageVersion(pq.DataPageV2))
	}
	if r.IntN(2) == 0 {
		props = append(props, pq.WithStoreDecimalAsInteger(true)) // INT32/INT64 up to precision 18
	}
	if r.IntN(3) == 0 {
		// Non-dictionary encodings where the physical type has them.
		props = append(props, pq.WithDictionaryDefault(false))
		for _, f := range fields {
			var enc pq.Encoding = -1
			switch f.Type.ID() {
			case arrow.INT32, arrow.INT64, arrow.UINT32, arrow.UINT64, arrow.TIMESTAMP, arrow.DATE32, arrow.INT8, arrow.INT16, arrow.UINT8, arrow.UINT16:
				enc = pq.Encodings.Plain
				if r.IntN(4) == 0 {
					enc = pq.Encodings.DeltaBinaryPacked
					fast = false // left to pqarrow (see pgEncodings)
				}
			case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
				enc = pq.Encodings.Plain
				if r.IntN(4) == 0 {
					enc = []pq.Encoding{pq.Encodings.DeltaByteArray, pq.Encodings.DeltaLengthByteArray}[r.IntN(2)]
					fast = false // left to pqarrow (see pgEncodings)
				}
			case arrow.FLOAT32, arrow.FLOAT64:
				enc = pq.Encodings.ByteStreamSplit
			}
			if enc >= 0 {
				props = append(props, pq.WithEncodingFor(f.Name, enc))
			}
		}
	}
	var aprops []pqarrow.WriterOption
	if stored {
		aprops = append(aprops, pqarrow.WithStoreSchema())
	}
	path := filepath.Join(dir, fmt.Sprintf("r%d.parquet", seed))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sc, f, pq.NewWriterProperties(props...), pqarrow.NewArrowWriterProperties(aprops...))
	if err != nil {
		t.Fatal(err)
	}
	// Several writes, so that row groups and pages are cut at various places.
	for lo := 0; lo < rows; {
		hi := min(rows, lo+1+r.IntN(rows))
		s := rec.NewSlice(int64(lo), int64(hi))
		if err := w.WriteBuffered(s); err != nil {
			// The same encoder failure, reported as an error: no file.
			s.Release()
			f.Close()
			t.Logf("seed %d: arrow-go cannot write the file: %v", seed, err)
			return "", false
		}
		s.Release()
		if r.IntN(4) == 0 {
			w.NewBufferedRowGroup()
		}
		lo = hi
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rows == 0 && fast != allFast {
		fast = true // no row group, so no encoding or codec to refuse
	}
	return path, fast
}

// pgRead reads path with the reader named by mode (ParquetReaderEnv) and a
// batch size, returning the schema, every column concatenated, the evidence
// and the first error.
func pgRead(t testing.TB, path, mode string, batch int) (*arrow.Schema, []arrow.Array, Evidence, error) {
	t.Setenv(ParquetReaderEnv, mode)
	src, err := Open(context.Background(), path, Options{BatchSize: batch})
	if err != nil {
		return nil, nil, Evidence{}, err
	}
	defer src.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for {
		rec, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			return src.Schema(), nil, src.Evidence(), err
		}
		if !rec.Schema().Equal(src.Schema()) {
			t.Fatalf("%s: batch schema differs from the source schema", mode)
		}
		if rec.NumRows() > int64(batch) {
			t.Fatalf("%s: batch of %d rows, limit %d", mode, rec.NumRows(), batch)
		}
		recs = append(recs, rec)
	}
	cols := concatColumns(t, src.Schema(), recs)
	return src.Schema(), cols, src.Evidence(), nil
}

// cellBytes returns value i of a as bytes: a fixed-width value's own bytes
// (floats by their IEEE bits, NaN payloads included), a boolean as 0/1, a
// variable-width value's bytes.
func cellBytes(t testing.TB, a arrow.Array, i int) []byte {
	switch a := a.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return []byte{1}
		}
		return []byte{0}
	case *array.String:
		return []byte(a.Value(i))
	case *array.LargeString:
		return []byte(a.Value(i))
	case *array.Binary:
		return a.Value(i)
	case *array.LargeBinary:
		return a.Value(i)
	}
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 {
		t.Fatalf("no comparison for %s", a.DataType())
	}
	w := fw.BitWidth() / 8
	off := (a.Data().Offset() + i) * w
	return a.Data().Buffers()[1].Bytes()[off : off+w]
}

// requireSameColumns fails unless a and b hold the same values bit for bit
// and the same nulls.
func requireSameColumns(t testing.TB, what string, a, b []arrow.Array) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d columns vs %d", what, len(a), len(b))
	}
	for c := range a {
		if !arrow.TypeEqual(a[c].DataType(), b[c].DataType()) || a[c].Len() != b[c].Len() || a[c].NullN() != b[c].NullN() {
			t.Fatalf("%s: column %d: %s len %d nulls %d vs %s len %d nulls %d", what, c, a[c].DataType(), a[c].Len(), a[c].NullN(), b[c].DataType(), b[c].Len(), b[c].NullN())
		}
		for i := 0; i < a[c].Len(); i++ {
			if a[c].IsNull(i) != b[c].IsNull(i) {
				t.Fatalf("%s: column %d row %d: null %v vs %v", what, c, i, a[c].IsNull(i), b[c].IsNull(i))
			}
			if a[c].IsValid(i) && !bytes.Equal(cellBytes(t, a[c], i), cellBytes(t, b[c], i)) {
				t.Fatalf("%s: column %d (%s) row %d: %x vs %x", what, c, a[c].DataType(), i, cellBytes(t, a[c], i), cellBytes(t, b[c], i))
			}
		}
	}
}

func release(cols []arrow.Array) {
	for _, c := range cols {
		c.Release()
	}
}

var pgFiles = flag.Int("parquetgo.files", 150, "random files of TestParquetGoDifferential")

// TestParquetGoDifferential writes random files with arrow-go and requires
// the parquet-go reader to return pqarrow's schema (field metadata included),
// values (bit for bit), nulls and coverage, and the automatic choice to pick
// parquet-go exactly for the files in its scope.
func TestParquetGoDifferential(t *testing.T) {
	n := *pgFiles
	if testing.Short() {
		n = 40
	}
	dir := t.TempDir()
	fastFiles, unwritten := 0, 0
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		path, fast := pgFile(t, r, dir, seed)
		if path == "" {
			unwritten++
			continue
		}
		what := fmt.Sprintf("seed %d (%s)", seed, path)
		bp, bg := 1+r.IntN(2000), 1+r.IntN(2000)
		sa, ca, ea, erra := pgRead(t, path, "pqarrow", bp)
		if erra != nil && fast {
			t.Fatalf("%s: pqarrow: %v", what, erra)
		}
		sg, cg, eg, errg := pgRead(t, path, "parquet-go", bg)
		if !fast {
			if CodeOf(errg) != CodeUnsupported {
				t.Fatalf("%s: parquet-go forced on an out-of-scope file: %v, want %s; schema %v", what, errg, CodeUnsupported, sa)
			}
			if erra != nil {
				continue // a type the adapter refuses (dictionary), or a file arrow-go cannot read back (DELTA_BINARY_PACKED)
			}
			_, _, eauto, err := pgRead(t, path, "auto", bg)
			if err != nil || !slices.Contains(eauto.Choices, choiceReaderPQArrow) {
				t.Fatalf("%s: auto on an out-of-scope file: %v, choices %v", what, err, eauto.Choices)
			}
			release(ca)
			continue
		}
		fastFiles++
		if errg != nil {
			t.Fatalf("%s: parquet-go: %v", what, errg)
		}
		if !sa.Equal(sg) || sa.String() != sg.String() {
			t.Fatalf("%s: schemas differ:\npqarrow    %s\nparquet-go %s", what, sa, sg)
		}
		for i := range sa.Fields() {
			if !sa.Field(i).Metadata.Equal(sg.Field(i).Metadata) {
				t.Fatalf("%s: field %d metadata %v vs %v", what, i, sa.Field(i).Metadata, sg.Field(i).Metadata)
			}
		}
		requireSameColumns(t, what, ca, cg)
		if !slices.Contains(ea.Choices, choiceReaderPQArrow) || !slices.Contains(eg.Choices, choiceReaderPQGo) {
			t.Fatalf("%s: reader choices %v / %v", what, ea.Choices, eg.Choices)
		}
		ca2 := ea.Coverage
		cg2 := eg.Coverage
		if ca2.Status != cg2.Status || ca2.Expected != cg2.Expected || ca2.Returned != cg2.Returned ||
			ca2.FailedRecords != cg2.FailedRecords || fmt.Sprint(ca2.Failures) != fmt.Sprint(cg2.Failures) {
			t.Fatalf("%s: coverage %+v vs %+v", what, ca2, cg2)
		}
		if ea.Version != eg.Version || ea.Namespace != eg.Namespace || ea.Adapter != eg.Adapter {
			t.Fatalf("%s: evidence %+v vs %+v", what, ea, eg)
		}
		_, _, eauto, err := pgRead(t, path, "", bg)
		if err != nil || !slices.Contains(eauto.Choices, choiceReaderPQGo) {
			t.Fatalf("%s: the automatic choice did not take parquet-go: %v %v", what, err, eauto.Choices)
		}
		release(ca)
		release(cg)
	}
	t.Logf("%d files: %d read by parquet-go and compared, %d left to pqarrow, %d not writable by arrow-go", n, fastFiles, n-fastFiles-unwritten, unwritten)
	if unwritten > n/20 {
		t.Fatalf("arrow-go could not write %d of %d files", unwritten, n)
	}
	if fastFiles < n/3 {
		t.Fatalf("only %d of %d files in the fast path's scope", fastFiles, n)
	}
}

// The file tests that read Parquet (damaged files, exclusion, file changes,
// batch bounds, widths) over each reader forced.
func TestParquetFileTestsBothReaders(t *testing.T) {
	for _, mode := range []string{"pqarrow", "auto"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv(ParquetReaderEnv, mode)
			t.Run("malformed", TestArrowFilesMalformed)
			t.Run("unsupported", TestArrowUnsupportedAndExclude)
			t.Run("changed", TestFileChangedDuringRead)
			t.Run("bounds", TestBatchBounds)
			t.Run("widths", TestSourceWidths)
		})
	}
}

func TestParquetReaderEnvInvalid(t *testing.T) {
	dir := t.TempDir()
	rec := confRecord(t)
	defer rec.Release()
	p := filepath.Join(dir, "c.parquet")
	writeParquet(t, p, rec, 2)
	t.Setenv(ParquetReaderEnv, "fastest")
	if _, err := Open(context.Background(), p, Options{}); CodeOf(err) != CodeOption {
		t.Fatalf("invalid %s: %v, want %s", ParquetReaderEnv, err, CodeOption)
	}
}

// TestParquetGoCorruptPages damages the bytes of the data pages (not the
// footer, which both readers share through arrow-go) of uncompressed and
// compressed files: every damage must end in values equal to pqarrow's or in
// a PW_SOURCE_CORRUPT error, never a panic or another code.
func TestParquetGoCorruptPages(t *testing.T) {
	dir := t.TempDir()
	for seed := range 4 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		var path string
		for {
			p, fast := pgFile(t, r, dir, 1000+seed)
			if fast && p != "" {
				path = p
				break
			}
		}
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		footer := int(uint32(orig[len(orig)-8]) | uint32(orig[len(orig)-7])<<8 | uint32(orig[len(orig)-6])<<16 | uint32(orig[len(orig)-5])<<24)
		pages := len(orig) - 8 - footer
		agree, corrupt := 0, 0
		for k := range 20 {
			data := bytes.Clone(orig)
			pos := 4 + r.IntN(max(pages-4, 1))
			data[pos] ^= byte(1 + r.IntN(255))
			if k%3 == 0 && pos+1 < pages {
				data[pos+1] = 0xff
			}
			p := filepath.Join(dir, fmt.Sprintf("d%d_%d.parquet", seed, k))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, ca, _, erra := pgRead(t, p, "pqarrow", 100)
			_, cg, _, errg := pgRead(t, p, "parquet-go", 100)
			for _, err := range []error{erra, errg} {
				if err != nil && CodeOf(err) != CodeCorrupt {
					var e *Error
					if !errors.As(err, &e) || e.Code != CodeUnsupported {
						t.Fatalf("seed %d damage %d: %v: want %s", seed, k, err, CodeCorrupt)
					}
				}
			}
			if erra == nil && errg == nil {
				requireSameColumns(t, fmt.Sprintf("seed %d damage %d", seed, k), ca, cg)
				agree++
			} else {
				corrupt++
			}
			release(ca)
			release(cg)
		}
		t.Logf("seed %d: %d damages read equal, %d failed with a code", seed, agree, corrupt)
	}
}

// groupsFile writes a Parquet file of row groups of the given sizes (nulls in
// the first group only; with dict, dictionary-encoded) and returns its path
// and the columns written, which are the expected values, built independently
// of either reader. Pages are small (512 bytes), so every column chunk has
// several.
func groupsFile(t *testing.T, groups []int, dict bool) (string, []arrow.Array) {
	t.Helper()
	rows := 0
	for _, g := range groups {
		rows += g
	}
	mem := memory.DefaultAllocator
	i64 := array.NewInt64Builder(mem)
	f64 := array.NewFloat64Builder(mem)
	str := array.NewStringBuilder(mem)
	i8 := array.NewInt8Builder(mem)
	bl := array.NewBooleanBuilder(mem)
	dec := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 18, Scale: 2})
	for i := range rows {
		if i < groups[0] && i%3 == 0 {
			for _, b := range []array.Builder{i64, f64, str, i8, bl, dec} {
				b.AppendNull()
			}
			continue
		}
		i64.Append(int64(i) * 1_000_003)
		f64.Append(float64(i) / 7)
		str.Append(fmt.Sprintf("value %d %s", i, string(rune('a'+i%26))))
		i8.Append(int8(i))
		bl.Append(i%5 < 2)
		dec.Append(decimal128.FromI64(int64(i) - 500))
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, b := range []array.Builder{i64, f64, str, i8, bl, dec} {
		a := b.NewArray()
		b.Release()
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: a.DataType(), Nullable: true})
		cols = append(cols, a)
	}
	t.Cleanup(func() { release(cols) })
	sc := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sc, cols, int64(rows))
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "groups.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := pq.NewWriterProperties(pq.WithDictionaryDefault(dict), pq.WithDataPageSize(512),
		pq.WithCompression(compress.Codecs.Snappy), pq.WithMaxRowGroupLength(1000))
	w, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	lo := 0
	for _, g := range groups {
		s := rec.NewSlice(int64(lo), int64(lo+g))
		if err := w.WriteBuffered(s); err != nil {
			t.Fatal(err)
		}
		s.Release()
		w.NewBufferedRowGroup()
		lo += g
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, cols
}

// TestParquetGoHeldBatchesIntact requires every batch to keep its values
// after the reader has moved on: batches share their row group's decoded
// buffers, so a reader that decoded a later row group into them would show
// its values in the held batches. The file has row groups of different sizes
// (a larger one after a smaller one; nulls in the first only, so a validity
// bitmap must not leak into the next).
func TestParquetGoHeldBatchesIntact(t *testing.T) {
	for _, dict := range []bool{false, true} {
		path, cols := groupsFile(t, []int{100, 300, 7, 250}, dict)
		// pgRead holds every batch until the end before concatenating them.
		_, got, ev, err := pgRead(t, path, "parquet-go", 64)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ev.Choices, choiceReaderPQGo) {
			t.Fatalf("dictionary %v: choices %v", dict, ev.Choices)
		}
		requireSameColumns(t, fmt.Sprintf("dictionary %v", dict), cols, got)
		release(got)
	}
}

// rowsOf returns rows [lo, hi) of the columns cols as slices (to be released).
func rowsOf(cols []arrow.Array, lo, hi int) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = array.NewSlice(c, int64(lo), int64(hi))
	}
	return out
}

// requireRows fails unless rec holds rows [lo, lo+rec.NumRows()) of the columns want.
func requireRows(t *testing.T, what string, want []arrow.Array, lo int, rec arrow.RecordBatch) {
	t.Helper()
	n := int(rec.NumRows())
	w := rowsOf(want, lo, lo+n)
	defer release(w)
	requireSameColumns(t, fmt.Sprintf("%s: rows %d..%d", what, lo, lo+n), w, rec.Columns())
}

// eachBatch reads src to the end, requires every batch to hold the next rows of want as
// it is read, and hands it to use, which owns it, with its first row. It returns the
// rows read.
func eachBatch(t *testing.T, what string, src Source, want []arrow.Array, use func(rec arrow.RecordBatch, row int)) int {
	t.Helper()
	row := 0
	for {
		rec, err := src.Next(context.Background())
		if err == io.EOF {
			return row
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		requireRows(t, what+" as read", want, row, rec)
		n := int(rec.NumRows())
		use(rec, row)
		row += n
	}
}

// TestParquetGoGroupReuse: a row group's memory is decoded into again only
// when every batch over it has been released, and then it is. Batches are
// released as they are read, except those of the second row group, which are
// held (one of them only through a slice of it) until after the source is
// closed and must still hold the written values. Synchronously: the first
// group's memory is reused by the second (its batches are all released), the
// third needs new memory (the second's is held), the fourth reuses the
// third's: exactly 2 allocations for 4 groups. Asynchronously (released on
// other goroutines after a delay, as the scan's encoders do; a race-detector
// test): the same values, whatever the allocations.
func TestParquetGoGroupReuse(t *testing.T) {
	groups := []int{100, 300, 7, 250}
	t.Setenv(ParquetReaderEnv, "parquet-go")
	for _, async := range []bool{false, true} {
		for _, dict := range []bool{false, true} {
			name := fmt.Sprintf("async %v dictionary %v", async, dict)
			path, want := groupsFile(t, groups, dict)
			src, err := Open(context.Background(), path, Options{BatchSize: 64})
			if err != nil {
				t.Fatal(err)
			}
			pg, ok := src.(*parquetGoSource)
			if !ok {
				t.Fatalf("%s: %T, not the parquet-go reader", name, src)
			}
			type heldBatch struct {
				rec arrow.RecordBatch
				lo  int // its first row in the file
			}
			var held []heldBatch
			var wg sync.WaitGroup
			row := eachBatch(t, name, src, want, func(rec arrow.RecordBatch, row int) {
				switch {
				case row >= groups[0] && row < groups[0]+groups[1]:
					if len(held) == 1 { // held through a slice only
						s := rec.NewSlice(1, rec.NumRows())
						rec.Release()
						held = append(held, heldBatch{s, row + 1})
					} else {
						held = append(held, heldBatch{rec, row})
					}
				case async:
					delay := time.Duration(row%7) * time.Millisecond
					wg.Go(func() {
						time.Sleep(delay)
						rec.Release()
					})
				default:
					rec.Release()
				}
			})
			wg.Wait()
			if row != 657 {
				t.Fatalf("%s: %d rows read", name, row)
			}
			// Group 2 is held; the others reuse released memory, except that the
			// group decoded ahead may need one more while the current one is cut.
			if !async && (pg.pool.fresh < 2 || pg.pool.fresh > 3) {
				t.Errorf("%s: %d row group memories allocated for 4 groups, want 2 or 3 (reuse of released ones only, and one decoded ahead)", name, pg.pool.fresh)
			}
			if err := src.Close(); err != nil {
				t.Fatal(err)
			}
			if len(held) < 2 {
				t.Fatalf("%s: %d batches held", name, len(held))
			}
			for _, h := range held {
				requireRows(t, name+": held after the rest was read", want, h.lo, h.rec)
				h.rec.Release()
			}
			if len(pg.pool.idle) != 0 {
				t.Errorf("%s: a closed source keeps %d row group memories for reuse", name, len(pg.pool.idle))
			}
		}
	}
}

// batchDigest is every cell of rec (bytes, nulls) as one string, to compare a batch
// with itself later.
func batchDigest(t *testing.T, rec arrow.RecordBatch) string {
	var b strings.Builder
	for _, c := range rec.Columns() {
		for i := 0; i < c.Len(); i++ {
			if c.IsNull(i) {
				b.WriteString("\x00null")
				continue
			}
			fmt.Fprintf(&b, "\x00%x", cellBytes(t, c, i))
		}
	}
	return b.String()
}

// TestParquetGoReleasedPromptly: with Options.ReleasedPromptly the reader decodes a row
// group ahead into memory whose batches have all been released, waiting for them: at most
// two row groups' memory for the whole file (the one batches are cut from and the next). Batches are released on other goroutines after
// a delay, each first compared with itself as read, so a row group decoded into memory
// a batch still uses would show. A batch held across a row group boundary makes Next
// wait until its context ends: then PW_SOURCE_INCOMPLETE, and Close returns.
func TestParquetGoReleasedPromptly(t *testing.T) {
	t.Setenv(ParquetReaderEnv, "parquet-go")
	groups := []int{100, 300, 7, 250}
	for _, dict := range []bool{false, true} {
		path, want := groupsFile(t, groups, dict)
		src, err := Open(context.Background(), path, Options{BatchSize: 64, ReleasedPromptly: true})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		row := eachBatch(t, fmt.Sprintf("dictionary %v", dict), src, want, func(rec arrow.RecordBatch, row int) {
			d, delay := batchDigest(t, rec), time.Duration(row%5)*time.Millisecond
			wg.Go(func() {
				time.Sleep(delay)
				if batchDigest(t, rec) != d {
					t.Errorf("dictionary %v: a batch changed before it was released", dict)
				}
				rec.Release()
			})
		})
		wg.Wait()
		if pg := src.(*parquetGoSource); row != 657 || pg.pool.fresh < 1 || pg.pool.fresh > 2 {
			t.Fatalf("dictionary %v: %d rows, %d row group memories allocated, want 657 and at most 2", dict, row, pg.pool.fresh)
		}
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
	}

	// Batches of the first two row groups held while asking for the third: its decoding
	// ahead waits for memory under the earlier calls' context, and Next waits until its
	// own context ends.
	path, _ := groupsFile(t, groups, false)
	src, err := Open(context.Background(), path, Options{BatchSize: 1000, ReleasedPromptly: true})
	if err != nil {
		t.Fatal(err)
	}
	var held []arrow.RecordBatch
	for range 2 {
		rec, err := src.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, rec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if rec, err := src.Next(ctx); rec != nil || CodeOf(err) != CodeIncomplete {
		t.Fatalf("Next with the first two row groups' batches held: %v, %v; want %s", rec, err, CodeIncomplete)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	for _, rec := range held {
		rec.Release()
	}
}

// TestParquetGoCloseAhead: Close while the next row group is being decoded ahead, or is
// waiting for memory that a held batch keeps, returns, and leaves no goroutine behind;
// a batch read before stays intact.
func TestParquetGoCloseAhead(t *testing.T) {
	t.Setenv(ParquetReaderEnv, "parquet-go")
	path, _ := groupsFile(t, []int{100, 300, 7, 250}, false)
	for _, promptly := range []bool{false, true} {
		before := runtime.NumGoroutine()
		// With ReleasedPromptly a third read holding two row groups' batches would
		// wait for ever (TestParquetGoReleasedPromptly); two reads leave the third
		// group's decoding ahead waiting for memory, which Close must stop.
		for reads := 1; reads <= 3 && (!promptly || reads <= 2); reads++ {
			src, err := Open(context.Background(), path, Options{BatchSize: 1000, ReleasedPromptly: promptly})
			if err != nil {
				t.Fatal(err)
			}
			var held []arrow.RecordBatch
			for range reads {
				rec, err := src.Next(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, rec)
			}
			if err := src.Close(); err != nil {
				t.Fatal(err)
			}
			if d := batchDigest(t, held[0]); d != batchDigest(t, held[0]) || held[0].NumRows() != 100 {
				t.Fatalf("promptly %v, %d reads: the first batch changed after Close", promptly, reads)
			}
			for _, rec := range held {
				rec.Release()
			}
		}
		for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("promptly %v: %d goroutines after Close, %d before", promptly, n, before)
		}
	}
}

// TestParquetGoGroupRowsCap: a row group above maxParquetGoGroupRows goes to pqarrow (it
// streams batches; the parquet-go reader holds a whole row group), recorded as the
// reader choice; demanding parquet-go for such a file is CodeUnsupported.
func TestParquetGoGroupRowsCap(t *testing.T) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 400 {
		b.Append(int64(i))
	}
	col := b.NewArray()
	b.Release()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, 400)
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "groups.parquet")
	writeParquet(t, path, rec, 300) // row groups of 300 and 100 rows

	reader := func() (string, error) {
		src, err := Open(context.Background(), path, Options{})
		if err != nil {
			return "", err
		}
		defer src.Close()
		for _, c := range src.Evidence().Choices {
			if strings.HasPrefix(c, "reader=") {
				return c, nil
			}
		}
		return "", nil
	}
	old := maxParquetGoGroupRows
	t.Cleanup(func() { maxParquetGoGroupRows = old })
	for _, c := range []struct {
		limit int64
		want  string
	}{{300, choiceReaderPQGo}, {299, choiceReaderPQArrow}} {
		maxParquetGoGroupRows = c.limit
		if got, err := reader(); err != nil || got != c.want {
			t.Fatalf("limit %d: reader %q, %v; want %q", c.limit, got, err, c.want)
		}
	}
	t.Setenv(ParquetReaderEnv, "parquet-go")
	if _, err := reader(); CodeOf(err) != CodeUnsupported {
		t.Fatalf("parquet-go demanded for a 300-row group over a 299 limit: %v", err)
	}
}

// editPageHeader returns a copy of the Parquet file orig in which page
// number page (counting a dictionary page) of column col in the first row
// group has its header changed by edit, the header re-encoded in place and
// the footer's offsets and chunk sizes moved by the change in header length,
// so that only the edited fields are inconsistent.
func editPageHeader(t testing.TB, orig []byte, col, page int, edit func(*format.PageHeader)) []byte {
	t.Helper()
	proto := new(thrift.CompactProtocol)
	n := len(orig)
	flen := int(binary.LittleEndian.Uint32(orig[n-8:]))
	var md format.FileMetaData
	if err := thrift.Unmarshal(proto, orig[n-8-flen:n-8], &md); err != nil {
		t.Fatal(err)
	}
	cm := &md.RowGroups[0].Columns[col].MetaData
	off := cm.DataPageOffset
	if cm.DictionaryPageOffset != 0 {
		off = cm.DictionaryPageOffset
	}
	end := off + cm.TotalCompressedSize
	var h format.PageHeader
	var hlen int
	for i := 0; ; i++ {
		if off >= end {
			t.Fatalf("column %d has no page %d", col, page)
		}
		r := proto.NewReaderFromBytes(orig[off:])
		h = format.PageHeader{}
		if err := thrift.NewDecoder(r).Decode(&h); err != nil {
			t.Fatal(err)
		}
		hlen = r.BytesRead()
		if i == page {
			break
		}
		off += int64(hlen) + int64(h.CompressedPageSize)
	}
	edit(&h)
	nh, err := thrift.Marshal(proto, &h)
	if err != nil {
		t.Fatal(err)
	}
	delta := int64(len(nh) - hlen)
	shift := func(o *int64) {
		if *o > off {
			*o += delta
		}
	}
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		shift(&rg.FileOffset)
		for c := range rg.Columns {
			cc := &rg.Columns[c]
			shift(&cc.FileOffset)
			shift(&cc.OffsetIndexOffset)
			shift(&cc.ColumnIndexOffset)
			shift(&cc.MetaData.DataPageOffset)
			shift(&cc.MetaData.DictionaryPageOffset)
			shift(&cc.MetaData.IndexPageOffset)
			shift(&cc.MetaData.BloomFilterOffset)
		}
	}
	cm.TotalCompressedSize += delta
	cm.TotalUncompressedSize += delta
	md.RowGroups[0].TotalCompressedSize += delta
	footer, err := thrift.Marshal(proto, &md)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Concat(orig[:off], nh, orig[off+int64(hlen):n-8-flen], footer)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// TestParquetGoPageHeaderBounds damages one count or size in a page header
// of a valid file (a string column and an optional int64 column, 10 rows in
// one row group) to a value the file cannot hold: the parquet-go reader must
// fail with PW_SOURCE_CORRUPT before parquet-go sizes buffers by the damaged
// field. Before page headers were checked, each of these allocated hundreds
// of MiB (levels, offsets, dictionary or decompression buffers of the claimed
// size) and spent seconds decoding; the allocation bound makes that visible
// without timing the test.
func TestParquetGoPageHeaderBounds(t *testing.T) {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 10 {
		// Three values of 40 bytes, so that arrow-go keeps a dictionary
		// (it falls back to PLAIN when a dictionary saves no space).
		sb.Append(fmt.Sprintf("%039d", i%3))
		if i%4 == 1 {
			ib.AppendNull()
		} else {
			ib.Append(int64(i))
		}
	}
	cols := []arrow.Array{sb.NewArray(), ib.NewArray()}
	sb.Release()
	ib.Release()
	defer release(cols)
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, cols, 10)
	defer rec.Release()
	dir := t.TempDir()
	write := func(name string, props ...pq.WriterProperty) []byte {
		p := filepath.Join(dir, name)
		writeParquetWith(t, p, rec, props...)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plainV1 := write("plain1.parquet", pq.WithDictionaryDefault(false))
	plainV2 := write("plain2.parquet", pq.WithDictionaryDefault(false), pq.WithDataPageVersion(pq.DataPageV2))
	dict := write("dict.parquet", pq.WithDictionaryDefault(true))
	snappy := write("snappy.parquet", pq.WithDictionaryDefault(false), pq.WithCompression(compress.Codecs.Snappy))
	const huge = 100_000_000
	cases := []struct {
		name      string
		file      []byte
		col, page int
		edit      func(*format.PageHeader)
	}{
		{"unchanged", plainV1, 0, 0, nil},
		{"unchanged-v2", plainV2, 1, 0, nil},
		{"unchanged-dictionary", dict, 0, 1, nil},
		{"unchanged-snappy", snappy, 0, 0, nil},
		{"v1-num-values", plainV1, 0, 0, func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = huge }},
		{"v1-num-values-optional", plainV1, 1, 0, func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = huge }},
		{"v1-num-values-one-extra", plainV1, 0, 0, func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = 11 }},
		{"v2-num-values", plainV2, 1, 0, func(h *format.PageHeader) {
			h.DataPageHeaderV2.V.NumValues, h.DataPageHeaderV2.V.NumRows = huge, huge
		}},
		{"v2-num-nulls", plainV2, 1, 0, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumNulls = 11 }},
		{"v2-levels-length", plainV2, 1, 0, func(h *format.PageHeader) {
			h.DataPageHeaderV2.V.DefinitionLevelsByteLength = h.CompressedPageSize + 1
		}},
		{"dictionary-num-values", dict, 0, 0, func(h *format.PageHeader) { h.DictionaryPageHeader.V.NumValues = huge }},
		{"data-page-on-dictionary", dict, 0, 1, func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = huge }},
		{"uncompressed-size", snappy, 0, 0, func(h *format.PageHeader) { h.UncompressedPageSize = 1 << 30 }},
	}
	for _, c := range cases {
		data := c.file
		if c.edit != nil {
			data = editPageHeader(t, c.file, c.col, c.page, c.edit)
		}
		p := filepath.Join(dir, c.name+".parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, got, _, err := pgRead(t, p, "parquet-go", 100)
		runtime.ReadMemStats(&after)
		if c.edit == nil {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			requireSameColumns(t, c.name, cols, got)
		} else if CodeOf(err) != CodeCorrupt {
			t.Errorf("%s: %v, want %s", c.name, err, CodeCorrupt)
		}
		release(got)
		if a := after.TotalAlloc - before.TotalAlloc; a > 32<<20 {
			t.Errorf("%s: %d MiB allocated reading a %d-byte file", c.name, a>>20, len(data))
		}
	}
	// Both columns damaged: the columns of a row group decode concurrently,
	// and the error is the first column's whichever fails first.
	oneExtra := func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = 11 }
	both := editPageHeader(t, editPageHeader(t, plainV1, 0, 0, oneExtra), 1, 0, oneExtra)
	p := filepath.Join(dir, "both.parquet")
	if err := os.WriteFile(p, both, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		_, got, _, err := pgRead(t, p, "parquet-go", 100)
		release(got)
		if CodeOf(err) != CodeCorrupt || !strings.Contains(err.Error(), "column 1:") {
			t.Fatalf("both columns damaged: %v, want %s naming column 1", err, CodeCorrupt)
		}
	}
}

// TestRowGroupBuffersAdvised: a row group's column buffers (megabytes each, written once
// from start to end) are allocated advised for huge pages.
func TestRowGroupBuffersAdvised(t *testing.T) {
	var b pgBuf
	b.reset(pgInt64, 1<<20, 0)
	advised, err := hugemem.Advised(b.i64)
	if errors.Is(err, hugemem.ErrUnobservable) {
		testenv.Missing(t, testenv.HugePages, "%v", err)
	}
	if err != nil || !advised {
		t.Fatalf("an 8 MB column buffer is not advised for huge pages (%v)", err)
	}
}
