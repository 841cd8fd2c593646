//go:build duckdb_arrow

package main

// hashCSV is the CSV baseline of bench/csvscan.sh: DuckDB's read_csv over
// bench/gen's CSV with the five column types given (no type sniffing, the
// dialect fixed: comma, double quote, header), hashing every value of every
// row and summing the hashes, as hash does for Parquet. Parsing the same
// values gives the same sum as hash over the Parquet file written alongside,
// which the script checks.
//
//	duckhash hash-csv FILE.csv
func hashCSV(file string) (int64, string, error) {
	return hashFrom(`read_csv(` + quote(file) + `, header = true, delim = ',', quote = '"', escape = '"', auto_detect = false, ` +
		`columns = {'id': 'BIGINT', 'qty': 'BIGINT', 'price': 'DOUBLE', 'name': 'VARCHAR', 'at': 'TIMESTAMP'})`)
}
