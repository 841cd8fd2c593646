package cli

// The adapters that live in packages of their own register their address prefixes with
// package source when linked in. DuckDB links the engine in every cgo build; a binary
// built with CGO_ENABLED=0 fails duckdb: addresses with a message saying so.
import (
	_ "github.com/pipewhy/pipewhy/source/duckdb"
	_ "github.com/pipewhy/pipewhy/source/mysql"
	_ "github.com/pipewhy/pipewhy/source/postgres"
)
