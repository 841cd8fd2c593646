//go:build ignore

// mkresult writes dfs.arrow, an Arrow IPC file shaped as GraphForge's engine shapes the
// result of a depth-first traversal (g.paths(..., by="dfs")): three non-nullable
// columns node_uuid fixed_size_binary(16), depth uint64, order uint64, and exactly the
// schema metadata graphforge.algorithm=dfs, graphforge.algorithm_schema_version=1,
// graphforge.verb=paths. Run from this directory: go run mkresult.go
package main

import (
	"bytes"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func main() {
	md := arrow.NewMetadata(
		[]string{"graphforge.algorithm", "graphforge.algorithm_schema_version", "graphforge.verb"},
		[]string{"dfs", "1", "paths"})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "node_uuid", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}},
		{Name: "depth", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "order", Type: arrow.PrimitiveTypes.Uint64},
	}, &md)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	uuids := [][]byte{
		{0x01, 0x8f, 0x47, 0xd2, 0xa1, 0xb2, 0x7c, 0x3d, 0x8e, 0x4f, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55},
		{0x01, 0x8f, 0x47, 0xd2, 0xa1, 0xb2, 0x7c, 0x3d, 0x8e, 0x4f, 0x00, 0x11, 0x22, 0x33, 0x44, 0x66},
	}
	for i, u := range uuids {
		b.Field(0).(*array.FixedSizeBinaryBuilder).Append(u)
		b.Field(1).(*array.Uint64Builder).Append(uint64(i))
		b.Field(2).(*array.Uint64Builder).Append(uint64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("dfs.arrow", buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
