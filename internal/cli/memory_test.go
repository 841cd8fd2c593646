package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanMemoryBudget: a scan under a tiny --memory spills its sorted runs and its
// snapshots diff exactly as those of scans sorted in memory; pipewhy.yaml's memory key
// is read the same way, and a malformed size is refused before anything is read.
func TestScanMemoryBudget(t *testing.T) {
	diffOf := func(extra ...string) string {
		r := newRepo(t)
		a := scanShop(t, r, 1, "orders", "order_id", "value", extra...)
		b := scanShop(t, r, 2, "orders", "order_id", "value", extra...)
		code, out, e := runCLI(t, "diff", "--repo", r, a, b)
		if code != 0 && code != 1 {
			t.Fatalf("diff: exit %d: %s", code, e)
		}
		_, rest, _ := strings.Cut(out, "\n") // the first line names the snapshots and times
		return rest
	}
	inMemory := diffOf()
	spilled := diffOf("--memory", "2KiB")
	if inMemory != spilled || !strings.Contains(inMemory, "changed") {
		t.Fatalf("diff of spilled scans differs:\n%s\nin memory:\n%s", spilled, inMemory)
	}
	code, _, e := runCLI(t, "scan", "--repo", newRepo(t), "--memory", "lots", "--key", "order_id", filepath.Join(shop, "v1", "orders.csv"))
	if code != 2 || !strings.Contains(e, "--memory") {
		t.Fatalf("bad --memory: exit %d: %s", code, e)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "pipewhy.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\ndefaults:\n  memory: 2KiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRepo(t)
	scanShop(t, r, 1, "orders", "order_id", "record", "--config", cfg)
	if err := os.WriteFile(cfg, []byte("version: 1\ndefaults:\n  memory: lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := runCLI(t, "scan", "--repo", r, "--config", cfg, filepath.Join(shop, "v1", "orders.csv")); code != 2 || !strings.Contains(e, "memory") {
		t.Fatalf("bad memory in pipewhy.yaml: exit %d: %s", code, e)
	}
}
