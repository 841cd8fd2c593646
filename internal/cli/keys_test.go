//go:build cgo

package cli

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bindings "github.com/duckdb/duckdb-go-bindings"
)

// airportTables loads vega-datasets' airports (testdata/vega/airports-100.csv) into a
// SQLite and a DuckDB table, each with PRIMARY KEY (iata); in the DuckDB copy the
// airport 00R is renamed. It returns the two addresses.
func airportTables(t *testing.T) (sqliteAddr, duckAddr string) {
	t.Helper()
	csvPath, err := filepath.Abs(filepath.Join(vega, "airports-100.csv"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 101 || strings.Join(rows[0], ",") != "iata,name,city,state,country,latitude,longitude" {
		t.Fatalf("airports-100.csv: %d rows, header %v, %v", len(rows), rows[0], err)
	}
	dir := t.TempDir()
	lite := filepath.Join(dir, "airports.db")
	db, err := sql.Open("sqlite", lite)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE airports(iata TEXT PRIMARY KEY, name TEXT, city TEXT, state TEXT, country TEXT, latitude REAL, longitude REAL)"); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		lat, err1 := strconv.ParseFloat(r[5], 64)
		lon, err2 := strconv.ParseFloat(r[6], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %v", r)
		}
		if _, err := db.Exec("INSERT INTO airports VALUES (?, ?, ?, ?, ?, ?, ?)", r[0], r[1], r[2], r[3], r[4], lat, lon); err != nil {
			t.Fatal(err)
		}
	}
	duck := filepath.Join(dir, "airports.duckdb")
	duckExec(t, duck,
		"CREATE TABLE airports(iata VARCHAR PRIMARY KEY, name VARCHAR, city VARCHAR, state VARCHAR, country VARCHAR, latitude DOUBLE, longitude DOUBLE)",
		"INSERT INTO airports SELECT * FROM read_csv('"+csvPath+"', header = true, all_varchar = true)",
		"UPDATE airports SET name = 'Livingston' WHERE iata = '00R'")
	return "sqlite:" + lite + "#airports", "duckdb:" + duck + "#airports"
}

// duckExec creates the DuckDB database file path and runs stmts in it.
func duckExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	var db bindings.Database
	if bindings.Open(path, &db) == bindings.StateError {
		t.Fatalf("open %s", path)
	}
	defer bindings.Close(&db)
	var conn bindings.Connection
	if bindings.Connect(db, &conn) == bindings.StateError {
		t.Fatal("connect")
	}
	defer bindings.Disconnect(&conn)
	for _, q := range stmts {
		var res bindings.Result
		if bindings.Query(conn, q, &res) == bindings.StateError {
			msg := bindings.ResultError(&res)
			bindings.DestroyResult(&res)
			t.Fatalf("%s: %s", q, msg)
		}
		bindings.DestroyResult(&res)
	}
}

// TestPrimaryKeyDefaults: a SQLite and a DuckDB table's primary key is the default key
// of scan (as --help says) and of compare, which then need no --key.
func TestPrimaryKeyDefaults(t *testing.T) {
	lite, duck := airportTables(t)
	r := newRepo(t)
	var ids []string
	for _, addr := range []string{lite, duck} {
		code, out, e := runCLI(t, "scan", "--repo", r, "--resolution", "value", "--json", addr)
		if code != 0 {
			t.Fatalf("scan %s: exit %d: %s", addr, code, e)
		}
		var sum struct {
			Snapshot string
			Key      []string
		}
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatal(err)
		}
		if strings.Join(sum.Key, ",") != "iata" {
			t.Errorf("scan %s: key %q, want the primary key iata", addr, sum.Key)
		}
		ids = append(ids, sum.Snapshot)
	}
	// Keyed by iata, the renamed airport is one changed record, in diff and in compare.
	d := diffJSONOf(t, ExitDifference, "--repo", r, ids[0], ids[1])
	if d.Records == nil || *d.Records.Changed != 1 || *d.Records.Added+*d.Records.Removed != 0 || *d.Records.Unchanged != 99 {
		t.Fatalf("diff records %+v, want 1 changed, 99 unchanged", d.Records)
	}
	if len(d.Examples.Changed) != 1 || d.Examples.Changed[0].Key != `iata="00R"` || len(d.Examples.Changed[0].Changes) != 1 ||
		d.Examples.Changed[0].Changes[0] != (struct{ Field, Old, New string }{"name", `"Livingston Municipal"`, `"Livingston"`}) {
		t.Errorf("diff changed examples %+v", d.Examples.Changed)
	}
	c, _ := compareJSON(t, ExitDifference, lite, duck)
	if counts(c) != [4]uint64{0, 0, 1, 99} || len(c.Examples.Changed) != 1 || c.Examples.Changed[0].Key != `iata="00R"` {
		t.Errorf("compare counts %v examples %+v, want 1 changed (00R)", counts(c), c.Examples.Changed)
	}
}
