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

# measure NAME CMD...: runs CMD REPS times under /usr/bin/time -v; keeps the run with the
# least CPU in $OUT/NAME.{time,out}.
declare -A WALL CPU RSS
ORDER=()
measure() {
	local name=$1
	shift
	local best="" r
	for ((r = 1; r <= REPS; r++)); do
		if ! /usr/bin/time -v -o "$OUT/$name.time.$r" "$@" >"$OUT/$name.out.$r" 2>"$OUT/$name.err.$r"; then
			echo "bench/csvscan.sh: $name failed:" >&2
			cat "$OUT/$name.err.$r" "$OUT/$name.out.$r" >&2
			exit 1
		fi
		local line
		line=$(awk -F': ' '
			/User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {m = $2}
			/Elapsed \(wall clock\)/ {n = split($2, a, ":"); w = (n == 3) ? a[1] * 3600 + a[2] * 60 + a[3] : a[1] * 60 + a[2]}
			END {printf "%.3f %.3f %.1f", w, u + s, m / 1024}' "$OUT/$name.time.$r")
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[2] < y[2])}'; then
			best=$line
			cp "$OUT/$name.time.$r" "$OUT/$name.time"
			cp "$OUT/$name.out.$r" "$OUT/$name.out"
		fi
	done
	read -r WALL[$name] CPU[$name] RSS[$name] <<<"$best"
	ORDER+=("$name")
	printf '  %-16s wall %8.3f s  cpu %8.3f s  rss %8.1f MiB\n' "$name" "${WALL[$name]}" "${CPU[$name]}" "${RSS[$name]}"
}
snapid() { awk '$1 == "snapshot" {print $2; exit}' "$OUT/$1.out"; }
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

echo
echo "summary: $ROWS rows, $(nproc) cores; ratio = case / duckdb-csv (lower is faster; 1.0 = as fast as DuckDB)"
printf '| %-16s | %9s | %9s | %10s | %10s | %9s | %12s |\n' case "wall s" "cpu s" "wall ratio" "cpu ratio" "rss MiB" "M rows/cpu-s"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ------------------ ----------- ----------- ------------ ------------ ----------- --------------
for n in "${ORDER[@]}"; do
	awk -v n="$n" -v w="${WALL[$n]}" -v c="${CPU[$n]}" -v r="${RSS[$n]}" -v w0="${WALL[duckdb-csv]}" -v c0="${CPU[duckdb-csv]}" -v rows="$ROWS" \
		'BEGIN {printf "| %-16s | %9.3f | %9.3f | %10.2f | %10.2f | %9.1f | %12.2f |\n", n, w, c, w / w0, c / c0, r, (c > 0 ? rows / c / 1e6 : 0)}'
done
