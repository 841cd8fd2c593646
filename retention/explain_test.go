package retention

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/why"
)

// TestPruneKeepsExplanations checks Decide's account of what why reads against why
// itself: on repositories with lineage a → b (copy) → c (derived) and d → c, scanned in a
// random order with random contents, after a prune by a random rule, why.Explain of every
// scan kept for a reason of its own (not only as a parent or an input) runs, every
// summary and every root cause's record diff read from the store (the summary index is
// deleted first), so a scan it needs that the prune removed fails it.
func TestPruneKeepsExplanations(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(19, 4))
	for trial := range 4 {
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			project := t.TempDir()
			r, err := repo.Init(filepath.Join(project, repo.DirName))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			scanOne := func(art string) {
				n++
				rows := []string{"k,v"}
				for k := range 2 + rng.IntN(3) {
					rows = append(rows, fmt.Sprintf("%d,%d", k, rng.IntN(3)))
				}
				p := filepath.Join(project, fmt.Sprintf("%s-%d.csv", art, n))
				if err := os.WriteFile(p, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := scan.Run(ctx, r, scan.Options{Address: p, Name: art, Resolution: snapshot.ResolutionValue, Key: []string{"k"}}); err != nil {
					t.Fatal(err)
				}
			}
			arts := []string{"a", "b", "c", "d"}
			for _, a := range arts {
				scanOne(a)
			}
			decl := func(src, dst string, rel lineage.Relation) lineage.Declaration {
				return lineage.Declaration{Source: src, Target: dst, Relation: rel, Origin: lineage.Origin{Kind: lineage.OriginCLI}}
			}
			if _, _, err := lineage.Open(r).Update(ctx, func(g *lineage.Graph) (*lineage.Graph, error) {
				return g.Merge([]lineage.Declaration{decl("a", "b", lineage.Copy), decl("b", "c", lineage.Derived), decl("d", "c", lineage.Derived)})
			}); err != nil {
				t.Fatal(err)
			}
			for range 14 {
				scanOne(arts[rng.IntN(len(arts))])
			}
			rule := Rule{KeepLast: 1 + rng.IntN(2)}
			rep, err := Prune(ctx, r, Options{Rule: rule})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Removed) == 0 {
				t.Fatalf("%+v removed nothing: the trial tests nothing", rule)
			}
			if err := os.Remove(filepath.Join(r.Dir(), why.IndexFile)); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			h, err := why.Open(r)
			if err != nil {
				t.Fatal(err)
			}
			explained := 0
			for _, d := range rep.Plan.Decisions {
				own := false
				for _, rs := range d.Reasons {
					own = own || rs.Code != ReasonParent && rs.Code != ReasonExplains
				}
				p, _ := h.Position(d.ID)
				if !own || d.Artifact == "" || h.Snapshots(d.Artifact)[0] == p {
					continue // no reason of its own, or no previous scan: nothing to explain
				}
				if _, err := why.Explain(ctx, h, lineage.Open(r), d.Artifact, why.Options{To: d.ID, Details: -1}); err != nil {
					t.Errorf("why %s --to %s after a prune keeping %d: %v", d.Artifact, d.ID, rule.KeepLast, err)
				}
				explained++
			}
			if explained < len(arts) {
				t.Fatalf("%d explanations", explained)
			}
		})
	}
}
