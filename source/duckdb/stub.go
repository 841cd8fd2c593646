//go:build !cgo

package duckdb

import (
	"context"

	"github.com/pipewhy/pipewhy/source"
)

// Available reports whether the adapter was compiled in (every cgo build).
const Available = false

// Open fails with source.CodeUnsupported: this binary was built without
// cgo (CGO_ENABLED=0), and the DuckDB engine is a C++ library linked
// through cgo.
func Open(ctx context.Context, opts Options) (source.Source, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return nil, &source.Error{Code: source.CodeUnsupported, Op: "duckdb open", Source: opts.where(), Msg: "built without cgo (CGO_ENABLED=0), which DuckDB needs; rebuild with cgo enabled and a C compiler"}
}
