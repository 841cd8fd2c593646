package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOneSideSpilled: when one side's entries fit in memory (its keys left in the
// engine's store, scan.Options.KeyStore) and the other's spill, the side in memory is
// published to the scratch store with its keys gathered, and the comparison equals the
// one in memory: counts, fields and examples (keys and values) alike.
func TestOneSideSpilled(t *testing.T) {
	dir := t.TempDir()
	var sa, sb strings.Builder
	sa.WriteString("id,name\n")
	sb.WriteString("id,name\n")
	for i := range 12 {
		fmt.Fprintf(&sa, "%d,n%d\n", i*500, i)
	}
	for i := range 6000 {
		switch {
		case i == 1000:
			fmt.Fprintf(&sb, "%d,changed\n", i)
		case i%500 == 0 && i/500 < 12:
			fmt.Fprintf(&sb, "%d,n%d\n", i, i/500)
		default:
			fmt.Fprintf(&sb, "%d,b%d\n", i, i)
		}
	}
	a, b := writeFile(t, dir, "a.csv", sa.String()), writeFile(t, dir, "b.csv", sb.String())
	o := Options{Key: []string{"id"}, Limit: 5, Workers: 2, Memory: -1}
	want, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Memory = 16 << 10
	o.SpillDir = filepath.Join(dir, "spill")
	if err := os.Mkdir(o.SpillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, o)
	if err != nil {
		t.Fatal(err)
	}
	if got.Runs[0][0] != 0 || got.Runs[0][1] < 2 {
		t.Fatalf("runs %v: want A in memory and B spilled", got.Runs)
	}
	if c := want.Report.Records; c == nil || c.Added != 6000-12 || c.Changed != 1 || c.Removed != 0 || len(want.Report.Examples.Added) != 5 {
		t.Fatalf("test data: %+v", want.Report.Records)
	}
	if !reflect.DeepEqual(masked(got), masked(want)) {
		t.Errorf("one side spilled differs from in memory:\n got %+v\nwant %+v", *masked(got).Report, *masked(want).Report)
	}
}
