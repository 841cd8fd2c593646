#!/usr/bin/env bash
# C3 v1 against v2 against DuckDB's SELECT sum(hash(...)), on two Parquet files, in
# interleaved rounds (every case once per round, REPS rounds; the best round of each case
# is kept, by CPU seconds).
#
#   bench/algorithms.sh                      # ROWS=10000000 REPS=3
#   ROWS=3000000 REPS=3 bench/algorithms.sh
#
# Files: gen.parquet, bench/gen's (id int64, qty int64, price double, name 12-char text,
# at timestamp(us); written by parquet-go, row groups of 1 M rows), and entropy.parquet,
# written by DuckDB (COPY … TO with default settings; bench/duckhash entropy) with
# high-entropy values of the same five columns (random int64s, random doubles, random
# 8–16-character strings, random timestamps). Cases, per file:
#
#   duckdb-hash   DuckDB in-process: SELECT count(*), sum(hash(id,qty,price,name,"at"))
#   read          package source's Parquet reader alone, every value touched (the floor)
#   v1-dataset    pipewhy scan --resolution dataset into a repository of xxh3-128 (v1)
#   v2-dataset    the same into a repository of xxh3-128-columnar (v2): Arrow columns
#                 hashed directly (scan/direct.go)
#   v2-words      the v2 scan through C2 words and the engine (PIPEWHY_SCAN_DIRECT=0)
#   v1-value      pipewhy scan --resolution value --key id, v1 repository
#   v2-value      the same, v2 repository
#
# Exactness: v2-dataset and v2-words must give the same dataset state (the script fails
# otherwise). VALUE=0 skips the value cases (their peak RSS is about 1.5 KB a row).
# The machine may be shared: CPU seconds (user+sys) are the steadier figure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
REPS=${REPS:-3}
VALUE=${VALUE:-1}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/pipewhy-bench-alg.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BIN=${BIN:-$OUT/bin}

echo "rows: $ROWS  rounds: $REPS  dir: $OUT"
echo "machine: $(nproc) cores, $(awk '/^MemTotal:/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | awk '{print $3}'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -x "$BIN/pipewhy" ]; then
	mkdir -p "$BIN"
	go build -o "$BIN/gen" ./bench/gen
	go build -tags duckdb_arrow -o "$BIN/pipewhy" ./cmd/pipewhy
	go build -tags duckdb_arrow -o "$BIN/duckhash" ./bench/duckhash
fi
[ -f "$OUT/gen.parquet" ] || "$BIN/gen" -rows "$ROWS" -out "$OUT/gen.parquet"
[ -f "$OUT/entropy.parquet" ] || "$BIN/duckhash" entropy "$ROWS" "$OUT/entropy.parquet" >/dev/null

. bench/measure.sh
mkdir -p "$OUT/gen" "$OUT/entropy"
declare -A BEST
# run NAME CMD...: one run under /usr/bin/time -v; keeps the least-CPU run of NAME.
run() {
	local name=$1
	shift
	/usr/bin/time -v -o "$OUT/$name.time.last" "$@" >"$OUT/$name.out.last" 2>"$OUT/$name.err.last" || {
		echo "$0: $name failed:" >&2
		cat "$OUT/$name.err.last" >&2
		exit 1
	}
	local line
	line=$(timefigures "$OUT/$name.time.last")
	if [ -z "${BEST[$name]:-}" ] || awk -v a="$line" -v b="${BEST[$name]}" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[2] < y[2])}'; then
		BEST[$name]=$line
		cp "$OUT/$name.out.last" "$OUT/$name.out"
	fi
	printf '  %-28s %s\n' "$name" "$line"
}
lanes() { "$BIN/pipewhy" show --repo "$1" "$2" --json | tr -d ' \n' | sed 's/.*"lanes":\[\([^]]*\)\].*/\1/'; }

for ((r = 1; r <= REPS; r++)); do
	echo "round $r"
	for f in gen entropy; do
		F=$OUT/$f.parquet
		rm -rf "$OUT/r1" "$OUT/r2"
		"$BIN/pipewhy" init --repo "$OUT/r1" --algorithm xxh3-128 >/dev/null
		"$BIN/pipewhy" init --repo "$OUT/r2" --algorithm xxh3-128-columnar >/dev/null
		run "$f/duckdb-hash" "$BIN/duckhash" hash "$F"
		run "$f/read" "$BIN/duckhash" drain source "$F"
		run "$f/v1-dataset" "$BIN/pipewhy" scan "$F" --repo "$OUT/r1" --name v --resolution dataset
		run "$f/v2-dataset" "$BIN/pipewhy" scan "$F" --repo "$OUT/r2" --name v --resolution dataset
		a=$(lanes "$OUT/r2" "$(awk '$1 == "snapshot" {print $2; exit}' "$OUT/$f/v2-dataset.out.last")")
		run "$f/v2-words" env PIPEWHY_SCAN_DIRECT=0 "$BIN/pipewhy" scan "$F" --repo "$OUT/r2" --name v --resolution dataset
		b=$(lanes "$OUT/r2" "$(awk '$1 == "snapshot" {print $2; exit}' "$OUT/$f/v2-words.out.last")")
		if [ -z "$a" ] || [ "$a" != "$b" ]; then
			echo "$0: $f: the direct and the C2-word v2 scans differ: [$a] [$b]" >&2
			exit 1
		fi
		if [ "$VALUE" = 1 ]; then
			run "$f/v1-value" "$BIN/pipewhy" scan "$F" --repo "$OUT/r1" --name val --resolution value --key id
			run "$f/v2-value" "$BIN/pipewhy" scan "$F" --repo "$OUT/r2" --name val --resolution value --key id
		fi
	done
done
rm -rf "$OUT/r1" "$OUT/r2"

echo
echo "best of $REPS rounds (least CPU): $ROWS rows, $(nproc) cores; ratios to duckdb-hash of the same file"
printf '| %-22s | %8s | %8s | %10s | %9s | %9s |\n' case "wall s" "cpu s" "wall ratio" "cpu ratio" "rss MiB"
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------ ---------- ---------- ------------ ----------- -----------
for f in gen entropy; do
	read -r w0 c0 _ <<<"${BEST[$f/duckdb-hash]}"
	for c in duckdb-hash read v1-dataset v2-dataset v2-words v1-value v2-value; do
		[ -n "${BEST[$f/$c]:-}" ] || continue
		read -r w cpu rss <<<"${BEST[$f/$c]}"
		awk -v n="$f/$c" -v w="$w" -v c="$cpu" -v r="$rss" -v w0="$w0" -v c0="$c0" \
			'BEGIN {printf "| %-22s | %8.3f | %8.3f | %10.2f | %9.2f | %9.1f |\n", n, w, c, w / w0, c / c0, r}'
	done
done
