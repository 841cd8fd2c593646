package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLogAndShow(t *testing.T) {
	r := newRepo(t)
	if code, out, _ := runCLI(t, "log", "--repo", r); code != 0 || out != "" {
		t.Fatalf("empty log: exit %d %q", code, out)
	}
	a := scanShop(t, r, 1, "orders", "order_id", "record")
	b := scanShop(t, r, 1, "customers", "", "dataset")
	code, out, _ := runCLI(t, "log", "--repo", r)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], b) || !strings.HasPrefix(lines[1], a) {
		t.Fatalf("log (newest first): exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "log", "--repo", r, "--json", "orders")
	var entries []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 1 || entries[0]["snapshot"] != a ||
		entries[0]["artifact"] != "orders" || entries[0]["rows"] != float64(200) {
		t.Fatalf("log --json orders: %s", out)
	}
	code, out, _ = runCLI(t, "show", "--repo", r, a[:6])
	for _, s := range []string{a, "orders", "COMPLETE", "200 of 200 records", "key order_id", "amount", "decimal"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("show lacks %q (exit %d):\n%s", s, code, out)
		}
	}
	code, out, _ = runCLI(t, "show", "--repo", r, "--json", a)
	var doc struct {
		Snapshot string
		Rows     uint64
		Key      []string
		Coverage struct{ Status string }
		Fields   []struct{ Name, Type string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Snapshot != a || doc.Rows != 200 ||
		doc.Coverage.Status != "COMPLETE" || len(doc.Fields) != 5 || doc.Fields[4].Name != "amount" || doc.Fields[4].Type != "decimal" {
		t.Errorf("show --json: %s", out)
	}
}

func TestDemo(t *testing.T) {
	code, out, e := runCLI(t, "demo", "--repo", t.TempDir()+"/demo")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, e)
	}
	for _, s := range []string{"+15 added", "−5 removed", "~14 changed", "customer_id=7  email", "day=\"2026-11-21\"",
		// why daily_revenue finds the corrupted copied row (examples/shop/README.md).
		"$ pipewhy why daily_revenue", "orders_copy's COPY of orders does not match: 1 record differs (1 changed)  [copy_mismatch]",
		`order_id=123  status "paid" in orders, "shipped" in orders_copy`,
		"orders ─copy─► orders_copy", "models/daily_revenue.sql─► daily_revenue"} {
		if !strings.Contains(out, s) {
			t.Errorf("demo output lacks %q", s)
		}
	}
}
