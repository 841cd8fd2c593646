//go:build duckdb_arrow

package main

import (
	"fmt"
	"strconv"

	bindings "github.com/duckdb/duckdb-go-bindings"
)

// hashCSV is the CSV baseline of bench/csvscan.sh: DuckDB's read_csv over
// bench/gen's CSV with the five column types given (no type sniffing, the
// dialect fixed: comma, double quote, header), hashing every value of every
// row and summing the hashes, as hash does for Parquet. Parsing the same
// values gives the same sum as hash over the Parquet file written alongside,
// which the script checks.
//
//	duckhash hash-csv FILE.csv
func hashCSV(file string) (int64, string, error) {
	db, conn, err := openDB(":memory:")
	if err != nil {
		return 0, "", err
	}
	defer bindings.Close(&db)
	defer bindings.Disconnect(&conn)
	q := `SELECT count(*)::VARCHAR, sum(hash(id, qty, price, name, "at"))::VARCHAR, current_setting('threads')::VARCHAR FROM read_csv(` +
		quote(file) + `, header = true, delim = ',', quote = '"', escape = '"', auto_detect = false, ` +
		`columns = {'id': 'BIGINT', 'qty': 'BIGINT', 'price': 'DOUBLE', 'name': 'VARCHAR', 'at': 'TIMESTAMP'})`
	rows, err := query(conn, q)
	if err != nil {
		return 0, "", err
	}
	if len(rows) != 1 {
		return 0, "", fmt.Errorf("%d result rows", len(rows))
	}
	n, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("count: %w", err)
	}
	return n, "sum=" + rows[0][1] + " threads=" + rows[0][2], nil
}
