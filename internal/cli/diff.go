package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/spf13/cobra"
)

func newDiffCommand(s streams) *cobra.Command {
	var repoDir string
	var asJSON bool
	var limit int
	var otherArtifacts bool
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two scan snapshots: records added, removed, changed; fields; schema",
		Long: `Diff compares snapshot A (old) with snapshot B (new), at the finer resolution both
have: dataset (equal or not, and which columns' fingerprints differ), record (records
added, removed and changed by key, with the key values) or value (also, per field, how
many records changed, with examples of old -> new values). Schema changes are matched by
stable field id: a column added, removed, renamed, or given another value type (int,
text, decimal, ...). How a column is stored (Parquet annotations, string layouts,
widths, nullability) is shown on "physical" lines and is never a difference: equal data
with equal value types is equal (exit 0). Snapshot ids may be abbreviated to a unique
prefix.

Snapshots of different artifacts (scan --name) are refused: each artifact numbers its
columns on its own, so column 1 of one is not column 1 of the other. Compare two
different datasets with 'pipewhy compare' (columns matched by name), or pass
--allow-different-artifacts to match their columns by field id anyway. Snapshots
fingerprinted with different algorithms, profiles or modes are not comparable and are
refused (the message names each side's profile and the scan command that rescans one
with the other's); when only the schemas differ, the schema changes are reported.

--json writes {"equal", "records": {"added","removed","changed","unchanged"},
"fields": {"<column>": {"changed"}}, "schema_changes": [...], "physical_changes": [...],
"examples", ...}.

Exit status: 0 no difference; 1 differences; 2 error.`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			r, err := openRepo(repoDir)
			if err != nil {
				return err
			}
			// Both snapshots' summaries load (read, checksum, validate) at once; A's error
			// wins. Diff reads their record and value arrays only when it needs them:
			// not when the dataset states are equal.
			var a, b *repo.Scan
			var errA, errB error
			var wg sync.WaitGroup
			line := newLoadProgress(s.err, "diff")
			defer line.stop()
			wg.Go(func() { a, errA = loadScanParts(r, args[0], 0, line.side(0)) })
			b, errB = loadScanParts(r, args[1], 0, line.side(1))
			wg.Wait()
			if errA != nil {
				return errA
			}
			if errB != nil {
				return errB
			}
			load := func(sc *repo.Scan, parts repo.Parts) error {
				side := line.side(0)
				if sc == b {
					side = line.side(1)
				}
				if err := r.LoadMore(sc, parts, side); err != nil {
					return loadFailed(sc.Metadata.ID, err)
				}
				return nil
			}
			// The record and value arrays are streamed: their checksums are verified
			// first (the load phase), then one merge pass reads them in step, in
			// memory independent of their size.
			stream := func(sc *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
				side := line.side(0)
				if sc == b {
					side = line.side(1)
				}
				er, err := r.Entries(sc, parts, side)
				if err != nil {
					return nil, loadFailed(sc.Metadata.ID, err)
				}
				line.comparing()
				return er, nil
			}
			line.comparing()
			rep, err := compare.Diff(a, b, compare.Options{Limit: limit, AllowDifferentArtifacts: otherArtifacts, Load: load, Stream: stream})
			line.stop()
			if err != nil {
				// A compressed payload's logical checksum is checked at the end of the
				// merge pass (PW-C5Z.04): its failure names the snapshot as the checksum
				// pass does, and nothing of the diff has been printed.
				var ie *snapshot.StorageIntegrityError
				if errors.As(err, &ie) {
					for _, sc := range []*repo.Scan{a, b} {
						if strings.Contains(ie.Path, sc.Metadata.ID.String()) {
							return loadFailed(sc.Metadata.ID, err)
						}
					}
				}
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
	cmd.Flags().BoolVar(&otherArtifacts, "allow-different-artifacts", false, "compare snapshots of different artifacts, matching their columns by field id")
	return cmd
}

type fieldJSON struct {
	FieldID string `json:"field_id"`
	Changed uint64 `json:"changed"`
}

func diffJSON(r *compare.Report) map[string]any {
	doc := map[string]any{
		"equal":            r.Equal,
		"comparable":       r.Comparable,
		"states_equal":     r.StatesEqual,
		"resolution":       string(r.Resolution),
		"a":                r.A,
		"b":                r.B,
		"rows":             map[string]uint64{"a": r.A.Rows, "b": r.B.Rows},
		"schema_changes":   r.SchemaChanges,
		"physical_changes": nonNil(r.Physical),
		"columns_differ":   nonNil(r.ColumnsDiffer),
		"notes":            nonNil(r.Notes),
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

// nonNil makes a nil slice an empty one, so that JSON writes [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// printDiff prints a report for people; the first lines say whether each side was
// read whole and what differs.
func printDiff(w io.Writer, r *compare.Report) error {
	return printReport(w, r, diffStyle)
}

// reportStyle is what differs between diff's and compare's text (compare's report
// explains a keyless comparison in its own note, and its observations are published
// nowhere).
type reportStyle struct {
	keylessNote string // printed without a key when records were added or removed; "" none
	duplicates  string // without a key, what the count of duplicated keys counts
	ids         bool   // the first line shows both snapshots' ids and times, else when both were read
	legend      string // a line after the record counts saying what they count; "" none
}

var diffStyle = reportStyle{
	keylessNote: "without a key a changed record counts as one removed and one added record: scan with --key to see which fields changed",
	duplicates:  "duplicated keys (paired by record content)",
	ids:         true,
}

// printReport is printDiff in style st.
func printReport(w io.Writer, r *compare.Report, st reportStyle) error {
	for _, sd := range []struct {
		label string
		side  compare.Side
	}{{"A", r.A}, {"B", r.B}} {
		if sd.side.Coverage != string(snapshot.Complete) {
			fmt.Fprintf(w, "WARNING: side %s (%s) coverage %s: only the %s records read were compared\n", sd.label, sd.side.Address, sd.side.Coverage, human.Commas(sd.side.Rows))
			for _, reason := range sd.side.CoverageFailures {
				fmt.Fprintf(w, "  failed: %s\n", reason)
			}
		}
	}
	name := r.B.Artifact
	if r.A.Artifact != r.B.Artifact {
		name = r.A.Artifact + " → " + r.B.Artifact
	}
	if st.ids {
		fmt.Fprintf(w, "%s  %s → %s   %s → %s\n", name, r.A.Snapshot[:12], r.B.Snapshot[:12], human.Time(r.A.FinishedAtNs), human.Time(r.B.FinishedAtNs))
	} else {
		fmt.Fprintf(w, "%s   compared %s\n", name, human.Time(max(r.A.FinishedAtNs, r.B.FinishedAtNs)))
	}
	if r.A.Address != r.B.Address {
		fmt.Fprintf(w, "  source    %s → %s\n", r.A.Address, r.B.Address)
	} else {
		fmt.Fprintf(w, "  source    %s\n", r.A.Address)
	}
	switch {
	case !r.Comparable:
		fmt.Fprintf(w, "  records   %s → %s (fingerprints not comparable)\n", human.Commas(r.A.Rows), human.Commas(r.B.Rows))
	case r.Records != nil:
		c := r.Records
		fmt.Fprintf(w, "  records   %s → %s   +%s added  −%s removed  ~%s changed  %s same\n", human.Commas(r.A.Rows), human.Commas(r.B.Rows),
			human.Commas(c.Added), human.Commas(c.Removed), human.Commas(c.Changed), human.Commas(c.Unchanged))
		if st.legend != "" {
			fmt.Fprintf(w, "            %s\n", st.legend)
		}
		if c.DuplicateKeys > 0 {
			dups := diffStyle.duplicates
			if len(r.A.Key) == 0 {
				dups = st.duplicates
			}
			fmt.Fprintf(w, "            %s %s\n", human.Commas(c.DuplicateKeys), dups)
		}
	default:
		verdict := "equal"
		if !r.StatesEqual {
			verdict = "differ"
		}
		fmt.Fprintf(w, "  dataset   %s → %s rows, fingerprints %s (dataset resolution: no record detail)\n", human.Commas(r.A.Rows), human.Commas(r.B.Rows), verdict)
	}
	if line := fieldsLine(r); line != "" {
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
	for i, c := range r.Physical {
		label := "physical"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "  %-9s %s (%s): %s\n", label, c.Name, c.Type, strings.Join(c.Differences(), ", "))
	}
	if len(r.Physical) > 0 {
		fmt.Fprintf(w, "            (how the values are stored, not a difference: they compare by value)\n")
	}
	if r.Records != nil {
		printExamples(w, "changed", r.Examples.Changed, r.Records.Changed)
		printExamples(w, "added", r.Examples.Added, r.Records.Added)
		printExamples(w, "removed", r.Examples.Removed, r.Records.Removed)
	}
	if r.Records != nil && r.Records.Added+r.Records.Removed > 0 && len(r.A.Key) == 0 && st.keylessNote != "" {
		fmt.Fprintf(w, "  note      %s\n", st.keylessNote)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note      %s\n", n)
	}
	return nil
}

// fieldsLine is the "fields" line of a value-resolution report: the fields that
// changed in the changed records (same key, other values) with their counts, then
// those that did not. When no record changed but some were added or removed (always
// the case without a key), there is no such line: it would call every field
// unchanged, though the added and removed records may differ in any of them.
func fieldsLine(r *compare.Report) string {
	if r.Fields == nil || r.Records == nil {
		return ""
	}
	c := r.Records
	if c.Changed == 0 && c.Added+c.Removed > 0 {
		return ""
	}
	var changed, same []string
	for _, f := range r.Fields {
		if f.Changed > 0 {
			changed = append(changed, fmt.Sprintf("%s ~%s", f.Name, human.Commas(f.Changed)))
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
	return line
}

func printExamples(w io.Writer, label string, ex []compare.Example, total uint64) {
	for i, e := range ex {
		l := ""
		if i == 0 {
			l = label
		}
		line := e.Brief
		if line == "" {
			line = e.Key
		}
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
		fmt.Fprintf(w, "  %-9s … %s more (--limit N, --json)\n", l, human.Commas(more))
	}
}
