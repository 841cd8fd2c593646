package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storeEntries lists the published snapshot directories of a repository.
func storeEntries(t *testing.T, repoDir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(repoDir, "store", "snapshots"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// serverScanCase runs the server-source checks of issue 8 end to end through the
// command: scans with the primary key as default key, a table altered between two scans
// (diff reports the schema change), an unknown table and bad credentials (exit 2, no
// password in the message, nothing published).
func serverScanCase(t *testing.T, exec func(string), table, badAuth, unknown string) {
	t.Helper()
	repoDir := newRepo(t)
	scanOne := func() string {
		t.Helper()
		code, out, e := runCLI(t, "scan", "--repo", repoDir, "--resolution", "value", table)
		if code != ExitOK {
			t.Fatalf("scan %s: exit %d: %s", table, code, e)
		}
		m := snapRe.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("scan printed no snapshot id: %q", out)
		}
		return m[1]
	}
	a := scanOne()
	exec("ALTER TABLE items ADD COLUMN note VARCHAR(20)")
	exec("UPDATE items SET note = 'checked' WHERE id = 2")
	exec("UPDATE items SET name = 'pear' WHERE id = 3")
	b := scanOne()

	code, out, e := runCLI(t, "diff", "--repo", repoDir, "--json", a, b)
	if code != ExitDifference {
		t.Fatalf("diff: exit %d: %s%s", code, out, e)
	}
	var d struct {
		Equal         bool `json:"equal"`
		SchemaChanges []struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"schema_changes"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("diff --json: %v\n%s", err, out)
	}
	if d.Equal || len(d.SchemaChanges) != 1 || d.SchemaChanges[0].Kind != "added" || d.SchemaChanges[0].Name != "note" {
		t.Fatalf("schema changes %+v (equal %v), want one added column note", d.SchemaChanges, d.Equal)
	}

	before := storeEntries(t, repoDir)
	for name, addr := range map[string]string{"unknown table": unknown, "bad credentials": badAuth} {
		code, out, e := runCLI(t, "scan", "--repo", repoDir, "--resolution", "value", addr)
		if code != ExitError {
			t.Errorf("%s: exit %d, want %d: %s%s", name, code, ExitError, out, e)
		}
		if strings.Contains(e, "s3cretpass") || strings.Contains(out, "s3cretpass") {
			t.Errorf("%s: the password appears in the output: %s", name, e)
		}
	}
	if after := storeEntries(t, repoDir); !slices.Equal(before, after) {
		t.Errorf("failed scans changed the store: %v → %v", before, after)
	}
}

func TestScanPostgresEndToEnd(t *testing.T) {
	pg, dsn, schema := cmpPostgres(t)
	exec := func(sql string) { pgExec(t, pg, strings.ReplaceAll(sql, "items", schema+".items")) }
	exec("CREATE TABLE items (id int4 PRIMARY KEY, name text NOT NULL, amount numeric(10,2))")
	exec("INSERT INTO items VALUES (1, 'apple', 1.50), (2, 'fig', NULL), (3, 'kiwi', 0.25)")
	base, _, _ := strings.Cut(dsn, "?")
	host := strings.TrimPrefix(base, "postgres://")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	serverScanCase(t, exec, dsn+"#"+schema+".items",
		"postgres://pw_no_such_role:s3cretpass@"+host+"#"+schema+".items",
		dsn+"#"+schema+".no_such_table")
}

func TestScanMariaDBEndToEnd(t *testing.T) {
	db, addr := cmpMariaDB(t)
	exec := func(sql string) {
		if _, err := db.Exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, amount DECIMAL(10,2))")
	exec("INSERT INTO items VALUES (1, 'apple', 1.50), (2, 'fig', NULL), (3, 'kiwi', 0.25)")
	host := strings.TrimPrefix(addr, "mysql://")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	serverScanCase(t, exec, addr+"#items", "mysql://pw_no_such_user:s3cretpass@"+host+"#items", addr+"#no_such_table")
}
