package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/pipewhy/pipewhy/compare/live"
	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/source"
	"github.com/spf13/cobra"
)

type compareFlags struct {
	key, exclude, maps                []string
	profile, schema, schemaA, schemaB string
	queryA, queryB                    string
	null, memory                      string
	nullSet, infer, allowPartial      bool
	missingAsNull, asJSON             bool
	limit                             int
}

func newCompareCommand(s streams) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare SOURCE_A SOURCE_B",
		Short: "Compare two sources directly: records only in A, only in B, changed; fields",
		Long: `Compare tells whether two sources hold the same data, and if not, where they differ:
records only in A, only in B, and changed (with the fields that changed and their old
and new values). Use it to check a copy, an export or a migration, between any two
sources (CSV, JSON, Parquet and Arrow files, SQLite, DuckDB, PostgreSQL, MariaDB/MySQL). Nothing is written: no
repository is needed.

Columns are matched by name (--map COL_A=COL_B pairs others); how a column is stored
does not matter, only its values: an int4 column equals an int64 column holding the
same numbers. Columns on one side only make the sources different; the records are
compared on the common columns.

Records are matched by --key, else by the primary key both sides have. When neither
side has a primary key (files) and no --key is given, each record is its own key, with
a note: the sources are compared as multisets of records (order does not matter,
duplicates count), and a record that differs in any field is one record only in A and
one only in B; --key pairs them and shows which fields changed. A primary key on one
side only is an error: name the key with --key.

Examples:
  pipewhy compare export/orders.csv 'postgres://app@db/shop#public.orders' --key order_id --schema orders.json
  pipewhy compare 'postgres://…#public.items' 'mysql://root@127.0.0.1/shop#items'   (primary keys)
  pipewhy compare a.parquet b.parquet --key id --map name=label
  pipewhy compare export.csv copy.parquet   (no key: records compared as a multiset)

Memory is bounded by --memory (default 1GiB, or memory: in pipewhy.yaml's defaults),
as for scan: beyond it the sorted entries spill to a private scratch directory, in
the repository's staging directory when run inside a repository, else in $TMPDIR,
removed when compare ends (also on an error or an interrupt).

On a terminal, stderr shows both sides' progress. Details (second read, profiles,
memory, --json shape): docs/compare.md.

Exit status: 0 equal; 1 different; 2 error.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.nullSet = cmd.Flags().Changed("null")
			if !cmd.Flags().Changed("memory") {
				m, err := configuredMemory()
				if err != nil {
					return withExit(ExitError, err)
				}
				if m != "" {
					f.memory = m
				}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runCompare(ctx, s, f, args[0], args[1])
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.key, "key", nil, keyHelp+", in A's names (default: the primary key both sides have; none when neither has one)")
	fl.StringArrayVar(&f.maps, "map", nil, "COL_A=COL_B: compare B's column COL_B as A's COL_A (repeatable)")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "columns (A's names) left out on both sides")
	fl.StringVar(&f.profile, "profile", "strict-v1", profileHelp)
	fl.StringVar(&f.schema, "schema", "", `explicit column types for every CSV, JSON lines and JSON side, a JSON file {"columns":[{"name":..,"type":..}]}`)
	fl.StringVar(&f.schemaA, "schema-a", "", "explicit column types for side A only (overrides --schema)")
	fl.StringVar(&f.queryA, "query-a", "", "a SELECT for side A, whose address is a database without #TABLE")
	fl.StringVar(&f.queryB, "query-b", "", "a SELECT for side B, whose address is a database without #TABLE")
	fl.StringVar(&f.schemaB, "schema-b", "", "explicit column types for side B only (overrides --schema)")
	fl.BoolVar(&f.infer, "infer", false, "CSV sides without a schema: infer int64, uint64 and bool columns whose every cell keeps its exact text (00501 stays text)")
	fl.StringVar(&f.null, "null", "", "CSV sides: the spelling of a null cell")
	fl.BoolVar(&f.missingAsNull, "missing-as-null", false, "JSON sides: read a member absent from a record as null (recorded) instead of failing the record")
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "compare even when records of a side failed to read (coverage not COMPLETE)")
	fl.BoolVar(&f.asJSON, "json", false, "write JSON instead of text")
	fl.IntVar(&f.limit, "limit", 10, "examples to show per kind (only in A, only in B, changed)")
	fl.StringVar(&f.memory, "memory", "1GiB", "memory budget: sorted entries beyond it spill to a scratch directory removed at the end (KiB, MiB, GiB, ...)")
	return cmd
}

// configuredMemory is the memory of pipewhy.yaml's defaults, found as scan finds the
// file; empty when there is none.
func configuredMemory() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	path, err := config.Find(wd)
	if err != nil || path == "" {
		return "", err
	}
	file, err := config.Load(path)
	if err != nil {
		return "", err
	}
	return file.Defaults.Memory, nil
}

// spillDir is where compare makes its scratch directory: inside a repository (found
// from the working directory as other commands find it), its store's staging
// directory, the place the user gave the disk for scans' spill, on the repository's
// filesystem; else "" (live: os.TempDir(), $TMPDIR).
func spillDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	r, err := repo.Find(wd, "")
	if err != nil {
		return ""
	}
	dir := filepath.Join(r.Store().Root(), "staging")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

func runCompare(ctx context.Context, s streams, f compareFlags, addrA, addrB string) error {
	p, err := normalize.ParseProfile(f.profile)
	if err != nil {
		return withExit(ExitError, fmt.Errorf("--profile: %w", err))
	}
	o := live.Options{Key: f.key, Exclude: f.exclude, Profile: p, AllowPartial: f.allowPartial, Limit: f.limit}
	if f.memory != "" {
		if o.Memory, err = config.ParseSize(f.memory); err != nil {
			return withExit(ExitError, fmt.Errorf("--memory: %w", err))
		}
		// The budget is also the garbage collector's soft limit, as for scan.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(o.Memory))
	}
	o.SpillDir = spillDir()
	// An interrupt cancels the comparison, so that it removes its scratch directory
	// before the process exits (exit 2, the cancellation's error).
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, m := range f.maps {
		a, b, ok := strings.Cut(m, "=")
		if !ok || a == "" || b == "" {
			return withExit(ExitError, fmt.Errorf("--map %q: want COL_A=COL_B", m))
		}
		o.Map = append(o.Map, live.Mapping{A: a, B: b})
	}
	a, err := compareInput(f, addrA, f.schemaA, f.queryA)
	if err != nil {
		return withExit(ExitError, err)
	}
	b, err := compareInput(f, addrB, f.schemaB, f.queryB)
	if err != nil {
		return withExit(ExitError, err)
	}
	line := newProgress(s.err, "comparing", "A", "B")
	line.report(0, status{phase: "open"})
	line.report(1, status{phase: "open"})
	o.Progress = line.compare()
	c, err := live.Compare(ctx, a, b, o)
	line.stop()
	if err != nil {
		return withExit(ExitError, err)
	}
	rep := c.Report
	if f.asJSON {
		doc := diffJSON(rep)
		types := c.Types
		if types == nil {
			types = []live.TypeDifference{}
		}
		doc["types"] = types
		doc["only_in_a"] = nonNil(c.OnlyA)
		doc["only_in_b"] = nonNil(c.OnlyB)
		doc["keyless"] = c.Keyless
		err = emitJSON(s, doc)
	} else {
		err = printCompare(s.out, c)
	}
	if err != nil {
		return withExit(ExitError, err)
	}
	if !rep.Equal {
		return withExit(ExitDifference, nil)
	}
	return nil
}

// compareInput is one side's address and adapter options: schema (the side's own,
// else --schema), --infer, --null and --missing-as-null apply to the sides whose adapter
// takes them.
func compareInput(f compareFlags, addr, own, query string) (live.Input, error) {
	in := live.Input{Address: addr}
	in.Source.Query = query
	kind := source.Kind("")
	if a, err := source.ParseAddress(addr); err == nil {
		kind = a.Kind
	}
	schema := own
	isJSON := kind == source.KindJSONL || kind == source.KindJSON
	if schema == "" && (kind == source.KindCSV || isJSON) {
		schema = f.schema
	}
	if schema != "" {
		cols, err := source.LoadColumns(schema)
		if err != nil {
			return in, fmt.Errorf("schema: %w", err)
		}
		in.Source.Columns = cols
	}
	in.Source.MissingAsNull = isJSON && f.missingAsNull
	if kind == source.KindCSV {
		in.Source.Infer = f.infer && len(in.Source.Columns) == 0
		if f.nullSet {
			n := f.null
			in.Source.Null = &n
		}
	}
	return in, nil
}

// compareStyle is compare's text: live.KeylessNote, among the report's notes, says
// what a keyless comparison means, so there is no second note; the observations' ids,
// published nowhere (and different for two reads of one file), are left out, and the
// two sides, read at once, get one time.
var compareStyle = reportStyle{duplicates: "distinct records occur more than once (copies matched by count)",
	legend: "(added = only in B, removed = only in A)"}

// printCompare prints the comparison as 'pipewhy diff' prints a diff (A is the old
// side, B the new: "added" are the records only in B, "removed" those only in A; a
// side that was not read completely is a warning first).
func printCompare(w io.Writer, c *live.Comparison) error {
	r := c.Report
	if err := printReport(w, r, compareStyle); err != nil {
		return err
	}
	for i, t := range c.Types {
		label := "types"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "  %-9s %s: %s | %s (both C3 %s: compared by value)\n", label, t.Name, t.A, t.B, t.Type)
	}
	return nil
}
