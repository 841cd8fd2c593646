package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pipewhy/pipewhy/examples"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/spf13/cobra"
)

func newDemoCommand(s streams) *cobra.Command {
	var repoDir string
	var limit int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Scan the shop sample data in two versions and show what changed",
		Long: `Demo runs PipeWhy end to end on its sample data (examples/shop), a small pipeline:
orders → orders_copy → daily_revenue ← customers, with the lineage declared in
examples/shop/pipewhy.yaml. It records that lineage, scans the tables of version 1 and
version 2 in pipeline order, shows the diff of each table, explains why
daily_revenue changed (including the row that version 2 of orders_copy silently
corrupted), records that copy's mismatch as an incident (check) and ends by writing
the HTML report (report.html in the demo's directory). It prints each command before its output, complete (every path and flag),
so you can run any of them again yourself: it writes the sample data and the
repository into a new directory, which it keeps and names at the end (or uses the
repository given with --repo).

The differences are the point of the demo: it exits 0 when it ran.

Exit status: 0 the demo ran; 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := runDemo(s, repoDir, limit); err != nil {
				return withExit(ExitError, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", "", "repository to scan into (created if needed; default: one in the demo's directory)")
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

// runDemo runs and prints the demo's commands. Each is run through the command line
// itself (execute), so what is printed is exactly what ran.
func runDemo(s streams, repoDir string, limit int) error {
	tables, err := demoTables()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "pipewhy-demo-")
	if err != nil {
		return err
	}
	if err := os.CopyFS(dir, examples.Shop); err != nil {
		return fmt.Errorf("demo: writing the sample data: %w", err)
	}
	data := filepath.Join(dir, "shop")
	if repoDir == "" {
		repoDir = filepath.Join(dir, "repo")
	}
	if repoDir, err = filepath.Abs(repoDir); err != nil {
		return err
	}
	self := invocation(os.Args[0])
	exec := func(ok func(code int) bool, args ...string) error {
		fmt.Fprintf(s.out, "$ %s\n", commandLine(self, args))
		if code := execute(s, args); !ok(code) {
			return fmt.Errorf("demo: %s %s exited with status %d", self, args[0], code)
		}
		return nil
	}
	success := func(code int) bool { return code == ExitOK }
	fmt.Fprintf(s.out, "PipeWhy demo: the shop sample data, version 1 → version 2\n\n")
	r, err := repo.Open(repoDir)
	if err != nil {
		if err := exec(success, "init", "--repo", repoDir); err != nil {
			return err
		}
		if r, err = repo.Open(repoDir); err != nil {
			return err
		}
		fmt.Fprintln(s.out)
	}
	// The pipeline's lineage, recorded from the project file before anything is scanned.
	project := filepath.Join(data, "pipewhy.yaml")
	if err := exec(success, "lineage", "--repo", repoDir, "--config", project); err != nil {
		return err
	}
	fmt.Fprintln(s.out)
	_, g, _, err := lineage.Open(r).Head()
	if err != nil {
		return err
	}
	// Each version in pipeline order (sources before what is computed from them), so that
	// every target's snapshot sees its sources' snapshots of the same version.
	names := pipelineOrder(tables, g)
	ids := map[string][2]string{}
	for v := 1; v <= 2; v++ {
		for _, t := range names {
			if err := exec(success, "scan", filepath.Join(data, fmt.Sprintf("v%d", v), t+".csv"), "--repo", repoDir,
				"--config", project, "--name", t, "--schema", filepath.Join(data, "schema", t+".json"),
				"--key", tables[t], "--resolution", "value"); err != nil {
				return err
			}
			log, err := r.Log()
			if err != nil || len(log) == 0 {
				return fmt.Errorf("demo: the scan of %s is not in the log: %v", t, err)
			}
			pair := ids[t]
			if pair[v-1], err = shortID(r, log[len(log)-1].Snapshot); err != nil {
				return err
			}
			ids[t] = pair
		}
		fmt.Fprintln(s.out)
	}
	differs := func(code int) bool { return code == ExitOK || code == ExitDifference }
	for _, t := range names {
		if err := exec(differs, "diff", ids[t][0], ids[t][1], "--repo", repoDir, "--limit", strconv.Itoa(limit)); err != nil {
			return err
		}
		fmt.Fprintln(s.out)
	}
	// Why did the last table of the pipeline change?
	if err := exec(differs, "why", names[len(names)-1], "--repo", repoDir, "--config", project, "--limit", strconv.Itoa(limit)); err != nil {
		return err
	}
	fmt.Fprintln(s.out)
	// The policy records the copy's mismatch as an incident (exit 1: one is open), and
	// the report shows everything on one page.
	if err := exec(differs, "check", "--repo", repoDir, "--config", project); err != nil {
		return err
	}
	fmt.Fprintln(s.out)
	page := filepath.Join(dir, "report.html")
	if err := exec(success, "report", "--repo", repoDir, "--config", project, "--out", page); err != nil {
		return err
	}
	fmt.Fprintln(s.out)
	fmt.Fprintf(s.out, "The differences above are the point of the demo; compare them with examples/shop/README.md.\n")
	fmt.Fprintf(s.out, "The report is %s: open it in a browser (it needs no network).\n", page)
	if filepath.Dir(repoDir) == dir {
		fmt.Fprintf(s.out, "The sample data and the repository are in %s; the commands above run again as printed.\n", dir)
		fmt.Fprintf(s.out, "Remove them with: rm -rf %s\n", shellQuote(dir))
	} else {
		fmt.Fprintf(s.out, "The sample data is in %s, the repository in %s; the commands above run again as printed.\n", dir, repoDir)
		fmt.Fprintf(s.out, "Remove the sample data with: rm -rf %s\n", shellQuote(dir))
	}
	return nil
}

// shortID abbreviates a snapshot id to the shortest prefix of at least 8 hex digits
// that resolves to it in r.
func shortID(r *repo.Repo, id string) (string, error) {
	for n := 8; n < len(id); n++ {
		if got, err := r.Resolve(id[:n]); err == nil && got.String() == id {
			return id[:n], nil
		}
	}
	return id, nil
}

// invocation is how the user ran pipewhy, as printed before the demo's commands: argv[0]
// as typed ("./pipewhy", "pipewhy"), or "go run ./cmd/pipewhy" when it is the temporary
// binary go run built.
func invocation(argv0 string) string {
	if p := filepath.ToSlash(argv0); strings.Contains(p, "/go-build") && strings.Contains(p, "/exe/") {
		return "go run ./cmd/pipewhy"
	}
	return shellQuote(argv0)
}

// commandLine is a command a POSIX shell runs as args.
func commandLine(self string, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return self + " " + strings.Join(q, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but letters, digits and
// the punctuation of paths and flags.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
