package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/spf13/cobra"
)

func newDiffCommand(s streams) *cobra.Command {
	var repoDir string
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two scan snapshots: records added, removed, changed; fields; schema",
		Long: `Diff compares snapshot A (old) with snapshot B (new), at the finer resolution both
have: dataset (equal or not, and which columns' fingerprints differ), record (records
added, removed and changed by key, with the key values) or value (also, per field, how
many records changed, with examples of old -> new values). Schema changes are matched by
stable field id. Snapshot ids may be abbreviated to a unique prefix.

Snapshots fingerprinted with different algorithms, profiles or modes are not comparable
and are refused; when only the schemas differ, the schema changes are reported.

--json writes {"equal", "records": {"added","removed","changed","unchanged"},
"fields": {"<column>": {"changed"}}, "schema_changes": [...], "examples", ...}.

Exit status: 0 no difference; 1 differences; 2 error.`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			r, err := openRepo(repoDir)
			if err != nil {
				return err
			}
			// Both snapshots load (read, checksum, validate) at once; A's error wins.
			var a, b *repo.Scan
			var errA, errB error
			var wg sync.WaitGroup
			line := newLoadProgress(s.err, "diff")
			defer line.stop()
			wg.Go(func() { a, errA = loadScan(r, args[0], line.side(0)) })
			b, errB = loadScan(r, args[1], line.side(1))
			wg.Wait()
			if errA != nil {
				return errA
			}
			if errB != nil {
				return errB
			}
			line.comparing()
			rep, err := compare.Diff(a, b, compare.Options{Limit: limit})
			line.stop()
			if err != nil {
				return withExit(ExitError, err)
			}
			if asJSON {
				err = emitJSON(s, diffJSON(rep))
			} else {
				err = printDiff(s.out, rep)
			}
			if err != nil {
				return withExit(ExitError, err)
			}
			if !rep.Equal {
				return withExit(ExitDifference, nil)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", "", repoHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON instead of text")
	cmd.Flags().IntVar(&limit, "limit", 10, "examples to show per kind (added, removed, changed)")
	return cmd
}

type fieldJSON struct {
	FieldID string `json:"field_id"`
	Changed uint64 `json:"changed"`
}

func diffJSON(r *compare.Report) map[string]any {
	doc := map[string]any{
		"equal":          r.Equal,
		"comparable":     r.Comparable,
		"states_equal":   r.StatesEqual,
		"resolution":     string(r.Resolution),
		"a":              r.A,
		"b":              r.B,
		"rows":           map[string]uint64{"a": r.A.Rows, "b": r.B.Rows},
		"schema_changes": r.SchemaChanges,
		"columns_differ": nonNil(r.ColumnsDiffer),
		"notes":          nonNil(r.Notes),
	}
	if r.Records != nil {
		doc["records"] = r.Records
		ex := r.Examples
		for _, l := range []*[]compare.Example{&ex.Added, &ex.Removed, &ex.Changed} {
			if *l == nil {
				*l = []compare.Example{}
			}
		}
		doc["examples"] = ex
	}
	if r.Fields != nil {
		fields := map[string]fieldJSON{}
		for _, f := range r.Fields {
			fields[f.Name] = fieldJSON{FieldID: fmt.Sprint(f.ID), Changed: f.Changed}
		}
		doc["fields"] = fields
	}
	return doc
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func printDiff(w io.Writer, r *compare.Report) error {
	name := r.B.Artifact
	if r.A.Artifact != r.B.Artifact {
		name = r.A.Artifact + " → " + r.B.Artifact
	}
	fmt.Fprintf(w, "%s  %s → %s   %s → %s\n", name, r.A.Snapshot[:12], r.B.Snapshot[:12], formatNs(r.A.FinishedAtNs), formatNs(r.B.FinishedAtNs))
	if r.A.Address != r.B.Address {
		fmt.Fprintf(w, "  source    %s → %s\n", r.A.Address, r.B.Address)
	} else {
		fmt.Fprintf(w, "  source    %s\n", r.A.Address)
	}
	switch {
	case !r.Comparable:
		fmt.Fprintf(w, "  records   %s → %s (fingerprints not comparable)\n", commas(r.A.Rows), commas(r.B.Rows))
	case r.Records != nil:
		c := r.Records
		fmt.Fprintf(w, "  records   %s → %s   +%s added  −%s removed  ~%s changed  %s same\n", commas(r.A.Rows), commas(r.B.Rows),
			commas(c.Added), commas(c.Removed), commas(c.Changed), commas(c.Unchanged))
		if c.DuplicateKeys > 0 {
			fmt.Fprintf(w, "            %s duplicated keys (paired by record content)\n", commas(c.DuplicateKeys))
		}
	default:
		verdict := "equal"
		if !r.StatesEqual {
			verdict = "differ"
		}
		fmt.Fprintf(w, "  dataset   %s → %s rows, fingerprints %s (dataset resolution: no record detail)\n", commas(r.A.Rows), commas(r.B.Rows), verdict)
	}
	if r.Fields != nil {
		var changed, same []string
		for _, f := range r.Fields {
			if f.Changed > 0 {
				changed = append(changed, fmt.Sprintf("%s ~%s", f.Name, commas(f.Changed)))
			} else {
				same = append(same, f.Name)
			}
		}
		line := strings.Join(changed, "   ")
		if len(same) > 0 {
			if line != "" {
				line += "   "
			}
			line += "(" + strings.Join(same, ", ") + " unchanged)"
		}
		fmt.Fprintf(w, "  fields    %s\n", line)
	} else if r.Comparable && len(r.ColumnsDiffer) > 0 {
		fmt.Fprintf(w, "  columns   %s differ\n", strings.Join(r.ColumnsDiffer, ", "))
	}
	if len(r.SchemaChanges) == 0 {
		fmt.Fprintf(w, "  schema    unchanged\n")
	} else {
		for i, c := range r.SchemaChanges {
			label := "  schema    "
			if i > 0 {
				label = "            "
			}
			switch c.Kind {
			case "renamed":
				fmt.Fprintf(w, "%srenamed %s → %s\n", label, c.OldName, c.Name)
			case "retyped":
				fmt.Fprintf(w, "%sretyped %s: %s → %s\n", label, c.Name, c.OldType, c.NewType)
			default:
				fmt.Fprintf(w, "%s%s %s\n", label, c.Kind, c.Name)
			}
		}
	}
	if r.Records != nil {
		printExamples(w, "changed", r.Examples.Changed, r.Records.Changed)
		printExamples(w, "added", r.Examples.Added, r.Records.Added)
		printExamples(w, "removed", r.Examples.Removed, r.Records.Removed)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note      %s\n", n)
	}
	return nil
}

func printExamples(w io.Writer, label string, ex []compare.Example, total uint64) {
	for i, e := range ex {
		l := ""
		if i == 0 {
			l = label
		}
		line := e.Key
		for _, c := range e.Changes {
			line += fmt.Sprintf("  %s %s → %s", c.Field, c.Old, c.New)
		}
		fmt.Fprintf(w, "  %-9s %s\n", l, line)
	}
	if more := total - uint64(len(ex)); total > uint64(len(ex)) {
		l := ""
		if len(ex) == 0 {
			l = label
		}
		fmt.Fprintf(w, "  %-9s … %s more (--limit N, --json)\n", l, commas(more))
	}
}
