#!/usr/bin/env bash
# pipewhy scan and pipewhy compare on a PostgreSQL table, next to the floor of pulling
# the rows out (binary COPY through psql) and a data-diff style server-side checksum,
# in one run (issue 8).
#
#   bench/pgscan.sh                          # ROWS=5000000
#   ROWS=1000000 bench/pgscan.sh
#   ROWS=1000000 REPS=3 OUT=/tmp/pgbench bench/pgscan.sh
#   DSN='postgres://postgres@db:5432/test?sslmode=disable' bench/pgscan.sh
#
# Builds pipewhy and bench/gen, writes t.parquet and t.csv with bench/gen (ROWS rows of
# id int64, qty int64, price double, name 12-char text, at timestamp(us) without zone;
# deterministic), creates the uniquely named table public.pw_pgscan_PID_RANDOM
# (id bigint primary key, qty bigint, price float8, name text, at timestamp), loads it
# from t.csv with psql \copy, adds the primary key, VACUUM (FREEZE, ANALYZE)s it and
# reads it once to warm the caches. Before timing, it checks that the table holds the
# generator's values exactly: the table exported as CSV (ORDER BY id, PostgreSQL's
# default float output, ISO dates) must be byte-identical to t.csv with the 'T' of the
# timestamps replaced by a space. Then it times, each under /usr/bin/time -v:
#
#   a  copy-binary   psql -c "COPY t TO STDOUT (FORMAT binary)" >/dev/null   (the floor)
#   b  checksum      psql -c "SELECT sum(('x' || substr(md5(t::text), 1, 16))::bit(64)::bigint) FROM t"
#                    (data-diff's checksum of a segment, over the whole table)
#   c  scan-dataset  pipewhy scan postgres://…#public.T --resolution dataset   (fresh repository)
#   d  scan-record   pipewhy scan postgres://…#public.T --resolution record    (key: the primary key)
#   e  compare       pipewhy compare postgres://…#public.T t.parquet --key id  (must exit 0: equal)
#
# and prints, per case, wall seconds, the client's CPU seconds (user+sys of the timed
# process: psql or pipewhy), the server's CPU seconds and peak RSS, with ratios to a and b.
#
# Server CPU: the PostgreSQL backend (and any parallel workers) are not in the client's
# rusage. When the server runs on this machine and psql can read /proc/POSTMASTER/stat,
# the script reads the postmaster's cutime+cstime (the CPU of its children that have
# exited and been reaped) before and after each case: that is the CPU of the case's
# backend(s), plus that of any other session or autovacuum worker that ended meanwhile
# (on a shared server this can only add to it). Otherwise the server column says n/a.
# For a and b the client (psql) does almost nothing: compare their wall time, or the
# client+server CPU, never the client CPU alone.
#
# Environment: ROWS (5000000), DSN (postgres://postgres@127.0.0.1:5432/test; psql and
# pipewhy both take it), REPS (1; the run with the least client+server CPU is kept),
# OUT (a new mktemp dir under ${TMPDIR:-/tmp}, removed at the end unless KEEP=1 or OUT
# is given), COMPARE=0 skips case e. The table is dropped at the end, also on failure
# or interrupt.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-5000000}
DSN=${DSN:-postgres://postgres@127.0.0.1:5432/test}
REPS=${REPS:-1}
COMPARE=${COMPARE:-1}
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	KEEP=1
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/pipewhy-bench-pgscan.XXXXXX")
fi
OUT=$(cd "$OUT" && pwd)
TABLE=pw_pgscan_$$_$RANDOM
PSQL=(psql "$DSN" -X -q -v ON_ERROR_STOP=1)
cleanup() {
	"${PSQL[@]}" -c "DROP TABLE IF EXISTS public.$TABLE" >/dev/null 2>&1 || echo "bench/pgscan.sh: could not drop public.$TABLE" >&2
	if [ "${KEEP:-0}" != 1 ]; then
		rm -rf "$OUT"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"${PSQL[@]}" -c 'SELECT 1' >/dev/null

# Disk, here: t.parquet (~34 bytes a row), t.csv (~55), one record-resolution snapshot
# (~92 a row per repetition), builds (~100 MB). In the server's data directory (when it
# is on this machine): the heap (~80 bytes a row), the primary key (~22) and the WAL
# of the load. Memory: scan --resolution record ~0.8 KB a row of peak RSS; compare keeps
# both sides at value resolution, ~2.5 KB a row (measured: see bench/README.md).
need_kb=$((ROWS * (90 + 100 * REPS) / 1024 + 100 * 1024))
avail_kb=$(df -Pk "$OUT" | awk 'NR==2 {print $4}')
datadir=$("${PSQL[@]}" -At -c 'SHOW data_directory' 2>/dev/null || true)
if [ -n "$datadir" ] && [ -d "$datadir" ]; then
	pg_kb=$((ROWS * 250 / 1024))
	if [ "$(df -P "$datadir" | awk 'NR==2 {print $1}')" = "$(df -P "$OUT" | awk 'NR==2 {print $1}')" ]; then
		need_kb=$((need_kb + pg_kb))
	elif [ "$(df -Pk "$datadir" | awk 'NR==2 {print $4}')" -lt "$pg_kb" ]; then
		echo "bench/pgscan.sh: the table needs ~$((pg_kb / 1024)) MiB free in $datadir" >&2
		exit 2
	fi
fi
if [ "$avail_kb" -lt "$need_kb" ]; then
	echo "bench/pgscan.sh: need $((need_kb / 1024)) MiB free in $OUT, have $((avail_kb / 1024)) MiB" >&2
	exit 2
fi
mem_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if [ "$mem_kb" -lt $((ROWS * 1000 / 1024)) ]; then
	echo "bench/pgscan.sh: scan --resolution record needs ~$((ROWS * 1000 / 1048576)) MiB of memory, $((mem_kb / 1024)) MiB available" >&2
	exit 2
fi
if [ "$COMPARE" = 1 ] && [ "$mem_kb" -lt $((ROWS * 2800 / 1024)) ]; then
	echo "bench/pgscan.sh: compare needs ~$((ROWS * 2800 / 1048576)) MiB of memory, $((mem_kb / 1024)) MiB available: skipping it (COMPARE=0)" >&2
	COMPARE=0
fi

echo "rows: $ROWS  reps: $REPS  table: public.$TABLE  dir: $OUT"
echo "machine: $(nproc) cores, $(awk '/^MemTotal:/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | awk '{print $3}'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server: $("${PSQL[@]}" -At -c 'SHOW server_version')  shared_buffers=$("${PSQL[@]}" -At -c 'SHOW shared_buffers')  max_parallel_workers_per_gather=$("${PSQL[@]}" -At -c 'SHOW max_parallel_workers_per_gather')"

BIN=$OUT/bin
mkdir -p "$BIN"
go build -o "$BIN/gen" ./bench/gen
go build -o "$BIN/pipewhy" ./cmd/pipewhy

PQ=$OUT/t.parquet
CSV=$OUT/t.csv
"$BIN/gen" -rows "$ROWS" -out "$PQ" -csv "$CSV"
echo "t.parquet: $(($(stat -c %s "$PQ") / 1048576)) MiB  t.csv: $(($(stat -c %s "$CSV") / 1048576)) MiB"

# Load: the table without its key, \copy, then the key (faster than indexing row by
# row); FREEZE sets the hint bits and visibility map now, so that no timed read writes
# them and autovacuum has nothing to do during the cases.
load_start=$(date +%s.%N)
"${PSQL[@]}" \
	-c "CREATE TABLE public.$TABLE (id bigint NOT NULL, qty bigint, price float8, name text, at timestamp)" \
	-c "\\copy public.$TABLE FROM '$CSV' (FORMAT csv, HEADER true)" \
	-c "ALTER TABLE public.$TABLE ADD PRIMARY KEY (id)" \
	-c "VACUUM (FREEZE, ANALYZE) public.$TABLE"
load_end=$(date +%s.%N)
echo "loaded public.$TABLE in $(awk -v a="$load_start" -v b="$load_end" 'BEGIN {printf "%.1f", b - a}') s: $("${PSQL[@]}" -At -c "SELECT pg_size_pretty(pg_table_size('public.$TABLE')) || ' heap, ' || pg_size_pretty(pg_indexes_size('public.$TABLE')) || ' primary key'")"

# Exactness of the load, independently of pipewhy: PostgreSQL's own CSV output of the
# table must be t.csv byte for byte, with "YYYY-MM-DDTHH:" written "YYYY-MM-DD HH:"
# (names never contain ':'). extra_float_digits=1 (the default since PostgreSQL 12)
# prints the shortest text that reads back as the same float8, as Go's 'f', -1 does.
sum_pg=$("${PSQL[@]}" -c "SET extra_float_digits = 1" -c "SET DateStyle = 'ISO, MDY'" \
	-c "COPY (SELECT * FROM public.$TABLE ORDER BY id) TO STDOUT (FORMAT csv, HEADER true)" | sha256sum | cut -d' ' -f1)
sum_csv=$(sed 's/-\([0-9][0-9]\)T\([0-9][0-9]\):/-\1 \2:/' "$CSV" | sha256sum | cut -d' ' -f1)
if [ "$sum_pg" != "$sum_csv" ]; then
	echo "bench/pgscan.sh: the table does not hold t.csv's values exactly (sha256 $sum_pg != $sum_csv); first differences:" >&2
	diff <("${PSQL[@]}" -c "COPY (SELECT * FROM public.$TABLE ORDER BY id) TO STDOUT (FORMAT csv, HEADER true)") \
		<(sed 's/-\([0-9][0-9]\)T\([0-9][0-9]\):/-\1 \2:/' "$CSV") | head -20 >&2 || true
	exit 1
fi
echo "round trip: the table exported as CSV equals t.csv byte for byte (sha256 ${sum_pg:0:16}…)"
rm -f "$CSV"
"${PSQL[@]}" -c "COPY public.$TABLE TO STDOUT (FORMAT binary)" >/dev/null # warm the caches

# The postmaster's pid, as seen by a backend (its parent), when the server is on this
# machine; then srvcpu prints the CPU seconds of its reaped children so far.
POSTMASTER=$("${PSQL[@]}" -At -f - <<'EOF' 2>/dev/null || true
SELECT pg_backend_pid() AS pw_bp \gset
\setenv PW_BP :pw_bp
\! sed 's/.*) //' /proc/$PW_BP/stat 2>/dev/null | awk '{print $2}'
EOF
)
if [ -n "$POSTMASTER" ] && ! [ -r "/proc/$POSTMASTER/stat" ]; then
	POSTMASTER=""
fi
TCK=$(getconf CLK_TCK)
srvcpu() {
	# fields after "(comm) ": state=1 ... cutime=14 cstime=15
	sed 's/.*) //' "/proc/$POSTMASTER/stat" | awk -v t="$TCK" '{printf "%.2f", ($14 + $15) / t}'
}
echo "server cpu: $([ -n "$POSTMASTER" ] && echo "postmaster $POSTMASTER, reaped children's cutime+cstime" || echo "n/a (server not on this machine or /proc not readable)")"

REPO=$OUT/repo
"$BIN/pipewhy" init --repo "$REPO" >/dev/null
PW=("$BIN/pipewhy" --repo "$REPO")
SRC="$DSN#public.$TABLE"

# measure NAME CMD...: runs CMD REPS times under /usr/bin/time -v; keeps the run with the
# least client+server CPU in $OUT/NAME.{time,out}. Any exit status but 0 fails the script.
declare -A WALL CPU SRV RSS
ORDER=()
measure() {
	local name=$1
	shift
	local best="" r rc s0 s1 line
	for ((r = 1; r <= REPS; r++)); do
		rc=0
		s0=$([ -n "$POSTMASTER" ] && srvcpu || echo 0)
		/usr/bin/time -v -o "$OUT/$name.time.$r" "$@" >"$OUT/$name.out.$r" 2>"$OUT/$name.err.$r" || rc=$?
		sleep 0.3 # let the postmaster reap the backend
		s1=$([ -n "$POSTMASTER" ] && srvcpu || echo 0)
		if [ "$rc" -ne 0 ]; then
			echo "bench/pgscan.sh: $name failed (exit $rc):" >&2
			cat "$OUT/$name.err.$r" >&2
			head -c 4000 "$OUT/$name.out.$r" >&2
			exit 1
		fi
		line=$(awk -F': ' -v s="$(awk -v a="$s0" -v b="$s1" 'BEGIN {print b - a}')" '
			/User time/ {u = $2} /System time/ {y = $2} /Maximum resident/ {m = $2}
			/Elapsed \(wall clock\)/ {n = split($2, a, ":"); w = (n == 3) ? a[1] * 3600 + a[2] * 60 + a[3] : a[1] * 60 + a[2]}
			END {printf "%.3f %.3f %.2f %.1f", w, u + y, s, m / 1024}' "$OUT/$name.time.$r")
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[2] + x[3] < y[2] + y[3])}'; then
			best=$line
			cp "$OUT/$name.time.$r" "$OUT/$name.time"
			cp "$OUT/$name.out.$r" "$OUT/$name.out"
		fi
	done
	read -r WALL[$name] CPU[$name] SRV[$name] RSS[$name] <<<"$best"
	ORDER+=("$name")
	printf '  %-13s wall %8.3f s  client cpu %8.3f s  server cpu %7s s  rss %8.1f MiB\n' "$name" "${WALL[$name]}" "${CPU[$name]}" \
		"$([ -n "$POSTMASTER" ] && echo "${SRV[$name]}" || echo n/a)" "${RSS[$name]}"
}

CHECKSUM="SELECT sum(('x' || substr(md5(t::text), 1, 16))::bit(64)::bigint) FROM public.$TABLE t"
echo "checksum plan: $("${PSQL[@]}" -At -c "EXPLAIN $CHECKSUM" | tr '\n' ' ' | sed 's/  */ /g')"
measure copy-binary sh -c 'exec "$@" -c "COPY public.'"$TABLE"' TO STDOUT (FORMAT binary)" >/dev/null' sh "${PSQL[@]}"
measure checksum "${PSQL[@]}" -At -c "$CHECKSUM"
echo "    checksum: $(cat "$OUT/checksum.out")"
measure scan-dataset "${PW[@]}" scan "$SRC" --name t --resolution dataset
measure scan-record "${PW[@]}" scan "$SRC" --name t --resolution record
if [ "$COMPARE" = 1 ]; then
	measure compare "$BIN/pipewhy" compare "$SRC" "$PQ" --key id
	sed 's/^/    /' "$OUT/compare.out"
fi

echo
echo "summary: $ROWS rows, $(nproc) cores; client = the timed process (psql or pipewhy), server = PostgreSQL backends"
echo "(ratios: wall to a and b; total CPU (client+server) to a and b; lower is faster)"
printf '| %-13s | %8s | %10s | %10s | %9s | %6s | %6s | %7s | %7s | %8s |\n' case "wall s" "client cpu" "server cpu" "total cpu" "wall/a" "wall/b" "cpu/a" "cpu/b" "rss MiB"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' --------------- ---------- ------------ ------------ ----------- -------- -------- --------- --------- ----------
for n in "${ORDER[@]}"; do
	awk -v n="$n" -v w="${WALL[$n]}" -v c="${CPU[$n]}" -v s="${SRV[$n]}" -v r="${RSS[$n]}" -v known="${POSTMASTER:+1}" \
		-v wa="${WALL[copy-binary]}" -v wb="${WALL[checksum]}" \
		-v ta="$(awk -v c="${CPU[copy-binary]}" -v s="${SRV[copy-binary]}" 'BEGIN {print c + s}')" \
		-v tb="$(awk -v c="${CPU[checksum]}" -v s="${SRV[checksum]}" 'BEGIN {print c + s}')" '
		function ratio(x, y) { return y > 0 ? sprintf("%.2f", x / y) : "n/a" }
		BEGIN {
			t = c + s
			if (known) {
				printf "| %-13s | %8.3f | %10.3f | %10.2f | %9.2f | %6.2f | %6.2f | %7s | %7s | %8.1f |\n", n, w, c, s, t, w / wa, w / wb, ratio(t, ta), ratio(t, tb), r
			} else {
				printf "| %-13s | %8.3f | %10.3f | %10s | %9s | %6.2f | %6.2f | %7s | %7s | %8.1f |\n", n, w, c, "n/a", "n/a", w / wa, w / wb, "n/a", "n/a", r
			}
		}'
done
