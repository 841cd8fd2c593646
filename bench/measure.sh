# Shared by bench/scan.sh, bench/csvscan.sh and bench/alternate.sh (sourced; needs bash 4;
# measure and summary need $OUT, $REPS, $ROWS).
#
# timefigures FILE: the wall, CPU and peak-RSS figures of one /usr/bin/time -v report.
# measure NAME CMD...: runs CMD REPS times under /usr/bin/time -v and keeps the run with
# the least CPU (user+sys) in $OUT/NAME.{time,out}; WALL/CPU/RSS[NAME] hold its figures.
# A nonzero exit stops the script, except exit 1 for names listed in EXIT1_OK (a diff
# that found the differences it was asked to find).
# summary BASE: the table of every measured case with its ratio to case BASE.
# timefigures FILE: "WALL CPU RSS" (seconds, user+sys seconds, peak MiB) of a
# /usr/bin/time -v report.
timefigures() {
	awk -F': ' '
		/User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {m = $2}
		/Elapsed \(wall clock\)/ {n = split($2, a, ":"); w = (n == 3) ? a[1] * 3600 + a[2] * 60 + a[3] : a[1] * 60 + a[2]}
		END {printf "%.3f %.3f %.1f", w, u + s, m / 1024}' "$1"
}

declare -A WALL CPU RSS
ORDER=()
EXIT1_OK=${EXIT1_OK:-}
measure() {
	local name=$1
	shift
	local best="" r rc line
	for ((r = 1; r <= REPS; r++)); do
		rc=0
		/usr/bin/time -v -o "$OUT/$name.time.$r" "$@" >"$OUT/$name.out.$r" 2>"$OUT/$name.err.$r" || rc=$?
		if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [[ " $EXIT1_OK " == *" $name "* ]]; }; then
			echo "$0: $name failed (exit $rc):" >&2
			cat "$OUT/$name.err.$r" "$OUT/$name.out.$r" >&2
			exit 1
		fi
		line=$(timefigures "$OUT/$name.time.$r")
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

# snapid NAME: the snapshot id a measured pipewhy scan printed.
snapid() { awk '$1 == "snapshot" {print $2; exit}' "$OUT/$1.out"; }

summary() {
	local base=$1 n
	echo
	echo "summary: $ROWS rows, $(nproc) cores; ratio = case / $base (lower is faster; 1.0 = as fast as DuckDB)"
	printf '| %-16s | %9s | %9s | %10s | %10s | %9s | %12s |\n' case "wall s" "cpu s" "wall ratio" "cpu ratio" "rss MiB" "M rows/cpu-s"
	printf '|%s|%s|%s|%s|%s|%s|%s|\n' ------------------ ----------- ----------- ------------ ------------ ----------- --------------
	for n in "${ORDER[@]}"; do
		awk -v n="$n" -v w="${WALL[$n]}" -v c="${CPU[$n]}" -v r="${RSS[$n]}" -v w0="${WALL[$base]}" -v c0="${CPU[$base]}" -v rows="$ROWS" \
			'BEGIN {printf "| %-16s | %9.3f | %9.3f | %10.2f | %10.2f | %9.1f | %12.2f |\n", n, w, c, w / w0, c / c0, r, (c > 0 ? rows / c / 1e6 : 0)}'
	done
}
