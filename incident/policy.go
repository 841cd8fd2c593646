package incident

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/why"
)

// Versioned identifiers (docs/contracts/incidents.md).
const (
	// Policy is the analysis policy whose reason codes incidents carry.
	Policy = "pipewhy.policy/v1"
	// Grouping is the recurrence grouping that derives an incident's key.
	Grouping = "pipewhy.incident.group/v1"
)

// Reason codes of pipewhy.policy/v1: a name and the C1 incident.reason_id. Codes are only
// ever appended; a code's meaning never changes within the policy version.
const (
	CopyMismatch      = "copy_mismatch"      // a COPY into the artifact does not match its source
	UnexplainedChange = "unexplained_change" // the artifact changed though its inputs and transform did not
	SchemaChange      = "schema_change"      // the artifact's schema changed between its last two snapshots
	PartialCoverage   = "partial_coverage"   // the latest snapshot's coverage is not COMPLETE
	RowCountChange    = "row_count_change"   // the row count moved by more than pipewhy.yaml allows
	FieldChange       = "field_change"       // a column changed in more records than pipewhy.yaml allows
)

// ReasonIDs maps each reason code to its C1 incident.reason_id.
var ReasonIDs = map[string]uint8{
	CopyMismatch: 1, UnexplainedChange: 2, SchemaChange: 3, PartialCoverage: 4, RowCountChange: 5, FieldChange: 6,
}

// Problem is one thing the policy found at an artifact's latest snapshot.
type Problem struct {
	Artifact  string   `json:"artifact"`
	Snapshot  string   `json:"snapshot"` // the observation: the artifact's latest snapshot
	Reason    string   `json:"reason"`
	Signature []string `json:"signature"` // what the problem is, for grouping ("k=v" items)
	Summary   string   `json:"summary"`   // one sentence for people
	Key       string   `json:"key"`       // the grouping key (GroupKey)
}

// GroupKey is the recurrence grouping key of a problem: the lowercase hex SHA-256 of
//
//	"pipewhy.incident.group/v1\n"
//	n                          (uint64 little-endian: the number of items)
//	for each item: len, bytes  (uint64 little-endian length, then the UTF-8 bytes)
//
// over the items policy, reason, artifact, then the signature items in order. The same
// problem seen again (same reason, artifact and signature) has the same key; anything
// else a different one.
func GroupKey(reason, artifact string, signature []string) string {
	items := append([]string{Policy, reason, artifact}, signature...)
	b := []byte(Grouping + "\n")
	b = binary.LittleEndian.AppendUint64(b, uint64(len(items)))
	for _, s := range items {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Evaluation is the result of the policy over some artifacts.
type Evaluation struct {
	Problems []Problem `json:"problems"`
	Notes    []string  `json:"notes"`
	Checked  []string  `json:"checked"` // the artifacts evaluated
}

// Evaluate runs pipewhy.policy/v1 on the latest snapshot of each artifact (against its
// previous one, where a rule compares) and the lineage in force:
//
//   - partial_coverage: the latest snapshot's coverage is PARTIAL or UNAVAILABLE;
//   - copy_mismatch: a COPY edge into the artifact does not verify at the latest snapshot;
//   - unexplained_change: why lists the artifact itself as an unexplained root cause;
//   - schema_change: the schemas of the last two snapshots differ (compare.Diff);
//   - row_count_change, field_change: the thresholds policies sets for the artifact.
//
// Reasons a policy ignores are not reported. policies may name only known reasons and,
// for field thresholds, columns the artifact has (CodePolicy).
func Evaluate(ctx context.Context, h *why.History, st *lineage.Store, artifacts []string, policies map[string]config.Policy, known map[string]bool) (*Evaluation, error) {
	ev := &Evaluation{Problems: []Problem{}, Notes: []string{}, Checked: []string{}}
	for name, p := range policies {
		for _, r := range p.Ignore {
			if _, ok := ReasonIDs[r]; !ok {
				return nil, &Error{Code: CodePolicy, Msg: fmt.Sprintf("policy of %s ignores %q, which is not a reason of %s (%s)", name, r, Policy, strings.Join(reasonNames(), ", "))}
			}
		}
	}
	for _, a := range artifacts {
		ps := h.Snapshots(a)
		if len(ps) == 0 {
			return nil, &Error{Code: CodeUnknown, Msg: fmt.Sprintf("%s has never been scanned", a)}
		}
		ev.Checked = append(ev.Checked, a)
		pol := policies[a]
		add := func(reason string, sig []string, summary string, snap string) {
			if slices.Contains(pol.Ignore, reason) {
				return
			}
			ev.Problems = append(ev.Problems, Problem{Artifact: a, Snapshot: snap, Reason: reason, Signature: sig,
				Summary: summary, Key: GroupKey(reason, a, sig)})
		}
		last := ps[len(ps)-1]
		ls, err := h.Summary(last)
		if err != nil {
			return nil, err
		}
		if ls.Coverage != "COMPLETE" {
			add(PartialCoverage, []string{"status=" + ls.Coverage}, fmt.Sprintf("the latest snapshot's coverage is %s", ls.Coverage), ls.Snapshot)
		}
		// COPY edges into the artifact, under the lineage in force at its latest snapshot.
		_, g, _, _, err := st.At(ls.FinishedAtNs)
		if err != nil {
			return nil, err
		}
		for _, e := range g.Into(a) {
			if e.Relation != lineage.Copy {
				continue
			}
			src, ok := h.Latest(e.Source, last)
			if !ok {
				ev.Notes = append(ev.Notes, fmt.Sprintf("%s: its copy source %s has no snapshot before it; the copy is not checked", a, e.Source))
				continue
			}
			c, err := why.VerifyCopy(ctx, h, src, last, 3)
			if err != nil {
				return nil, err
			}
			switch {
			case !c.Comparable:
				ev.Notes = append(ev.Notes, fmt.Sprintf("%s: its COPY of %s cannot be verified: %s", a, e.Source, c.Reason))
			case !c.Equal:
				add(CopyMismatch, copySignature(e.Source, c), copySummary(e.Source, c), ls.Snapshot)
			}
		}
		if len(ps) < 2 {
			continue
		}
		ex, err := why.Explain(ctx, h, st, a, why.Options{Limit: 0, Known: known, Details: 1})
		if err != nil {
			return nil, err
		}
		for _, rc := range ex.RootCauses {
			if rc.Artifact == a && rc.Verdict == why.Unexplained {
				cols := changedColumns(ex.Change)
				add(UnexplainedChange, []string{"fields=" + strings.Join(cols, ",")},
					fmt.Sprintf("changed (%s) though its inputs and transform did not", strings.Join(cols, ", ")), ls.Snapshot)
			}
		}
		if len(ex.Change.Schema) > 0 {
			var items []string
			for _, s := range ex.Change.Schema {
				items = append(items, s.Kind+":"+s.Name)
			}
			add(SchemaChange, []string{"changes=" + strings.Join(items, ",")}, "schema changed: "+strings.Join(items, ", "), ls.Snapshot)
		}
		rows := ex.Change.Rows
		if t := pol.MaxRowCountChange; t != nil {
			d := float64(rows[1]) - float64(rows[0])
			if exceeds(math.Abs(d), *t, rows[0]) {
				dir := "increase"
				if d < 0 {
					dir = "decrease"
				}
				add(RowCountChange, []string{"direction=" + dir}, fmt.Sprintf("rows %d → %d (limit %s)", rows[0], rows[1], t), ls.Snapshot)
			}
		}
		if len(pol.MaxFieldChanges) > 0 {
			if ex.Change.Changed && ex.Change.Fields == nil && ex.Change.Comparable {
				ev.Notes = append(ev.Notes, fmt.Sprintf("%s: field thresholds need value resolution on both snapshots", a))
			}
			cols := slices.Sorted(func(yield func(string) bool) {
				for c := range pol.MaxFieldChanges {
					if !yield(c) {
						return
					}
				}
			})
			for _, col := range cols {
				if _, ok := ls.Field(col); !ok {
					return nil, &Error{Code: CodePolicy, Msg: fmt.Sprintf("policy of %s sets max_field_changes for %s, which is not a column of %s", a, col, a)}
				}
				t := pol.MaxFieldChanges[col]
				if n := ex.Change.Fields[col]; exceeds(float64(n), t, rows[0]) {
					add(FieldChange, []string{"field=" + col}, fmt.Sprintf("%s changed in %d records (limit %s)", col, n, t), ls.Snapshot)
				}
			}
		}
	}
	return ev, nil
}

// exceeds reports whether v is above threshold t (a percentage of base, or a count).
func exceeds(v float64, t config.Threshold, base uint64) bool {
	if t.Percent {
		if base == 0 {
			return v > 0
		}
		return v*100/float64(base) > t.Value
	}
	return v > t.Value
}

func changedColumns(c *why.Change) []string {
	var out []string
	if c.Fields != nil {
		for f := range c.Fields {
			out = append(out, f)
		}
	} else {
		out = append(out, c.Columns...)
	}
	slices.Sort(out)
	return out
}

func copySignature(source string, c *why.CopyCheck) []string {
	var kinds []string
	switch {
	case len(c.Columns) > 0:
		kinds = append(kinds, "columns")
	case c.Records != nil:
		if c.Records.Changed > 0 {
			kinds = append(kinds, "changed")
		}
		if c.Records.Removed > 0 {
			kinds = append(kinds, "missing")
		}
		if c.Records.Added > 0 {
			kinds = append(kinds, "extra")
		}
	default:
		kinds = append(kinds, "fingerprint")
	}
	var fields []string
	for f := range c.Fields {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	return []string{"source=" + source, "differs=" + strings.Join(kinds, ","), "fields=" + strings.Join(fields, ",")}
}

func copySummary(source string, c *why.CopyCheck) string {
	switch {
	case len(c.Columns) > 0:
		return fmt.Sprintf("its COPY of %s does not match: %s", source, strings.Join(c.Columns, "; "))
	case c.Records != nil:
		return fmt.Sprintf("its COPY of %s does not match: %d changed, %d missing, %d extra records", source,
			c.Records.Changed, c.Records.Removed, c.Records.Added)
	}
	return fmt.Sprintf("its COPY of %s does not match (dataset fingerprints differ)", source)
}

func reasonNames() []string {
	out := make([]string, 0, len(ReasonIDs))
	for r := range ReasonIDs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b string) int { return int(ReasonIDs[a]) - int(ReasonIDs[b]) })
	return out
}
