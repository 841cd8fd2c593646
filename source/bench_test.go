package source

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/internal/cputime"
)

// Benchmark data: N rows × 5 columns (id int64, customer int64, amount
// float64, status text, note text) in every format. N is 1<<20, or
// PW_BENCH_ROWS, or 1<<16 with -short.
var (
	benchOnce sync.Once
	benchDir  string
	benchRows int
	benchErr  error
)

var benchColumns = []Column{{"id", "int64"}, {"customer", "int64"}, {"amount", "float64"}, {"status", "text"}, {"note", "text"}}

func benchData(b *testing.B) string {
	benchOnce.Do(func() {
		benchRows = 1 << 20
		if testing.Short() {
			benchRows = 1 << 16
		}
		if s := os.Getenv("PW_BENCH_ROWS"); s != "" {
			benchRows, _ = strconv.Atoi(s)
		}
		benchDir, benchErr = os.MkdirTemp("", "pwbench")
		if benchErr != nil {
			return
		}
		statuses := []string{"paid", "shipped", "cancelled", "refunded"}
		var csv, jl strings.Builder
		csv.WriteString("id,customer,amount,status,note\n")
		mem := memory.DefaultAllocator
		sc := arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "customer", Type: arrow.PrimitiveTypes.Int64},
			{Name: "amount", Type: arrow.PrimitiveTypes.Float64}, {Name: "status", Type: arrow.BinaryTypes.String},
			{Name: "note", Type: arrow.BinaryTypes.String},
		}, nil)
		rb := array.NewRecordBuilder(mem, sc)
		for i := 0; i < benchRows; i++ {
			cust := int64(i*7919) % 100000
			amount := float64(i%100000) / 4
			st := statuses[i%4]
			note := fmt.Sprintf("order note %d", i%1000)
			fmt.Fprintf(&csv, "%d,%d,%s,%s,%s\n", i, cust, strconv.FormatFloat(amount, 'g', -1, 64), st, note)
			fmt.Fprintf(&jl, `{"id":%d,"customer":%d,"amount":%s,"status":"%s","note":"%s"}`+"\n", i, cust, strconv.FormatFloat(amount, 'f', -1, 64), st, note)
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
			rb.Field(1).(*array.Int64Builder).Append(cust)
			rb.Field(2).(*array.Float64Builder).Append(amount)
			rb.Field(3).(*array.StringBuilder).Append(st)
			rb.Field(4).(*array.StringBuilder).Append(note)
		}
		rec := rb.NewRecordBatch()
		defer rec.Release()
		writeFile(b, benchDir, "b.csv", []byte(csv.String()))
		writeFile(b, benchDir, "b.jsonl", []byte(jl.String()))
		// The same records as one JSON array, one element per line.
		writeFile(b, benchDir, "b.json", []byte("["+strings.ReplaceAll(strings.TrimSuffix(jl.String(), "\n"), "\n", ",\n")+"]\n"))
		writeParquet(b, filepath.Join(benchDir, "b.parquet"), rec, 1<<17)
		writeIPC(b, filepath.Join(benchDir, "b.arrow"), rec, false, 1<<16)
		writeIPC(b, filepath.Join(benchDir, "b.arrows"), rec, true, 1<<16)
		db := sqliteExec(b, filepath.Join(benchDir, "b.db"), "CREATE TABLE b(id INTEGER, customer INTEGER, amount REAL, status TEXT, note TEXT)")
		tx, _ := db.Begin()
		st, _ := tx.Prepare("INSERT INTO b VALUES (?, ?, ?, ?, ?)")
		ids, custs, amts := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64), rec.Column(2).(*array.Float64)
		sts, notes := rec.Column(3).(*array.String), rec.Column(4).(*array.String)
		for i := 0; i < benchRows; i++ {
			if _, err := st.Exec(ids.Value(i), custs.Value(i), amts.Value(i), sts.Value(i), notes.Value(i)); err != nil {
				benchErr = err
				return
			}
		}
		st.Close()
		benchErr = tx.Commit()
		db.Close()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapBytes() uint64 {
	metrics.Read(heapSample)
	return heapSample[0].Value.Uint64()
}

func benchRead(b *testing.B, name string, opts Options) {
	dir := benchData(b)
	addr := filepath.Join(dir, name)
	size := int64(0)
	if strings.HasPrefix(name, "sqlite:") {
		addr = "sqlite:" + filepath.Join(dir, strings.TrimPrefix(name, "sqlite:"))
		fi, _ := os.Stat(filepath.Join(dir, "b.db"))
		size = fi.Size()
	} else {
		fi, _ := os.Stat(addr)
		size = fi.Size()
	}
	b.SetBytes(size)
	runtime.GC()
	base := heapBytes()
	peak := uint64(0)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		src, err := Open(context.Background(), addr, opts)
		if err != nil {
			b.Fatal(err)
		}
		rows := int64(0)
		for {
			rec, err := src.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows += rec.NumRows()
			rec.Release()
			if h := heapBytes(); h > peak {
				peak = h
			}
		}
		if c := src.Evidence().Coverage; c.Status != StatusComplete || rows != int64(benchRows) {
			b.Fatalf("coverage %+v rows %d", c, rows)
		}
		src.Close()
	}
	b.StopTimer()
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	if peak > base {
		b.ReportMetric(float64(peak-base)/(1<<20), "peak-heap-MiB")
	}
}

func BenchmarkReadCSV(b *testing.B)     { benchReadCPU(b, "b.csv", Options{Columns: benchColumns}) }
func BenchmarkReadCSVText(b *testing.B) { benchReadCPU(b, "b.csv", Options{}) }

// benchReadCPU is benchRead plus the process CPU time (user+sys, all
// goroutines and the GC) per read and rows per CPU-second, the steadier
// figures on a shared machine. The data is generated before the clock starts.
func benchReadCPU(b *testing.B, name string, opts Options) {
	benchData(b)
	cpu := cputime.Process().Seconds()
	benchRead(b, name, opts)
	if d := cputime.Process().Seconds() - cpu; d > 0 {
		b.ReportMetric(d/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(benchRows)*float64(b.N)/d, "rows/cpu-s")
	}
}

// BenchmarkReadCSVScanShape reads the row shape of bench/gen and
// bench/csvscan.sh (id int64, qty int64, price float64, name 12-char text,
// at timestamp(us)) with that schema: the timestamp column is where the
// per-cell cost of a CSV adapter shows.
func BenchmarkReadCSVScanShape(b *testing.B) {
	dir := benchData(b)
	p := filepath.Join(dir, "shape.csv")
	if _, err := os.Stat(p); err != nil {
		var csv strings.Builder
		csv.WriteString("id,qty,price,name,at\n")
		for i := 0; i < benchRows; i++ {
			at := time.UnixMicro(1_790_000_000_000_000 + int64(i)*1_000_003).UTC()
			fmt.Fprintf(&csv, "%d,%d,%s,%012x,%s\n", i, (i*7919)%100000, strconv.FormatFloat(float64(i%100000)/4, 'f', -1, 64),
				(uint64(i)*2654435761)&0xffffffffffff, at.Format("2006-01-02T15:04:05.999999"))
		}
		writeFile(b, dir, "shape.csv", []byte(csv.String()))
	}
	benchReadCPU(b, "shape.csv", Options{Columns: []Column{{"id", "int64"}, {"qty", "int64"}, {"price", "float64"}, {"name", "text"}, {"at", "timestamp(us)"}}})
}

func BenchmarkReadJSONL(b *testing.B)       { benchReadCPU(b, "b.jsonl", Options{Columns: benchColumns}) }
func BenchmarkReadJSONArray(b *testing.B)   { benchReadCPU(b, "b.json", Options{Columns: benchColumns}) }
func BenchmarkReadParquet(b *testing.B)     { benchRead(b, "b.parquet", Options{}) }
func BenchmarkReadArrowFile(b *testing.B)   { benchRead(b, "b.arrow", Options{}) }
func BenchmarkReadArrowStream(b *testing.B) { benchRead(b, "b.arrows", Options{}) }
func BenchmarkReadSQLite(b *testing.B)      { benchRead(b, "sqlite:b.db#b", Options{}) }

// TestMain removes the benchmark data after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
