#!/usr/bin/env bash
# pipewhy compare beside daff (https://github.com/paulfitz/daff, `npm install daff`) on
# two keyed CSV files from bench/gen: ROWS rows of five columns, the second with
# MUTATE records changed (qty+1), compared by id. The two commands run in alternating
# rounds (RUNS), so that both see the same load; then each one's mean wall seconds, CPU
# seconds (user+sys) and peak RSS, and daff's figures divided by pipewhy's.
#
#   DAFF=/tmp/d/node_modules/.bin/daff ROWS=1000000 RUNS=3 bench/compare.sh
#
# PIPEWHY (default: built from this tree) and MEMORY (pipewhy's --memory, default its
# own default) choose the pipewhy side; DIR keeps the generated files (default: a
# temporary directory, removed at the end). Both tools exit 1 on a difference or 0;
# anything else stops the script. This is how docs/performance.md's compare-vs-daff
# figures were measured.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
MUTATE=${MUTATE:-100}
RUNS=${RUNS:-3}
DAFF=${DAFF:-daff}
command -v "$DAFF" >/dev/null || { echo "$0: daff not found (npm install daff; DAFF=path/to/node_modules/.bin/daff)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipewhy-compare-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
DIR=${DIR:-$tmp}
mkdir -p "$DIR"
if [ -z "${PIPEWHY:-}" ]; then
	go build -o "$tmp/pipewhy" ./cmd/pipewhy
	PIPEWHY=$tmp/pipewhy
fi
if [ ! -f "$DIR/a-$ROWS.csv" ]; then
	go run ./bench/gen -rows "$ROWS" -out "$DIR/a-$ROWS.parquet" -csv "$DIR/a-$ROWS.csv"
	go run ./bench/gen -rows "$ROWS" -out "$DIR/b-$ROWS.parquet" -csv "$DIR/b-$ROWS.csv" -mutate "$MUTATE"
fi
a=$DIR/a-$ROWS.csv b=$DIR/b-$ROWS.csv
mem=()
if [ -n "${MEMORY:-}" ]; then
	mem=(--memory "$MEMORY")
fi
pw="$PIPEWHY compare $a $b --key id ${mem[*]}"
df="$DAFF diff --id id $a $b"
echo "load: $(uptime)"
echo "pipewhy: $pw"
echo "daff:    $df"
# Both exit 1 on a difference (daff: 0 with its default options): only >1 is a failure.
RUNS=$RUNS bench/alternate.sh pipewhy "$pw; test \$? -le 1" daff "$df; test \$? -le 1" | tee "$tmp/table"
echo "load: $(uptime)"
awk -F'|' '$2 ~ /^ *(pipewhy|daff) *$/ {
		gsub(/ /, "", $2); split($3, w, " "); split($4, c, " "); wall[$2] = w[1]; cpu[$2] = c[1]; rss[$2] = $5 + 0
	}
	END {printf "daff / pipewhy: wall %.1fx, cpu %.1fx, peak memory %.1fx\n",
		wall["daff"] / wall["pipewhy"], cpu["daff"] / cpu["pipewhy"], rss["daff"] / rss["pipewhy"]}' "$tmp/table"
