package cli

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/why"
	"github.com/spf13/cobra"
)

type scanFlags struct {
	repo, resolution, profile, name, schema string
	query, config, algorithm                string
	key, exclude                            []string
	null                                    string
	nullSet, infer, allowPartial, asJSON    bool
	missingAsNull                           bool
	memory                                  string
}

func newScanCommand(s streams) *cobra.Command {
	var f scanFlags
	cmd := &cobra.Command{
		Use:   "scan SOURCE",
		Short: "Observe a dataset into a new snapshot",
		Long: `Scan reads a dataset and keeps what it observed as a snapshot in the repository, so
that 'pipewhy diff' can tell later what changed. It prints the snapshot id.

SOURCE is a file (data.csv, data.jsonl, data.json, data.parquet, data.arrow), a database table
(shop.db#orders, duckdb:wh.duckdb#events, postgres://host/db#public.orders,
mysql://host/db#orders) or the name of a source in pipewhy.yaml.

What the snapshot keeps decides what diff can tell:
  --resolution dataset   whether anything changed, and in which columns (the default)
  --resolution record    also which records were added, removed or changed, by --key
                         (the default when --key is given)
  --resolution value     also which fields changed, with their old and new values

Examples:
  pipewhy scan orders.csv --key order_id --resolution value
  pipewhy scan orders.csv --schema orders.json       typed columns (CSV cells are text)
  pipewhy scan orders.csv --infer                    or infer integer and bool columns
  pipewhy scan postgres://localhost/shop#public.orders --resolution record
                                                     (the table's primary key is the key)

A scan that fails publishes nothing. On a terminal, stderr shows its progress phase by
phase (read, sort, write, ...). Sources, keys, profiles, memory and interrupted scans in
detail: docs/scan.md.

Exit status: 0 published; 2 error (nothing published).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.nullSet = cmd.Flags().Changed("null")
			addr, err := applyConfig(cmd, &f, args[0])
			if err != nil {
				return withExit(ExitError, err)
			}
			if f.resolution == "" {
				// Neither the command line nor pipewhy.yaml chose: a key given on the
				// command line asks for records, else the dataset resolution.
				f.resolution = "dataset"
				if cmd.Flags().Changed("key") {
					f.resolution = "record"
				}
			}
			return runScan(cmd.Context(), s, f, addr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", "", repoHelp)
	fl.StringVar(&f.resolution, "resolution", "", "dataset, record or value (default: record with --key, else dataset)")
	fl.StringSliceVar(&f.key, "key", nil, keyHelp+" (default: the table's primary key, else the whole record)")
	fl.StringVar(&f.profile, "profile", "strict-v1", profileHelp)
	fl.StringVar(&f.name, "name", "", "artifact name (default: the file name without extension, or the table)")
	fl.StringVar(&f.schema, "schema", "", `explicit column types, a JSON file {"columns":[{"name":..,"type":..}]}`)
	fl.BoolVar(&f.infer, "infer", false, "CSV: infer integer and bool columns in a first pass, only where every cell keeps its exact text (00501 stays text)")
	fl.StringVar(&f.null, "null", "", "CSV: the spelling of a null cell")
	fl.BoolVar(&f.missingAsNull, "missing-as-null", false, "JSON: read a member absent from a record as null (recorded) instead of failing the record")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "columns to leave out (recorded in the snapshot)")
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "publish even when some records failed to read (coverage PARTIAL)")
	fl.BoolVar(&f.asJSON, "json", false, "write a JSON summary instead of text")
	fl.StringVar(&f.query, "query", "", "a SELECT to scan, for a database address without #TABLE")
	fl.StringVar(&f.config, "config", "", "project file (default: pipewhy.yaml here or in a parent)")
	fl.StringVar(&f.algorithm, "algorithm", "", algorithmHelp+"; must be the repository's (default: the repository's)")
	fl.StringVar(&f.memory, "memory", "1GiB", "memory budget of record and value resolution: sorted runs beyond it spill to the snapshot's staging directory (KiB, MiB, GiB, ...)")
	return cmd
}

// The help of the flags scan and compare share.
const (
	keyHelp     = "the column(s) that identify a record, comma-separated (record and value resolution)"
	profileHelp = "how values are compared: strict-v1 (every representation difference counts), logical-v1 (-0.0 = 0.0, 1.50 = 1.5, ...), or either +ext1 for dates, times and nested values"
)

// applyConfig fills the settings the command line leaves unset from pipewhy.yaml and
// returns the address to scan: the named source's when arg names one, else arg.
func applyConfig(cmd *cobra.Command, f *scanFlags, arg string) (string, error) {
	path := f.config
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		if path, err = config.Find(wd); err != nil || path == "" {
			return arg, err
		}
	}
	file, err := config.Load(path)
	if err != nil {
		return "", err
	}
	entry, ok := file.Source(arg)
	if !ok {
		entry = config.Merge(config.Scan{Address: arg}, file.Defaults)
	}
	set := cmd.Flags().Changed
	str := func(flag string, dst *string, v string) {
		if !set(flag) && v != "" {
			*dst = v
		}
	}
	str("resolution", &f.resolution, entry.Resolution)
	str("profile", &f.profile, entry.Profile)
	str("name", &f.name, entry.Name)
	str("schema", &f.schema, entry.Schema)
	str("query", &f.query, entry.Query)
	str("memory", &f.memory, entry.Memory)
	// A configured key serves record and value scans; a dataset scan asked for on the
	// command line leaves it out instead of failing on it.
	if !set("key") && entry.Key != nil && f.resolution != "dataset" && f.resolution != "" {
		f.key = entry.Key
	}
	if !set("exclude") && entry.Exclude != nil {
		f.exclude = entry.Exclude
	}
	if !set("infer") && entry.Infer != nil {
		f.infer = *entry.Infer
	}
	if !set("allow-partial") && entry.AllowPartial != nil {
		f.allowPartial = *entry.AllowPartial
	}
	if !set("missing-as-null") && entry.MissingAsNull != nil {
		f.missingAsNull = *entry.MissingAsNull
	}
	if !set("null") && entry.Null != nil {
		f.null, f.nullSet = *entry.Null, true
	}
	return entry.Address, nil
}

func scanOptions(f scanFlags, addr string) (scan.Options, error) {
	p, err := normalize.ParseProfile(f.profile)
	if err != nil {
		return scan.Options{}, fmt.Errorf("--profile: %w", err)
	}
	o := scan.Options{Address: addr, Name: f.name, Resolution: snapshot.Resolution(f.resolution),
		Key: f.key, Profile: p, AllowPartial: f.allowPartial}
	if f.memory != "" {
		if o.Memory, err = config.ParseSize(f.memory); err != nil {
			return o, fmt.Errorf("--memory: %w", err)
		}
	}
	if f.schema != "" {
		cols, err := source.LoadColumns(f.schema)
		if err != nil {
			return o, fmt.Errorf("--schema: %w", err)
		}
		o.Source.Columns = cols
	}
	o.Source.Infer = f.infer
	if f.nullSet {
		n := f.null
		o.Source.Null = &n
	}
	o.Source.Exclude = f.exclude
	o.Source.MissingAsNull = f.missingAsNull
	o.Source.Query = f.query
	if f.algorithm != "" {
		if o.Algorithm, err = parseAlgorithm(f.algorithm); err != nil {
			return o, err
		}
	}
	return o, nil
}

func runScan(ctx context.Context, s streams, f scanFlags, addr string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := openRepo(f.repo)
	if err != nil {
		return err
	}
	if _, err := syncProjectLineage(ctx, r, f.config); err != nil {
		return err
	}
	o, err := scanOptions(f, addr)
	if err != nil {
		return withExit(ExitError, err)
	}
	if o.Resolution != snapshot.ResolutionDataset && o.Memory > 0 {
		// The budget is also the garbage collector's soft limit, so that the heap it
		// lets grow beside the sorted runs stays within it (the sorted entries take at
		// most two thirds of it: scan/spill.go).
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(o.Memory))
	}
	res, err := scanWithProgress(ctx, s, r, o)
	if err != nil {
		return err
	}
	return printScan(s, res, f.asJSON)
}

// scanWithProgress runs the scan, drawing a progress line when stderr is a terminal,
// and then notes what interrupted scans left in the store's staging directory.
func scanWithProgress(ctx context.Context, s streams, r *repo.Repo, o scan.Options) (*scan.Result, error) {
	name := o.Name
	if name == "" {
		name = scan.DefaultName(o.Address)
	}
	line := newProgress(s.err, "scanning "+name)
	line.report(0, status{phase: "open"}) // until the source reports (a database may count first)
	o.Progress = line.scan(0)
	res, err := scan.Run(ctx, r, o)
	line.stop()
	stagingNote(s.err, r.Store())
	if err != nil {
		return nil, withExit(ExitError, err)
	}
	// Summarized now, the scan costs the next 'pipewhy why' or report nothing to read.
	if err := why.Record(r, res.ID); err != nil {
		fmt.Fprintf(s.err, "pipewhy: note: the summary index was not updated: %v\n", err)
	}
	return res, nil
}

// scanSummary is the --json form of a published scan.
type scanSummary struct {
	Snapshot      string          `json:"snapshot"`
	Parent        *string         `json:"parent"`
	Artifact      string          `json:"artifact"`
	Address       string          `json:"address"`
	Namespace     string          `json:"namespace"`
	Resolution    string          `json:"resolution"`
	Rows          uint64          `json:"rows"`
	Key           []string        `json:"key"`
	Coverage      coverageJSON    `json:"coverage"`
	ContextID     string          `json:"context_id"`
	ProfileID     string          `json:"profile_id"`
	SchemaChanges []source.Change `json:"schema_changes"`
}

type coverageJSON struct {
	Status         string   `json:"status"`
	Expected       *uint64  `json:"expected_records"`
	Returned       uint64   `json:"returned_records"`
	FailureReasons []string `json:"failure_reasons"`
}

func coverageOf(m snapshot.Metadata) coverageJSON {
	c := coverageJSON{Status: string(m.Coverage.Status), Returned: m.Coverage.Returned, FailureReasons: m.Coverage.FailureReasons}
	if m.Coverage.Expected.Known {
		n := m.Coverage.Expected.N
		c.Expected = &n
	}
	if c.FailureReasons == nil {
		c.FailureReasons = []string{}
	}
	return c
}

func keyNames(sc *repo.Scan) []string {
	out := []string{}
	for _, k := range sc.Descriptor.KeyFields {
		if f, ok := sc.FieldByID(uint64(k)); ok {
			out = append(out, f.Name)
		}
	}
	return out
}

func printScan(s streams, res *scan.Result, asJSON bool) error {
	sc := res.Scan
	m := sc.Metadata
	if asJSON {
		sum := scanSummary{Snapshot: res.ID.String(), Artifact: sc.Descriptor.Artifact, Address: sc.Descriptor.Address,
			Namespace: m.SourceNamespace, Resolution: string(m.Resolution), Rows: uint64(sc.Descriptor.Rows),
			Key: keyNames(sc), Coverage: coverageOf(m), ContextID: m.Fingerprint.ContextID, ProfileID: m.Fingerprint.ProfileID,
			SchemaChanges: res.Changes}
		if m.Parent != nil {
			p := m.Parent.String()
			sum.Parent = &p
		}
		if sum.SchemaChanges == nil {
			sum.SchemaChanges = []source.Change{}
		}
		return emitJSON(s, sum)
	}
	fmt.Fprintf(s.out, "snapshot %s  %s  %s rows  %s  %s resolution\n", res.ID, sc.Descriptor.Artifact,
		human.Commas(uint64(sc.Descriptor.Rows)), m.Coverage.Status, m.Resolution)
	for _, c := range res.Changes {
		if c.Kind == source.ChangePhysical { // how the values are stored: a note, as diff shows it
			fmt.Fprintf(s.out, "  physical: %s: %s\n", c.Name, strings.Join(c.Differences(), ", "))
			continue
		}
		fmt.Fprintf(s.out, "  schema %s: %s\n", c.Kind, c.Name)
	}
	for _, reason := range m.Coverage.FailureReasons {
		fmt.Fprintf(s.out, "  failed: %s\n", reason)
	}
	return nil
}
