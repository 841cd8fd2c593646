#!/usr/bin/env bash
# Static analysis beyond go vet, with the versions pinned in tools/go.mod (a module of its
# own, so that the library's go.mod does not carry them):
#
#   staticcheck  its default checks (every SA, S, QF and ST check but the style checks it
#                leaves off by default), over the code and its tests, and over the DuckDB
#                adapter's duckdb_arrow tests;
#   errcheck     every error a call returns is checked, except the calls listed with their
#                reason in tools/errcheck-excludes.txt. Test files are left out: they
#                ignore the errors of some 230 setup and clean-up calls (os.WriteFile,
#                Close), which are not checked yet.
#
# scripts/test.sh runs it, so CI and a laptop run the same checks.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd tools && go build -o "$bin/" honnef.co/go/tools/cmd/staticcheck github.com/kisielk/errcheck)
"$bin/staticcheck" ./...
"$bin/staticcheck" -tags duckdb_arrow ./source/duckdb/
"$bin/errcheck" -ignoretests -exclude tools/errcheck-excludes.txt ./...
