package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/spf13/cobra"
)

func newLogCommand(s streams) *cobra.Command {
	var repoDir string
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "log [ARTIFACT]",
		Short: "List the scans of the repository, newest first",
		Long: `Log lists the published scans from the repository's scan log, newest first:
snapshot id, finish time (UTC), artifact, rows, coverage, resolution and source address.
With ARTIFACT, only that artifact's scans; with -n N, only the newest N. A scan whose
snapshot 'pipewhy snapshot prune' removed stays in the log, marked "(removed)" (in
--json, "removed": true).

When interrupted scans left unpublished attempts in the store, a note on stderr says
how much space they take and how to remove them.

Exit status: 0 success (also when nothing was scanned yet); 2 error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if limit < 0 {
				return &usageError{path: c.CommandPath(), err: fmt.Errorf("-n %d: want 0 or more", limit)}
			}
			r, err := openRepo(repoDir)
			if err != nil {
				return err
			}
			entries, err := r.Log()
			if err != nil {
				return withExit(ExitError, err)
			}
			out := []repo.LogEntry{}
			for i := len(entries) - 1; i >= 0; i-- {
				if c.Flags().Changed("max-count") && len(out) == limit {
					break
				}
				if len(args) == 0 || entries[i].Artifact == args[0] {
					out = append(out, entries[i])
				}
			}
			defer stagingNote(s.err, r.Store())
			if asJSON {
				docs := make([]logJSON, 0, len(out))
				for _, e := range out {
					docs = append(docs, logJSON{Snapshot: e.Snapshot, Artifact: e.Artifact, Address: e.Address,
						Resolution: e.Resolution, Rows: e.Rows, Coverage: e.Coverage, FinishedAtNs: e.FinishedAtNs,
						FinishedAt: time.Unix(0, int64(e.FinishedAtNs)).UTC().Format(time.RFC3339Nano), Removed: removed(r, e)})
				}
				return emitJSON(s, docs)
			}
			for _, e := range out {
				mark := ""
				if removed(r, e) {
					mark = "  (removed)"
				}
				fmt.Fprintf(s.out, "%s  %s  %-16s %10s rows  %-8s %-7s %s%s\n", e.Snapshot, human.Time(e.FinishedAtNs),
					e.Artifact, human.Commas(e.Rows), e.Coverage, e.Resolution, e.Address, mark)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", "", repoHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON instead of text")
	cmd.Flags().IntVarP(&limit, "max-count", "n", 0, "show only the newest N scans")
	return cmd
}

// logJSON is one scan in 'log --json': counts are JSON integers (like scan, show and
// diff), times decimal-string nanoseconds and RFC 3339.
type logJSON struct {
	Snapshot     string `json:"snapshot"`
	Artifact     string `json:"artifact"`
	Address      string `json:"address"`
	Resolution   string `json:"resolution"`
	Rows         uint64 `json:"rows"`
	Coverage     string `json:"coverage"`
	FinishedAtNs uint64 `json:"finished_at_ns,string"`
	FinishedAt   string `json:"finished_at"`
	Removed      bool   `json:"removed,omitempty"` // its snapshot was removed (snapshot prune)
}

// removed reports whether the snapshot of scan e is no longer in the store (a prune
// removed it; the log keeps its line).
func removed(r *repo.Repo, e repo.LogEntry) bool {
	id, err := snapshot.ParseID(e.Snapshot)
	if err != nil {
		return false
	}
	_, err = os.Lstat(r.Store().Path(id))
	return errors.Is(err, fs.ErrNotExist)
}
