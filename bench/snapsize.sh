#!/usr/bin/env bash
# Bytes a row of a record- and a value-resolution snapshot, array by array.
#
#   bench/snapsize.sh                 # ROWS=200000
#   ROWS=1000000 bench/snapsize.sh
#
# Generates v1.parquet (bench/gen: id int64, qty int64, price double, name 12-char text,
# at timestamp(us)), scans it at record and at value resolution with --key id, and prints
# for every C1 array of each snapshot its dtype, element count, bytes a row as stored
# (C5 v1: count × width) and, as an estimate of what per-array compression can reach,
# bytes a row of `zstd -3` of the whole payload (when the zstd command is installed).
# Needs python3 (reads manifest.json).
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
go build -o "$OUT/gen" ./bench/gen
go build -o "$OUT/pipewhy" ./cmd/pipewhy
"$OUT/gen" -rows "$ROWS" -out "$OUT/v1.parquet"
REPO=$OUT/repo
"$OUT/pipewhy" init --repo "$REPO" >/dev/null
before=$(ls "$REPO/store/snapshots" 2>/dev/null || true)
for res in record value; do
	"$OUT/pipewhy" --repo "$REPO" scan "$OUT/v1.parquet" --name "$res" --resolution "$res" --key id ${SCANFLAGS:-} >/dev/null
done
for d in "$REPO"/store/snapshots/*/; do
	ROWS=$ROWS python3 - "$d" <<'PY'
import json, os, shutil, subprocess, sys
d = sys.argv[1]
rows = int(os.environ["ROWS"])
m = json.load(open(os.path.join(d, "manifest.json")))
z = shutil.which("zstd")
print(f"{m['snapshot']['resolution']} resolution, {rows} rows")
print("| array | dtype | count | bytes/row | zstd -3 bytes/row |")
print("|---|---|---|---|---|")
tot = ztot = 0
for k, v in sorted(m["arrays"].items()):
    f = os.path.join(d, v["file"])
    b = os.path.getsize(f)
    zb = len(subprocess.run([z, "-3", "-c", "-q", f], capture_output=True, check=True).stdout) if z else 0
    tot += b
    ztot += zb
    if b / rows >= 0.05:
        print(f"| {k} | {v['dtype']} | {v['count']} | {b / rows:.2f} | {zb / rows:.2f} |")
print(f"| all {len(m['arrays'])} arrays | | | {tot / rows:.2f} | {ztot / rows:.2f} |")
print()
PY
done
