#!/bin/sh
# Read throughput of the MariaDB/MySQL source adapter next to the floor of
# pulling the same rows out with the mariadb client.
#
#   bench/mysql.sh            (local server, user root without password, database test)
#
# Environment: MYSQL_CLIENT (default mariadb), MYSQL_ARGS (default
# "-uroot -h127.0.0.1 -P3306"), BENCHTIME (default 3x). The Go benchmark
# reads PIPEWHY_TEST_MYSQL_DSN (default mysql://root@127.0.0.1:3306/test).
set -eu
cd "$(dirname "$0")/.."
client=${MYSQL_CLIENT:-mariadb}
args=${MYSQL_ARGS:-"-uroot -h127.0.0.1 -P3306"}
db=pw_bench_$$
rows=1000000
trap '$client $args -e "DROP DATABASE IF EXISTS $db"' EXIT
$client $args -e "CREATE DATABASE $db; USE $db; SET time_zone = '+00:00';
  CREATE TABLE big (id BIGINT NOT NULL PRIMARY KEY, a BIGINT NOT NULL, x DOUBLE NOT NULL,
    s VARCHAR(16) NOT NULL, ts TIMESTAMP NOT NULL DEFAULT '1970-01-01 00:00:01') ENGINE=InnoDB;
  INSERT INTO big SELECT seq, seq * 2, seq / 4, CONCAT('name-', LPAD(seq, 7, '0')), FROM_UNIXTIME(seq) FROM seq_1_to_$rows;"
$client $args $db -e "SELECT * FROM big" >/dev/null # warm the buffer pool
for mode in "--quick" "--quick --batch --skip-column-names"; do
	start=$(date +%s.%N)
	$client $args $mode $db -e "SELECT * FROM big" >/dev/null
	end=$(date +%s.%N)
	echo "$client $mode -e 'SELECT * FROM big' >/dev/null: $(echo "$rows / ($end - $start)" | bc) rows/s ($(echo "$end - $start" | bc) s)"
done
go test -run '^$' -bench BenchmarkRead -benchtime "${BENCHTIME:-3x}" ./source/mysql/
