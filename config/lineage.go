package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Relations a lineage entry may declare (C1 PW-02.08: COPY, TRANSFORM, DERIVED).
const (
	RelationCopy      = "copy"
	RelationTransform = "transform"
	RelationDerived   = "derived"
)

// LineageEdge is one entry of the lineage section: From → To. Names are artifact names
// (the names scans use); Transform is the text as written (package lineage decides
// whether it names a file, relative to Dir, or is a literal version id).
type LineageEdge struct {
	From      []string            // one artifact for copy, one or more otherwise
	To        string              // the target artifact
	Relation  string              // RelationCopy, RelationTransform or RelationDerived
	Transform string              // required for transform, optional for derived, absent for copy
	Columns   map[string][]string // optional column lineage: target column ← source columns
	Line      int                 // the entry's line in the file
}

// Threshold is a limit of pipewhy check: a count (Percent false) or a percentage of
// the earlier snapshot's row count (Percent true).
type Threshold struct {
	Value   float64
	Percent bool
}

// String renders the threshold as the file spells it: "500" or "2.5%".
func (t Threshold) String() string {
	if t.Percent {
		return strconv.FormatFloat(t.Value, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(t.Value, 'f', 0, 64)
}

// UnmarshalYAML reads a nonnegative integer (a count) or a string "N%" (a percentage).
func (t *Threshold) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a threshold is a count (500) or a percentage (\"2%%\")", n.Line)
	}
	switch n.Tag {
	case "!!int":
		v, err := strconv.ParseUint(n.Value, 10, 53)
		if err != nil {
			return fmt.Errorf("line %d: a count threshold must be a nonnegative integer", n.Line)
		}
		*t = Threshold{Value: float64(v)}
		return nil
	case "!!str":
		num, ok := strings.CutSuffix(n.Value, "%")
		v, err := strconv.ParseFloat(num, 64)
		if !ok || err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(num, "eExXpP_ ") {
			return fmt.Errorf("line %d: %q is not a percentage such as \"2.5%%\"", n.Line, n.Value)
		}
		*t = Threshold{Value: v, Percent: true}
		return nil
	}
	return fmt.Errorf("line %d: a threshold is a count (500) or a percentage (\"2%%\")", n.Line)
}

// Policy holds the thresholds pipewhy check applies to one artifact, on top of the rules
// that always apply (package incident).
type Policy struct {
	// MaxRowCountChange bounds |rows(latest) - rows(previous)|.
	MaxRowCountChange *Threshold
	// MaxFieldChanges bounds, per column, the records whose value changed (value
	// resolution).
	MaxFieldChanges map[string]Threshold
	// Ignore lists reason codes check does not report for this artifact.
	Ignore []string
	Line   int
}

type policyYAML struct {
	MaxRowCountChange *Threshold           `yaml:"max_row_count_change"`
	MaxFieldChanges   map[string]Threshold `yaml:"max_field_changes"`
	Ignore            []string             `yaml:"ignore"`
}

// lineageYAML is one lineage entry as written; from is a name or a list of names.
type lineageYAML struct {
	From      yaml.Node           `yaml:"from"`
	To        string              `yaml:"to"`
	Relation  string              `yaml:"relation"`
	Transform string              `yaml:"transform"`
	Columns   map[string][]string `yaml:"columns"`
}

// Lineage returns the lineage entries in file order.
func (f *File) Lineage() []LineageEdge { return slices.Clone(f.lineage) }

// LineageNames returns the external dataset name → artifact map of lineage_names.
func (f *File) LineageNames() map[string]string {
	out := make(map[string]string, len(f.lineageNames))
	for k, v := range f.lineageNames {
		out[k] = v
	}
	return out
}

// Policy returns the check thresholds of artifact, and whether the file sets any.
func (f *File) Policy(artifact string) (Policy, bool) {
	p, ok := f.policy[artifact]
	return p, ok
}

// PolicyArtifacts returns the artifacts the policy section names, in ascending order.
func (f *File) PolicyArtifacts() []string {
	out := make([]string, 0, len(f.policy))
	for n := range f.policy {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Dir returns the directory of the file, which anchors its relative paths.
func (f *File) Dir() string { return dirOf(f.Path) }

// Artifacts returns the artifact names of the file's sources (an entry's name, or the
// entry's key), in ascending order without repeats.
func (f *File) Artifacts() []string {
	var out []string
	for _, n := range f.Names() {
		s, _ := f.Source(n)
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// validArtifact checks an artifact name as lineage and policy use it: what scans accept
// (nonempty, one line), without surrounding spaces. It returns "" or what is wrong.
func validArtifact(n string) string {
	switch {
	case n == "":
		return "an artifact name is empty"
	case strings.ContainsAny(n, "\n\r"):
		return fmt.Sprintf("artifact name %q must be one line", n)
	case strings.TrimSpace(n) != n:
		return fmt.Sprintf("artifact name %q has surrounding spaces", n)
	}
	return ""
}

// parseLineage checks the lineage entries; it returns them or the line and message of
// the first problem.
func parseLineage(raw []lineageYAML, root *yaml.Node) ([]LineageEdge, int, string) {
	var out []LineageEdge
	seq := valueOf(root, "lineage")
	for i, e := range raw {
		line := 0
		if seq != nil && i < len(seq.Content) {
			line = seq.Content[i].Line
		}
		bad := func(format string, a ...any) ([]LineageEdge, int, string) {
			return nil, line, fmt.Sprintf("lineage entry %d: ", i+1) + fmt.Sprintf(format, a...)
		}
		var from []string
		switch e.From.Kind {
		case yaml.ScalarNode:
			from = []string{e.From.Value}
		case yaml.SequenceNode:
			for _, c := range e.From.Content {
				if c.Kind != yaml.ScalarNode {
					return bad("from lists artifact names")
				}
				from = append(from, c.Value)
			}
		case 0:
			return bad("from is required")
		default:
			return bad("from is an artifact name or a list of them")
		}
		if len(from) == 0 {
			return bad("from is an empty list")
		}
		if e.To == "" {
			return bad("to is required")
		}
		for _, n := range append(slices.Clone(from), e.To) {
			if msg := validArtifact(n); msg != "" {
				return bad("%s", msg)
			}
		}
		sorted := slices.Clone(from)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(from) {
			return bad("from names an artifact twice")
		}
		switch e.Relation {
		case RelationCopy:
			if len(from) != 1 {
				return bad("a copy has exactly one source")
			}
			if e.Transform != "" {
				return bad("a copy has no transform (C1: COPY edges carry none)")
			}
			if e.Columns != nil {
				return bad("a copy has no column lineage: every column is copied as it is")
			}
		case RelationTransform:
			if e.Transform == "" {
				return bad("relation transform needs transform: a file or a version id")
			}
		case RelationDerived:
		case "":
			return bad("relation is required (copy, transform or derived)")
		default:
			return bad("relation %q is not copy, transform or derived", e.Relation)
		}
		if strings.ContainsAny(e.Transform, "\n\r") {
			return bad("transform must be one line")
		}
		for col, srcs := range e.Columns {
			if col == "" || strings.ContainsAny(col, "\n\r") {
				return bad("a column name in columns is empty or not one line")
			}
			if len(srcs) == 0 {
				return bad("column %q lists no source columns", col)
			}
			for _, s := range srcs {
				if s == "" || strings.ContainsAny(s, "\n\r") {
					return bad("column %q lists an empty source column", col)
				}
			}
		}
		out = append(out, LineageEdge{From: from, To: e.To, Relation: e.Relation, Transform: e.Transform,
			Columns: e.Columns, Line: line})
	}
	return out, 0, ""
}

// parsePolicy checks the policy section.
func parsePolicy(raw map[string]policyYAML, root *yaml.Node) (map[string]Policy, int, string) {
	out := map[string]Policy{}
	for name, p := range raw {
		line := lineOf(root, "policy", name)
		if msg := validArtifact(name); msg != "" {
			return nil, line, "policy: " + msg
		}
		for col := range p.MaxFieldChanges {
			if col == "" {
				return nil, line, "policy " + name + ": an empty column name in max_field_changes"
			}
		}
		for _, r := range p.Ignore {
			if r == "" {
				return nil, line, "policy " + name + ": an empty reason in ignore"
			}
		}
		out[name] = Policy{MaxRowCountChange: p.MaxRowCountChange, MaxFieldChanges: p.MaxFieldChanges,
			Ignore: p.Ignore, Line: line}
	}
	return out, 0, ""
}

// parseLineageNames checks lineage_names: external dataset name → artifact name.
func parseLineageNames(raw map[string]string, root *yaml.Node) (map[string]string, int, string) {
	out := map[string]string{}
	for ext, art := range raw {
		line := lineOf(root, "lineage_names", ext)
		if strings.TrimSpace(ext) == "" || strings.ContainsAny(ext, "\n\r") {
			return nil, line, "lineage_names: an external name is empty or not one line"
		}
		if msg := validArtifact(art); msg != "" {
			return nil, line, "lineage_names " + ext + ": " + msg
		}
		out[ext] = art
	}
	return out, 0, ""
}

// valueOf returns the value node of a top-level key, or nil.
func valueOf(root *yaml.Node, key string) *yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
