package postgres

import (
	"context"
	"io"
	"testing"

	"github.com/pipewhy/pipewhy/source"
)

const benchRows = 1000000

// benchTable creates the 1M × 5 table (int8, int8, float8, text ~12
// characters, timestamp) once per benchmark.
func benchTable(b *testing.B) string {
	conn := server(b)
	sch := schema(b, conn)
	exec(b, conn, bigTableSQL(sch+".bench", benchRows))
	exec(b, conn, "VACUUM ANALYZE "+sch+".bench")
	return sch
}

// BenchmarkRead: the adapter's full read (connect, snapshot, COUNT(*),
// binary rows decoded into Arrow batches of 16384 rows).
func BenchmarkRead(b *testing.B) {
	sch := benchTable(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src, err := Open(ctx, addr(sch, "bench"), source.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
		for {
			rec, err := src.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows += rec.NumRows()
			rec.Release()
		}
		src.Close()
		if rows != benchRows {
			b.Fatalf("rows %d", rows)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCopyFloor: the floor of pulling the same data out of the
// server, COPY … TO STDOUT (FORMAT binary) into io.Discard, no decoding.
func BenchmarkCopyFloor(b *testing.B) {
	sch := benchTable(b)
	conn := server(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := conn.CopyTo(ctx, io.Discard, "COPY "+sch+".bench TO STDOUT (FORMAT binary)"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
