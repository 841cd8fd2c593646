package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type scanFlags struct {
	repo, resolution, profile, name, schema string
	query, config                           string
	key, exclude                            []string
	null                                    string
	nullSet, infer, allowPartial, asJSON    bool
	missingAsNull                           bool
}

func newScanCommand(s streams) *cobra.Command {
	var f scanFlags
	cmd := &cobra.Command{
		Use:   "scan SOURCE",
		Short: "Observe a dataset into a new snapshot",
		Long: `Scan reads SOURCE (a CSV, JSON lines, JSON, Parquet or Arrow IPC file, a SQLite or DuckDB
table or query, a PostgreSQL or MySQL table or query: addresses such as data.csv,
data.parquet, shop.db#orders, duckdb:wh.duckdb#events, postgres://host/db#orders),
normalizes every value to C2 words, fingerprints it (C3) and publishes one immutable
snapshot (C5) in the repository. It prints the snapshot id.

SOURCE may also be the name of a source in pipewhy.yaml (found in this directory or a
parent, or given with --config): its address and settings are used, and flags given on
the command line win over them. The file's defaults apply to every scan.

  --query SQL            scan the result of a SELECT instead of a table: with an address
                         without #TABLE (sqlite:FILE, duckdb:FILE, duckdb::memory:,
                         postgres://host/db, mysql://host/db)

  --resolution dataset   the dataset fingerprint and per-column fingerprints (default)
  --resolution record    also one (key, record) digest pair per record: diff counts
                         records added, removed and changed by key
  --resolution value     also per-field digests and every value: diff names the fields
                         that changed and shows old -> new values
  --key COLS             key columns (comma-separated; composite keys allowed); keys must
                         be unique. Without --key the whole record is its key.

Memory: a dataset scan holds a few row groups or batches, whatever the row count. Record
and value resolution hold their arrays until the snapshot is written: about 0.2 KB a
record at record resolution and about 1 KB at value resolution for a 5-column table
(more for wide or text-heavy records; docs/performance.md), so tens of millions of
records at value resolution need tens of GB. To compare two live sources, 'pipewhy
compare' needs record resolution's memory plus that of the changed records.

Dates, times of day, durations, nanosecond timestamps and nested values (lists,
structs, maps) need a C2 extension profile: --profile strict-v1+ext1 (or
logical-v1+ext1). Under a v1 profile such a column fails the scan, naming it; scan
with the extension profile or leave the column out with --exclude COL (recorded in
the snapshot).

A scan whose source has records that fail to read publishes nothing unless
--allow-partial (then the snapshot's coverage is PARTIAL). A scan that fails publishes
nothing. On a terminal a progress line shows rows and rows/s, with a bar and the time
left when the source knows its row count (Parquet, databases).

Exit status: 0 published; 2 any error (nothing published).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.nullSet = cmd.Flags().Changed("null")
			addr, err := applyConfig(cmd, &f, args[0])
			if err != nil {
				return withExit(ExitError, err)
			}
			return runScan(cmd.Context(), s, f, addr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", "", "repository directory (default: .pipewhy here or in a parent)")
	fl.StringVar(&f.resolution, "resolution", "dataset", "dataset, record or value")
	fl.StringSliceVar(&f.key, "key", nil, "key column(s), comma-separated (record and value resolution; default: the primary key of a database table)")
	fl.StringVar(&f.profile, "profile", "strict-v1", "C2 normalization profile: strict-v1, logical-v1, strict-v1+ext1 or logical-v1+ext1")
	fl.StringVar(&f.name, "name", "", "artifact name (default: the file name without extension, or the table)")
	fl.StringVar(&f.schema, "schema", "", `explicit column types, a JSON file {"columns":[{"name":..,"type":..}]}`)
	fl.BoolVar(&f.infer, "infer", false, "CSV: infer int64, uint64 and bool columns in a first pass, only where every cell keeps its exact text (00501 stays text)")
	fl.StringVar(&f.null, "null", "", "CSV: the spelling of a null cell")
	fl.BoolVar(&f.missingAsNull, "missing-as-null", false, "JSON: read a member absent from a record as null (recorded) instead of failing the record")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "columns to leave out (recorded in the snapshot)")
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "publish even when some records failed to read (coverage PARTIAL)")
	fl.BoolVar(&f.asJSON, "json", false, "write a JSON summary instead of text")
	fl.StringVar(&f.query, "query", "", "a SELECT to scan, for a database address without #TABLE")
	fl.StringVar(&f.config, "config", "", "project file (default: pipewhy.yaml here or in a parent)")
	return cmd
}

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
	// A configured key serves record and value scans; a dataset scan asked for on the
	// command line leaves it out instead of failing on it.
	if !set("key") && entry.Key != nil && f.resolution != "dataset" {
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
	o, err := scanOptions(f, addr)
	if err != nil {
		return withExit(ExitError, err)
	}
	res, err := scanWithProgress(ctx, s, r, o)
	if err != nil {
		return err
	}
	return printScan(s, res, f.asJSON)
}

// scanWithProgress runs the scan, drawing a progress line when stdout is a terminal.
func scanWithProgress(ctx context.Context, s streams, r *repo.Repo, o scan.Options) (*scan.Result, error) {
	var tty io.Writer
	if fd, ok := s.out.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		tty = fd
	}
	if tty != nil {
		name := o.Name
		if name == "" {
			name = o.Address
		}
		o.Progress = progressLine(tty, name, time.Now)
	}
	res, err := scan.Run(ctx, r, o)
	if tty != nil {
		fmt.Fprint(tty, "\r\x1b[K")
	}
	if err != nil {
		var dk *scan.DuplicateKeyError
		if errors.As(err, &dk) {
			fmt.Fprintf(s.err, "pipewhy: duplicate keys (%d keys, %d records), for example:\n", dk.Keys, dk.Records)
			for _, e := range dk.Examples {
				fmt.Fprintf(s.err, "  %s\n", e)
			}
		}
		return nil, withExit(ExitError, err)
	}
	return res, nil
}

// progressLine returns a Progress callback that redraws one terminal line, at most
// every 100ms: "scanning NAME  1.2M rows  850.3k rows/s", and when the source knows its
// row count, a bar and the time left:
// "scanning NAME  ██████░░░░░░░░░░░░░░  1.2M/4.0M rows  850.3k rows/s  eta 0:00:03".
func progressLine(w io.Writer, name string, now func() time.Time) func(scan.Progress) {
	start := now()
	var last time.Time
	return func(p scan.Progress) {
		t := now()
		if t.Sub(last) < 100*time.Millisecond {
			return
		}
		last = t
		el := t.Sub(start).Seconds()
		if el <= 0 {
			el = 1e-9
		}
		rate := float64(p.Rows) / el
		if !p.ExpectedKnown || p.Expected == 0 || p.Rows > p.Expected {
			fmt.Fprintf(w, "\r\x1b[Kscanning %s  %s rows  %s rows/s", name, human(float64(p.Rows)), human(rate))
			return
		}
		const width = 20
		filled := int(p.Rows * width / p.Expected)
		bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
		eta := "--:--:--"
		if rate > 0 {
			left := time.Duration(float64(p.Expected-p.Rows) / rate * float64(time.Second)).Round(time.Second)
			eta = fmt.Sprintf("%d:%02d:%02d", int(left.Hours()), int(left.Minutes())%60, int(left.Seconds())%60)
		}
		fmt.Fprintf(w, "\r\x1b[Kscanning %s  %s  %s/%s rows  %s rows/s  eta %s",
			name, bar, human(float64(p.Rows)), human(float64(p.Expected)), human(rate), eta)
	}
}

func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.1fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
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
		commas(uint64(sc.Descriptor.Rows)), m.Coverage.Status, m.Resolution)
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

// commas formats n with thousands separators: 20,000,016.
func commas(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
