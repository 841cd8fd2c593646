#!/usr/bin/env bash
# Alternating runs: the commands given, one after another, RUNS rounds, so that every
# command sees the same hours of a shared or noisy machine; then the mean and range of
# each command's wall seconds, CPU seconds (user+sys) and peak RSS.
#
#   RUNS=5 bench/alternate.sh LABEL 'COMMAND' [LABEL 'COMMAND' ...]
#   PREP='rm -rf /tmp/r && pipewhy init --repo /tmp/r >/dev/null' RUNS=5 bench/alternate.sh \
#       old '/tmp/old/pipewhy scan --repo /tmp/r v1.parquet --resolution dataset' \
#       new '/tmp/new/pipewhy scan --repo /tmp/r v1.parquet --resolution dataset'
#
# Each COMMAND runs under /usr/bin/time -v through bash -c (its output discarded); PREP,
# when set, runs untimed before every command (a fresh repository for a scan). A command
# that fails stops the script. This is how docs/performance.md's "alternating runs"
# comparisons were measured.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/measure.sh
RUNS=${RUNS:-5}
if [ $# -lt 2 ] || [ $(($# % 2)) -ne 0 ]; then
	echo "usage: RUNS=N [PREP=CMD] $0 LABEL 'COMMAND' [LABEL 'COMMAND' ...]" >&2
	exit 2
fi
labels=() cmds=()
while [ $# -gt 0 ]; do
	labels+=("$1")
	cmds+=("$2")
	shift 2
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipewhy-alternate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
declare -A runs
for ((r = 1; r <= RUNS; r++)); do
	for i in "${!labels[@]}"; do
		if [ -n "${PREP:-}" ]; then
			bash -c "$PREP"
		fi
		if ! /usr/bin/time -v -o "$tmp/t" bash -c "${cmds[$i]}" >/dev/null 2>"$tmp/err"; then
			echo "$0: ${labels[$i]} failed:" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
		f=$(timefigures "$tmp/t")
		runs[${labels[$i]}]+="$f"$'\n'
		printf '  round %d  %-12s wall %7.3f s  cpu %7.3f s  rss %8.1f MiB\n' "$r" "${labels[$i]}" $f
	done
done
echo
printf '| %-12s | %-21s | %-21s | %-19s |\n' command "wall s: mean (range)" "cpu s: mean (range)" "peak MiB: mean"
printf '|%s|%s|%s|%s|\n' -------------- ----------------------- ----------------------- ---------------------
for l in "${labels[@]}"; do
	printf '%s' "${runs[$l]}" | awk -v l="$l" '
		{n++; w += $1; c += $2; m += $3
		 if (n == 1 || $1 < wl) wl = $1; if ($1 > wh) wh = $1
		 if (n == 1 || $2 < cl) cl = $2; if ($2 > ch) ch = $2}
		END {printf "| %-12s | %6.3f (%5.2f–%5.2f) | %6.3f (%5.2f–%5.2f) | %19.0f |\n", l, w / n, wl, wh, c / n, cl, ch, m / n}'
done
