package source

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestGroupPoolMost: a waiting get allocates row group memory until most exist, then
// waits for a release (until its context ends) and takes the released memory.
func TestGroupPoolMost(t *testing.T) {
	p := newGroupPool(1)
	a, err := p.get(context.Background(), true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.get(context.Background(), true, 2); err != nil || p.fresh != 2 {
		t.Fatalf("second get with most 2: %v, %d allocated, want 2", err, p.fresh)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.get(ctx, true, 2); !errors.Is(err, context.DeadlineExceeded) || p.fresh != 2 {
		t.Fatalf("third get with most 2 and nothing released: %v, %d allocated; want a wait that ends with the context", err, p.fresh)
	}
	ctx1, cancel1 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel1()
	if _, err := p.get(ctx1, true, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("get with most 1 while two exist: %v, want a wait", err)
	}
	go func() {
		time.Sleep(5 * time.Millisecond)
		a.release()
	}()
	c, err := p.get(context.Background(), true, 2)
	if err != nil || c != a || p.fresh != 2 {
		t.Fatalf("get after a release: %v, reused %v, %d allocated; want the released memory", err, c == a, p.fresh)
	}
}

// TestParquetGoNoAheadForLargeGroups: a row group of more than aheadMaxRows rows is not
// decoded ahead, so with ReleasedPromptly one row group's memory serves the file; a
// smaller one is decoded ahead (TestParquetGoReleasedPromptly).
func TestParquetGoNoAheadForLargeGroups(t *testing.T) {
	t.Setenv(ParquetReaderEnv, "parquet-go")
	const big = aheadMaxRows + 1
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 3 * big {
		b.Append(int64(i))
	}
	col := b.NewArray()
	b.Release()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, 3*big)
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "large-groups.parquet")
	writeParquet(t, path, rec, big) // three row groups of big rows
	src, err := Open(context.Background(), path, Options{ReleasedPromptly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rows := 0
	for {
		r, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if pg := src.(*parquetGoSource); pg.pre != nil {
			t.Fatalf("row %d: a row group of more than aheadMaxRows rows is being decoded ahead", rows)
		}
		rows += int(r.NumRows())
		r.Release()
	}
	if pg := src.(*parquetGoSource); rows != 3*big || pg.pool.fresh != 1 {
		t.Fatalf("%d rows, %d row group memories, want %d and 1", rows, pg.pool.fresh, 3*big)
	}
}
