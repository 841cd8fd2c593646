package mysql

import (
	"context"
	"io"
	"testing"

	"github.com/pipewhy/pipewhy/source"
)

// BenchmarkRead reads a generated table of 1M rows × 5 columns (BIGINT,
// BIGINT, DOUBLE, VARCHAR ~12 chars, TIMESTAMP) per iteration and reports
// rows/s. bench/mysql.sh runs it next to the mariadb client's floor.
func BenchmarkRead(b *testing.B) {
	const n = 1_000_000
	s := newServer(b)
	makeBig(b, s, n)
	b.ResetTimer()
	for b.Loop() {
		src, err := OpenAddress(context.Background(), s.table("big"), source.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
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
		}
		src.Close()
		if rows != n {
			b.Fatalf("%d rows", rows)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
