#!/usr/bin/env bash
# The whole test suite, as the README gives it: vet and the static analysis, then every test
# with the race detector. The DuckDB adapter is part of every cgo build, so ./... covers it;
# its package runs a second time with the duckdb_arrow build tag, which adds the tests that
# cross-check its vector decoder against DuckDB's own Arrow export. The tools module's tests
# (tools/mutate, the mutation tool of scripts/mutate.sh) run last, without the race detector:
# they build one binary per mutant of their fixture. Package fingerprint runs once more with
# -tags purego: its tests then check the pure-Go kernels that machines without AVX-512 use.
set -euo pipefail
cd "$(dirname "$0")/.."
go vet ./...
go vet -tags duckdb_arrow ./source/duckdb/
./scripts/lint.sh
go test -race -count=1 -timeout 40m ./...
go test -race -count=1 -timeout 20m -tags duckdb_arrow -run 'CrossCheck' ./source/duckdb/
# The fingerprint kernels' pure-Go fallback (machines without AVX-512, other architectures).
# PIPEWHY_REQUIRE_AVX2 is off for this run only: purego leaves the AVX2 kernel out on purpose.
PIPEWHY_REQUIRE_AVX2=0 go test -count=1 -timeout 20m -tags purego ./fingerprint/
(cd tools && go vet ./... && go test -count=1 -timeout 20m ./...)
