package postgres

import (
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/source"
)

// bigTableSQL creates a generated table of n rows × 5 columns (int8, int8,
// float8, text of 12 characters, timestamp) on the server side.
func bigTableSQL(table string, n int) string {
	return "CREATE TABLE " + table + " AS SELECT g::int8 AS id, (g::int8 * 7919 % 1000003) AS k, g * 0.25::float8 AS x, " +
		"lpad(to_hex(g), 12, 'a') AS s, timestamp '2020-01-01' + g * interval '1 second' AS ts FROM generate_series(1, " + itoa(uint32(n)) + ") g"
}

// TestLargeTableBoundedMemory reads 1 million rows and checks that batches
// stream: the live heap after each batch stays far below the size of the
// table's Arrow data (about 45 MB), and every row arrives exactly once.
func TestLargeTableBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1 million rows: skipped in -short mode")
	}
	conn := server(t)
	sch := schema(t, conn)
	const n = 1000000
	exec(t, conn, bigTableSQL(sch+".big", n))
	src := openT(t, addr(sch, "big"), source.Options{BatchSize: 8192})
	ctx := context.Background()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	var rows, sum int64
	batches := 0
	for {
		rec, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() > 8192 {
			t.Fatalf("batch of %d rows", rec.NumRows())
		}
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			sum += ids.Value(i)
		}
		rows += rec.NumRows()
		batches++
		if batches%16 == 0 {
			// Measure live memory while this batch is still held.
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak {
				peak = ms.HeapAlloc
			}
		}
		rec.Release()
	}
	if rows != n || sum != int64(n)*(n+1)/2 {
		t.Fatalf("rows %d sum %d", rows, sum)
	}
	if cv := src.Evidence().Coverage; cv.Status != source.StatusComplete || cv.Expected != n {
		t.Fatalf("coverage %+v", cv)
	}
	grow := int64(peak) - int64(base)
	t.Logf("%d batches, live heap growth at peak %d KiB", batches, grow/1024)
	if grow > 16<<20 {
		t.Errorf("live heap grew by %d MiB while streaming: batches are not streamed", grow>>20)
	}
}
