package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pipewhy/pipewhy/incident"
	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/spf13/cobra"
)

func newIncidentsCommand(s streams) *cobra.Command {
	var f lineageFlags
	var all bool
	cmd := &cobra.Command{
		Use:   "incidents",
		Short: "List the incidents pipewhy check recorded",
		Long: `Incidents lists the open incidents (--all: resolved ones too): each a problem of
pipewhy.policy/v1 and its recurrences, with how many snapshots it was seen at and when
it was first and last seen. 'pipewhy incidents resolve ID' resolves one; the same
problem seen at a later snapshot reopens it.

Exit status: 0 listed; 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := openRepo(f.repo)
			if err != nil {
				return err
			}
			incs, err := incident.OpenStore(r).List()
			if err != nil {
				return withExit(ExitError, err)
			}
			shown := []*incident.Incident{}
			for _, in := range incs {
				if all || in.Status == incident.Open {
					shown = append(shown, in)
				}
			}
			if f.asJSON {
				return emitJSON(s, shown)
			}
			if len(shown) == 0 {
				fmt.Fprintln(s.out, "no open incident")
				return nil
			}
			for _, in := range shown {
				fmt.Fprintf(s.out, "#%-3d %-8s %-16s %-18s seen %d× (first %s, last %s)\n", in.ID, in.Status, in.Artifact, in.Reason,
					in.Count, human.Time(in.FirstSeenNs), human.Time(in.LastSeenNs))
				fmt.Fprintf(s.out, "     %s\n", in.Summary)
				if in.Status == incident.Resolved {
					note := ""
					if in.Note != "" {
						note = ": " + in.Note
					}
					fmt.Fprintf(s.out, "     resolved %s%s\n", human.Time(in.ResolvedAtNs), note)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.repo, "repo", "", "repository directory (default: .pipewhy here or in a parent)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "write JSON instead of text")
	cmd.Flags().BoolVar(&all, "all", false, "resolved incidents too")
	cmd.AddCommand(newResolveCommand(s))
	return cmd
}

func newResolveCommand(s streams) *cobra.Command {
	var repoDir, note string
	cmd := &cobra.Command{
		Use:   "resolve ID",
		Short: "Mark an incident resolved (recorded, never deleted)",
		Long: `Resolve records that incident ID is resolved, with an optional --note, as a new event in
the repository: nothing is deleted, and the incident reopens when pipewhy check sees the
same problem at a later snapshot.

Exit status: 0 resolved; 2 error (no such incident, already resolved).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseUint(strings.TrimPrefix(args[0], "#"), 10, 64)
			if err != nil || id == 0 {
				return withExit(ExitError, fmt.Errorf("%q is not an incident number", args[0]))
			}
			r, err := openRepo(repoDir)
			if err != nil {
				return err
			}
			if err := incident.OpenStore(r).Resolve(ctxOf(cmd), id, note); err != nil {
				return withExit(ExitError, err)
			}
			fmt.Fprintf(s.out, "incident %d resolved\n", id)
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", "", "repository directory (default: .pipewhy here or in a parent)")
	cmd.Flags().StringVar(&note, "note", "", "why it is resolved")
	return cmd
}
