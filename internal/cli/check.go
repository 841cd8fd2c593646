package cli

import (
	"fmt"
	"slices"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/incident"
	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/why"
	"github.com/spf13/cobra"
)

func newCheckCommand(s streams) *cobra.Command {
	var f lineageFlags
	cmd := &cobra.Command{
		Use:   "check [ARTIFACT...]",
		Short: "Run the analysis policy and record incidents (a CI gate)",
		Long: `Check runs the analysis policy pipewhy.policy/v1 on the latest snapshot of each ARTIFACT
(default: every scanned artifact), against its previous snapshot and the lineage:

  copy_mismatch       a COPY into the artifact does not match its source
  unexplained_change  it changed though its inputs and its transform did not
  schema_change       its schema changed between its last two snapshots
  partial_coverage    its latest snapshot is PARTIAL or UNAVAILABLE
  row_count_change    its row count moved by more than pipewhy.yaml allows
  field_change        a column changed in more records than pipewhy.yaml allows

Thresholds, and reasons to ignore, are set per artifact in pipewhy.yaml:

  policy:
    daily_revenue:
      max_row_count_change: "5%"     # or a count: 500
      max_field_changes: {revenue: 10}
      ignore: [schema_change]

Each problem joins the incident of its grouping key (the reason, the artifact and what
exactly differs): the same problem seen again is the same incident, counted once per
snapshot; anything else is a new one. 'pipewhy incidents' lists them; 'pipewhy
incidents resolve ID' resolves one.

Exit status: 0 no open incident for the checked artifacts; 1 an open incident exists;
2 error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOf(cmd)
			r, file, err := f.open(ctx)
			if err != nil {
				return err
			}
			h, err := why.Open(r)
			if err != nil {
				return withExit(ExitError, err)
			}
			arts := args
			if len(arts) == 0 {
				arts = h.Artifacts()
			}
			policies := map[string]config.Policy{}
			if file != nil {
				for _, a := range file.PolicyArtifacts() {
					policies[a], _ = file.Policy(a)
				}
			}
			known, err := lineage.Known(r, file)
			if err != nil {
				return withExit(ExitError, err)
			}
			ev, err := incident.Evaluate(ctx, h, lineage.Open(r), arts, policies, known)
			if err != nil {
				return withExit(ExitError, err)
			}
			rec, incs, err := incident.OpenStore(r).Record(ctx, h, ev.Problems)
			if err != nil {
				return withExit(ExitError, err)
			}
			saveSummaries(s, h)
			var open []*incident.Incident
			for _, in := range incs {
				if in.Status == incident.Open && slices.Contains(ev.Checked, in.Artifact) {
					open = append(open, in)
				}
			}
			if err := printCheck(s, f.asJSON, ev, rec, open); err != nil {
				return withExit(ExitError, err)
			}
			if len(open) > 0 {
				return withExit(ExitDifference, nil)
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

func printCheck(s streams, asJSON bool, ev *incident.Evaluation, rec []incident.Recorded, open []*incident.Incident) error {
	if asJSON {
		if rec == nil {
			rec = []incident.Recorded{}
		}
		if open == nil {
			open = []*incident.Incident{}
		}
		return emitJSON(s, map[string]any{"policy": incident.Policy, "checked": ev.Checked, "problems": rec,
			"notes": ev.Notes, "open": open})
	}
	fmt.Fprintf(s.out, "check  %s  %d artifact%s, %d problem%s\n", incident.Policy, len(ev.Checked), human.Plural(len(ev.Checked)), len(rec), human.Plural(len(rec)))
	for _, r := range rec {
		state := map[string]string{"new": "new", "again": "seen again", "reopened": "reopened", "known": "already recorded"}[r.State]
		fmt.Fprintf(s.out, "  #%-3d %-16s %-18s %-16s %s\n", r.Incident, r.Problem.Artifact, r.Problem.Reason, state, r.Problem.Summary)
	}
	for _, n := range ev.Notes {
		fmt.Fprintf(s.out, "  note  %s\n", n)
	}
	if len(open) == 0 {
		fmt.Fprintln(s.out, "no open incident")
		return nil
	}
	fmt.Fprintf(s.out, "%d open incident%s for these artifacts (pipewhy incidents; pipewhy incidents resolve ID)\n", len(open), human.Plural(len(open)))
	return nil
}
