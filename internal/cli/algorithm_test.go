package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	algV1 = "pipewhy.fingerprint/xxh3-128/v1"
	algV2 = "pipewhy.fingerprint/xxh3-128-columnar/v2"
)

// repoAlgorithm returns the algorithm identity a repository's configuration records.
func repoAlgorithm(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "repo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Algorithm string }
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Algorithm
}

// snapshotAlgorithm returns the fingerprint algorithm identity 'show --json' reports.
func snapshotAlgorithm(t *testing.T, repoDir, id string) string {
	t.Helper()
	code, out, e := runCLI(t, "show", "--json", "--repo", repoDir, id)
	if code != ExitOK {
		t.Fatalf("show %s: exit %d: %s", id, code, e)
	}
	var d struct {
		Fingerprint struct {
			AlgorithmID string `json:"algorithm_id"`
		} `json:"fingerprint"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d.Fingerprint.AlgorithmID
}

// TestInitAlgorithm: a new repository fingerprints with v2 unless --algorithm names
// another registered algorithm, by name or identity; scans follow the repository.
func TestInitAlgorithm(t *testing.T) {
	def := newRepo(t)
	if got := repoAlgorithm(t, def); got != algV2 {
		t.Errorf("default repository algorithm %q, want %q", got, algV2)
	}
	for _, arg := range []string{"xxh3-128", algV1} {
		dir := filepath.Join(t.TempDir(), "repo")
		code, out, e := runCLI(t, "init", "--repo", dir, "--algorithm", arg)
		if code != ExitOK || !strings.Contains(out, algV1) {
			t.Fatalf("init --algorithm %s: exit %d, %q %q", arg, code, out, e)
		}
		if got := repoAlgorithm(t, dir); got != algV1 {
			t.Errorf("init --algorithm %s recorded %q", arg, got)
		}
		id := scanShop(t, dir, 1, "customers", "customer_id", "record")
		if got := snapshotAlgorithm(t, dir, id); got != algV1 {
			t.Errorf("scan in a v1 repository: algorithm %q", got)
		}
	}
	id := scanShop(t, def, 1, "customers", "customer_id", "record")
	if got := snapshotAlgorithm(t, def, id); got != algV2 {
		t.Errorf("scan in a default repository: algorithm %q", got)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	code, _, e := runCLI(t, "init", "--repo", dir, "--algorithm", "md5")
	if code != ExitError || !strings.Contains(e, "xxh3-128-columnar") {
		t.Errorf("init --algorithm md5: exit %d, stderr %q", code, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "repo.json")); err == nil {
		t.Error("a refused init created a repository")
	}
	code, out, _ := runCLI(t, "init", "--json", "--repo", filepath.Join(t.TempDir(), "j"), "--algorithm", "xxh3-128-columnar")
	var j struct{ Algorithm string }
	if code != ExitOK || json.Unmarshal([]byte(out), &j) != nil || j.Algorithm != algV2 {
		t.Errorf("init --json: exit %d %q", code, out)
	}
}

// TestScanAlgorithmMismatch: scan --algorithm must name the repository's algorithm.
func TestScanAlgorithmMismatch(t *testing.T) {
	r := newRepo(t)
	csvPath := filepath.Join(shop, "v1", "customers.csv")
	code, out, e := runCLI(t, "scan", "--repo", r, "--algorithm", "xxh3-128", csvPath)
	if code != ExitError || out != "" || !strings.Contains(e, "PW_SCAN_ALGORITHM") ||
		!strings.Contains(e, "fingerprints with xxh3-128-columnar, not xxh3-128") {
		t.Errorf("scan --algorithm xxh3-128 into a v2 repository: exit %d, stdout %q, stderr %q", code, out, e)
	}
	if code, _, e := runCLI(t, "log", "--repo", r); code != ExitOK || strings.Contains(e, "customers") {
		t.Errorf("the refused scan was logged: %d %q", code, e)
	}
	id := scanID(t, "--repo", r, "--algorithm", "xxh3-128-columnar", csvPath)
	if got := snapshotAlgorithm(t, r, id); got != algV2 {
		t.Errorf("scan --algorithm xxh3-128-columnar: %q", got)
	}
}

// copyTree copies the directory src to dst (a new path; regular files only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// v1Repo is testdata/v1repo (testdata/v1repo.md): made by the binary of main before
// C3 v2 existed. Its snapshots, as that file lists them.
var v1Repo = filepath.Join("..", "..", "testdata", "v1repo")

const (
	v1CustomersA = "77a94844bcee1820c3049fe2e986c3df" // examples/shop/v1/customers.csv, value resolution
	v1CustomersB = "48c0ff564fa1ce98888c3991e8deecff" // examples/shop/v2/customers.csv, value resolution
	v1Revenue    = "59f18dbb98591a78473a9f8053750080" // examples/shop/v1/daily_revenue.csv, record resolution
)

// csvDiff compares two CSV files keyed by column key, straight from their text: the
// keys only in a, only in b, the records that differ, and per column the records whose
// cell differs.
func csvDiff(t *testing.T, a, b, key string) (added, removed, changed int, fields map[string]int) {
	t.Helper()
	read := func(p string) ([]string, map[string][]string) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		k := -1
		for i, h := range rows[0] {
			if h == key {
				k = i
			}
		}
		out := map[string][]string{}
		for _, r := range rows[1:] {
			out[r[k]] = r
		}
		return rows[0], out
	}
	head, ra := read(a)
	headB, rb := read(b)
	if strings.Join(head, ",") != strings.Join(headB, ",") {
		t.Fatal("the CSV headers differ")
	}
	fields = map[string]int{}
	for k, x := range ra {
		y, ok := rb[k]
		if !ok {
			removed++
			continue
		}
		diff := false
		for i := range x {
			if x[i] != y[i] {
				fields[head[i]]++
				diff = true
			}
		}
		if diff {
			changed++
		}
	}
	for k := range rb {
		if _, ok := ra[k]; !ok {
			added++
		}
	}
	return added, removed, changed, fields
}

// checkCustomersDiff checks a diff of customers v1 → v2 against the CSV files.
func checkCustomersDiff(t *testing.T, d diffDoc) {
	t.Helper()
	added, removed, changed, fields := csvDiff(t, filepath.Join(shop, "v1", "customers.csv"), filepath.Join(shop, "v2", "customers.csv"), "customer_id")
	if changed == 0 {
		t.Fatal("the test needs customers that change between v1 and v2")
	}
	if !d.Comparable || d.Equal || d.Records == nil || *d.Records.Added != uint64(added) || *d.Records.Removed != uint64(removed) ||
		*d.Records.Changed != uint64(changed) {
		t.Fatalf("diff %+v, want +%d -%d ~%d", d, added, removed, changed)
	}
	for name, f := range d.Fields {
		want := fields[name]
		if f.Changed == nil && want != 0 || f.Changed != nil && *f.Changed != uint64(want) {
			t.Errorf("field %s: changed %v, want %d", name, f.Changed, want)
		}
	}
}

// TestV1RepositoryKeepsWorking: a repository made before v2 keeps v1. Its snapshots
// load and diff, new scans into it use v1 and compare with its old snapshots, and it
// refuses a v2 scan.
func TestV1RepositoryKeepsWorking(t *testing.T) {
	r := filepath.Join(t.TempDir(), "repo")
	copyTree(t, v1Repo, r)
	if got := repoAlgorithm(t, r); got != "" {
		t.Fatalf("the fixture records algorithm %q: it must be a repository from before algorithms were recorded", got)
	}
	for _, id := range []string{v1CustomersA, v1CustomersB, v1Revenue} {
		if got := snapshotAlgorithm(t, r, id); got != algV1 {
			t.Fatalf("fixture snapshot %s: algorithm %q", id, got)
		}
	}
	if code, _, e := runCLI(t, "snapshot", "verify", "--repo", r); code != ExitOK {
		t.Fatalf("snapshot verify: exit %d: %s", code, e)
	}
	checkCustomersDiff(t, diffJSONOf(t, ExitDifference, "--repo", r, v1CustomersA, v1CustomersB))

	// A new scan of the same files: v1, and equal to the old snapshot of the same data.
	again := scanShop(t, r, 2, "customers", "customer_id", "value", "--name", "customers")
	if got := snapshotAlgorithm(t, r, again); got != algV1 {
		t.Fatalf("scan into the v1 repository: algorithm %q", got)
	}
	if d := diffJSONOf(t, ExitOK, "--repo", r, v1CustomersB, again); !d.Equal {
		t.Errorf("rescan of v2/customers.csv differs from the fixture's snapshot of it: %+v", d)
	}
	checkCustomersDiff(t, diffJSONOf(t, ExitDifference, "--repo", r, v1CustomersA, again))
	rev := scanShop(t, r, 1, "daily_revenue", "day", "record", "--name", "daily_revenue")
	if d := diffJSONOf(t, ExitOK, "--repo", r, v1Revenue, rev); !d.Equal {
		t.Errorf("rescan of v1/daily_revenue.csv differs from the fixture's snapshot: %+v", d)
	}

	code, _, e := runCLI(t, "scan", "--repo", r, "--algorithm", "xxh3-128-columnar", filepath.Join(shop, "v1", "customers.csv"))
	if code != ExitError || !strings.Contains(e, "PW_SCAN_ALGORITHM") {
		t.Errorf("a v2 scan into the v1 repository: exit %d, stderr %q", code, e)
	}
}

// TestDiffAlgorithmsDiffer: a v1 snapshot and a v2 snapshot of the same data are never
// compared (PW_COMPARE_ALGORITHM), whatever their states.
func TestDiffAlgorithmsDiffer(t *testing.T) {
	r := newRepo(t)
	v2 := scanShop(t, r, 1, "customers", "customer_id", "value", "--name", "customers")
	// The fixture's v1 snapshot of the same file, copied into the v2 repository's store.
	copyTree(t, filepath.Join(v1Repo, "store", "snapshots", v1CustomersA), filepath.Join(r, "store", "snapshots", v1CustomersA))
	code, out, e := runCLI(t, "diff", "--repo", r, v1CustomersA, v2)
	if code != ExitError || out != "" || !strings.Contains(e, "PW_COMPARE_ALGORITHM") || !strings.Contains(e, algV1) || !strings.Contains(e, algV2) {
		t.Errorf("diff of a v1 and a v2 snapshot: exit %d, stdout %q, stderr %q", code, out, e)
	}
}
