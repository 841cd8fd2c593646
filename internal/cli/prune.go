package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/retention"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/spf13/cobra"
)

func newPruneCommand(s streams, open func(*cobra.Command) (*snapshot.Store, *repo.Repo, error), asJSON *bool) *cobra.Command {
	var keepLast int
	var keepWithin string
	var artifacts []string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "prune --keep-last N | --keep-within DURATION [--artifact NAME] [--dry-run]",
		Short: "Remove old scan snapshots by an explicit retention rule, never one still needed",
		Long: `Prune removes old scan snapshots from the repository's store. The store keeps every
snapshot until a prune is asked for; the rule says what to keep of each artifact:

  --keep-last N         the N newest scans of every artifact (N >= 1)
  --keep-within D       every scan that finished at most D ago (90m, 12h, 7d); a scan
                        exactly D old is kept
  --artifact NAME       prune only this artifact's scans (may be repeated; a name
                        the scan log does not have is an error)
  --dry-run             print the same plan and remove nothing

Given both rules, a scan either keeps is kept. Whatever the rule, prune never removes
the newest scan of any artifact, a snapshot an incident names as evidence, a snapshot
the scan log does not name, the parent of a snapshot kept for one of these reasons or by
the rule, nor the scans 'pipewhy why' reads to explain a kept scan's change (its previous
scan and, through the lineage in force then, its upstream artifacts' scans at those
times). Lineage versions and incident events are never pruned. Each kept snapshot is
listed with why it is kept.

Every path is checked before anything is removed: a snapshot directory that is a
symbolic link or resolves outside the repository stops the prune with
PW_RETENTION_OUTSIDE and nothing removed. Each snapshot is renamed into the store's
staging directory and synced before its files are deleted, newest first: a prune that is
killed leaves only whole snapshots, plus a claimed entry that 'pipewhy snapshot
inspect' shows and 'pipewhy snapshot gc-staging' or the next prune deletes. Prune holds
the repository's writer lock (a dry run does not), so it refuses to run during a scan.
The scan log keeps the lines of removed scans; opening one is an unknown snapshot.

Exit status: 0 success (also when nothing was removed); 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			within, err := parseAge(keepWithin)
			if err != nil {
				return &usageError{path: c.CommandPath(), err: fmt.Errorf("--keep-within: %w", err)}
			}
			if keepLast < 0 || c.Flags().Changed("keep-last") && keepLast == 0 {
				return &usageError{path: c.CommandPath(), err: errors.New("--keep-last must be at least 1 (the newest scan of every artifact is always kept)")}
			}
			if keepLast == 0 && within == 0 {
				return &usageError{path: c.CommandPath(), err: errors.New("give --keep-last N or --keep-within DURATION: prune needs a rule of what to keep")}
			}
			_, r, err := open(c)
			if err != nil {
				return err
			}
			if r == nil {
				return &usageError{path: c.CommandPath(), err: errors.New("prune works on a repository (its scan log names each snapshot's artifact), not on --store")}
			}
			rep, err := retention.Prune(c.Context(), r, retention.Options{DryRun: dryRun,
				Rule: retention.Rule{KeepLast: keepLast, KeepWithin: within, Artifacts: artifacts}})
			switch {
			case rep != nil && err == nil:
				if err := printPrune(s, rep, *asJSON); err != nil {
					return err
				}
			case rep != nil && *asJSON:
				// What was removed before the error, as text on stderr: stdout gets the
				// error's own JSON document.
				_ = printPrune(streams{out: s.err}, rep, false)
			case rep != nil:
				_ = printPrune(s, rep, false)
			}
			if err != nil {
				return withExit(ExitError, err)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&keepLast, "keep-last", 0, "keep the N newest scans of every artifact")
	cmd.Flags().StringVar(&keepWithin, "keep-within", "", "keep every scan that finished at most this long ago (90m, 12h, 7d)")
	cmd.Flags().StringArrayVar(&artifacts, "artifact", nil, "prune only this artifact's scans (may be repeated)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan, remove nothing")
	return cmd
}

// printPrune writes what a prune removed and why it kept the rest, as text or as one
// JSON document.
func printPrune(s streams, rep *retention.Report, asJSON bool) error {
	var kept []retention.Decision
	for _, d := range rep.Plan.Decisions {
		if !d.Remove {
			kept = append(kept, d)
		}
	}
	if asJSON {
		if kept == nil {
			kept = []retention.Decision{}
		}
		return emitJSON(s, map[string]any{"dry_run": rep.DryRun, "removed": rep.Removed, "kept": kept, "leftovers": rep.Leftovers})
	}
	verb := "removed"
	if rep.DryRun {
		verb = "would remove"
	}
	artifact := func(d retention.Decision) string {
		if d.Artifact == "" {
			return "-"
		}
		return text(d.Artifact)
	}
	for _, d := range rep.Removed {
		fmt.Fprintf(s.out, "%s  %s  %s  %s\n", verb, d.ID, artifact(d), nsTime(d.FinishedAtNs))
	}
	for _, d := range kept {
		fmt.Fprintf(s.out, "kept  %s  %s  %s  (%s)\n", d.ID, artifact(d), nsTime(d.FinishedAtNs), text(reasonsText(d.Reasons)))
	}
	for _, p := range rep.Leftovers {
		fmt.Fprintf(s.out, "%s  %s  (left by an interrupted removal)\n", verb, p)
	}
	n := "snapshots"
	if len(rep.Removed) == 1 {
		n = "snapshot"
	}
	fmt.Fprintf(s.out, "%s %d %s, kept %d\n", verb, len(rep.Removed), n, len(kept))
	return nil
}

// reasonsText says why a snapshot is kept in one line: each reason's detail, except that
// the snapshots it is the parent of, or an explanation input of, are listed once each
// by their 12-digit prefix.
func reasonsText(rs []retention.Reason) string {
	var out []string
	of := map[string][]string{}
	for _, r := range rs {
		switch r.Code {
		case retention.ReasonParent, retention.ReasonExplains:
			if len(of[r.Code]) == 0 {
				out = append(out, r.Code)
			}
			if short := r.Of[:min(12, len(r.Of))]; !slices.Contains(of[r.Code], short) {
				of[r.Code] = append(of[r.Code], short)
			}
		default:
			out = append(out, r.Detail)
		}
	}
	for i, o := range out {
		switch o {
		case retention.ReasonParent:
			out[i] = "the parent of " + strings.Join(of[o], ", ")
		case retention.ReasonExplains:
			out[i] = "read by why to explain " + strings.Join(of[o], ", ")
		}
	}
	return strings.Join(out, "; ")
}
