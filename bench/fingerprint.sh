#!/usr/bin/env bash
# C3 fingerprint throughput, side by side with the memory read bandwidth of the same run.
#
#   bench/fingerprint.sh            # kernels + engine + v2 columnar kernels (about a minute)
#   PIPELINE=1 bench/fingerprint.sh # also C2 encode -> fingerprint over 10M records
#   BENCHTIME=5x COUNT=3 bench/fingerprint.sh
#
# Pools are 256 MiB, well above the L3 cache, so both the digest kernels and the memory
# baseline (a plain 4-accumulator sum over the same words) stream from DRAM. The ratio is
# digest+sum GB/s over memory-read GB/s for the same record size and core count.
# BenchmarkColumnarPool is algorithm v2's column kernels on the 32-word records held as
# columns (a uint64 and a 168-byte text column in Arrow layout), one core, its bytes
# counted as the records' C2 words: the row "xxh3-128-columnar-kernels".
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-3x}
count=${COUNT:-1}
pattern='^(BenchmarkDigestSum|BenchmarkMemRead|BenchmarkEngine|BenchmarkColumnarPool)$'
if [ "${PIPELINE:-0}" = 1 ]; then
  pattern='^(BenchmarkDigestSum|BenchmarkMemRead|BenchmarkEngine|BenchmarkColumnarPool|BenchmarkPipeline)$'
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# $(date -u +%FT%TZ) $(go version) GOMAXPROCS=${GOMAXPROCS:-$(nproc)} cores=$(nproc)"
echo "# go test -run='^\$' -bench='$pattern' -benchtime=$benchtime -count=$count ./fingerprint/"
go test -run='^$' -bench="$pattern" -benchtime="$benchtime" -count="$count" ./fingerprint/ | tee "$out"
echo
echo "# digest+sum vs memory read (mean over -count runs)"
awk '
  function metric(unit,   i) { for (i = 1; i <= NF; i++) if ($(i+1) == unit) return $i; return "" }
  /^BenchmarkMemRead\// { split($1, p, "/"); k = p[2] "/" p[3]; sub(/-[0-9]+$/, "", k)
    mem[k] += metric("MB/s"); memc[k] += metric("cpu-MB/s"); nm[k]++ }
  /^BenchmarkDigestSum\// { split($1, p, "/"); k = p[3] "/" p[4]; sub(/-[0-9]+$/, "", k); a = p[2]
    dig[a, k] += metric("MB/s"); digc[a, k] += metric("cpu-MB/s"); rec[a, k] += metric("records/s")
    nd[a, k]++; algs[a] = 1; keys[k] = 1 }
  /^BenchmarkColumnarPool/ { k = "words=32/workers=1"; a = "xxh3-128-columnar-kernels"
    dig[a, k] += metric("MB/s"); digc[a, k] += metric("cpu-MB/s"); rec[a, k] += metric("records/s")
    nd[a, k]++; algs[a] = 1; keys[k] = 1 }
  END {
    printf "%-25s %-18s %11s %7s %8s %6s | %9s %9s %6s\n", "algorithm", "size/cores", "records/s", "GB/s", "mem GB/s", "ratio", "cpu-GB/s", "mem cpu", "ratio"
    for (a in algs) for (k in keys) if (nd[a, k] && nm[k]) {
      d = dig[a, k] / nd[a, k] / 1000; m = mem[k] / nm[k] / 1000
      dc = digc[a, k] / nd[a, k] / 1000; mc = memc[k] / nm[k] / 1000
      printf "%-25s %-18s %11.0f %7.2f %8.2f %5.0f%% | %9.2f %9.2f %5.0f%%\n", a, k, rec[a, k] / nd[a, k], d, m, 100 * d / m, dc, mc, (mc > 0 ? 100 * dc / mc : 0)
    }
  }' "$out" | sort
echo "# GB/s: bytes per wall second. cpu-GB/s: bytes per CPU-second of the process (user+sys),"
echo "# which time slicing on a loaded machine does not distort; with N workers it is per core."
