package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/spf13/cobra"
)

func newSnapshotCommand(s streams) *cobra.Command {
	var store string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "List, show, verify and inspect the snapshots of a local store (C5)",
		Long: `Snapshot reads a local C5 snapshot store without changing it:

  pipewhy snapshot list    --store DIR          published snapshots (all are verified)
  pipewhy snapshot show    --store DIR ID       metadata and array inventory of one snapshot
  pipewhy snapshot verify  --store DIR [ID...]  check marker, manifest, inventory and checksums
  pipewhy snapshot inspect --store DIR          staged attempts that were never published

--json writes one JSON document instead of text; uint64 values (times, counts) are
decimal strings, as in the manifest.

Exit status: 0 success; 1 a snapshot failed an integrity check (a corrupt package
makes list fail too, naming the file); 2 a bad store, an unknown ID or any other error.`,
	}
	cmd.PersistentFlags().StringVar(&store, "store", "", "snapshot store root directory (required)")
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "write JSON instead of text")
	cmd.MarkPersistentFlagRequired("store")

	open := func() (*snapshot.Store, error) {
		st, err := snapshot.Open(store, snapshot.Options{})
		if err != nil {
			return nil, withExit(ExitError, err)
		}
		return st, nil
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List published snapshots, verifying each",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			st, err := open()
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
				return writeJSON(s.out, map[string]any{"snapshots": rows})
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
		Short: "Show one snapshot's metadata and array inventory, verifying it",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			id, err := snapshot.ParseID(args[0])
			if err != nil {
				return withExit(ExitError, fmt.Errorf("snapshot ID must be 32 lowercase hexadecimal characters"))
			}
			st, err := open()
			if err != nil {
				return err
			}
			md, inv, err := st.Stat(id)
			if err != nil {
				return storeError(err)
			}
			if asJSON {
				return writeJSON(s.out, map[string]any{"metadata": jsonMetadata(md), "arrays": jsonArrays(inv)})
			}
			return writeShow(s.out, md, inv)
		},
	}

	verify := &cobra.Command{
		Use:   "verify [ID...]",
		Short: "Verify snapshots (all published ones when no ID is given)",
		RunE: func(_ *cobra.Command, args []string) error {
			ids := make([]snapshot.ID, 0, len(args))
			for _, a := range args {
				id, err := snapshot.ParseID(a)
				if err != nil {
					return withExit(ExitError, fmt.Errorf("snapshot ID %q must be 32 lowercase hexadecimal characters", a))
				}
				ids = append(ids, id)
			}
			st, err := open()
			if err != nil {
				return err
			}
			type result struct {
				ID    string `json:"id"`
				OK    bool   `json:"ok"`
				Error string `json:"error,omitempty"`
			}
			var results []result
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
					r.OK, r.Error = false, err.Error()
					code = max(code, exitCodeOf(err))
				}
				results = append(results, r)
			}
			if asJSON {
				if results == nil {
					results = []result{}
				}
				if err := writeJSON(s.out, map[string]any{"results": results}); err != nil {
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
			}
			if code != ExitOK {
				return withExit(code, nil)
			}
			return nil
		},
	}

	inspect := &cobra.Command{
		Use:   "inspect",
		Short: "Report staged attempts that were never published (read-only)",
		Long: `Inspect reports every attempt in the store's staging directory with its phase:
STAGING (intent written, no completion marker), VALIDATED (a complete package that
passes every check but was not published), INVALID or UNAVAILABLE, and a diagnostic.
It changes nothing: cleanup needs an explicit policy, which PipeWhy does not have yet.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			st, err := open()
			if err != nil {
				return err
			}
			attempts, err := st.InspectIncomplete()
			if err != nil {
				return storeError(err)
			}
			if asJSON {
				type row struct {
					Path       string  `json:"path"`
					ID         *string `json:"id"`
					Phase      string  `json:"phase"`
					Diagnostic string  `json:"diagnostic"`
				}
				rows := make([]row, 0, len(attempts))
				for _, a := range attempts {
					r := row{Path: a.Path, Phase: string(a.Phase), Diagnostic: a.Diagnostic}
					if a.ID != nil {
						id := a.ID.String()
						r.ID = &id
					}
					rows = append(rows, r)
				}
				return writeJSON(s.out, map[string]any{"attempts": rows})
			}
			for _, a := range attempts {
				id := "-"
				if a.ID != nil {
					id = a.ID.String()
				}
				fmt.Fprintf(s.out, "%-11s %s  %s\n  %s\n", a.Phase, id, a.Path, a.Diagnostic)
			}
			return nil
		},
	}
	cmd.AddCommand(list, show, verify, inspect)
	return cmd
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
		out = append(out, map[string]any{"key": a.Key, "file": a.File, "dtype": a.DType.String(),
			"count": dec(a.Count), "byte_length": dec(a.ByteLength), "sha256": a.SHA256})
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
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\narrays (%d)\n", len(inv))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  KEY\tDTYPE\tCOUNT\tBYTES\tSHA256")
	for _, a := range inv {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", a.Key, a.DType, dec(a.Count), dec(a.ByteLength), a.SHA256)
	}
	return tw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
