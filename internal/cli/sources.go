package cli

// The adapters that live in packages of their own register their address prefixes with
// package source when linked in. DuckDB needs the duckdb_arrow build tag to link the
// engine; without it, duckdb: addresses fail with a message saying so.
import (
	_ "github.com/pipewhy/pipewhy/source/duckdb"
	_ "github.com/pipewhy/pipewhy/source/mysql"
	_ "github.com/pipewhy/pipewhy/source/postgres"
)
