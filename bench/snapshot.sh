#!/usr/bin/env bash
# Snapshot store throughput (C5) next to cp and sha256sum of the same bytes, in one run.
#
#   bench/snapshot.sh                       # 1 GiB of arrays
#   PIPEWHY_BENCH_BYTES=268435456 bench/snapshot.sh
#
# Publish writes, fsyncs, reads back and hashes every payload, then renames; it is set
# against "cp + sync + sha256sum" of one file of the same size (and plain cp +
# sha256sum). Open (read into memory + SHA-256) and Verify (streamed SHA-256) are set
# against sha256sum of that file. Data goes to ${TMPDIR:-/tmp}; about 4x the size must
# be free. Numbers on a shared machine are noisy: compare the ratios of one run.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${PIPEWHY_BENCH_BYTES:-1073741824}
BASE=${TMPDIR:-/tmp}
WORK=$(mktemp -d "$BASE/pipewhy-bench-snapshot.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

need=$((SIZE * 4 / 1024))
avail=$(df -Pk "$WORK" | awk 'NR==2 {print $4}')
if [ "$avail" -lt "$need" ]; then
	echo "bench/snapshot.sh: need $((need / 1024)) MiB free in $BASE, have $((avail / 1024)) MiB" >&2
	exit 2
fi

echo "size: $SIZE bytes ($((SIZE / 1048576)) MiB), dir: $WORK"
go test -c -o "$WORK/snapshot.test" ./snapshot
out=$(cd "$WORK" && TMPDIR="$WORK" PIPEWHY_BENCH_BYTES=$SIZE ./snapshot.test \
	-test.run='^$' -test.bench='^Benchmark(Publish|Open|Verify)$' -test.benchtime=3x)
echo "$out" | grep '^Benchmark'
mbps() { echo "$out" | awk -v b="$1" '$1 ~ "^"b"(-[0-9]+)?$" {for (i=1;i<=NF;i++) if ($(i+1)=="MB/s") print $i}'; }
pub=$(mbps BenchmarkPublish)
opn=$(mbps BenchmarkOpen)
ver=$(mbps BenchmarkVerify)

now() { date +%s.%N; }
rate() { awk -v s="$SIZE" -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", s / (b - a) / 1e6}'; }
head -c "$SIZE" /dev/urandom >"$WORK/src.bin"
sync "$WORK/src.bin"

t0=$(now); cp "$WORK/src.bin" "$WORK/a.bin"; sha256sum "$WORK/a.bin" >/dev/null; t1=$(now)
cp_sha=$(rate "$t0" "$t1")
t0=$(now); cp "$WORK/src.bin" "$WORK/b.bin"; sync "$WORK/b.bin"; sha256sum "$WORK/b.bin" >/dev/null; t1=$(now)
cp_sync_sha=$(rate "$t0" "$t1")
t0=$(now); sha256sum "$WORK/src.bin" >/dev/null; t1=$(now)
sha=$(rate "$t0" "$t1")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
printf '\n%-34s %10s   %s\n' "operation" "MB/s" "ratio"
printf '%-34s %10s\n' "cp + sha256sum" "$cp_sha"
printf '%-34s %10s\n' "cp + sync + sha256sum" "$cp_sync_sha"
printf '%-34s %10s   %s of cp+sync+sha256sum, %s of cp+sha256sum\n' "snapshot Publish" "$pub" \
	"$(ratio "$pub" "$cp_sync_sha")" "$(ratio "$pub" "$cp_sha")"
printf '%-34s %10s\n' "sha256sum" "$sha"
printf '%-34s %10s   %s of sha256sum\n' "snapshot Open (read + verify)" "$opn" "$(ratio "$opn" "$sha")"
printf '%-34s %10s   %s of sha256sum\n' "snapshot Verify (streamed)" "$ver" "$(ratio "$ver" "$sha")"
