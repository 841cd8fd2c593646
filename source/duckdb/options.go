package duckdb

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/source"
)

// Kind is the adapter name recorded in Evidence.Adapter and used as the
// address prefix.
const Kind source.Kind = "duckdb"

// Consistency levels recorded in the evidence.
const (
	// ConsistencyTransaction: a database file opened read-only (DuckDB holds
	// a shared lock on it, so no process can write it meanwhile); the row
	// count and all rows were read in one transaction on one connection.
	ConsistencyTransaction = "duckdb-transaction"
	// ConsistencyQuery: a query over an in-memory database, normally reading
	// external files (read_parquet, read_csv, ...). The count and the rows
	// come from one transaction, but DuckDB scans the files twice (count,
	// then rows) and holds no lock on them: a file changed in between is
	// detected only when the row count disagrees.
	ConsistencyQuery = "duckdb-query"
)

// Memory is the Path of an in-memory database (query-only sources).
const Memory = ":memory:"

// MaxChunkRows is DuckDB's vector size: the engine produces data chunks of
// at most this many rows, and a batch never spans two chunks.
const MaxChunkRows = 2048

// Options configure a DuckDB source.
type Options struct {
	// Path is the database file, opened read-only. Empty or Memory selects
	// a fresh in-memory database, for queries over files.
	Path string
	// Table is a table or view of the database's default schema (one
	// identifier, quoted by the adapter). Exactly one of Table and Query.
	Table string
	// Query is one SQL SELECT (a trailing ';' is allowed).
	Query string
	// BatchSize bounds the rows per batch (default 16384). Batches never
	// exceed one DuckDB data chunk (MaxChunkRows rows).
	BatchSize int
	// Exclude lists columns to drop; each must exist.
	Exclude []string
	// MaxFailureDetails bounds the failures kept with detail (default 100;
	// negative keeps none). All failures are counted.
	MaxFailureDetails int
	// Allocator for the Arrow memory of the batches (default
	// memory.DefaultAllocator): every batch is decoded from the engine's
	// vectors into buffers of this allocator, released with the batch. With
	// Go memory the garbage collector does the freeing and costs CPU in
	// proportion to the bytes read; a C allocator (arrow-go's
	// memory/mallocator) avoids that, but then every batch must be
	// released, and no value used after its batch was released.
	Allocator memory.Allocator
}

const (
	defaultBatchSize  = 16384
	maxBatchSize      = 1 << 24
	defaultMaxDetails = 100
)

func (o Options) inMemory() bool { return o.Path == "" || o.Path == Memory }

// where names the source in errors and the namespace.
func (o Options) where() string {
	p := o.Path
	if o.inMemory() {
		p = Memory
	}
	if o.Table != "" {
		return string(Kind) + ":" + p + "#" + o.Table
	}
	return string(Kind) + ":" + p
}

func (o Options) validate() error {
	bad := func(code source.Code, d string) error {
		return &source.Error{Code: code, Op: "duckdb open", Source: o.where(), Msg: d}
	}
	if (o.Table == "") == (o.Query == "") {
		return bad(source.CodeAddress, "give exactly one of a table and a query")
	}
	if o.inMemory() && o.Table != "" {
		return bad(source.CodeAddress, "an in-memory database has no tables; give a query")
	}
	if strings.ContainsRune(o.Path, 0) || strings.ContainsRune(o.Table, 0) || strings.ContainsRune(o.Query, 0) {
		return bad(source.CodeAddress, "path, table or query contains a NUL byte")
	}
	if o.BatchSize < 0 || o.BatchSize > maxBatchSize {
		return bad(source.CodeOption, "BatchSize must be between 1 and 16777216")
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.BatchSize == 0 {
		o.BatchSize = defaultBatchSize
	}
	if o.MaxFailureDetails == 0 {
		o.MaxFailureDetails = defaultMaxDetails
	}
	if o.MaxFailureDetails < 0 {
		o.MaxFailureDetails = 0
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	return o
}

// ParseAddress parses a DuckDB address:
//
//	duckdb:PATH#TABLE    a table or view of a database file
//	duckdb:PATH          a database file, with a query
//	duckdb::memory:      an in-memory database, with a query
//
// The table name is everything after the first '#'. A relative PATH becomes
// absolute. The query is not part of the address.
func ParseAddress(s string) (Options, error) {
	bad := func(d string) (Options, error) {
		return Options{}, &source.Error{Code: source.CodeAddress, Op: "parse address", Msg: d}
	}
	rest, ok := strings.CutPrefix(s, string(Kind)+":")
	if !ok {
		return bad("not a duckdb: address")
	}
	if strings.ContainsRune(s, 0) {
		return bad("address contains a NUL byte")
	}
	var o Options
	if p, t, ok := strings.Cut(rest, "#"); ok {
		if t == "" {
			return bad("empty table name after #")
		}
		rest, o.Table = p, t
	}
	switch rest {
	case "":
		return bad("empty path")
	case Memory:
		if o.Table != "" {
			return bad("an in-memory database has no tables")
		}
		o.Path = Memory
		return o, nil
	}
	abs, err := filepath.Abs(rest)
	if err != nil {
		return Options{}, &source.Error{Code: source.CodeAddress, Op: "parse address", Msg: "cannot make the path absolute", Err: err}
	}
	o.Path = abs
	return o, nil
}

// OpenAddress opens a parsed source address whose Kind is Kind, taking the
// options that apply to DuckDB from opts: BatchSize, Query, Exclude,
// MaxFailureDetails and Allocator. Columns, Infer, Null, MissingAsNull and
// HashContent are errors, as in source.OpenAddress; MaxLineBytes (which
// source.OpenAddress sets by default) is ignored, as by the Parquet and IPC
// adapters. Address.Path ":memory:" selects an in-memory database.
func OpenAddress(ctx context.Context, a source.Address, opts source.Options) (source.Source, error) {
	if a.Kind != Kind {
		return nil, &source.Error{Code: source.CodeAddress, Op: "open", Msg: "not a duckdb address"}
	}
	if err := opts.Refuse("open", string(Kind)+":"+a.Path, "duckdb", source.OptColumns, source.OptInferNull,
		source.OptMissingAsNull, source.OptHashContent); err != nil {
		return nil, err
	}
	return Open(ctx, Options{
		Path: a.Path, Table: a.Table, Query: opts.Query, BatchSize: opts.BatchSize,
		Exclude: opts.Exclude, MaxFailureDetails: opts.MaxFailureDetails, Allocator: opts.Allocator,
	})
}

func init() { source.Register(string(Kind)+":", openString) }

// openString opens a duckdb: address for source.Open, taking the query and the options
// that apply to DuckDB from opts (the others are rejected by OpenAddress).
func openString(ctx context.Context, address string, opts source.Options) (source.Source, error) {
	o, err := ParseAddress(address)
	if err != nil {
		return nil, err
	}
	return OpenAddress(ctx, source.Address{Kind: Kind, Path: o.Path, Table: o.Table}, opts)
}
