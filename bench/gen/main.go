// Command gen writes the deterministic Parquet (and optionally CSV) file that
// bench/scan.sh scans: ROWS rows of five columns
//
//	id    int64          0, 1, 2, ... (unique: the key of record-resolution scans)
//	qty   int64          pseudo-random in [0, 100000)
//	price double         pseudo-random cents / 100, plain encoding (no dictionary)
//	name  utf8           12 ASCII characters, pseudo-random
//	at    timestamp(us)  no zone, 1_790_000_000 s + id * 1.000003 s
//
// in row groups of -rowgroup rows (default 1,000,000). The values are a pure
// function of (-seed, row number), so two runs write identical files.
// -mutate K changes qty in K rows spread evenly over the file (row
// i*ROWS/K + ROWS/(2K) gets qty+1), which gives a second version of the data
// set for pipewhy diff: exactly K records changed, none added or removed.
//
// The price column is written without dictionary encoding: arrow-go's
// dictionary writer keys float64 values by value, which would merge NaN
// payloads (see source/duckdb/conformance_test.go); the benchmark data has no
// NaNs, but the file layout should be one a NaN-carrying file could use.
//
//	go run ./bench/gen -rows 1000000 -out /tmp/b/v1.parquet [-csv /tmp/b/v1.csv] [-mutate 10]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

const (
	baseMicros = 1_790_000_000_000_000 // 2026-09-21T14:13:20 (UTC), any fixed instant
	alphabet   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
)

// splitmix64 is the SplitMix64 output function: a bijective mix of x.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// row holds the values of row i.
type row struct {
	id, qty int64
	price   float64
	name    [12]byte
	at      int64
}

func makeRow(seed uint64, i int64, r *row) {
	h := splitmix64(seed ^ uint64(i)*0x2545f4914f6cdd1d)
	r.id = i
	r.qty = int64(h % 100_000)
	r.price = float64(int64(splitmix64(h)%100_000_000)) / 100
	n := splitmix64(h ^ 0x5bd1e995)
	for k := range r.name {
		r.name[k] = alphabet[n&63]
		n >>= 5
	}
	r.at = baseMicros + i*1_000_003
}

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "qty", Type: arrow.PrimitiveTypes.Int64},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64},
	{Name: "name", Type: arrow.BinaryTypes.String},
	{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
}, nil)

func main() {
	rows := flag.Int64("rows", 10_000_000, "number of rows")
	out := flag.String("out", "", "Parquet file to write (required)")
	csvOut := flag.String("csv", "", "also write the same rows as CSV to this file")
	seed := flag.Uint64("seed", 1, "seed of the pseudo-random values")
	mutate := flag.Int64("mutate", 0, "change qty in this many rows, spread evenly (a second version)")
	rowGroup := flag.Int64("rowgroup", 1_000_000, "rows per row group")
	flag.Parse()
	if *out == "" || *rows < 0 || *rowGroup <= 0 || *mutate < 0 || *mutate > *rows {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*rows, *out, *csvOut, *seed, *mutate, *rowGroup); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// mutated returns the k changed rows of n: j*n/k + n/(2k) for j = 0..k-1.
func mutated(n, k int64) map[int64]bool {
	m := make(map[int64]bool, k)
	for j := int64(0); j < k; j++ {
		m[j*n/k+n/(2*k)] = true
	}
	return m
}

func run(rows int64, out, csvOut string, seed uint64, mutate, rowGroup int64) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	props := parquet.NewWriterProperties(
		parquet.WithMaxRowGroupLength(rowGroup),
		parquet.WithDictionaryFor("price", false),
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("pipewhy bench/gen"),
	)
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	var cw *bufio.Writer
	if csvOut != "" {
		cf, err := os.Create(csvOut)
		if err != nil {
			return err
		}
		defer cf.Close()
		cw = bufio.NewWriterSize(cf, 1<<20)
		cw.WriteString("id,qty,price,name,at\n")
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	qtys := b.Field(1).(*array.Int64Builder)
	prices := b.Field(2).(*array.Float64Builder)
	names := b.Field(3).(*array.StringBuilder)
	ats := b.Field(4).(*array.TimestampBuilder)
	var r row
	var line []byte
	changed := int64(0)
	change := mutated(rows, mutate)
	for start := int64(0); start < rows; start += rowGroup {
		end := min(start+rowGroup, rows)
		n := int(end - start)
		ids.Reserve(n)
		qtys.Reserve(n)
		prices.Reserve(n)
		names.Reserve(n)
		names.ReserveData(12 * n)
		ats.Reserve(n)
		for i := start; i < end; i++ {
			makeRow(seed, i, &r)
			if change[i] {
				r.qty++
				changed++
			}
			ids.UnsafeAppend(r.id)
			qtys.UnsafeAppend(r.qty)
			prices.UnsafeAppend(r.price)
			names.BinaryBuilder.Append(r.name[:])
			ats.UnsafeAppend(arrow.Timestamp(r.at))
			if cw != nil {
				line = strconv.AppendInt(line[:0], r.id, 10)
				line = append(line, ',')
				line = strconv.AppendInt(line, r.qty, 10)
				line = append(line, ',')
				line = strconv.AppendFloat(line, r.price, 'f', -1, 64)
				line = append(line, ',')
				line = append(line, r.name[:]...)
				line = append(line, ',')
				line = arrow.Timestamp(r.at).ToTime(arrow.Microsecond).AppendFormat(line, "2006-01-02T15:04:05.999999")
				line = append(line, '\n')
				cw.Write(line)
			}
		}
		rec := b.NewRecordBatch()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if cw != nil {
		if err := cw.Flush(); err != nil {
			return err
		}
	}
	if changed != mutate {
		return fmt.Errorf("internal: %d rows changed, want %d", changed, mutate)
	}
	return nil
}
