package cli

import (
	"fmt"

	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/why"
	"github.com/spf13/cobra"
)

func newWhyCommand(s streams) *cobra.Command {
	var f lineageFlags
	var from, to string
	var limit int
	cmd := &cobra.Command{
		Use:   "why ARTIFACT",
		Short: "Explain why an artifact changed, through its lineage",
		Long: `Why explains the change of ARTIFACT between two of its snapshots (default: its last two;
--from and --to take snapshot ids or unique prefixes) through the lineage in force at
the later one. Every edge upstream gets a verdict (pipewhy.why/v1): the source is read
at its newest snapshot taken at or before each of the target's.

  source_unchanged   the source did not change between the two sides
  source_changed     the source changed: consistent with the target's change
  copy_verified      COPY: the target holds exactly the source's records
  copy_mismatch      COPY: it does not (the records and fields that differ, when the
                     snapshots keep them): proven from the stored fingerprints
  transform_changed  the transform recorded with the target's two scans differs
  unobserved         no snapshot, or none that can be compared, to judge the edge by

Root causes, strongest first, are where a change begins: a copy that does not match, a
changed transform, a change whose inputs and transform did not change (unexplained:
non-determinism, or an input nobody declared), a change at the top of the lineage
(source_changed), or an input nobody observed. Lineage does not prove causation: the
report says "consistent with" unless a COPY check proves a difference.

Exit status: 0 ARTIFACT did not change; 1 it changed (explained above); 2 error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOf(cmd)
			r, file, err := f.open(ctx)
			if err != nil {
				return err
			}
			o := why.Options{Limit: limit}
			for _, p := range []struct {
				in  string
				out *string
			}{{from, &o.From}, {to, &o.To}} {
				if p.in != "" {
					id, err := resolveID(r, p.in)
					if err != nil {
						return err
					}
					*p.out = id.String()
				}
			}
			if o.Known, err = lineage.Known(r, file); err != nil {
				return withExit(ExitError, err)
			}
			h, err := why.Open(r)
			if err != nil {
				return withExit(ExitError, err)
			}
			e, err := why.Explain(ctx, h, lineage.Open(r), args[0], o)
			if err != nil {
				return withExit(ExitError, err)
			}
			saveSummaries(s, h)
			if f.asJSON {
				err = emitJSON(s, e)
			} else {
				err = why.WriteText(s.out, e)
			}
			if err != nil {
				return withExit(ExitError, err)
			}
			if e.Changed {
				return withExit(ExitDifference, nil)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&from, "from", "", "the earlier snapshot (default: the one before --to)")
	cmd.Flags().StringVar(&to, "to", "", "the later snapshot (default: the artifact's newest)")
	cmd.Flags().IntVar(&limit, "limit", 3, "example records shown per difference")
	return cmd
}

// saveSummaries writes the summary index h has added to. Not writing it is a note, not a
// failure: the analysis stands, and a later run computes again what it would have kept.
func saveSummaries(s streams, h *why.History) {
	if err := h.Save(); err != nil {
		fmt.Fprintf(s.err, "pipewhy: note: the summary index was not updated: %v\n", err)
	}
}
