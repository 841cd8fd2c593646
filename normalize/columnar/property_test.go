package columnar_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

var allProfiles = []normalize.Profile{normalize.StrictV1, normalize.LogicalV1, normalize.StrictV1Ext1, normalize.LogicalV1Ext1}

// table is a generated record batch with its scalar twin.
type table struct {
	schema  *arrow.Schema
	rec     arrow.RecordBatch
	columns []columnar.Column
	scalars [][]normalize.Field // per row, the encoded columns' fields (unsorted)
}

// genTable builds rows rows of the given column types. Every column's array is built
// with extra rows before and after and then sliced, so the encoder sees nonzero array
// offsets. Column k is excluded when exclude[k].
func genTable(rng *rand.Rand, types []arrow.DataType, rows int, exclude []bool) table {
	var tb table
	fields := make([]arrow.Field, len(types))
	cols := make([]arrow.Array, len(types))
	ids := sortedIDs(rng, len(types))
	tb.scalars = make([][]normalize.Field, rows)
	for k, typ := range types {
		pre, post := rng.IntN(5), rng.IntN(5)
		full, vals := genColumn(rng, typ, pre+rows+post)
		cols[k] = array.NewSlice(full, int64(pre), int64(pre+rows))
		fields[k] = arrow.Field{Name: "c" + strconv.Itoa(k), Type: typ, Nullable: true}
		c := columnar.Column{Field: ids[k]}
		if rng.IntN(2) == 0 {
			c.Name = fields[k].Name
		} else {
			c.Index = k
		}
		if exclude != nil && exclude[k] {
			c.Treatment = columnar.Exclude
		} else {
			for r := range rows {
				tb.scalars[r] = append(tb.scalars[r], normalize.Field{ID: ids[k], Value: vals[pre+r]})
			}
		}
		tb.columns = append(tb.columns, c)
	}
	tb.schema = arrow.NewSchema(fields, nil)
	tb.rec = array.NewRecordBatch(tb.schema, cols, int64(rows))
	return tb
}

// appendChunks appends rec to dst in random row chunks (batch boundaries must not
// change the output).
func appendChunks(t *testing.T, rng *rand.Rand, enc *columnar.Encoder, dst *normalize.RecordBatch, rec arrow.RecordBatch) {
	t.Helper()
	n := rec.NumRows()
	for lo := int64(0); lo < n || lo == 0; {
		hi := min(n, lo+1+rng.Int64N(n+1))
		if err := enc.Append(dst, rec.NewSlice(lo, hi)); err != nil {
			t.Fatal(err)
		}
		if hi == n {
			break
		}
		lo = hi
	}
}

// checkEqual compares the columnar batch with normalize.EncodeRecord row by row.
func checkEqual(t *testing.T, got *normalize.RecordBatch, tb table, p normalize.Profile, types []arrow.DataType) {
	t.Helper()
	if err := got.Validate(); err != nil {
		t.Fatalf("columnar batch does not validate: %v", err)
	}
	if got.ProfileID != p.ID() {
		t.Fatalf("ProfileID %q, want %q", got.ProfileID, p.ID())
	}
	if got.Len() != len(tb.scalars) {
		t.Fatalf("%d records, want %d", got.Len(), len(tb.scalars))
	}
	for r, fields := range tb.scalars {
		want, err := normalize.EncodeRecord(fields, p)
		if err != nil {
			t.Fatalf("row %d: scalar encoder: %v", r, err)
		}
		if rec := got.Record(r); !slices.Equal(rec, want) {
			t.Fatalf("row %d (types %v):\n got  %v\n want %v\n values %#v", r, types, rec, want, fields)
		}
	}
}

// TestMatchesScalar is the property test: random tables of every supported type (with
// nulls, slices, dictionaries, exclusions and random batch boundaries) encode to
// exactly the words of the scalar record encoder, under every profile.
func TestMatchesScalar(t *testing.T) {
	iters := 60
	if testing.Short() {
		iters = 12
	}
	for _, p := range allProfiles {
		t.Run(p.Name(), func(t *testing.T) {
			pool := v1Types()
			if p.Extended() {
				pool = append(pool, extTypes()...)
			}
			for it := range iters {
				rng := rand.New(rand.NewPCG(uint64(p), uint64(it)))
				var types []arrow.DataType
				if it == 0 {
					types = pool // every type in one table
				} else {
					for range 1 + rng.IntN(6) {
						types = append(types, pool[rng.IntN(len(pool))])
					}
				}
				var exclude []bool
				if rng.IntN(3) == 0 {
					exclude = make([]bool, len(types))
					exclude[rng.IntN(len(types))] = true
				}
				tb := genTable(rng, types, rng.IntN(80), exclude)
				enc, err := columnar.NewEncoder(tb.schema, tb.columns, p)
				if err != nil {
					t.Fatal(err)
				}
				var got normalize.RecordBatch
				appendChunks(t, rng, enc, &got, tb.rec)
				checkEqual(t, &got, tb, p, types)

				// The same rows as a table whose columns are chunked at different rows.
				var got3 normalize.RecordBatch
				if err := enc.AppendTable(&got3, chunkedTable(rng, tb.rec)); err != nil {
					t.Fatal(err)
				}
				checkEqual(t, &got3, tb, p, types)

				// The same encoder and batch continue after a first table: reused
				// scratch must not leak into the next batch.
				tb2 := genTable(rng, types, rng.IntN(40), exclude)
				tb2.rec = array.NewRecordBatch(tb.schema, tb2.rec.Columns(), tb2.rec.NumRows())
				for k := range tb2.columns {
					tb2.columns[k].Field = tb.columns[k].Field
				}
				// rebuild tb2's scalars with tb's field ids (same schema, same encoder)
				tb2 = relabel(tb2, tb.columns)
				var got2 normalize.RecordBatch
				appendChunks(t, rng, enc, &got2, tb2.rec)
				checkEqual(t, &got2, tb2, p, types)
			}
		})
	}
}

// chunkedTable returns rec as a table in which every column is split into its own
// random chunks.
func chunkedTable(rng *rand.Rand, rec arrow.RecordBatch) arrow.Table {
	n := rec.NumRows()
	cols := make([]arrow.Column, rec.NumCols())
	for k, a := range rec.Columns() {
		var chunks []arrow.Array
		for lo := int64(0); lo < n; {
			hi := min(n, lo+1+rng.Int64N(n/2+1))
			chunks = append(chunks, array.NewSlice(a, lo, hi))
			lo = hi
		}
		ch := arrow.NewChunked(a.DataType(), chunks)
		cols[k] = *arrow.NewColumn(rec.Schema().Field(k), ch)
	}
	return array.NewTable(rec.Schema(), cols, n)
}

// relabel gives tb's scalar fields the field ids of columns (in column order).
func relabel(tb table, columns []columnar.Column) table {
	var ids []normalize.FieldID
	for _, c := range columns {
		if c.Treatment == columnar.Encode {
			ids = append(ids, c.Field)
		}
	}
	for r := range tb.scalars {
		for k := range tb.scalars[r] {
			tb.scalars[r][k].ID = ids[k]
		}
	}
	return tb
}
