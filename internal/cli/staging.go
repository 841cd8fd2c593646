package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pipewhy/pipewhy/compare/live"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/spf13/cobra"
)

// stagingNote tells, in one line on w, what unpublished attempts the store's staging
// directory holds (what interrupted or failed scans, and interrupted removals, left
// behind) and which commands
// show and remove them. It says nothing when staging is empty. It reads directory
// entries only, so it is cheap whatever their size.
func stagingNote(w io.Writer, st *snapshot.Store) {
	entries, err := st.Staging()
	if err != nil {
		fmt.Fprintf(w, "pipewhy: note: cannot list the unpublished attempts in staging: %s\n", render(err))
		return
	}
	var n int
	var bytes uint64
	for _, e := range entries {
		if e.Attempt {
			n++
			bytes += e.Bytes
		}
	}
	if n == 0 {
		return
	}
	what := "1 unpublished attempt (of an interrupted or failed scan or removal) holds"
	if n > 1 {
		what = fmt.Sprintf("%d unpublished attempts (of interrupted or failed scans or removals) hold", n)
	}
	fmt.Fprintf(w, "pipewhy: note: %s %s in %s; 'pipewhy snapshot inspect' shows them, 'pipewhy snapshot gc-staging' removes them\n",
		what, bytesText(bytes), filepath.Join(st.Root(), "staging"))
}

func newGCStagingCommand(s streams, open func(*cobra.Command) (*snapshot.Store, *repo.Repo, error), asJSON *bool) *cobra.Command {
	var olderThan string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "gc-staging",
		Short: "Remove what interrupted or failed scans and removals left in staging",
		Long: `Gc-staging removes what scans that were interrupted, killed or failed while writing
their snapshot left in the store's staging directory, and what an interrupted removal
('pipewhy snapshot prune', or gc-staging itself) left there half-deleted (listed by
'pipewhy snapshot inspect'), and the scratch directories (pipewhy-compare-*) of
comparisons that were killed; a running comparison's is kept. Published snapshots are never touched: only directories named like
attempts, directly in the staging directory, are removed, and symbolic links are
never followed.

In a repository it refuses to run while a scan is writing to it. With --store, make
sure no scan is writing to that store, or keep recent attempts with --older-than.

  --older-than D   keep attempts modified less than D ago (e.g. 90m, 12h, 7d)
  --dry-run        list what would be removed and remove nothing

Exit status: 0 success (also when there was nothing to remove); 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			age, err := parseAge(olderThan)
			if err != nil {
				return &usageError{path: c.CommandPath(), err: fmt.Errorf("--older-than: %w", err)}
			}
			st, r, err := open(c)
			if err != nil {
				return err
			}
			if r != nil {
				unlock, err := r.TryLock()
				if err != nil {
					return withExit(ExitError, err)
				}
				defer unlock()
			}
			removed, kept, err := st.RemoveStaging(c.Context(), snapshot.StagingOptions{OlderThan: age, DryRun: dryRun})
			if err == nil {
				removed, kept, err = removeStaleScratch(removed, kept, age, dryRun)
			}
			if err != nil {
				_ = printRemoved(s, removed, kept, dryRun, *asJSON) // what was removed before the error, which is reported
				return withExit(ExitError, err)
			}
			return printRemoved(s, removed, kept, dryRun, *asJSON)
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "keep attempts modified less than this long ago (90m, 12h, 7d)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be removed, remove nothing")
	return cmd
}

// removeStaleScratch removes, among the entries RemoveStaging kept, the scratch
// directories of comparisons that no running comparison holds (what a killed 'pipewhy
// compare' left: live.RemoveStale), and returns the lists updated.
func removeStaleScratch(removed, kept []snapshot.StagedEntry, age time.Duration, dryRun bool) (_, _ []snapshot.StagedEntry, err error) {
	var still []snapshot.StagedEntry
	for i, e := range kept {
		if !strings.HasPrefix(filepath.Base(e.Path), live.ScratchPrefix) {
			still = append(still, e)
			continue
		}
		gone, why, err := live.RemoveStale(e.Path, age, dryRun)
		if err != nil {
			return removed, append(still, kept[i:]...), &snapshot.Error{Code: snapshot.CodeIO, Op: "gc-staging", Path: e.Path, Err: err}
		}
		if gone {
			e.Reason = ""
			removed = append(removed, e)
			continue
		}
		e.Reason = "a comparison's scratch directory: " + why
		still = append(still, e)
	}
	return removed, still, nil
}

type removedJSON struct {
	Path     string `json:"path"`
	Bytes    uint64 `json:"bytes"`
	Files    int    `json:"files"`
	Modified string `json:"modified"`
	Reason   string `json:"reason,omitempty"`
}

func printRemoved(s streams, removed, kept []snapshot.StagedEntry, dryRun, asJSON bool) error {
	var total uint64
	for _, e := range removed {
		total += e.Bytes
	}
	if asJSON {
		conv := func(es []snapshot.StagedEntry) []removedJSON {
			out := make([]removedJSON, 0, len(es))
			for _, e := range es {
				out = append(out, removedJSON{Path: e.Path, Bytes: e.Bytes, Files: e.Files,
					Modified: e.ModTime.UTC().Format(time.RFC3339), Reason: e.Reason})
			}
			return out
		}
		return emitJSON(s, map[string]any{"dry_run": dryRun, "removed": conv(removed), "kept": conv(kept), "bytes": total})
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	for _, e := range removed {
		fmt.Fprintf(s.out, "%s  %s  %s\n", verb, e.Path, bytesText(e.Bytes))
	}
	for _, e := range kept {
		fmt.Fprintf(s.out, "kept  %s  (%s)\n", e.Path, e.Reason)
	}
	n := "attempts"
	if len(removed) == 1 {
		n = "attempt"
	}
	fmt.Fprintf(s.out, "%s %d %s, %s\n", verb, len(removed), n, bytesText(total))
	return nil
}

// parseAge parses a Go duration (90m, 12h30m) or a whole number of days (7d); "" is 0.
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration such as 90m, 12h or 7d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration such as 90m, 12h or 7d", s)
	}
	return d, nil
}

// bytesText formats a byte count for people, in SI units: 512 B, 27.4 kB, 1.3 GB.
func bytesText(n uint64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", v, "kMGTP"[i])
}
