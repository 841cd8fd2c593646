package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/pipewhy/pipewhy/canonical"
	"github.com/pipewhy/pipewhy/canonical/arrowio"
	"github.com/pipewhy/pipewhy/canonical/vectors"
)

func newCanonicalCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "canonical",
		Short: "graphforge-canonical/1: canonical bytes and SHA-256 fingerprints of Arrow tables",
		Long: `The graphforge-canonical/1 contract as a tool: canonical schema and table bytes
over Apache Arrow, their domain-separated SHA-256 fingerprints and UUIDv8 ids, and a
checker for golden-vector files.`,
	}
	cmd.AddCommand(newCanonicalCheckVectorsCommand(s), newCanonicalFingerprintCommand(s))
	return cmd
}

func newCanonicalCheckVectorsCommand(s streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check-vectors FILE",
		Short: "Check a graphforge-canonical/1 golden-vector file",
		Long: `Rebuilds every source case of every positive vector as real Arrow data (plain and
with sliced columns), compares the canonical payload bytes first, then rebuilds the
fingerprint envelope and checks the SHA-256 and UUIDv8; runs every negative vector and
checks its stable error code. Prints one line per vector and "N passed, M failed".

A file may declare the owning metadata registry of its vectors with a top-level or
per-vector "metadata_registry": {"semantic_keys": [...], "volatile_keys": [...]}; a vector
without one uses its domain's default (docs/contracts/graphforge-registries.md).

Exit status: 0 all passed, 1 a vector failed, 2 the file could not be read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fh, err := os.Open(args[0])
			if err != nil {
				return withExit(ExitError, err)
			}
			defer fh.Close()
			f, err := vectors.Load(fh)
			if err != nil {
				return withExit(ExitError, err)
			}
			results := (&vectors.Checker{}).CheckFile(f)
			var passed, failed int
			type jsonResult struct {
				ID       string `json:"id"`
				Negative bool   `json:"negative"`
				Passed   bool   `json:"passed"`
				Code     string `json:"code,omitempty"`
				Error    string `json:"error,omitempty"`
			}
			var out []jsonResult
			for _, r := range results {
				jr := jsonResult{ID: r.ID, Negative: r.Negative, Passed: r.Passed(), Code: string(r.Got)}
				if r.Passed() {
					passed++
				} else {
					failed++
					jr.Error = r.Err.Error()
				}
				if asJSON {
					out = append(out, jr)
					continue
				}
				switch {
				case r.Passed() && r.Negative:
					fmt.Fprintf(s.out, "ok    %s (%s)\n", r.ID, r.Got)
				case r.Passed():
					fmt.Fprintf(s.out, "ok    %s\n", r.ID)
				default:
					fmt.Fprintf(s.out, "FAIL  %s: %v\n", r.ID, r.Err)
				}
			}
			if asJSON {
				enc := json.NewEncoder(s.out)
				if err := enc.Encode(map[string]any{"results": out, "passed": passed, "failed": failed}); err != nil {
					return withExit(ExitError, err)
				}
			} else {
				fmt.Fprintf(s.out, "%d passed, %d failed\n", passed, failed)
			}
			if failed > 0 {
				return withExit(ExitDifference, nil)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object with every result")
	return cmd
}

func newCanonicalFingerprintCommand(s streams) *cobra.Command {
	var (
		domain, registry string
		asJSON           bool
	)
	cmd := &cobra.Command{
		Use:   "fingerprint [--domain D] [--registry FILE] FILE",
		Short: "Fingerprint an Arrow IPC (file or stream) or Parquet table",
		Long: `Computes the graphforge-canonical/1 fingerprint of the table in FILE (Arrow IPC
file or stream, or Parquet; detected from the magic bytes, then the extension) without
materialising its canonical bytes, and prints the SHA-256 and the UUIDv8.

Domains: graphforge/arrow-result (default), graphforge/schema (fingerprints the
canonical schema bytes), and the other closed v1 domain tags.

Schema metadata: graphforge.contract.* keys always count, graphforge.query_id,
ontology_mode and ontology_version never do, and any other graphforge.* key must be
classified by the owning registry or the table is rejected. For graphforge/arrow-result
that registry is GraphForge's standard result registry, whose semantic keys count:
graphforge.algorithm, algorithm_version, algorithm_schema_version, verb,
search_schema_version, dimensions, seed, rng_version, rng_derivation,
valid_time.policy and base_snapshot_unchanged (what GraphForge's engine writes into its
results). Other domains declare no key. --registry FILE replaces that registry:

  {"semantic_keys": ["graphforge.algorithm", ...], "volatile_keys": ["graphforge.run", ...]}

Exit status: 0 fingerprinted, 2 error (the table is rejected with its GF_* code).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := canonical.ParseDomain(domain)
			if err != nil {
				return withExit(ExitError, fmt.Errorf("unknown domain %q: %w", domain, err))
			}
			opts := canonical.DefaultOptions(d)
			if registry != "" {
				reg, err := readMetadataRegistry(registry)
				if err != nil {
					return withExit(ExitError, fmt.Errorf("--registry: %w", err))
				}
				opts = &canonical.Options{Metadata: reg}
			}
			f, err := arrowio.Open(args[0], nil)
			if err != nil {
				return withExit(ExitError, err)
			}
			defer func() { _ = f.Close() }() // only read
			var fp canonical.Fingerprint
			var rows uint64
			if d == canonical.DomainSchema {
				fp, err = canonical.FingerprintSchema(f.Schema, opts)
			} else {
				fp, rows, err = f.Fingerprint(context.Background(), d, opts)
			}
			if err != nil {
				return withExit(ExitError, err)
			}
			if asJSON {
				return json.NewEncoder(s.out).Encode(struct {
					Domain           string                     `json:"domain"`
					CanonicalVersion uint32                     `json:"canonical_version"`
					SHA256           string                     `json:"sha256"`
					UUIDv8           string                     `json:"uuid_v8"`
					PayloadBytes     uint64                     `json:"payload_bytes"`
					Rows             uint64                     `json:"rows"`
					Registry         canonical.MetadataRegistry `json:"metadata_registry"`
				}{string(fp.Domain), fp.Version, fp.Hex(), fp.UUID().String(), fp.PayloadBytes, rows, opts.Metadata})
			}
			_, err = fmt.Fprintf(s.out, "%s  %s\n", fp.Hex(), fp.UUID())
			return err
		},
	}
	cmd.Flags().StringVar(&domain, "domain", string(canonical.DomainArrowResult), "domain tag of the payload")
	cmd.Flags().StringVar(&registry, "registry", "", `metadata registry file {"semantic_keys": [...], "volatile_keys": [...]} (default: the domain's own)`)
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"domain", "canonical_version", "sha256", "uuid_v8", "payload_bytes", "rows", "metadata_registry"}`)
	return cmd
}

func readMetadataRegistry(path string) (canonical.MetadataRegistry, error) {
	f, err := os.Open(path)
	if err != nil {
		return canonical.MetadataRegistry{}, err
	}
	defer f.Close()
	return canonical.ReadMetadataRegistry(f)
}
