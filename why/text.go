package why

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/internal/human"
)

// WriteText writes e as a short report a person reads top down: what changed, the root
// causes strongest first, the lineage edges with their verdicts, the changed columns
// and what their column lineage says. The words say "consistent with" where the lineage
// is all that is known; only a COPY check proves a difference.
func WriteText(w io.Writer, e *Explanation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s (%s) → %s (%s)\n", e.Artifact, shortID(e.From), human.Time(e.FromTimeNs), shortID(e.To), human.Time(e.ToTimeNs))
	c := e.Change
	switch {
	case !e.Changed:
		fmt.Fprintf(&b, "  unchanged  %s records, the same fingerprint\n", human.Commas(c.Rows[1]))
	default:
		fmt.Fprintf(&b, "  changed    %s\n", describeChange(c))
	}
	if len(e.RootCauses) > 0 {
		if e.Changed {
			b.WriteString("  root causes, strongest first\n")
		} else {
			b.WriteString("  changes and problems upstream, strongest first\n")
		}
		width := 0
		for _, rc := range e.RootCauses {
			width = max(width, len(rc.Artifact))
		}
		for _, rc := range e.RootCauses {
			detail := rc.Detail
			if (rc.Verdict == SourceChanged || rc.Verdict == Unexplained) && rc.Change != nil {
				detail = describeChange(rc.Change) + "; " + detail
			}
			fmt.Fprintf(&b, "    %-*s  %s  [%s]\n", width, rc.Artifact, detail, rc.Verdict)
			if rc.Verdict == CopyMismatch {
				for _, er := range e.Edges {
					if er.Target == rc.Artifact && er.Verdict == CopyMismatch && er.Copy != nil {
						for _, ex := range er.Copy.Examples {
							fmt.Fprintf(&b, "    %-*s  %s\n", width, "", er.DescribeExample(ex))
						}
					}
				}
			}
		}
	} else if e.Changed {
		b.WriteString("  root causes  none found in the lineage\n")
	}
	if len(e.Edges) > 0 {
		fmt.Fprintf(&b, "  lineage (version %d), nearest edges first\n", e.Lineage.Seq)
		var lines [][2]string
		width := 0
		for _, er := range e.Edges {
			arrow := er.Relation
			if er.Transform != "" {
				arrow += " " + er.Transform
			}
			l := fmt.Sprintf("%s ─%s─► %s", er.Source, arrow, er.Target)
			width = max(width, len([]rune(l)))
			lines = append(lines, [2]string{l, fmt.Sprintf("%s: %s", er.Verdict, er.Detail)})
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "    %s%s  %s\n", l[0], strings.Repeat(" ", width-len([]rune(l[0]))), l[1])
		}
	}
	if len(e.Fields) > 0 {
		names := make([]string, 0, len(e.Fields))
		for f := range e.Fields {
			names = append(names, f)
		}
		slices.Sort(names)
		var lines []string
		for _, f := range names {
			fe := e.Fields[f]
			n := f
			if fe.Changed != nil {
				n = fmt.Sprintf("%s ~%d", f, *fe.Changed)
			}
			if len(fe.ExplainedBy) > 0 {
				lines = append(lines, fmt.Sprintf("%s is consistent with changes in %s", n, strings.Join(fe.ExplainedBy, ", ")))
			}
		}
		if len(lines) > 0 {
			b.WriteString("  columns\n")
			for _, l := range lines {
				b.WriteString("    " + l + "\n")
			}
		}
	}
	notes := slices.Clone(e.Notes)
	if e.Lineage.Note != "" {
		notes = append(notes, e.Lineage.Note)
	}
	for _, n := range notes {
		b.WriteString("  note  " + n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DescribeExample describes a record of the COPY er that differs from its source, in
// words: `order_id=123  status "paid" in orders, "shipped" in orders_copy`.
func (er EdgeResult) DescribeExample(ex CopyExample) string {
	switch ex.Kind {
	case "only_in_source":
		return fmt.Sprintf("%s  in %s, missing from %s", ex.Key, er.Source, er.Target)
	case "only_in_copy":
		return fmt.Sprintf("%s  in %s only", ex.Key, er.Target)
	}
	if len(ex.Changes) == 0 {
		return ex.Key + "  differs (the values are kept at value resolution only)"
	}
	var parts []string
	for _, ch := range ex.Changes {
		parts = append(parts, fmt.Sprintf("%s %s in %s, %s in %s", ch.Field, ch.Source, er.Source, ch.Copy, er.Target))
	}
	return ex.Key + "  " + strings.Join(parts, "; ")
}

// describeChange renders a change: records and columns when counted, else the reason.
func describeChange(c *Change) string {
	s := fmt.Sprintf("%s → %s records", human.Commas(c.Rows[0]), human.Commas(c.Rows[1]))
	if r := c.Records; r != nil {
		s += fmt.Sprintf("  +%d added  −%d removed  ~%d changed", r.Added, r.Removed, r.Changed)
	}
	switch {
	case len(c.Fields) > 0:
		names := make([]string, 0, len(c.Fields))
		for f := range c.Fields {
			names = append(names, f)
		}
		slices.SortFunc(names, func(a, b string) int {
			if c.Fields[a] != c.Fields[b] {
				return cmp.Compare(c.Fields[b], c.Fields[a])
			}
			return strings.Compare(a, b)
		})
		var fs []string
		for _, f := range names {
			fs = append(fs, fmt.Sprintf("%s ~%d", f, c.Fields[f]))
		}
		s += " (" + strings.Join(fs, ", ") + ")"
	case len(c.Columns) > 0:
		s += " (columns changed: " + strings.Join(c.Columns, ", ") + ")"
	}
	if len(c.Schema) > 0 {
		s += "; schema: " + schemaSummary(c.Schema)
	}
	if !c.Comparable && c.Reason != "" {
		s += "; " + c.Reason
	}
	return s
}

func schemaSummary(ch []compare.SchemaChange) string {
	var out []string
	for _, c := range ch {
		out = append(out, c.Kind+" "+c.Name)
	}
	return strings.Join(out, ", ")
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
