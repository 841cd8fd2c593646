package source

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// fileBase is the state shared by the Parquet and IPC adapters.
type fileBase struct {
	a      Address
	opts   Options
	f      *os.File
	before fileState
	schema *arrow.Schema
	keep   []int // kept column indices of the reader's records
	ev     Evidence
	t      Tracker
	stop   error
}

func (b *fileBase) Schema() *arrow.Schema { return b.schema }

func (b *fileBase) Evidence() Evidence { return b.t.Evidence(b.ev) }

func (b *fileBase) closeFile(op string) error {
	if b.f == nil {
		return nil
	}
	err := b.f.Close()
	b.f = nil
	if err != nil {
		return &Error{Code: CodeIO, Op: op, Source: b.a.String(), Err: err}
	}
	return nil
}

// project rebuilds a reader record with the adapter's schema and kept
// columns; the caller still owns rec.
func (b *fileBase) project(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if int(rec.NumCols()) < len(b.keep) {
		return nil, &Error{Code: CodeCorrupt, Op: "project", Source: b.a.String(), Msg: "record batch has fewer columns than the schema"}
	}
	cols := make([]arrow.Array, len(b.keep))
	for i, k := range b.keep {
		if k >= int(rec.NumCols()) {
			return nil, &Error{Code: CodeCorrupt, Op: "project", Source: b.a.String(), Msg: "record batch has fewer columns than the schema"}
		}
		cols[i] = rec.Column(k)
		if !arrow.TypeEqual(cols[i].DataType(), b.schema.Field(i).Type) {
			return nil, &Error{Code: CodeCorrupt, Op: "project", Source: b.a.String(), Msg: fmt.Sprintf("column %q batch type differs from the schema", b.schema.Field(i).Name)}
		}
	}
	return array.NewRecordBatch(b.schema, cols, rec.NumRows()), nil
}

// fatal records a failure that stops the read and returns it.
func (b *fileBase) fatal(err error) error {
	b.t.Stop(err)
	b.t.ExpectedKnown = false
	b.stop = err
	return err
}

// buildSchema checks and annotates the kept fields of a reader schema.
func buildSchema(op string, a Address, sc *arrow.Schema, exclude []string, sourceType func(i int) string) (*arrow.Schema, []int, []string, error) {
	names := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		names[i] = f.Name
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, nil, nil, &Error{Code: CodeDuplicate, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %q appears twice", n)}
		}
		seen[n] = true
	}
	keepMask, excluded, err := Exclude(op, a.String(), names, exclude)
	if err != nil {
		return nil, nil, nil, err
	}
	var fields []arrow.Field
	var keep []int
	for i, f := range sc.Fields() {
		if !keepMask[i] {
			continue
		}
		if !validName(f.Name) {
			return nil, nil, nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %d has an empty or non-UTF-8 name", i+1)}
		}
		if err := checkSupported(op, a, f); err != nil {
			return nil, nil, nil, err
		}
		fields = append(fields, WithMeta(f, sourceType(i)))
		keep = append(keep, i)
	}
	return arrow.NewSchema(fields, nil), keep, excluded, nil
}
