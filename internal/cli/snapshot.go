package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/spf13/cobra"
)

func newSnapshotCommand(s streams) *cobra.Command {
	var repoDir, store string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "List, check and clean up the stored snapshots (the repository's store)",
		Long: `Snapshot works on the snapshot store, where every scan is kept as an immutable,
checksummed package. It finds the repository like every other command (--repo, or
.pipewhy here or in a parent); --store names a store directory instead, a
repository's or not.

  pipewhy snapshot list                 published snapshots, each verified
  pipewhy snapshot show ID              how one snapshot is stored: metadata, array files, checksums
  pipewhy snapshot verify [ID...]       check every stored byte (all snapshots when no ID)
  pipewhy snapshot inspect              unpublished attempts interrupted scans or removals left behind
  pipewhy snapshot gc-staging           remove those attempts (--dry-run first to see them)
  pipewhy snapshot prune --keep-last N  remove old scans by a retention rule (--dry-run first)

'pipewhy show ID' shows what a scan observed (source, coverage, schema); 'pipewhy
snapshot show ID' shows how it is stored. IDs may be abbreviated to a unique prefix
of at least 4 hex digits. --json writes one JSON document; counts and times in it
are decimal strings, as in the stored manifest (docs/scan-format.md, contract C5).

Exit status: 0 success; 1 a snapshot failed a check (a corrupt package makes list
fail too, naming the file); 2 an unknown ID, a directory that is not a store, or any
other error.`,
	}
	cmd.PersistentFlags().StringVar(&repoDir, "repo", "", repoHelp)
	cmd.PersistentFlags().StringVar(&store, "store", "", "a snapshot store directory, instead of the repository's")
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "write JSON instead of text")

	// open returns the store, and the repository when the store is a repository's.
	open := func(c *cobra.Command) (*snapshot.Store, *repo.Repo, error) {
		if store != "" {
			if repoDir != "" {
				return nil, nil, &usageError{path: c.CommandPath(), err: errors.New("give --repo or --store, not both")}
			}
			st, err := snapshot.Open(store, snapshot.Options{})
			if err != nil {
				return nil, nil, withExit(ExitError, err)
			}
			return st, nil, nil
		}
		r, err := openRepo(repoDir)
		if err != nil {
			return nil, nil, err
		}
		return r.Store(), r, nil
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List published snapshots, verifying each",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, _, err := open(c)
			if err != nil {
				return err
			}
			mds, err := st.List()
			if err != nil {
				return storeError(err)
			}
			if asJSON {
				rows := make([]jsonListRow, 0, len(mds))
				for _, md := range mds {
					rows = append(rows, jsonListRow{ID: md.ID.String(), Namespace: md.SourceNamespace, Scope: md.Scope,
						FinishedAtNs: dec(md.FinishedAtNs), FinishedAt: nsTime(md.FinishedAtNs),
						Resolution: string(md.Resolution), Coverage: string(md.Coverage.Status)})
				}
				return emitJSON(s, map[string]any{"snapshots": rows})
			}
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAMESPACE\tSCOPE\tFINISHED\tRESOLUTION\tCOVERAGE")
			for _, md := range mds {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", md.ID, text(md.SourceNamespace), text(md.Scope),
					nsTime(md.FinishedAtNs), md.Resolution, md.Coverage.Status)
			}
			return tw.Flush()
		},
	}

	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show how one snapshot is stored: metadata, array files and checksums, verified",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			st, _, err := open(c)
			if err != nil {
				return err
			}
			id, err := repo.ResolveID(st, args[0])
			if err != nil {
				return withExit(ExitError, err)
			}
			md, inv, err := st.Stat(id)
			if err != nil {
				return storeError(err)
			}
			if asJSON {
				return emitJSON(s, map[string]any{"metadata": jsonMetadata(md), "arrays": jsonArrays(inv)})
			}
			return writeShow(s.out, md, inv)
		},
	}

	verify := &cobra.Command{
		Use:   "verify [ID...]",
		Short: "Verify snapshots (all published ones when no ID is given); report unpublished attempts",
		RunE: func(c *cobra.Command, args []string) error {
			st, _, err := open(c)
			if err != nil {
				return err
			}
			ids := make([]snapshot.ID, 0, len(args))
			for _, a := range args {
				id, err := repo.ResolveID(st, a)
				if err != nil {
					return withExit(ExitError, err)
				}
				ids = append(ids, id)
			}
			type result struct {
				ID    string `json:"id"`
				OK    bool   `json:"ok"`
				Error string `json:"error,omitempty"`
			}
			results := []result{}
			code := ExitOK
			if len(ids) == 0 {
				mds, err := st.List()
				if err != nil {
					return storeError(err)
				}
				for _, md := range mds {
					results = append(results, result{ID: md.ID.String(), OK: true})
				}
			}
			for _, id := range ids {
				r := result{ID: id.String(), OK: true}
				if err := st.Verify(id); err != nil {
					r.OK, r.Error = false, render(err)
					code = max(code, exitCodeOf(err))
				}
				results = append(results, r)
			}
			attempts, err := stagedAttempts(st)
			if err != nil {
				return storeError(err)
			}
			if asJSON {
				if err := emitJSON(s, map[string]any{"results": results, "staging": attempts}); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					if r.OK {
						fmt.Fprintf(s.out, "ok    %s\n", r.ID)
					} else {
						fmt.Fprintf(s.out, "FAIL  %s: %s\n", r.ID, r.Error)
					}
				}
				for _, a := range attempts {
					fmt.Fprintf(s.out, "staged  %-11s %s  %s  %s\n", a.Phase, a.idText(), a.Path, bytesText(a.Bytes))
				}
			}
			stagingNote(s.err, st)
			if code != ExitOK {
				return withExit(code, nil)
			}
			return nil
		},
	}

	inspect := &cobra.Command{
		Use:   "inspect",
		Short: "Report unpublished attempts left in staging, with their phase (read-only)",
		Long: `Inspect reports every attempt in the store's staging directory: what a scan that was
interrupted, killed or failed while writing its snapshot left behind, or a removal
(prune, gc-staging) that was interrupted. Each has a phase:
STAGING (being written, or interrupted: no completion marker), VALIDATED (a complete
package that passes every check but was never published), INVALID or UNAVAILABLE, and a
diagnostic. Inspect changes nothing; 'pipewhy snapshot gc-staging' removes attempts.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, _, err := open(c)
			if err != nil {
				return err
			}
			attempts, err := stagedAttempts(st)
			if err != nil {
				return storeError(err)
			}
			if asJSON {
				return emitJSON(s, map[string]any{"attempts": attempts})
			}
			for _, a := range attempts {
				fmt.Fprintf(s.out, "%-11s %s  %s  %s\n  %s\n", a.Phase, a.idText(), a.Path, bytesText(a.Bytes), a.Diagnostic)
			}
			return nil
		},
	}
	cmd.AddCommand(list, show, verify, inspect, newGCStagingCommand(s, open, &asJSON), newPruneCommand(s, open, &asJSON))
	return cmd
}

// stagedAttempt is one attempt as inspect, verify and their --json report it: the
// store's inspection (phase, diagnostic) and the attempt's size on disk.
type stagedAttempt struct {
	Path       string  `json:"path"`
	ID         *string `json:"id"`
	Phase      string  `json:"phase"`
	Diagnostic string  `json:"diagnostic"`
	Bytes      uint64  `json:"bytes"`
}

func (a stagedAttempt) idText() string {
	if a.ID == nil {
		return "-"
	}
	return *a.ID
}

// stagedAttempts inspects st's staging directory (snapshot.Store.InspectIncomplete)
// and sizes each attempt (snapshot.Store.Staging).
func stagedAttempts(st *snapshot.Store) ([]stagedAttempt, error) {
	atts, err := st.InspectIncomplete()
	if err != nil {
		return nil, err
	}
	entries, err := st.Staging()
	if err != nil {
		return nil, err
	}
	size := map[string]uint64{}
	for _, e := range entries {
		size[e.Path] = e.Bytes
	}
	out := make([]stagedAttempt, 0, len(atts))
	for _, a := range atts {
		sa := stagedAttempt{Path: a.Path, Phase: string(a.Phase), Diagnostic: a.Diagnostic, Bytes: size[a.Path]}
		if a.ID != nil {
			id := a.ID.String()
			sa.ID = &id
		}
		out = append(out, sa)
	}
	return out, nil
}

// exitCodeOf maps a store error to an exit code: integrity failures and rejected
// fingerprint contexts are failed checks (1); everything else is an error (2).
func exitCodeOf(err error) int {
	var ie *snapshot.StorageIntegrityError
	var e *snapshot.Error
	if errors.As(err, &ie) || errors.As(err, &e) && e.Code == snapshot.CodeContext {
		return ExitDifference
	}
	return ExitError
}

func storeError(err error) error { return withExit(exitCodeOf(err), err) }

type jsonListRow struct {
	ID           string `json:"id"`
	Namespace    string `json:"namespace"`
	Scope        string `json:"scope"`
	FinishedAtNs string `json:"finished_at_ns"`
	FinishedAt   string `json:"finished_at"`
	Resolution   string `json:"resolution"`
	Coverage     string `json:"coverage"`
}

func jsonMetadata(md snapshot.Metadata) map[string]any {
	var parent, expected any
	if md.Parent != nil {
		parent = md.Parent.String()
	}
	if md.Coverage.Expected.Known {
		expected = dec(md.Coverage.Expected.N)
	}
	reasons := md.Coverage.FailureReasons
	if reasons == nil {
		reasons = []string{}
	}
	fp := md.Fingerprint
	return map[string]any{
		"snapshot_id":        md.ID.String(),
		"parent_id":          parent,
		"source_namespace":   md.SourceNamespace,
		"source_version":     md.SourceVersion,
		"source_consistency": md.SourceConsistency,
		"scope":              md.Scope,
		"started_at_ns":      dec(md.StartedAtNs),
		"finished_at_ns":     dec(md.FinishedAtNs),
		"resolution":         string(md.Resolution),
		"coverage": map[string]any{
			"status":           string(md.Coverage.Status),
			"expected_records": expected,
			"returned_records": dec(md.Coverage.Returned),
			"failure_reasons":  reasons,
		},
		"fingerprint_context": map[string]any{
			"algorithm_name":   fp.AlgorithmName,
			"algorithm_id":     fp.AlgorithmID,
			"context_id":       fp.ContextID,
			"profile_id":       fp.ProfileID,
			"source_schema_id": fp.SourceSchemaID,
			"mode":             fp.Mode,
		},
	}
}

func jsonArrays(inv []snapshot.ArrayInfo) []map[string]any {
	out := make([]map[string]any, 0, len(inv))
	for _, a := range inv {
		row := map[string]any{"key": a.Key, "file": a.File, "dtype": a.DType.String(),
			"count": dec(a.Count), "byte_length": dec(a.ByteLength), "sha256": a.SHA256}
		if a.Encoding != "" { // the fields of a C5-compressed manifest entry, as stored
			row["encoding"], row["stored_length"], row["stored_sha256"] = a.Encoding, dec(a.StoredLength), a.StoredSHA256
		}
		out = append(out, row)
	}
	return out
}

func writeShow(w io.Writer, md snapshot.Metadata, inv []snapshot.ArrayInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	parent := "-"
	if md.Parent != nil {
		parent = md.Parent.String()
	}
	expected := "unknown"
	if md.Coverage.Expected.Known {
		expected = dec(md.Coverage.Expected.N)
	}
	fp := md.Fingerprint
	fmt.Fprintf(tw, "snapshot\t%s\n", md.ID)
	fmt.Fprintf(tw, "parent\t%s\n", parent)
	fmt.Fprintf(tw, "namespace\t%s\n", text(md.SourceNamespace))
	fmt.Fprintf(tw, "version\t%s\n", text(md.SourceVersion))
	fmt.Fprintf(tw, "consistency\t%s\n", text(md.SourceConsistency))
	fmt.Fprintf(tw, "scope\t%s\n", text(md.Scope))
	fmt.Fprintf(tw, "started\t%s (%s ns)\n", nsTime(md.StartedAtNs), dec(md.StartedAtNs))
	fmt.Fprintf(tw, "finished\t%s (%s ns)\n", nsTime(md.FinishedAtNs), dec(md.FinishedAtNs))
	fmt.Fprintf(tw, "resolution\t%s\n", md.Resolution)
	fmt.Fprintf(tw, "coverage\t%s, expected %s, returned %s\n", md.Coverage.Status, expected, dec(md.Coverage.Returned))
	for _, r := range md.Coverage.FailureReasons {
		fmt.Fprintf(tw, "failure\t%s\n", text(r))
	}
	fmt.Fprintf(tw, "algorithm\t%s (%s)\n", text(fp.AlgorithmName), text(fp.AlgorithmID))
	fmt.Fprintf(tw, "context\t%s\n", text(fp.ContextID))
	fmt.Fprintf(tw, "profile\t%s\n", text(fp.ProfileID))
	fmt.Fprintf(tw, "schema\t%s\n", text(fp.SourceSchemaID))
	fmt.Fprintf(tw, "mode\t%s\n", text(fp.Mode))
	compressed := slices.ContainsFunc(inv, func(a snapshot.ArrayInfo) bool { return a.Encoding != "" })
	var logical, stored uint64
	for _, a := range inv {
		logical, stored = logical+a.ByteLength, stored+a.StoredLength
	}
	if compressed {
		fmt.Fprintf(tw, "layout\tC5-compressed version %d (docs/contracts/C5-compressed.md)\n", snapshot.FormatVersion2)
		fmt.Fprintf(tw, "size\t%s bytes of arrays, %s stored\n", dec(logical), dec(stored))
	} else {
		fmt.Fprintf(tw, "layout\tC5 version %d\n", snapshot.FormatVersion)
		fmt.Fprintf(tw, "size\t%s bytes of arrays\n", dec(logical))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\narrays (%d)\n", len(inv))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if compressed {
		// BYTES and SHA256 are the logical array's; STORED is its file's size.
		fmt.Fprintln(tw, "  KEY\tDTYPE\tCOUNT\tBYTES\tENCODING\tSTORED\tSHA256")
		for _, a := range inv {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Key, a.DType, dec(a.Count), dec(a.ByteLength), a.Encoding, dec(a.StoredLength), a.SHA256)
		}
		return tw.Flush()
	}
	fmt.Fprintln(tw, "  KEY\tDTYPE\tCOUNT\tBYTES\tSHA256")
	for _, a := range inv {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", a.Key, a.DType, dec(a.Count), dec(a.ByteLength), a.SHA256)
	}
	return tw.Flush()
}

func dec(n uint64) string { return strconv.FormatUint(n, 10) }

// nsTime formats Unix epoch nanoseconds as UTC RFC 3339 (the whole uint64 range fits).
func nsTime(ns uint64) string {
	return time.Unix(int64(ns/1e9), int64(ns%1e9)).UTC().Format(time.RFC3339Nano)
}

// text quotes s when it holds characters that would garble a terminal line.
func text(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
