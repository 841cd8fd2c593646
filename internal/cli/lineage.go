package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/spf13/cobra"
)

// projectFile loads pipewhy.yaml: the explicit path, else the nearest one from the
// working directory; nil when there is none.
func projectFile(explicit string) (*config.File, error) {
	path := explicit
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if path, err = config.Find(wd); err != nil || path == "" {
			return nil, err
		}
	}
	return config.Load(path)
}

// syncProjectLineage records the lineage section of the project file (when there is
// one) in r's lineage store, a new version when it changed. Every command that reads or
// depends on the lineage calls it first, so the lineage in force is always the file's.
func syncProjectLineage(ctx context.Context, r *repo.Repo, explicit string) (*config.File, error) {
	f, err := projectFile(explicit)
	if err != nil {
		return nil, withExit(ExitError, err)
	}
	if f == nil {
		return nil, nil
	}
	if _, _, err := lineage.Open(r).SyncConfig(ctx, f); err != nil {
		return nil, withExit(ExitError, err)
	}
	return f, nil
}

type lineageFlags struct {
	repo, config string
	asJSON       bool
}

func (f *lineageFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.repo, "repo", "", "repository directory (default: .pipewhy here or in a parent)")
	cmd.Flags().StringVar(&f.config, "config", "", "project file (default: pipewhy.yaml here or in a parent)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "write JSON instead of text")
}

// open opens the repository and records the project file's lineage.
func (f *lineageFlags) open(ctx context.Context) (*repo.Repo, *config.File, error) {
	r, err := openRepo(f.repo)
	if err != nil {
		return nil, nil, err
	}
	file, err := syncProjectLineage(ctx, r, f.config)
	return r, file, err
}

func ctxOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

func newLineageCommand(s streams) *cobra.Command {
	var f lineageFlags
	cmd := &cobra.Command{
		Use:   "lineage [ARTIFACT]",
		Short: "Show, declare and import the lineage between artifacts",
		Long: `Lineage shows the lineage in force: every edge, or the edges upstream and downstream of
ARTIFACT. Artifact names are the names scans use (--name, or the source's name).

Lineage is declared in pipewhy.yaml (lineage:), with 'pipewhy lineage add', or imported
from OpenLineage run events and dbt manifests ('pipewhy lineage import'). Every change is
a new immutable version in the repository, so an explanation of an old change uses the
lineage as it was then; 'pipewhy lineage versions' lists them. Relations: copy (the
target holds the source's records unchanged: pipewhy why verifies it from the stored
fingerprints), transform (computed by a transform: a file, hashed whenever the target is
scanned, or a version id) and derived (depends on it, transform optional).

Exit status: 0 shown; 2 error (unknown artifact, a malformed or conflicting declaration).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOf(cmd)
			r, file, err := f.open(ctx)
			if err != nil {
				return err
			}
			v, g, ok, err := lineage.Open(r).Head()
			if err != nil {
				return withExit(ExitError, err)
			}
			known, err := lineage.Known(r, file)
			if err != nil {
				return withExit(ExitError, err)
			}
			artifact := ""
			if len(args) == 1 {
				artifact = args[0]
				if !known[artifact] && !slices.Contains(g.Artifacts(), artifact) {
					return withExit(ExitError, fmt.Errorf("%s is not an artifact: never scanned, not in pipewhy.yaml and not in the lineage", artifact))
				}
			}
			return printLineage(s, f.asJSON, v, ok, g, artifact, known)
		},
	}
	f.register(cmd)
	cmd.AddCommand(newLineageAddCommand(s), newLineageRemoveCommand(s), newLineageImportCommand(s), newLineageVersionsCommand(s))
	return cmd
}

type edgeJSON struct {
	Source    string           `json:"source"`
	Target    string           `json:"target"`
	Relation  string           `json:"relation"`
	Transform *transformJSON   `json:"transform"`
	Columns   []columnEdgeJSON `json:"columns"`
	Origins   []originJSON     `json:"origins"`
}

type transformJSON struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
}

type columnEdgeJSON struct {
	Target string `json:"target"`
	Source string `json:"source"`
}

type originJSON struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
}

func edgesJSON(es []lineage.Edge) []edgeJSON {
	out := []edgeJSON{}
	for _, e := range es {
		j := edgeJSON{Source: e.Source, Target: e.Target, Relation: e.Relation.String(), Columns: []columnEdgeJSON{}, Origins: []originJSON{}}
		if !e.Transform.IsZero() {
			j.Transform = &transformJSON{Kind: string(e.Transform.Kind), Ref: e.Transform.Ref}
		}
		for _, c := range e.Columns {
			j.Columns = append(j.Columns, columnEdgeJSON{Target: c.Target, Source: c.Source})
		}
		for _, o := range e.Origins {
			j.Origins = append(j.Origins, originJSON{Kind: o.Kind, Ref: o.Ref})
		}
		out = append(out, j)
	}
	return out
}

func printLineage(s streams, asJSON bool, v lineage.Version, ok bool, g *lineage.Graph, artifact string, known map[string]bool) error {
	var unknown []string
	for _, a := range g.Artifacts() {
		if !known[a] {
			unknown = append(unknown, a)
		}
	}
	if asJSON {
		doc := map[string]any{"version": nil, "seq": 0, "recorded_at_ns": "0", "unknown": nonNil(unknown)}
		if ok {
			doc["version"], doc["seq"], doc["recorded_at_ns"] = v.ID.String(), v.Seq, fmt.Sprint(v.FinishedAtNs)
		}
		if artifact == "" {
			doc["edges"] = edgesJSON(g.Edges())
		} else {
			doc["artifact"] = artifact
			doc["upstream"] = edgesJSON(g.Upstream(artifact))
			doc["downstream"] = edgesJSON(g.Downstream(artifact))
		}
		return emitJSON(s, doc)
	}
	if !ok {
		fmt.Fprintln(s.out, "no lineage recorded: declare it in pipewhy.yaml (lineage:), with 'pipewhy lineage add', or import it")
		return nil
	}
	fmt.Fprintf(s.out, "lineage version %d  %s  %d edges\n", v.Seq, human.Time(v.FinishedAtNs), len(g.Edges()))
	if artifact == "" {
		writeEdges(s.out, g.Edges(), known)
	} else {
		fmt.Fprintf(s.out, "upstream of %s\n", artifact)
		writeEdges(s.out, g.Upstream(artifact), known)
		fmt.Fprintf(s.out, "downstream of %s\n", artifact)
		writeEdges(s.out, g.Downstream(artifact), known)
	}
	if len(unknown) > 0 {
		fmt.Fprintf(s.out, "never scanned and not in pipewhy.yaml: %s\n", strings.Join(unknown, ", "))
	}
	return nil
}

func writeEdges(w io.Writer, es []lineage.Edge, known map[string]bool) {
	if len(es) == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	for _, e := range es {
		rel := e.Relation.String()
		if !e.Transform.IsZero() {
			rel += " " + e.Transform.String()
		}
		var origins []string
		for _, o := range e.Origins {
			origins = append(origins, o.String())
		}
		fmt.Fprintf(w, "  %s ─%s─► %s   [%s]\n", e.Source, rel, e.Target, strings.Join(origins, "; "))
		if len(e.Columns) > 0 {
			var cs []string
			for _, c := range e.Columns {
				cs = append(cs, c.Target+" ← "+c.Source)
			}
			fmt.Fprintf(w, "      columns: %s\n", strings.Join(cs, ", "))
		}
	}
}

func newLineageAddCommand(s streams) *cobra.Command {
	var f lineageFlags
	var relation, transform string
	var columns []string
	cmd := &cobra.Command{
		Use:   "add FROM... TO",
		Short: "Declare that TO is computed from the FROM artifacts",
		Long: `Add declares lineage edges FROM → TO for each FROM, recorded as a new lineage version.

  --relation copy       TO holds FROM's records unchanged (one FROM; no transform)
  --relation transform  TO is computed from the FROMs by --transform (required)
  --relation derived    TO depends on the FROMs (--transform optional)
  --transform FILE|ID   a file (its SHA-256, taken whenever TO is scanned, is the
                        transform's identity; a path relative to the working directory)
                        or a literal version id (v3, a git sha); file:PATH and id:VALUE
                        force either reading. A name with '/' or a code extension (.sql,
                        .py, ...) that is not a file is an error, never a literal.
  --column T=S1,S2      column lineage: column T of TO is computed from columns S1, S2
                        (S or FROM.S); repeatable

Every artifact must have been scanned or be a source in pipewhy.yaml. An edge that
another declaration (pipewhy.yaml, an import) already declares differently is refused.

Exit status: 0 recorded (or already declared); 2 error (nothing recorded).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOf(cmd)
			r, file, err := f.open(ctx)
			if err != nil {
				return err
			}
			cols := map[string][]string{}
			for _, c := range columns {
				t, srcs, ok := strings.Cut(c, "=")
				if !ok || t == "" || srcs == "" {
					return withExit(ExitError, fmt.Errorf("--column %q: want TARGET=SOURCE[,SOURCE...]", c))
				}
				cols[t] = append(cols[t], strings.Split(srcs, ",")...)
			}
			wd, err := os.Getwd()
			if err != nil {
				return withExit(ExitError, err)
			}
			st := lineage.Open(r)
			decls, err := lineage.Group{From: args[:len(args)-1], To: args[len(args)-1], Relation: relation, Transform: transform,
				Columns: cols, Base: wd}.Declarations(st.Project(), lineage.Origin{Kind: lineage.OriginCLI})
			if err != nil {
				return withExit(ExitError, err)
			}
			known, err := lineage.Known(r, file)
			if err != nil {
				return withExit(ExitError, err)
			}
			v, changed, err := st.Declare(ctx, decls, known)
			if err != nil {
				return withExit(ExitError, err)
			}
			return reportVersion(s, f.asJSON, v, changed, len(decls), "declared")
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&relation, "relation", "", "copy, transform or derived (required)")
	cmd.Flags().StringVar(&transform, "transform", "", "the transform: a file or a version id")
	cmd.Flags().StringArrayVar(&columns, "column", nil, "column lineage TARGET=SOURCE[,SOURCE...] (repeatable)")
	if err := cmd.MarkFlagRequired("relation"); err != nil {
		panic(err) // the flag is defined just above
	}
	return cmd
}

func reportVersion(s streams, asJSON bool, v lineage.Version, changed bool, n int, verb string) error {
	if asJSON {
		return emitJSON(s, map[string]any{"version": v.ID.String(), "seq": v.Seq, "changed": changed, "declarations": n})
	}
	if !changed {
		fmt.Fprintf(s.out, "lineage unchanged (version %d): already %s\n", v.Seq, verb)
		return nil
	}
	fmt.Fprintf(s.out, "lineage version %d: %d edge%s %s\n", v.Seq, n, map[bool]string{true: "", false: "s"}[n == 1], verb)
	return nil
}

func newLineageRemoveCommand(s streams) *cobra.Command {
	var f lineageFlags
	cmd := &cobra.Command{
		Use:   "remove FROM TO",
		Short: "Remove the edge FROM → TO declared with lineage add or an import",
		Long: `Remove removes the declarations of FROM → TO made with 'pipewhy lineage add' or an
import, as a new lineage version (the old versions keep it). An edge declared in
pipewhy.yaml is removed by editing the file.

Exit status: 0 removed; 2 error (not declared, or declared in pipewhy.yaml).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOf(cmd)
			r, _, err := f.open(ctx)
			if err != nil {
				return err
			}
			v, changed, err := lineage.Open(r).Remove(ctx, args[0], args[1])
			if err != nil {
				return withExit(ExitError, err)
			}
			return reportVersion(s, f.asJSON, v, changed, 1, "removed")
		},
	}
	f.register(cmd)
	return cmd
}

func newLineageVersionsCommand(s streams) *cobra.Command {
	var f lineageFlags
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List the recorded lineage versions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, _, err := f.open(ctxOf(cmd))
			if err != nil {
				return err
			}
			vs, err := lineage.Open(r).Versions()
			if err != nil {
				return withExit(ExitError, err)
			}
			if f.asJSON {
				out := []map[string]any{}
				for _, v := range vs {
					out = append(out, map[string]any{"version": v.ID.String(), "seq": v.Seq, "recorded_at_ns": fmt.Sprint(v.FinishedAtNs), "edges": v.Edges})
				}
				return emitJSON(s, out)
			}
			for _, v := range vs {
				fmt.Fprintf(s.out, "%3d  %s  %s  %d edge rows\n", v.Seq, v.ID, human.Time(v.FinishedAtNs), v.Edges)
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

func newLineageImportCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import lineage from OpenLineage run events or a dbt manifest",
		Long: `Import reads lineage written by other tools. External dataset names map to artifacts
only as pipewhy.yaml's lineage_names or --map EXTERNAL=ARTIFACT say (the flag wins),
never by guessing: a name without a mapping stops the import (exit 2, the names
listed), unless --skip-unmapped, which imports the edges between mapped datasets and
lists the rest.`,
	}
	cmd.AddCommand(newImportCommand(s, "openlineage FILE...", "OpenLineage run events (JSON, JSON array or NDJSON)", cobra.MinimumNArgs(1)),
		newImportCommand(s, "dbt MANIFEST", "a dbt manifest.json", cobra.ExactArgs(1)))
	return cmd
}

func newImportCommand(s streams, use, what string, args cobra.PositionalArgs) *cobra.Command {
	var f lineageFlags
	var maps []string
	var skip bool
	kind := strings.Fields(use)[0]
	long := map[string]string{
		"openlineage": `Import the lineage of OpenLineage run events: each run's inputs → outputs (a run's
events merge; runs that ended FAIL or ABORT are skipped). An output whose
columnLineage facet maps every column IDENTITY from its one input is a copy;
otherwise a transform whose identity is the SHA-256 of the job's sql facet (else its
sourceCode facet, else its sourceCodeLocation, else the job name). Column lineage
becomes column edges. A dataset is named NAMESPACE#NAME for mapping, for example
postgres://db:5432#shop.public.orders. A later run of a job replaces what its earlier
runs declared.`,
		"dbt": `Import the lineage of a dbt manifest.json: every model and snapshot is a transform of
the models, seeds, snapshots and sources it depends on (depends_on.nodes), its
checksum the transform's identity; tests are not datasets; ephemeral models are looked
through. Nodes are named by unique id for mapping (model.jaffle_shop.orders). The
import replaces everything the previous dbt import declared.`,
	}[kind]
	cmd := &cobra.Command{
		Use:   use,
		Short: "Import " + what,
		Long:  long + "\n\nExit status: 0 imported; 2 error (malformed file, unmapped names, a conflict: nothing recorded).",
		Args:  args,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOf(cmd)
			r, file, err := f.open(ctx)
			if err != nil {
				return err
			}
			names := map[string]string{}
			if file != nil {
				names = file.LineageNames()
			}
			for _, m := range maps {
				// The last '=': external names (URLs) may hold one, artifact names rarely.
				i := strings.LastIndexByte(m, '=')
				ext, art := m[:max(i, 0)], m[i+1:]
				if i <= 0 || art == "" {
					return withExit(ExitError, fmt.Errorf("--map %q: want EXTERNAL=ARTIFACT", m))
				}
				names[ext] = art
			}
			var imp *lineage.Imported
			for _, path := range args {
				data, err := readLimited(path)
				if err != nil {
					return withExit(ExitError, err)
				}
				var one *lineage.Imported
				if kind == "dbt" {
					m, err := lineage.ParseDBT(data)
					if err != nil {
						return withExit(ExitError, fmt.Errorf("%s: %w", path, err))
					}
					one = lineage.ImportDBT(m, names)
				} else {
					ev, err := lineage.ParseOpenLineage(data)
					if err != nil {
						return withExit(ExitError, fmt.Errorf("%s: %w", path, err))
					}
					one = lineage.ImportOpenLineage(ev, names)
				}
				if imp == nil {
					imp = one
				} else {
					imp.Declarations = append(imp.Declarations, one.Declarations...)
					imp.Unmapped = append(imp.Unmapped, one.Unmapped...)
					imp.Skipped = append(imp.Skipped, one.Skipped...)
					imp.Events += one.Events
				}
			}
			slices.Sort(imp.Unmapped)
			imp.Unmapped = slices.Compact(imp.Unmapped)
			if err := lineage.CheckMapped(imp, skip); err != nil {
				return withExit(ExitError, err)
			}
			known, err := lineage.Known(r, file)
			if err != nil {
				return withExit(ExitError, err)
			}
			st := lineage.Open(r)
			var v lineage.Version
			var changed bool
			if kind == "dbt" {
				v, changed, err = st.ReplaceOrigin(ctx, lineage.OriginDBT, imp.Declarations, known)
			} else {
				v, changed, err = st.Declare(ctx, imp.Declarations, known)
			}
			if err != nil {
				return withExit(ExitError, err)
			}
			if f.asJSON {
				return emitJSON(s, map[string]any{"version": v.ID.String(), "seq": v.Seq, "changed": changed,
					"declarations": len(imp.Declarations), "read": imp.Events, "unmapped": nonNil(imp.Unmapped), "skipped": nonNil(imp.Skipped)})
			}
			unit := map[string]string{"dbt": "nodes", "openlineage": "events"}[kind]
			if changed {
				fmt.Fprintf(s.out, "lineage version %d: %d edges imported from %d %s\n", v.Seq, len(imp.Declarations), imp.Events, unit)
			} else {
				fmt.Fprintf(s.out, "lineage unchanged (version %d): the %d edges of %d %s are already recorded\n", v.Seq, len(imp.Declarations), imp.Events, unit)
			}
			for _, u := range imp.Unmapped {
				fmt.Fprintf(s.out, "  unmapped, left out: %s\n", u)
			}
			for _, k := range imp.Skipped {
				fmt.Fprintf(s.out, "  skipped: %s\n", k)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringArrayVar(&maps, "map", nil, "EXTERNAL=ARTIFACT: the artifact an external dataset name is (repeatable)")
	cmd.Flags().BoolVar(&skip, "skip-unmapped", false, "import the edges between mapped datasets and list the unmapped ones")
	return cmd
}

// readLimited reads a file of at most lineage.MaxImportBytes.
func readLimited(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, lineage.MaxImportBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > lineage.MaxImportBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, lineage.MaxImportBytes)
	}
	return data, nil
}
