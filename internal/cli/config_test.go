package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type cfgShow struct {
	Artifact   string   `json:"artifact"`
	Address    string   `json:"address"`
	Resolution string   `json:"resolution"`
	Rows       uint64   `json:"rows"`
	Key        []string `json:"key"`
	Excluded   []string `json:"excluded"`
	Scope      string   `json:"scope"`
}

func cfgShowJSON(t *testing.T, repoDir, id string) cfgShow {
	t.Helper()
	code, out, e := runCLI(t, "show", "--json", "--repo", repoDir, id)
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, e)
	}
	var d cfgShow
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
	return d
}

func scanID(t *testing.T, args ...string) string {
	t.Helper()
	code, out, e := runCLI(t, append([]string{"scan"}, args...)...)
	if code != 0 {
		t.Fatalf("scan %v: exit %d: %s", args, code, e)
	}
	m := snapRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("scan printed no snapshot id: %q", out)
	}
	return m[1]
}

// TestScanWithConfig: `pipewhy scan NAME` takes the address (relative to pipewhy.yaml)
// and the settings of the named source, from a subdirectory; defaults fill what the
// entry leaves out; command-line flags win; the result equals the same scan by flags.
func TestScanWithConfig(t *testing.T) {
	shopAbs, err := filepath.Abs(shop)
	if err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	for _, f := range []string{"v1/orders.csv", "schema/orders.json"} {
		b, err := os.ReadFile(filepath.Join(shopAbs, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(proj, "data", filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, "data", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yaml := `version: 1
defaults:
  profile: logical-v1
sources:
  orders:
    address: data/v1/orders.csv
    schema: data/schema/orders.json
    resolution: value
    key: [order_id]
    exclude: [status]
`
	if err := os.WriteFile(filepath.Join(proj, "pipewhy.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	repoDir := newRepo(t)
	sub := filepath.Join(proj, "deep", "er")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)

	byName := scanID(t, "--repo", repoDir, "orders")
	d := cfgShowJSON(t, repoDir, byName)
	if d.Artifact != "orders" || d.Resolution != "value" || !reflect.DeepEqual(d.Key, []string{"order_id"}) ||
		!reflect.DeepEqual(d.Excluded, []string{"status"}) || d.Address != filepath.Join(proj, "data/v1/orders.csv") {
		t.Fatalf("scan by name: %+v", d)
	}
	byFlags := scanID(t, "--repo", repoDir, "--name", "orders",
		"--schema", filepath.Join(proj, "data/schema/orders.json"), "--resolution", "value", "--key", "order_id",
		"--exclude", "status", "--profile", "logical-v1", filepath.Join(proj, "data/v1/orders.csv"))
	if code, out, e := runCLI(t, "diff", "--repo", repoDir, byName, byFlags); code != ExitOK {
		t.Fatalf("scan by name and by the same flags differ: exit %d\n%s%s", code, out, e)
	}

	// A flag wins over the entry.
	over := scanID(t, "--repo", repoDir, "--resolution", "dataset", "orders")
	if d := cfgShowJSON(t, repoDir, over); d.Resolution != "dataset" {
		t.Fatalf("--resolution dataset did not win: %+v", d)
	}
	// A plain address gets the defaults (profile logical-v1): a strict-v1 scan of the same
	// file is another context, which diff refuses.
	plain := scanID(t, "--repo", repoDir, "--schema", filepath.Join(proj, "data/schema/orders.json"),
		filepath.Join(proj, "data/v1/orders.csv"))
	strict := scanID(t, "--repo", repoDir, "--profile", "strict-v1", "--schema", filepath.Join(proj, "data/schema/orders.json"),
		filepath.Join(proj, "data/v1/orders.csv"))
	if code, _, e := runCLI(t, "diff", "--repo", repoDir, plain, strict); code != ExitError || !strings.Contains(e, "profiles differ") {
		t.Fatalf("defaults' profile not applied to a plain address: exit %d %s", code, e)
	}
}

// TestScanConfigErrors: a broken project file stops every scan with its path and line,
// exit 2, nothing published.
func TestScanConfigErrors(t *testing.T) {
	repoDir := newRepo(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "pipewhy.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nsources:\n  orders:\n    adress: x.csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, _, e := runCLI(t, "scan", "--repo", repoDir, "orders")
	if code != ExitError || !strings.Contains(e, bad) || !strings.Contains(e, "PW_CONFIG_SYNTAX") || !strings.Contains(e, "adress") {
		t.Fatalf("exit %d: %s", code, e)
	}
	code, _, e = runCLI(t, "scan", "--repo", repoDir, "--config", filepath.Join(dir, "missing.yaml"), "x.csv")
	if code != ExitError || !strings.Contains(e, "PW_CONFIG_READ") {
		t.Fatalf("missing --config: exit %d: %s", code, e)
	}
	if code, out, _ := runCLI(t, "log", "--json", "--repo", repoDir); code != 0 || strings.Contains(out, "snapshot") {
		t.Fatalf("a failed scan published something: %s", out)
	}
}

// TestScanQuery: --query scans a SELECT over a SQLite database (address without #TABLE);
// a query with a table address, or for a file source, is an error.
func TestScanQuery(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "items.db")
	writeCmpSQLite(t, dbPath, cmpRows)
	repoDir := newRepo(t)
	id := scanID(t, "--repo", repoDir, "--name", "cheap", "--query", "SELECT id, name FROM items WHERE price < 1", "sqlite:"+dbPath)
	d := cfgShowJSON(t, repoDir, id)
	if d.Rows != 2 { // price 0.25 and -2
		t.Fatalf("query scan: %+v", d)
	}
	// The same two rows scanned as a table with a filter-free query are a different count.
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM items WHERE price < 1").Scan(&n); err != nil || n != 2 {
		t.Fatalf("fixture: %d rows below 1, %v", n, err)
	}
	for _, args := range [][]string{
		{"--query", "SELECT 1", "sqlite:" + dbPath + "#items"},
		{"--query", "SELECT 1", filepath.Join(shop, "v1", "orders.csv")},
	} {
		code, _, e := runCLI(t, append([]string{"scan", "--repo", repoDir}, args...)...)
		if code != ExitError || e == "" {
			t.Fatalf("scan %v: exit %d, want 2 with a message", args, code)
		}
	}
}

// TestCompareQuery: --query-a/--query-b compare SELECTs: the same rows from a query over
// SQLite and from a CSV file are equal; another filter differs.
func TestCompareQuery(t *testing.T) {
	f := newCmpFixture(t, cmpRows)
	q := "SELECT id, name, qty, price FROM items"
	d, _ := compareJSON(t, ExitOK, "--key", "id", "--exclude", "amount", "--schema", f.schema,
		"--query-b", q, f.csv, "sqlite:"+f.sqlite)
	if !d.Equal {
		t.Fatalf("query side differs: %+v", d)
	}
	d, _ = compareJSON(t, ExitDifference, "--key", "id", "--query-a", q, "--query-b", q+" WHERE id > 1",
		"sqlite:"+f.sqlite, "sqlite:"+f.sqlite)
	if c := counts(d); c != [4]uint64{0, 1, 0, 3} {
		t.Fatalf("counts %v, want 1 only in A", c)
	}
}
