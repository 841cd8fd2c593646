package cli

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/report"
	"github.com/pipewhy/pipewhy/why"
	"github.com/spf13/cobra"
)

func newReportCommand(s streams) *cobra.Command {
	var f lineageFlags
	var out string
	var limit int
	var o report.Options
	cmd := &cobra.Command{
		Use:   "report [ARTIFACT...]",
		Short: "Write an HTML report: the lineage graph, what changed and why",
		Long: `Report writes one self-contained HTML page (--out, default report.html) that opens in
any browser without a network: the lineage graph, each artifact coloured and named by
its last change (incident, changed, unchanged, first snapshot, unobserved) and each edge
marked with its 'pipewhy why' verdict; then per artifact its last change (records added,
removed and changed, how many records each field changed in, old -> new examples,
schema changes), its root causes, its inputs, its open incidents ('pipewhy check'
records them) and a history strip of rows and changed records over its last
snapshots (--history). With ARTIFACT arguments the report covers those artifacts and
their upstream lineage. Details: docs/report.md.

Exit status: 0 written; 2 error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 || o.History < 1 {
				return &usageError{path: cmd.CommandPath(), err: fmt.Errorf("--limit must be 0 or more and --history 1 or more")}
			}
			o.Examples = limit
			if limit == 0 {
				o.Examples = -1 // none
			}
			ctx := ctxOf(cmd)
			r, file, err := f.open(ctx)
			if err != nil {
				return err
			}
			if o.Known, err = lineage.Known(r, file); err != nil {
				return withExit(ExitError, err)
			}
			h, err := why.Open(r)
			if err != nil {
				return withExit(ExitError, err)
			}
			o.Artifacts = args
			o.GeneratedAtNs = uint64(time.Now().UnixNano())
			page, err := report.Build(ctx, r, h, lineage.Open(r), o)
			if err != nil {
				return withExit(ExitError, err)
			}
			saveSummaries(s, h)
			for _, n := range page.Notes {
				fmt.Fprintf(s.err, "pipewhy: note: %s\n", n)
			}
			size, err := report.WriteFile(out, page)
			if err != nil {
				return withExit(ExitError, err)
			}
			abs, _ := filepath.Abs(out)
			counts := map[string]int{}
			for _, st := range report.Statuses {
				counts[string(st)] = page.Count(st)
			}
			if f.asJSON {
				return emitJSON(s, map[string]any{"out": abs, "bytes": size, "artifacts": len(page.Artifacts), "edges": len(page.Edges), "counts": counts})
			}
			fmt.Fprintf(s.out, "report  %s  %d artifacts (%d changed, %d with open incidents), %d edges, %s bytes\n",
				abs, len(page.Artifacts), counts[string(report.Changed)], counts[string(report.Incident)], len(page.Edges), human.Commas(uint64(size)))
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&out, "out", "report.html", "the HTML file to write (replaced whole when it exists)")
	cmd.Flags().IntVar(&o.History, "history", 10, "snapshots per history strip")
	cmd.Flags().IntVar(&limit, "limit", 3, "changed records shown per artifact, old -> new")
	return cmd
}
