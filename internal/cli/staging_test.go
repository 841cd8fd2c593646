package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// killScanMidWrite runs a scan of addr into repository r in a helper process, kills it
// (SIGKILL) while it writes the snapshot and returns the attempt it left in staging.
func killScanMidWrite(t *testing.T, r, addr string) string {
	t.Helper()
	testenv.KillAtStop(t, 0, helperEnv+"=scan-until-write", "REPO="+r, "ADDRESS="+addr)
	staging := filepath.Join(r, "store", "staging")
	ents, err := os.ReadDir(staging)
	if err != nil || len(ents) != 1 {
		t.Fatalf("staging after the kill: %v %v", ents, err)
	}
	return filepath.Join(staging, ents[0].Name())
}

// TestInterruptedScan: a scan killed while it writes its snapshot leaves an attempt in
// staging. log, scan and snapshot verify say so (verify with the attempt's phase);
// gc-staging lists it (--dry-run), keeps it while it is recent (--older-than), and
// removes it and nothing else; then nobody mentions staging any more.
func TestInterruptedScan(t *testing.T) {
	r := newRepo(t)
	kept := scanShop(t, r, 1, "customers", "customer_id", "value")
	attempt := killScanMidWrite(t, r, filepath.Join(shop, "v1", "orders.csv"))
	size := dirSize(t, attempt)
	note := "pipewhy: note: 1 unpublished attempt (of an interrupted or failed scan or removal) holds " + bytesText(size) + " in " +
		filepath.Join(r, "store", "staging") + "; 'pipewhy snapshot inspect' shows them, 'pipewhy snapshot gc-staging' removes them\n"

	code, out, e := runCLI(t, "log", "--repo", r)
	if code != 0 || !strings.HasPrefix(out, kept) || e != note {
		t.Errorf("log: exit %d, stdout %q, stderr %q; want the note %q", code, out, e, note)
	}
	code, _, e = runCLI(t, "scan", "--repo", r, filepath.Join(shop, "v1", "daily_revenue.csv"))
	if code != 0 || e != note {
		t.Errorf("scan: exit %d, stderr %q", code, e)
	}
	code, out, e = runCLI(t, "snapshot", "verify", "--repo", r)
	if code != 0 || !strings.Contains(out, "ok    "+kept) || !strings.Contains(out, "staged  STAGING     ") ||
		!strings.Contains(out, attempt+"  "+bytesText(size)) || e != note {
		t.Errorf("verify: exit %d, stdout %q, stderr %q", code, out, e)
	}
	code, out, _ = runCLI(t, "snapshot", "verify", "--repo", r, "--json")
	var doc struct {
		Results []struct{ ID string }
		Staging []stagedAttempt
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Results) != 2 || len(doc.Staging) != 1 ||
		doc.Staging[0].Phase != "STAGING" || doc.Staging[0].Path != attempt || doc.Staging[0].Bytes != size || doc.Staging[0].ID == nil {
		t.Errorf("verify --json: exit %d: %s", code, out)
	}

	code, out, _ = runCLI(t, "snapshot", "gc-staging", "--repo", r, "--dry-run")
	if code != 0 || out != "would remove  "+attempt+"  "+bytesText(size)+"\nwould remove 1 attempt, "+bytesText(size)+"\n" {
		t.Errorf("dry run: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, "snapshot", "gc-staging", "--repo", r, "--older-than", "1h", "--json")
	var gc struct {
		DryRun  bool `json:"dry_run"`
		Removed []removedJSON
		Kept    []removedJSON
		Bytes   uint64
	}
	if code != 0 || json.Unmarshal([]byte(out), &gc) != nil || len(gc.Removed) != 0 || len(gc.Kept) != 1 ||
		gc.Kept[0].Reason != "modified less than 1h0m0s ago" || gc.Bytes != 0 {
		t.Errorf("--older-than 1h: exit %d: %s", code, out)
	}
	if _, err := os.Stat(attempt); err != nil {
		t.Fatalf("the attempt is gone before gc-staging: %v", err)
	}
	published := treeOf(t, filepath.Join(r, "store", "snapshots"))
	code, out, _ = runCLI(t, "snapshot", "gc-staging", "--repo", r)
	if code != 0 || out != "removed  "+attempt+"  "+bytesText(size)+"\nremoved 1 attempt, "+bytesText(size)+"\n" {
		t.Errorf("gc-staging: exit %d %q", code, out)
	}
	sameTree(t, published, treeOf(t, filepath.Join(r, "store", "snapshots")))
	if ents, _ := os.ReadDir(filepath.Join(r, "store", "staging")); len(ents) != 0 {
		t.Errorf("staging holds %v", ents)
	}
	code, out, e = runCLI(t, "snapshot", "verify", "--repo", r)
	if code != 0 || strings.Count(out, "ok    ") != 2 || strings.Contains(out, "staged") || e != "" {
		t.Errorf("verify after gc-staging: exit %d %q %q", code, out, e)
	}
	if code, _, e := runCLI(t, "log", "--repo", r); code != 0 || e != "" {
		t.Errorf("log after gc-staging: exit %d %q", code, e)
	}
}

// TestGCStagingWhileLocked: in a repository, gc-staging refuses while a writer holds
// the repository lock (a scan in progress), and removes nothing.
func TestGCStagingWhileLocked(t *testing.T) {
	dir := newRepo(t)
	attempt := killScanMidWrite(t, dir, filepath.Join(shop, "v1", "orders.csv"))
	r, err := repo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	code, out, e := runCLI(t, "snapshot", "gc-staging", "--repo", dir)
	unlock()
	if code != ExitError || out != "" || !strings.Contains(e, "[PW_REPO_BUSY]") || strings.Count(e, "\n") != 1 {
		t.Fatalf("gc-staging while locked: exit %d, stdout %q, stderr %q", code, out, e)
	}
	if _, err := os.Stat(attempt); err != nil {
		t.Fatal("the attempt was removed while the repository was locked")
	}
}

// TestGCStagingStore: with --store, gc-staging works on any store: an attempt left
// VALIDATED by a failed rename is removed; a symbolic link in staging is kept and its
// target untouched; an unknown --older-than is a usage error.
func TestGCStagingStore(t *testing.T) {
	root, a, _ := testStore(t)
	st, err := snapshot.Open(root, snapshot.Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpRename {
			return errors.New("injected")
		}
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Publish(context.Background(), testMetadata(snapshot.NewID(), 5), nil); err == nil {
		t.Fatal("publish did not fail")
	}
	ents, _ := os.ReadDir(filepath.Join(root, "staging"))
	if len(ents) != 1 {
		t.Fatalf("staging holds %v", ents)
	}
	attempt := filepath.Join(root, "staging", ents[0].Name())
	size := dirSize(t, attempt)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o644)
	link := filepath.Join(root, "staging", "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	code, out, e := runCLI(t, "snapshot", "gc-staging", "--store", root)
	want := "removed  " + attempt + "  " + bytesText(size) + "\nkept  " + link + "  (a symbolic link: not followed, not removed)\n" +
		"removed 1 attempt, " + bytesText(size) + "\n"
	if code != 0 || out != want {
		t.Errorf("gc-staging --store: exit %d %q %q, want %q", code, out, e, want)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Fatal("the link's target was touched")
	}
	// The link left in staging is not an attempt: verify lists it (inspect's INVALID) but
	// the note, which counts what gc-staging would remove, says nothing.
	if code, out, e := runCLI(t, "snapshot", "verify", "--store", root, a.String()[:6]); code != 0 || !strings.HasPrefix(out, "ok    "+a.String()) || !strings.Contains(out, "staged  INVALID     -  "+link) || e != "" {
		t.Errorf("verify after gc-staging: exit %d %q %q", code, out, e)
	}
	code, _, e = runCLI(t, "snapshot", "gc-staging", "--store", root, "--older-than", "soon")
	if code != ExitError || !strings.HasSuffix(e, "[PW_CLI_USAGE]; see 'pipewhy snapshot gc-staging --help'\n") {
		t.Errorf("bad --older-than: exit %d %q", code, e)
	}
	for s, want := range map[string]time.Duration{"": 0, "90m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, "1h30m": 90 * time.Minute} {
		if got, err := parseAge(s); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"-1h", "d", "1.5d", "7days", "soon"} {
		if _, err := parseAge(s); err == nil {
			t.Errorf("parseAge(%q) accepted", s)
		}
	}
}

// dirSize sums the sizes of the regular files under dir.
func dirSize(t *testing.T, dir string) uint64 {
	t.Helper()
	var n uint64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += uint64(fi.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
