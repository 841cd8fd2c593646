#!/bin/sh
# Read throughput of the PostgreSQL source adapter next to the floor of
# pulling the same rows out with psql's binary COPY.
#
#   bench/postgres.sh          (local server, user postgres, trust auth, database test)
#
# Environment: PSQL_ARGS (default "-X -q -h 127.0.0.1 -U postgres -d test"),
# BENCHTIME (default 3x). The Go benchmarks read PIPEWHY_TEST_POSTGRES_DSN
# (default postgres://postgres@127.0.0.1:5432/test?sslmode=disable) and
# create their own 1M × 5 table (int8, int8, float8, text ~12 chars,
# timestamp) with the same generator as below.
set -eu
cd "$(dirname "$0")/.."
args=${PSQL_ARGS:-"-X -q -h 127.0.0.1 -U postgres -d test"}
sch=pw_bench_$$
rows=1000000
trap 'psql $args -c "DROP SCHEMA IF EXISTS $sch CASCADE" >/dev/null' EXIT
psql $args -v ON_ERROR_STOP=1 -c "CREATE SCHEMA $sch" -c "CREATE TABLE $sch.bench AS SELECT g::int8 AS id,
  (g::int8 * 7919 % 1000003) AS k, g * 0.25::float8 AS x, lpad(to_hex(g), 12, 'a') AS s,
  timestamp '2020-01-01' + g * interval '1 second' AS ts FROM generate_series(1, $rows) g" -c "VACUUM ANALYZE $sch.bench" >/dev/null
psql $args -c "COPY $sch.bench TO STDOUT (FORMAT binary)" >/dev/null # warm the cache
for i in 1 2 3; do
	start=$(date +%s.%N)
	psql $args -c "COPY $sch.bench TO STDOUT (FORMAT binary)" >/dev/null
	end=$(date +%s.%N)
	echo "psql -c 'COPY bench TO STDOUT (FORMAT binary)' >/dev/null: $(echo "$rows / ($end - $start)" | bc) rows/s ($(echo "$end - $start" | bc) s)"
done
go test -run '^$' -bench 'BenchmarkRead|BenchmarkCopyFloor' -benchtime "${BENCHTIME:-3x}" ./source/postgres/
