package cli

import (
	"fmt"
	"strings"

	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/spf13/cobra"
)

func newShowCommand(s streams) *cobra.Command {
	var repoDir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show SNAPSHOT",
		Short: "Show what a scan observed: source, coverage, key, schema, fingerprint",
		Long: `Show prints what one scan observed: its artifact and source (namespace, version,
consistency), when it ran, its resolution and key, its coverage (COMPLETE, PARTIAL or
UNAVAILABLE, with the reasons), its fingerprint and its schema (columns with their
stable field ids and types). SNAPSHOT is an id, a unique prefix of one (at least 4 hex
digits), or an artifact's name for its newest scan (orders~1 is the scan before). The
snapshot is checked completely first.

'pipewhy snapshot show ID' shows instead how a snapshot is stored: its manifest and
its array files with their sizes and checksums.

Exit status: 0 success; 2 unknown or ambiguous id, corrupt snapshot, or other error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			r, err := openRepo(repoDir)
			if err != nil {
				return err
			}
			sc, err := loadScan(r, args[0], nil)
			if err != nil {
				return err
			}
			if asJSON {
				return emitJSON(s, showJSON(sc))
			}
			printShow(s, sc)
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", "", repoHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON instead of text")
	return cmd
}

type showDoc struct {
	Snapshot          string       `json:"snapshot"`
	Parent            *string      `json:"parent"`
	Artifact          string       `json:"artifact"`
	Address           string       `json:"address"`
	Adapter           string       `json:"adapter"`
	Namespace         string       `json:"namespace"`
	SourceVersion     string       `json:"source_version"`
	SourceConsistency string       `json:"source_consistency"`
	Scope             string       `json:"scope"`
	StartedAtNs       uint64       `json:"started_at_ns,string"`
	FinishedAtNs      uint64       `json:"finished_at_ns,string"`
	Resolution        string       `json:"resolution"`
	Rows              uint64       `json:"rows"`
	Key               []string     `json:"key"`
	Coverage          coverageJSON `json:"coverage"`
	Fingerprint       any          `json:"fingerprint"`
	Fields            []repo.Field `json:"fields"`
	Choices           []string     `json:"choices"`
	Excluded          []string     `json:"excluded"`
}

func showJSON(sc *repo.Scan) showDoc {
	m := sc.Metadata
	d := showDoc{Snapshot: m.ID.String(), Artifact: sc.Descriptor.Artifact, Address: sc.Descriptor.Address,
		Adapter: sc.Descriptor.Adapter, Namespace: m.SourceNamespace, SourceVersion: m.SourceVersion,
		SourceConsistency: m.SourceConsistency, Scope: m.Scope, StartedAtNs: m.StartedAtNs, FinishedAtNs: m.FinishedAtNs,
		Resolution: string(m.Resolution), Rows: uint64(sc.Descriptor.Rows), Key: keyNames(sc), Coverage: coverageOf(m),
		Fields: sc.Descriptor.Fields, Choices: sc.Descriptor.Choices, Excluded: sc.Descriptor.Excluded}
	if m.Parent != nil {
		p := m.Parent.String()
		d.Parent = &p
	}
	lanes := []string{}
	for _, l := range sc.State.Lanes() {
		lanes = append(lanes, fmt.Sprintf("%016x", l))
	}
	d.Fingerprint = map[string]any{
		"algorithm_id": m.Fingerprint.AlgorithmID, "context_id": m.Fingerprint.ContextID,
		"profile_id": m.Fingerprint.ProfileID, "schema_id": m.Fingerprint.SourceSchemaID, "mode": m.Fingerprint.Mode,
		"records": sc.State.Count(), "lanes": lanes,
	}
	return d
}

func printShow(s streams, sc *repo.Scan) {
	m := sc.Metadata
	w := s.out
	fmt.Fprintf(w, "snapshot    %s\n", m.ID)
	if m.Parent != nil {
		fmt.Fprintf(w, "parent      %s\n", m.Parent)
	}
	fmt.Fprintf(w, "artifact    %s  (%s)\n", sc.Descriptor.Artifact, sc.Descriptor.Address)
	fmt.Fprintf(w, "source      %s  %s  %s\n", m.SourceNamespace, m.SourceVersion, m.SourceConsistency)
	fmt.Fprintf(w, "scanned     %s → %s UTC\n", human.Time(m.StartedAtNs), human.Time(m.FinishedAtNs))
	key := strings.Join(keyNames(sc), ", ")
	if key == "" {
		key = "(whole record)"
	}
	fmt.Fprintf(w, "resolution  %s  key %s\n", m.Resolution, key)
	c := coverageOf(m)
	exp := "unknown"
	if c.Expected != nil {
		exp = human.Commas(*c.Expected)
	}
	fmt.Fprintf(w, "coverage    %s  %s of %s records\n", c.Status, human.Commas(c.Returned), exp)
	for _, r := range c.FailureReasons {
		fmt.Fprintf(w, "            %s\n", r)
	}
	lanes := sc.State.Lanes()
	fmt.Fprintf(w, "fingerprint %s  %s records  lanes", m.Fingerprint.AlgorithmName, human.Commas(sc.State.Count()))
	for _, l := range lanes {
		fmt.Fprintf(w, " %016x", l)
	}
	fmt.Fprintf(w, "\ncontext     %s\nprofile     %s\n", m.Fingerprint.ContextID, m.Fingerprint.ProfileID)
	fmt.Fprintf(w, "schema      %d fields\n", len(sc.Descriptor.Fields))
	for _, f := range sc.Descriptor.Fields {
		null := ""
		if f.Nullable {
			null = " nullable"
		}
		fmt.Fprintf(w, "  %4d  %-20s %-10s %s%s\n", f.ID, f.Name, f.Type, f.Source, null)
	}
	if len(sc.Descriptor.Excluded) > 0 {
		fmt.Fprintf(w, "excluded    %s\n", strings.Join(sc.Descriptor.Excluded, ", "))
	}
}
