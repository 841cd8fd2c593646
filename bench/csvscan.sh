#!/usr/bin/env bash
# pipewhy scan of a CSV file next to DuckDB's read_csv over the same file, in one run.
#
#   bench/csvscan.sh                        # ROWS=10000000
#   ROWS=1000000 REPS=3 bench/csvscan.sh
#   BEFORE=/path/to/older/pipewhy bench/csvscan.sh   # also time another pipewhy build
#
# Builds pipewhy, bench/gen and bench/duckhash (-tags duckdb_arrow: cgo, the first build
# links DuckDB's static library and takes a minute), writes v1.parquet and v1.csv (the same
# ROWS rows: id int64, qty int64, price double, name 12-char text, at timestamp(us) written
# as 2006-01-02T15:04:05.999999, no zone) and times, each under /usr/bin/time -v (wall,
# user+sys CPU, peak RSS):
#
#   a  duckdb-csv       DuckDB in-process: SELECT count(*), sum(hash(id,qty,price,name,"at"))
#                       FROM read_csv(v1.csv, columns = {the five types}, dialect fixed)
#   p  duckdb-parquet   the same over v1.parquet
#   b  scan-csv         pipewhy scan v1.csv --schema S --resolution dataset
#   c  scan-parquet     pipewhy scan v1.parquet --resolution dataset
#   b0 scan-csv-before  case b with the binary $BEFORE (only when BEFORE is set)
#
# Exactness: DuckDB's sums over the CSV and the Parquet file must be equal, and so must the
# dataset fingerprints of b, c (and b0): the CSV adapter yields exactly the values of the
# Parquet file. The script fails otherwise.
#
# The summary gives, per case, the best of REPS runs (least CPU) and its ratio to case a.
# The machine may be shared and loaded: CPU seconds (user+sys) are the steadier figure.
#
# Environment: ROWS (10000000), REPS (1), BEFORE, OUT (a new mktemp dir under
# ${TMPDIR:-/tmp}, removed at the end unless KEEP=1 or OUT is given).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
REPS=${REPS:-1}
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	KEEP=1
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/pipewhy-bench-csv.XXXXXX")
fi
OUT=$(cd "$OUT" && pwd)
if [ "${KEEP:-0}" != 1 ]; then
	trap 'rm -rf "$OUT"' EXIT
fi

# Disk: the Parquet file (~34 bytes a row), the CSV (~64 bytes a row), builds (~300 MB).
need_kb=$((ROWS * 100 / 1024 + 400 * 1024))
avail_kb=$(df -Pk "$OUT" | awk 'NR==2 {print $4}')
if [ "$avail_kb" -lt "$need_kb" ]; then
	echo "bench/csvscan.sh: need $((need_kb / 1024)) MiB free in $OUT, have $((avail_kb / 1024)) MiB" >&2
	exit 2
fi

echo "rows: $ROWS  reps: $REPS  dir: $OUT"
echo "machine: $(nproc) cores, $(awk '/^MemTotal:/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | awk '{print $3}'), load: $(cut -d' ' -f1-3 /proc/loadavg)"

BIN=$OUT/bin
mkdir -p "$BIN"
go build -o "$BIN/gen" ./bench/gen
go build -o "$BIN/pipewhy" ./cmd/pipewhy
go build -tags duckdb_arrow -o "$BIN/duckhash" ./bench/duckhash

V1=$OUT/v1.parquet
CSV=$OUT/v1.csv
"$BIN/gen" -rows "$ROWS" -out "$V1" -csv "$CSV"
echo "v1.csv: $(($(stat -c %s "$CSV") / 1048576)) MiB  v1.parquet: $(($(stat -c %s "$V1") / 1048576)) MiB"
SCHEMA=$OUT/schema.json
cat >"$SCHEMA" <<'EOF'
{"columns":[{"name":"id","type":"int64"},{"name":"qty","type":"int64"},{"name":"price","type":"float64"},{"name":"name","type":"text"},{"name":"at","type":"timestamp(us)"}]}
EOF
REPO=$OUT/repo
"$BIN/pipewhy" init --repo "$REPO" >/dev/null

. bench/measure.sh
lanes() { "$BIN/pipewhy" --repo "$REPO" show "$1" --json | tr -d ' \n' | sed 's/.*"lanes":\[\([^]]*\)\].*/\1/'; }
sum() { sed -n 's/.* sum=\([0-9-]*\).*/\1/p' "$OUT/$1.out"; }

measure duckdb-csv "$BIN/duckhash" hash-csv "$CSV"
sed 's/^/    /' "$OUT/duckdb-csv.out"
measure duckdb-parquet "$BIN/duckhash" hash "$V1"
if [ -z "$(sum duckdb-csv)" ] || [ "$(sum duckdb-csv)" != "$(sum duckdb-parquet)" ]; then
	echo "bench/csvscan.sh: DuckDB's sums differ: csv $(sum duckdb-csv) parquet $(sum duckdb-parquet)" >&2
	exit 1
fi
measure scan-csv "$BIN/pipewhy" --repo "$REPO" scan "$CSV" --schema "$SCHEMA" --name c --resolution dataset
measure scan-parquet "$BIN/pipewhy" --repo "$REPO" scan "$V1" --name p --resolution dataset
lb=$(lanes "$(snapid scan-csv)")
lc=$(lanes "$(snapid scan-parquet)")
if [ -z "$lb" ] || [ "$lb" != "$lc" ]; then
	echo "bench/csvscan.sh: dataset fingerprints differ: csv [$lb] parquet [$lc]" >&2
	exit 1
fi
if [ -n "${BEFORE:-}" ]; then
	measure scan-csv-before "$BEFORE" --repo "$REPO" scan "$CSV" --schema "$SCHEMA" --name c0 --resolution dataset
	l0=$(lanes "$(snapid scan-csv-before)")
	if [ "$l0" != "$lb" ]; then
		echo "bench/csvscan.sh: dataset fingerprints differ: csv [$lb] before [$l0]" >&2
		exit 1
	fi
fi
echo "    dataset fingerprint (csv = parquet): [$lb]"

summary duckdb-csv
