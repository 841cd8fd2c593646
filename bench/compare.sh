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
. bench/measure.sh
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
labels=(pipewhy daff)
cmds=("$PIPEWHY compare $a $b --key id ${mem[*]}" "$DAFF diff --id id $a $b")
echo "load: $(uptime)"
echo "pipewhy: ${cmds[0]}"
echo "daff:    ${cmds[1]}"
declare -A runs
for ((r = 1; r <= RUNS; r++)); do
	for i in "${!labels[@]}"; do
		rc=0
		/usr/bin/time -v -o "$tmp/t" bash -c "${cmds[$i]}" >"$tmp/out.${labels[$i]}" 2>"$tmp/err" || rc=$?
		if [ "$rc" -gt 1 ]; then
			echo "$0: ${labels[$i]} failed (exit $rc):" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
		f=$(timefigures "$tmp/t")
		runs[${labels[$i]}]+="$f"$'\n'
		printf '  round %d  %-8s wall %8.3f s  cpu %8.3f s  rss %8.1f MiB\n' "$r" "${labels[$i]}" $f
	done
done
echo "load: $(uptime)"
mean() { printf '%s' "${runs[$1]}" | awk '{n++; w += $1; c += $2; m += $3} END {printf "%.3f %.3f %.1f", w / n, c / n, m / n}'; }
read -r pw pc pm <<<"$(mean pipewhy)"
read -r dw dc dm <<<"$(mean daff)"
printf '| %-8s | %10s | %10s | %12s |\n' tool "wall s" "cpu s" "peak MiB"
printf '|%s|%s|%s|%s|\n' ---------- ------------ ------------ --------------
printf '| %-8s | %10.3f | %10.3f | %12.1f |\n' pipewhy "$pw" "$pc" "$pm" daff "$dw" "$dc" "$dm"
awk -v pw="$pw" -v pc="$pc" -v pm="$pm" -v dw="$dw" -v dc="$dc" -v dm="$dm" \
	'BEGIN {printf "daff / pipewhy: wall %.1fx, cpu %.1fx, peak memory %.1fx\n", dw / pw, dc / pc, dm / pm}'
