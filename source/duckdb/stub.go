//go:build !duckdb_arrow

package duckdb

import (
	"context"

	"github.com/pipewhy/pipewhy/source"
)

// Available reports whether the adapter was compiled in (build tag
// duckdb_arrow).
const Available = false

// Open fails with source.CodeUnsupported: this binary was built without the
// duckdb_arrow build tag, which DuckDB's Arrow interface requires.
func Open(ctx context.Context, opts Options) (source.Source, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return nil, &source.Error{Code: source.CodeUnsupported, Op: "duckdb open", Source: opts.where(), Detail: "built without DuckDB support; rebuild with -tags duckdb_arrow"}
}
