package source

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// TestShopExamples reads the sample data with its typed schemas. Row counts
// follow from the generator's rules (examples/shop/README.md): 50
// customers; 200 orders in v1, 200-5+15 = 210 in v2; 20 days, then 21.
func TestShopExamples(t *testing.T) {
	root := filepath.Join("..", "examples", "shop")
	want := map[string][2]int{"customers": {50, 50}, "orders": {200, 210}, "daily_revenue": {20, 21}}
	for table, rows := range want {
		cols, err := LoadColumns(filepath.Join(root, "schema", table+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for v := 0; v < 2; v++ {
			p := filepath.Join(root, []string{"v1", "v2"}[v], table+".csv")
			sc, got, ev := openRead(t, p, Options{Columns: cols})
			if c := ev.Coverage; c.Status != StatusComplete || c.Returned != uint64(rows[v]) {
				t.Fatalf("%s: coverage %+v, want COMPLETE %d", p, c, rows[v])
			}
			if table == "orders" && v == 0 {
				// Order 1: 500 + 7919 % 20000 = 8419 cents, placed 2026-11-01 08:37 (naive).
				if sc.Field(4).Type.(*arrow.Decimal128Type).Scale != 2 || got[4].(*array.Decimal128).Value(0) != decimal128.FromI64(8419) {
					t.Fatalf("order 1 amount %v", got[4])
				}
				if ts := got[2].(*array.Timestamp).Value(0); ts != arrow.Timestamp(1795996800-29*86400+8*3600+37*60) {
					t.Fatalf("order 1 placed_at %d", ts)
				}
			}
		}
	}
}

func TestLoadColumnsRejects(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"garbage": "{", "unknown field": `{"columns":[],"x":1}`, "empty": `{"columns":[]}`,
		"bad type": `{"columns":[{"name":"a","type":"int"}]}`, "dup": `{"columns":[{"name":"a","type":"int64"},{"name":"a","type":"text"}]}`,
	} {
		p := writeFile(t, dir, "s.json", []byte(body))
		if _, err := LoadColumns(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
