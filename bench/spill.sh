#!/usr/bin/env bash
# Out-of-core record and value resolution: peak memory against rows, in one run.
#
#   bench/spill.sh                          # ROWS=10000000
#   ROWS=100000000 bench/spill.sh
#   ROWS=1000000 RES=value MEMORY=256MiB bench/spill.sh
#
# Generates v1.parquet (ROWS rows of id int64, qty int64, price double, name 12-char text,
# at timestamp(us); bench/gen) and v2.parquet, a copy with ROWS/1000 rows changed (0.1 %),
# then times, each under /usr/bin/time -v (wall, user+sys CPU, peak RSS, bytes written):
#
#   dataset   pipewhy scan v1.parquet --resolution dataset                (the peer figure)
#   scan-v1   pipewhy scan v1.parquet --resolution RES --key id --memory MEMORY
#   scan-v2   the same of v2.parquet (same artifact name)
#   diff      pipewhy diff scan-v1 scan-v2 (exit 1: the changed rows)
#
# RES is record (default) or value; MEMORY is --memory (default 1GiB). The scans sort
# their entries in runs that fit the budget, spill them to the snapshot's staging
# directory and merge them into the snapshot; the diff verifies both snapshots'
# checksums, then streams them in one merge pass. "written" is the bytes the process
# wrote to the filesystem (/usr/bin/time's file system outputs × 512): runs, then the
# snapshot. The script fails unless diff reports exactly ROWS/1000 changed records.
#
# Environment: ROWS (10000000), RES (record), MEMORY (1GiB), LAYOUT (compressed, the
# default of `pipewhy init`: C5-compressed version 2 snapshots; c5v1: C5 version 1), OUT (a new mktemp dir
# under ${TMPDIR:-/tmp}, removed at the end unless KEEP=1 or OUT is given).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
RES=${RES:-record}
MEMORY=${MEMORY:-1GiB}
REPS=1
MUTATE=$((ROWS / 1000))
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	KEEP=1
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/pipewhy-bench-spill.XXXXXX")
fi
OUT=$(cd "$OUT" && pwd)
if [ "${KEEP:-0}" != 1 ]; then
	trap 'rm -rf "$OUT"' EXIT
fi
echo "rows: $ROWS  resolution: $RES  memory: $MEMORY  changed: $MUTATE  dir: $OUT"
echo "machine: $(nproc) cores, $(awk '/^MemTotal:/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | awk '{print $3}'), load: $(cut -d' ' -f1-3 /proc/loadavg)"

BIN=$OUT/bin
mkdir -p "$BIN"
go build -o "$BIN/gen" ./bench/gen
go build -o "$BIN/pipewhy" ./cmd/pipewhy
"$BIN/gen" -rows "$ROWS" -out "$OUT/v1.parquet"
"$BIN/gen" -rows "$ROWS" -out "$OUT/v2.parquet" -mutate "$MUTATE"
echo "v1.parquet: $(($(stat -c %s "$OUT/v1.parquet") / 1048576)) MiB"
REPO=$OUT/repo
"$BIN/pipewhy" init --repo "$REPO" >/dev/null
if [ "${LAYOUT:-compressed}" = c5v1 ]; then # snapshots in C5 version 1 rather than C5-compressed
	sed -i 's/,"snapshot_encoding":"zstd-blocks"//' "$REPO/repo.json"
fi
PW=("$BIN/pipewhy" --repo "$REPO")

EXIT1_OK=diff
. bench/measure.sh
written() { awk -F': ' '/File system outputs/ {printf "%.0f", $2 * 512 / 1048576}' "$OUT/$1.time"; }

measure dataset "${PW[@]}" scan "$OUT/v1.parquet" --name d --resolution dataset
measure scan-v1 "${PW[@]}" scan "$OUT/v1.parquet" --name v --resolution "$RES" --key id --memory "$MEMORY"
measure scan-v2 "${PW[@]}" scan "$OUT/v2.parquet" --name v --resolution "$RES" --key id --memory "$MEMORY"
measure diff "${PW[@]}" diff "$(snapid scan-v1)" "$(snapid scan-v2)" --json --limit 3
if ! tr -d ' \n' <"$OUT/diff.out" | grep -q "\"changed\":$MUTATE[,}]"; then
	echo "bench/spill.sh: diff did not report $MUTATE changed records:" >&2
	head -c 2000 "$OUT/diff.out" >&2
	exit 1
fi
echo
echo "| step | wall s | cpu s | peak RSS MiB | M rows/s (wall) | written MiB |"
echo "|---|---|---|---|---|---|"
for n in dataset scan-v1 scan-v2 diff; do
	rows=$ROWS
	[ "$n" = diff ] && rows=$((2 * ROWS)) # both snapshots' entries are read
	awk -v n="$n" -v w="${WALL[$n]}" -v c="${CPU[$n]}" -v r="${RSS[$n]}" -v rows="$rows" -v wr="$(written "$n")" \
		'BEGIN {printf "| %s | %.1f | %.1f | %.0f | %.2f | %s |\n", n, w, c, r, rows / w / 1e6, wr}'
done
echo "record scan / dataset scan (wall): $(awk -v a="${WALL[scan-v1]}" -v b="${WALL[dataset]}" 'BEGIN {printf "%.2f", a / b}')"
echo "snapshot of v1: $(du -sm "$REPO/store/snapshots/$(snapid scan-v1)" | cut -f1) MiB"
