#!/usr/bin/env bash
# Bytes a row of record- and value-resolution snapshots, array by array, in both
# snapshot layouts (C5 version 1, and C5-compressed version 2: zstd-blocks payloads,
# docs/contracts/C5-compressed.md), with the CPU of each scan and diff.
#
#   bench/snapsize.sh                 # ROWS=200000
#   ROWS=1000000 bench/snapsize.sh
#
# Generates v1.parquet (bench/gen: id int64, qty int64, price double, name 12-char text,
# at timestamp(us)) and v2.parquet (ROWS/1000 rows changed). For each layout (a
# repository made by `pipewhy init`, which writes version 2, and the same with
# snapshot_encoding removed from repo.json, which writes version 1) and each resolution
# (record, value) it scans both files with --key id and diffs them, timing each step
# (/usr/bin/time: wall and user+sys CPU seconds). Then it prints, for every C1 array,
# its dtype, count, and bytes a row: logical (count × width, the version 1 file) and
# stored by version 2. Needs python3 (reads manifest.json).
#
# Environment: ROWS (200000), OUT (a new mktemp dir, removed unless KEEP=1 or OUT given).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-200000}
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	KEEP=1
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/pipewhy-bench-snapsize.XXXXXX")
fi
OUT=$(cd "$OUT" && pwd)
if [ "${KEEP:-0}" != 1 ]; then
	trap 'rm -rf "$OUT"' EXIT
fi
echo "rows: $ROWS  machine: $(nproc) cores, $(go version | awk '{print $3}'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
go build -o "$OUT/gen" ./bench/gen
go build -o "$OUT/pipewhy" ./cmd/pipewhy
"$OUT/gen" -rows "$ROWS" -out "$OUT/v1.parquet"
"$OUT/gen" -rows "$ROWS" -out "$OUT/v2.parquet" -mutate $((ROWS / 1000))
echo
echo "| layout | resolution | scan v1 wall s | scan v1 CPU s | diff wall s | diff CPU s | snapshot bytes a row |"
echo "|---|---|---|---|---|---|---|"
for layout in c5v1 compressed; do
	REPO=$OUT/$layout
	"$OUT/pipewhy" init --repo "$REPO" >/dev/null
	if [ "$layout" = c5v1 ]; then
		sed -i 's/,"snapshot_encoding":"zstd-blocks"//' "$REPO/repo.json"
	fi
	for res in record value; do
		t() { /usr/bin/time -f "%e %U %S" -o "$OUT/t" "$@" >"$OUT/out" || [ $? = 1 ]; tail -1 "$OUT/t" | awk '{printf "%.2f | %.2f", $1, $2 + $3}'; }
		scan=$(t "$OUT/pipewhy" --repo "$REPO" scan "$OUT/v1.parquet" --name "$res" --resolution "$res" --key id)
		a=$(ls -t "$REPO/store/snapshots" | head -1)
		"$OUT/pipewhy" --repo "$REPO" scan "$OUT/v2.parquet" --name "$res" --resolution "$res" --key id >/dev/null
		b=$(ls -t "$REPO/store/snapshots" | head -1)
		diff=$(t "$OUT/pipewhy" --repo "$REPO" diff "$a" "$b" --json --limit 3)
		bytes=$(du -sb "$REPO/store/snapshots/$a" | cut -f1)
		echo "| $layout | $res | $scan | $diff | $(awk -v b="$bytes" -v r="$ROWS" 'BEGIN {printf "%.2f", b / r}') |"
		echo "$a" >"$OUT/$layout-$res.id"
	done
done
echo
for res in record value; do
	ROWS=$ROWS python3 - "$OUT/c5v1/store/snapshots/$(cat "$OUT/c5v1-$res.id")" "$OUT/compressed/store/snapshots/$(cat "$OUT/compressed-$res.id")" <<'PY'
import json, os, sys
rows = int(os.environ["ROWS"])
m1 = json.load(open(os.path.join(sys.argv[1], "manifest.json")))
m2 = json.load(open(os.path.join(sys.argv[2], "manifest.json")))
print(f"{m1['snapshot']['resolution']} resolution, {rows} rows, manifest versions {m1['version']} and {m2['version']}")
print("| array | dtype | count | bytes a row, version 1 | bytes a row, version 2 |")
print("|---|---|---|---|---|")
t1 = t2 = 0
for k, v in sorted(m1["arrays"].items()):
    b1 = os.path.getsize(os.path.join(sys.argv[1], v["file"]))
    b2 = os.path.getsize(os.path.join(sys.argv[2], m2["arrays"][k]["file"]))
    t1 += b1
    t2 += b2
    if b1 / rows >= 0.05:
        print(f"| {k} | {v['dtype']} | {v['count']} | {b1 / rows:.2f} | {b2 / rows:.2f} |")
print(f"| all {len(m1['arrays'])} arrays | | | {t1 / rows:.2f} | {t2 / rows:.2f} |")
print()
PY
done
