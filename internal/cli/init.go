package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/spf13/cobra"
)

func newInitCommand(s streams) *cobra.Command {
	var dir, algorithm string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create a PipeWhy repository (.pipewhy/) in the working directory",
		Long: `Init creates a repository: the directory .pipewhy/ in the working directory, or
the directory given with --repo. It holds a C5 snapshot store (store/), the source schema
registry that gives columns stable field ids (sources.json) and an append-only log of
scans (log.jsonl).

The repository fingerprints every scan with one C3 algorithm, chosen here for its whole
life (snapshots of different algorithms are never compared): --algorithm
xxh3-128-columnar (pipewhy.fingerprint/xxh3-128-columnar/v2, the default: each value is
hashed once, a column at a time) or xxh3-128 (pipewhy.fingerprint/xxh3-128/v1, the
algorithm of repositories created before v2; they keep it). docs/contracts/C3-fingerprint.md
defines both.

Other commands find the repository with --repo (the repository directory, or the
project folder holding .pipewhy/), or by looking for .pipewhy/ in the working directory
and its parents, like git.

Exit status: 0 created; 2 a repository already exists there, or any other error.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			target := dir
			if target == "" {
				target = repo.DirName
			}
			alg := repo.DefaultAlgorithm
			if algorithm != "" {
				var err error
				if alg, err = parseAlgorithm(algorithm); err != nil {
					return withExit(ExitError, err)
				}
			}
			r, err := repo.InitAlgorithm(target, alg)
			if err != nil {
				return withExit(ExitError, err)
			}
			if asJSON {
				return emitJSON(s, map[string]any{"repository": r.Dir(), "algorithm": r.Algorithm().ID()})
			}
			_, err = fmt.Fprintf(s.out, "initialized empty PipeWhy repository in %s (fingerprints: %s)\n", r.Dir(), r.Algorithm().ID())
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "repo", "", "repository directory to create (default ./.pipewhy)")
	cmd.Flags().StringVar(&algorithm, "algorithm", "", algorithmHelp+" (default "+repo.DefaultAlgorithm.Name()+")")
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON instead of text")
	return cmd
}

const algorithmHelp = "C3 fingerprint algorithm: xxh3-128-columnar (v2) or xxh3-128 (v1), by name or full identity"

// parseAlgorithm returns the registered fingerprint algorithm named s: its name as the
// registry spells it (xxh3-128-columnar) or its full identity
// (pipewhy.fingerprint/xxh3-128-columnar/v2).
func parseAlgorithm(s string) (fingerprint.Algorithm, error) {
	if strings.HasPrefix(s, "pipewhy.fingerprint/") {
		a, err := fingerprint.ParseAlgorithm(s)
		if err != nil {
			return a, fmt.Errorf("--algorithm: %w", err)
		}
		return a, nil
	}
	var names []string
	for _, a := range fingerprint.Algorithms() {
		if a.Name() == s {
			return a, nil
		}
		names = append(names, a.Name())
	}
	return fingerprint.Algorithm{}, fmt.Errorf("--algorithm: unknown fingerprint algorithm %q (registered: %s)", s, strings.Join(names, ", "))
}

// repoHelp is the help of --repo in every command that finds the repository.
const repoHelp = "the repository: its directory or the project folder holding its .pipewhy (default: .pipewhy here or in a parent)"

// openRepo finds the repository: --repo, else .pipewhy in the working directory or a parent.
func openRepo(explicit string) (*repo.Repo, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, withExit(ExitError, err)
	}
	r, err := repo.Find(wd, explicit)
	if err != nil {
		return nil, withExit(ExitError, err)
	}
	return r, nil
}

// resolveID resolves a full or abbreviated snapshot id in r.
func resolveID(r *repo.Repo, s string) (snapshot.ID, error) {
	id, err := r.Resolve(s)
	if err != nil {
		return id, withExit(ExitError, err)
	}
	return id, nil
}

// loadScan resolves and loads one scan snapshot, reporting the bytes read to progress
// (nil: none).
func loadScan(r *repo.Repo, s string, progress snapshot.ProgressFunc) (*repo.Scan, error) {
	return loadScanParts(r, s, repo.AllParts, progress)
}

// loadScanParts is loadScan of the per-record arrays of parts only (repo.Repo.LoadParts).
func loadScanParts(r *repo.Repo, s string, parts repo.Parts, progress snapshot.ProgressFunc) (*repo.Scan, error) {
	id, err := resolveID(r, s)
	if err != nil {
		return nil, err
	}
	sc, err := r.LoadParts(id, parts, progress)
	if err != nil {
		return nil, loadFailed(id, err)
	}
	return sc, nil
}

// loadFailed is the command error of a snapshot that did not load.
func loadFailed(id snapshot.ID, err error) error {
	var ie *snapshot.StorageIntegrityError
	if errors.As(err, &ie) {
		return withExit(ExitError, fmt.Errorf("snapshot %s is corrupt: %w", id, err))
	}
	return withExit(ExitError, err)
}

// emitJSON writes v to stdout as the --json output of a command: indented, HTML left
// unescaped.
func emitJSON(s streams, v any) error {
	enc := json.NewEncoder(s.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
