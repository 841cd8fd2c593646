package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
)

// hashTree lists every entry under dir, links not followed: path, mode, size, modification
// time and, for files, the SHA-256 of the content: any change shows.
func hashTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := fmt.Sprintf("%s %s %d %d", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:])
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// scansOf returns each artifact's scan ids from the repository's log, oldest first.
func scansOf(t *testing.T, dir string) map[string][]string {
	t.Helper()
	r, err := repo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	log, err := r.Log()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range log {
		out[e.Artifact] = append(out[e.Artifact], e.Snapshot)
	}
	return out
}

type pruneDoc struct {
	DryRun  bool `json:"dry_run"`
	Removed []struct {
		ID       string `json:"id"`
		Artifact string `json:"artifact"`
		Remove   bool   `json:"remove"`
	} `json:"removed"`
	Kept []struct {
		ID      string `json:"id"`
		Reasons []struct {
			Code      string   `json:"code"`
			Of        string   `json:"of"`
			Incidents []uint64 `json:"incidents"`
		} `json:"reasons"`
	} `json:"kept"`
	Leftovers []string `json:"leftovers"`
}

// TestPrune runs the demo (lineage orders → orders_copy → daily_revenue ← customers, and
// an incident recorded at orders_copy's second scan), scans orders_copy, customers and
// daily_revenue twice more each, in pipeline order, and prunes keeping the newest scan.
//
// By the rules (docs/contracts/C5-retention.md): the newest scan of each artifact stays,
// with its parent; orders_copy's second scan is incident evidence, so it stays with its
// parent, and its explanation reads both scans of orders; daily_revenue's newest change
// reads only the newest orders_copy and customers scans. So the first two scans of
// customers and of daily_revenue go, newest first, and nothing else. A dry run prints
// that plan and changes nothing; the prune then does it; why, verify and report still
// work, log marks the removed scans; a second prune removes nothing.
func TestPrune(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := filepath.Join(tmp, "repo")
	if code, _, e := runCLI(t, "demo", "--repo", r); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, e)
	}
	data, err := filepath.Glob(filepath.Join(tmp, "pipewhy-demo-*", "shop"))
	if err != nil || len(data) != 1 {
		t.Fatalf("the demo's data: %v %v", data, err)
	}
	project := filepath.Join(data[0], "pipewhy.yaml")
	tables, err := demoTables()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []struct {
		table string
		v     int
	}{{"orders_copy", 1}, {"orders_copy", 1}, {"customers", 1}, {"customers", 2}, {"daily_revenue", 1}, {"daily_revenue", 2}} {
		code, _, e := runCLI(t, "scan", filepath.Join(data[0], fmt.Sprintf("v%d", sc.v), sc.table+".csv"), "--repo", r,
			"--config", project, "--name", sc.table, "--schema", filepath.Join(data[0], "schema", sc.table+".json"),
			"--key", tables[sc.table], "--resolution", "value")
		if code != 0 {
			t.Fatalf("scan %s: exit %d: %s", sc.table, code, e)
		}
	}
	scans := scansOf(t, r)
	if len(scans["orders"]) != 2 || len(scans["orders_copy"]) != 4 || len(scans["customers"]) != 4 || len(scans["daily_revenue"]) != 4 {
		t.Fatalf("scans: %v", scans)
	}
	// Newest first: the log is in publication order, daily_revenue after customers.
	wantRemoved := []string{scans["daily_revenue"][1], scans["customers"][1], scans["daily_revenue"][0], scans["customers"][0]}

	before := hashTree(t, r)
	code, out, e := runCLI(t, "snapshot", "prune", "--repo", r, "--keep-last", "1", "--dry-run", "--json")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, e)
	}
	var doc pruneDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var removed []string
	for _, d := range doc.Removed {
		removed = append(removed, d.ID)
		if !d.Remove || d.Artifact != "customers" && d.Artifact != "daily_revenue" {
			t.Errorf("removed %+v", d)
		}
	}
	if !doc.DryRun || !slices.Equal(removed, wantRemoved) || len(doc.Kept) != 10 {
		t.Errorf("dry run: removed %v, want %v; %d kept", removed, wantRemoved, len(doc.Kept))
	}
	for _, k := range doc.Kept {
		if k.ID == scans["orders_copy"][1] && (len(k.Reasons) != 1 || k.Reasons[0].Code != "incident" || len(k.Reasons[0].Incidents) != 1) {
			t.Errorf("orders_copy's incident scan kept for %+v", k.Reasons)
		}
		if k.ID == scans["orders"][0] && !slices.ContainsFunc(k.Reasons, func(r struct {
			Code      string   `json:"code"`
			Of        string   `json:"of"`
			Incidents []uint64 `json:"incidents"`
		}) bool {
			return r.Code == "explains" && r.Of == scans["orders_copy"][1]
		}) {
			t.Errorf("orders' first scan kept for %+v", k.Reasons)
		}
	}
	if after := hashTree(t, r); !slices.Equal(before, after) {
		t.Fatalf("the dry run changed the repository:\n%s\n---\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
	code, text, _ := runCLI(t, "snapshot", "prune", "--repo", r, "--keep-last", "1", "--dry-run")
	if code != 0 || !strings.Contains(text, "would remove  "+wantRemoved[0]+"  daily_revenue  ") ||
		!strings.Contains(text, "\nwould remove 4 snapshots, kept 10\n") ||
		!strings.Contains(text, "kept  "+scans["orders_copy"][1]+"  orders_copy  ") {
		t.Errorf("dry run as text: exit %d:\n%s", code, text)
	}
	if after := hashTree(t, r); !slices.Equal(before, after) {
		t.Fatal("the text dry run changed the repository")
	}

	code, out, e = runCLI(t, "snapshot", "prune", "--repo", r, "--keep-last", "1")
	if code != 0 {
		t.Fatalf("prune: exit %d: %s", code, e)
	}
	if want := strings.ReplaceAll(text, "would remove", "removed"); out != want {
		t.Errorf("prune printed\n%s\nwant the dry run's plan\n%s", out, want)
	}
	for _, id := range wantRemoved {
		if _, err := os.Lstat(filepath.Join(r, "store", "snapshots", id)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", id, err)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(r, "store", "staging")); err != nil || len(ents) != 0 {
		t.Errorf("staging after the prune: %v %v", ents, err)
	}
	if code, out, e := runCLI(t, "snapshot", "verify", "--repo", r); code != 0 || strings.Count(out, "ok    ") != 10 {
		t.Errorf("verify: exit %d: %s %s", code, out, e)
	}
	// Every change the prune kept an anchor for is still explained: each artifact's newest,
	// and the incident's scan of orders_copy.
	for _, args := range [][]string{{"daily_revenue"}, {"customers"}, {"orders"}, {"orders_copy"},
		{"orders_copy", "--to", scans["orders_copy"][1]}} {
		if code, _, e := runCLI(t, append([]string{"why", "--repo", r, "--config", project}, args...)...); code == ExitError {
			t.Errorf("why %v after the prune: %s", args, e)
		}
	}
	// The log keeps the removed scans' lines, marked.
	code, out, _ = runCLI(t, "log", "--repo", r)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 14 {
		t.Errorf("log after the prune: exit %d:\n%s", code, out)
	} else {
		for _, l := range lines {
			if id, _, _ := strings.Cut(l, " "); strings.HasSuffix(l, "  (removed)") != slices.Contains(wantRemoved, id) {
				t.Errorf("log line %q", l)
			}
		}
	}
	code, out, _ = runCLI(t, "log", "--repo", r, "--json")
	var logDoc []struct {
		Snapshot string
		Removed  bool
	}
	if err := json.Unmarshal([]byte(out), &logDoc); code != 0 || err != nil || len(logDoc) != 14 {
		t.Errorf("log --json after the prune: exit %d, %v: %s", code, err, out)
	}
	for _, e := range logDoc {
		if e.Removed != slices.Contains(wantRemoved, e.Snapshot) {
			t.Errorf("log --json: %+v", e)
		}
	}
	// The report's history strips skip the removed scans.
	if code, _, e := runCLI(t, "report", "--repo", r, "--config", project, "--out", filepath.Join(tmp, "report.html")); code != 0 {
		t.Errorf("report after the prune: exit %d: %s", code, e)
	}
	if code, _, e := runCLI(t, "show", wantRemoved[0], "--repo", r); code != ExitError || !strings.Contains(e, "PW_REPO_UNKNOWN_ID") {
		t.Errorf("show of a removed scan: exit %d: %s", code, e)
	}
	code, out, _ = runCLI(t, "snapshot", "prune", "--repo", r, "--keep-last", "1")
	if code != 0 || !strings.HasSuffix(out, "\nremoved 0 snapshots, kept 10\n") {
		t.Errorf("second prune: exit %d:\n%s", code, out)
	}
}

// TestPruneUsage: a prune needs a rule, a positive --keep-last, a duration and a
// repository.
func TestPruneUsage(t *testing.T) {
	r := newRepo(t)
	for _, args := range [][]string{
		{},
		{"--keep-last", "0"},
		{"--keep-last", "-2"},
		{"--keep-within", "soon"},
		{"--keep-last", "1", "--store", filepath.Join(r, "store")},
	} {
		code, _, e := runCLI(t, append([]string{"snapshot", "prune", "--repo", r}, args...)...)
		if args := strings.Join(args, " "); strings.Contains(args, "--store") {
			code, _, e = runCLI(t, "snapshot", "prune", "--keep-last", "1", "--store", filepath.Join(r, "store"))
		}
		if code != ExitError || !strings.Contains(e, "[PW_CLI_USAGE]") {
			t.Errorf("%v: exit %d: %s", args, code, e)
		}
	}
	if code, _, e := runCLI(t, "snapshot", "prune", "--repo", r, "--keep-last", "1", "--artifact", ""); code != ExitError || !strings.Contains(e, "[PW_RETENTION_RULE]") {
		t.Errorf("empty artifact: exit %d: %s", code, e)
	}
}

// TestPruneRefusesLinks: a snapshot directory the prune would remove that is a symbolic
// link to a directory outside the repository stops the prune before anything is removed,
// with PW_RETENTION_OUTSIDE, in text and in --json; the link's target is untouched.
func TestPruneRefusesLinks(t *testing.T) {
	r := newRepo(t)
	var ids []string
	for _, v := range []int{1, 2, 1} {
		ids = append(ids, scanShop(t, r, v, "customers", "", "dataset"))
	}
	// ids[0] is the one a --keep-last 1 prune removes: move it out, link to it.
	outside := filepath.Join(t.TempDir(), ids[0])
	if err := os.Rename(filepath.Join(r, "store", "snapshots", ids[0]), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r, "store", "snapshots", ids[0])); err != nil {
		t.Fatal(err)
	}
	before, outBefore := hashTree(t, r), hashTree(t, outside)
	for _, dry := range []bool{true, false} {
		args := []string{"snapshot", "prune", "--repo", r, "--keep-last", "1"}
		if dry {
			args = append(args, "--dry-run")
		}
		code, out, e := runCLI(t, args...)
		if code != ExitError || !strings.HasSuffix(e, "[PW_RETENTION_OUTSIDE]\n") || !strings.Contains(e, "symbolic link") || out != "" {
			t.Errorf("dry run %v: exit %d, stdout %q, stderr %q", dry, code, out, e)
		}
		code, out, _ = runCLI(t, append(args, "--json")...)
		var doc struct{ Error struct{ Code string } }
		if code != ExitError || json.Unmarshal([]byte(out), &doc) != nil || doc.Error.Code != "PW_RETENTION_OUTSIDE" {
			t.Errorf("--json, dry run %v: exit %d: %s", dry, code, out)
		}
	}
	if after := hashTree(t, r); !slices.Equal(before, after) {
		t.Errorf("the refused prune changed the repository:\n%s\n---\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
	if after := hashTree(t, outside); !slices.Equal(outBefore, after) {
		t.Errorf("the refused prune changed the link's target")
	}
}
