package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/examples"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/why"
	"github.com/spf13/cobra"
)

func newDemoCommand(s streams) *cobra.Command {
	var repoDir string
	var limit int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Scan the shop sample data in two versions and show what changed",
		Long: `Demo runs PipeWhy end to end on the embedded sample data (examples/shop): it declares
the lineage of the small pipeline the tables form (examples/shop/pipewhy.yaml: orders →
orders_copy → daily_revenue ← customers), scans the tables of version 1 and version 2 at
value resolution, with the keys the examples README names, into a temporary repository
(or --repo), prints the diff of each table, and explains why daily_revenue changed:
including the row version 2 of orders_copy silently corrupted. The differences are the
point of the demo: it exits 0 when it ran.

Exit status: 0 the demo ran; 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if err := runDemo(ctx, s, repoDir, limit); err != nil {
				return withExit(ExitError, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", "", "repository directory to use (created if needed; default: a temporary one)")
	cmd.Flags().IntVar(&limit, "limit", 5, "examples to show per kind")
	return cmd
}

var demoKeyRe = regexp.MustCompile("`([a-z_]+)\\.csv` \\[([a-z_]+)\\]")

// demoTables returns table name → key column, as the examples README names them.
func demoTables() (map[string]string, error) {
	b, err := fs.ReadFile(examples.Shop, "shop/README.md")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range demoKeyRe.FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("demo: the examples README names no tables")
	}
	return out, nil
}

func runDemo(ctx context.Context, s streams, repoDir string, limit int) error {
	tables, err := demoTables()
	if err != nil {
		return err
	}
	data, err := os.MkdirTemp("", "pipewhy-demo-data-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(data)
	if err := os.CopyFS(data, examples.Shop); err != nil {
		return fmt.Errorf("demo: extracting sample data: %w", err)
	}
	var r *repo.Repo
	if repoDir == "" {
		// In the project directory, like a real project's .pipewhy: the transform file
		// pipewhy.yaml names is then stored relative to it.
		repoDir = filepath.Join(data, "shop", repo.DirName)
	}
	if r, err = repo.Open(repoDir); err != nil {
		if r, err = repo.Init(repoDir); err != nil {
			return err
		}
	}
	fmt.Fprintf(s.out, "PipeWhy demo: the shop sample data, version 1 → version 2 (repository %s)\n\n", r.Dir())
	// The pipeline's lineage, declared before anything is scanned.
	cfgPath := filepath.Join(data, "shop", config.FileName)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return err
	}
	if _, _, err := lineage.Open(r).SyncConfig(ctx, cfg); err != nil {
		return err
	}
	text, err := os.ReadFile(cfgPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "$ cat pipewhy.yaml\n%s\n", text)
	// Scan each version in pipeline order (sources before what is computed from them),
	// so that every target's snapshot sees its sources' snapshots of the same version.
	_, g, _, err := lineage.Open(r).Head()
	if err != nil {
		return err
	}
	names := pipelineOrder(tables, g)
	ids := map[string][2]snapshot.ID{}
	for v := 1; v <= 2; v++ {
		for _, t := range names {
			cols, err := source.LoadColumns(filepath.Join(data, "shop", "schema", t+".json"))
			if err != nil {
				return err
			}
			addr := filepath.Join(data, "shop", fmt.Sprintf("v%d", v), t+".csv")
			res, err := scan.Run(ctx, r, scan.Options{Address: addr, Name: t, Resolution: snapshot.ResolutionValue,
				Key: []string{tables[t]}, Profile: normalize.StrictV1, Source: source.Options{Columns: cols}})
			if err != nil {
				return err
			}
			pair := ids[t]
			pair[v-1] = res.ID
			ids[t] = pair
			fmt.Fprintf(s.out, "$ pipewhy scan shop/v%d/%s.csv --key %s --resolution value\n", v, t, tables[t])
			if err := printScan(s, res, false); err != nil {
				return err
			}
		}
		fmt.Fprintln(s.out)
	}
	for _, t := range names {
		a, err := r.Load(ids[t][0])
		if err != nil {
			return err
		}
		b, err := r.Load(ids[t][1])
		if err != nil {
			return err
		}
		rep, err := compare.Diff(a, b, compare.Options{Limit: limit})
		if err != nil {
			return err
		}
		fmt.Fprintf(s.out, "$ pipewhy diff %s %s\n", ids[t][0].String()[:8], ids[t][1].String()[:8])
		if err := printDiff(s.out, rep); err != nil {
			return err
		}
		fmt.Fprintln(s.out)
	}
	// Why did the last table of the pipeline change?
	last := names[len(names)-1]
	h, err := why.Open(r)
	if err != nil {
		return err
	}
	e, err := why.Explain(ctx, h, lineage.Open(r), last, why.Options{Limit: limit})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "$ pipewhy why %s\n", last)
	if err := why.WriteText(s.out, e); err != nil {
		return err
	}
	fmt.Fprintln(s.out)
	fmt.Fprintln(s.out, "The differences above are the point of the demo; compare them with examples/shop/README.md.")
	return nil
}

// pipelineOrder returns the tables in an order where every table comes after the tables
// its lineage edges come from (ties by name; tables on a cycle, if any, last by name).
func pipelineOrder(tables map[string]string, g *lineage.Graph) []string {
	var left []string
	for t := range tables {
		left = append(left, t)
	}
	sort.Strings(left)
	var out []string
	done := map[string]bool{}
	for len(left) > 0 {
		next := -1
		for i, t := range left {
			ready := true
			for _, e := range g.Into(t) {
				if _, ok := tables[e.Source]; ok && !done[e.Source] && e.Source != t {
					ready = false
				}
			}
			if ready {
				next = i
				break
			}
		}
		if next < 0 {
			next = 0
		}
		done[left[next]] = true
		out = append(out, left[next])
		left = append(left[:next], left[next+1:]...)
	}
	return out
}
