#!/usr/bin/env bash
# The whole test suite, as the README gives it: vet, then every test with the race detector.
# The DuckDB adapter links the engine only under the duckdb_arrow build tag (a large cgo
# build), so its package runs a second time with that tag.
set -euo pipefail
cd "$(dirname "$0")/.."
go vet ./...
go vet -tags duckdb_arrow ./source/duckdb/
go test -race -count=1 -timeout 40m ./...
go test -race -count=1 -timeout 20m -tags duckdb_arrow ./source/duckdb/
