// Package sourcetest holds the checks every source adapter's tests share, so that each
// adapter is held to the same reading of the source.Source contract.
package sourcetest

import (
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/source"
)

// ReadAll drains src, checking the Source contract on the way, and returns
// each column concatenated.
func ReadAll(t testing.TB, src source.Source) ([]arrow.Array, source.Evidence) {
	t.Helper()
	ctx := context.Background()
	var recs []arrow.RecordBatch
	var rows uint64
	for {
		rec, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if !rec.Schema().Equal(src.Schema()) {
			t.Fatalf("batch schema %v differs from source schema %v", rec.Schema(), src.Schema())
		}
		rows += uint64(rec.NumRows())
		recs = append(recs, rec)
	}
	if _, err := src.Next(ctx); err != io.EOF {
		t.Fatalf("Next after EOF: %v, want io.EOF", err)
	}
	ev := src.Evidence()
	if ev.Coverage.Returned != rows {
		t.Fatalf("coverage returned %d, batches held %d rows", ev.Coverage.Returned, rows)
	}
	if err := ev.Coverage.Check(); err != nil {
		t.Fatalf("coverage %+v: %v", ev.Coverage, err)
	}
	cols := make([]arrow.Array, src.Schema().NumFields())
	for i := range cols {
		var chunks []arrow.Array
		for _, r := range recs {
			chunks = append(chunks, r.Column(i))
		}
		if len(chunks) == 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, src.Schema().Field(i).Type, 0)
			continue
		}
		c, err := array.Concatenate(chunks, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = c
	}
	for _, r := range recs {
		r.Release()
	}
	return cols, ev
}
