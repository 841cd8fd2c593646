// Package confdata is the logical dataset of the source conformance suite: one small
// table that every adapter's tests write in the adapter's own format (a file, a database
// table) and read back, requiring the same Arrow values (sourcetest.Conformance). It is
// written by hand: the edge cases are the smallest and largest int64, an empty and a
// missing text, non-ASCII text, a text with the CSV delimiter and quotes, an empty and a
// missing byte string, and a float64 near its largest exponent.
//
// It imports no PipeWhy package, so that package source's own tests use it too.
package confdata

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Row is one record of the dataset; a nil Name, Amount or Payload is null.
type Row struct {
	ID      int64
	Name    *string
	Amount  *float64
	Payload []byte
}

func sp(s string) *string   { return &s }
func fp(f float64) *float64 { return &f }

// Rows is the dataset, in its order.
var Rows = []Row{
	{1, sp("alice"), fp(1.5), []byte{0x00, 0xff}},
	{2, sp(""), fp(-0.25), []byte{}},
	{3, nil, fp(1e300), nil},
	{math.MinInt64, sp("zoë 🙂"), nil, []byte{0xde, 0xad}},
	{math.MaxInt64, sp(`a,b "q"`), fp(0.5), []byte{0x01}},
}

// Names are the column names, in order, and Types their types in package source's type
// vocabulary (source.Column).
var (
	Names = []string{"id", "name", "amount", "payload"}
	Types = []string{"int64", "text", "float64", "bytes(hex)"}
)

// CSV is the dataset as a CSV file with a header, NULL spelling null (bytes as hex).
const CSV = "id,name,amount,payload\n" +
	"1,alice,1.5,00ff\n" +
	"2,,-0.25,\n" +
	"3,NULL,1e300,NULL\n" +
	"-9223372036854775808,zoë 🙂,NULL,dead\n" +
	"9223372036854775807,\"a,b \"\"q\"\"\",0.5,01\n"

// JSONL is the dataset as JSON lines (bytes as hex), keys in another order on one line.
const JSONL = `{"id":1,"name":"alice","amount":1.5,"payload":"00ff"}
{"id":2,"name":"","amount":-0.25,"payload":""}
{"payload":null,"id":3,"name":null,"amount":1e300}
{"id":-9223372036854775808,"name":"zo\u00eb \ud83d\ude42","amount":null,"payload":"dead"}
{"id":9223372036854775807,"name":"a,b \"q\"","amount":0.5,"payload":"01"}
`

// Schema is the Arrow schema every adapter reads the dataset as: int64, utf8, float64
// and binary, all nullable.
func Schema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "payload", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
}

// Columns builds the expected Arrow columns directly from Rows.
func Columns() []arrow.Array {
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	fb := array.NewFloat64Builder(mem)
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	for _, r := range Rows {
		ib.Append(r.ID)
		if r.Name == nil {
			sb.AppendNull()
		} else {
			sb.Append(*r.Name)
		}
		if r.Amount == nil {
			fb.AppendNull()
		} else {
			fb.Append(*r.Amount)
		}
		if r.Payload == nil {
			bb.AppendNull()
		} else {
			bb.Append(r.Payload)
		}
	}
	return []arrow.Array{ib.NewArray(), sb.NewArray(), fb.NewArray(), bb.NewArray()}
}

// Record is the dataset as one Arrow record batch of Schema.
func Record() arrow.RecordBatch {
	return array.NewRecordBatch(Schema(), Columns(), int64(len(Rows)))
}

// InsertSQL is one INSERT statement that writes Rows into table, whose columns are Names
// in order, in SQL literals: integers and floats as numbers (the shortest text that reads
// back exactly), text quoted with ” for a quote, NULL; bytes in the engine's own literal,
// which bytes writes (X'00FF', '\x00ff'::bytea, ...). Rows are in one statement, in
// order, so that a table without a key reads them back in that order.
func InsertSQL(table string, bytes func([]byte) string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(Names, ", ") + ") VALUES ")
	for i, r := range Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + strconv.FormatInt(r.ID, 10) + ", ")
		if r.Name == nil {
			b.WriteString("NULL, ")
		} else {
			b.WriteString("'" + strings.ReplaceAll(*r.Name, "'", "''") + "', ")
		}
		if r.Amount == nil {
			b.WriteString("NULL, ")
		} else {
			b.WriteString(strconv.FormatFloat(*r.Amount, 'g', -1, 64) + ", ")
		}
		if r.Payload == nil {
			b.WriteString("NULL)")
		} else {
			b.WriteString(bytes(r.Payload) + ")")
		}
	}
	return b.String()
}
