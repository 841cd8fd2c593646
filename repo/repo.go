package repo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Layout names inside a repository directory.
const (
	DirName      = ".pipewhy"     // the repository directory git-style discovery looks for
	ConfigFile   = "repo.json"    // marks a complete repository; written last by Init
	StoreDir     = "store"        // the C5 snapshot store root
	RegistryFile = "sources.json" // the source schema registry (package source's format)
	LogFile      = "log.jsonl"    // the append-only scan log
	LockFile     = "lock"         // the writers' lock (flock); its content is unused

	configFormat  = "pipewhy.repo"
	configVersion = 1
)

type config struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Algorithm is the identity of the C3 fingerprint algorithm every scan of the
	// repository uses, fixed when the repository is created. Absent in repositories
	// created before algorithms were recorded: those used, and keep using,
	// pipewhy.fingerprint/xxh3-128/v1.
	Algorithm string `json:"algorithm,omitempty"`
	// SnapshotEncoding "zstd-blocks" makes the repository write C5-compressed version 2
	// snapshots (docs/contracts/C5-compressed.md); absent, it writes C5 version 1.
	// Repositories are created with it; older ones opt in by adding it. Either way
	// both versions are read, and no published snapshot is ever rewritten.
	SnapshotEncoding string `json:"snapshot_encoding,omitempty"`
}

// DefaultAlgorithm is the fingerprint algorithm of a repository Init creates.
var DefaultAlgorithm = fingerprint.XXH3Columnar

// legacyAlgorithm is the algorithm of a repository whose configuration names none.
var legacyAlgorithm = fingerprint.XXH3

// Repo is an opened repository: a directory holding a snapshot store, the source
// schema registry and the scan log.
type Repo struct {
	dir   string
	store *snapshot.Store
	alg   fingerprint.Algorithm
	// ownWrites: a scratch view (OnStore) of snapshots this process wrote and verified.
	ownWrites bool
}

// Init creates a repository in dir that fingerprints with DefaultAlgorithm (see
// InitAlgorithm).
func Init(dir string) (*Repo, error) { return InitAlgorithm(dir, DefaultAlgorithm) }

// InitAlgorithm creates a repository in dir (created if missing; it may exist but must
// not already hold a repository) whose scans fingerprint with alg, for its whole life:
// snapshots of different algorithms are never comparable. The configuration file is
// written last, crash-safely, so a directory without it is never taken for a
// repository.
func InitAlgorithm(dir string, alg fingerprint.Algorithm) (*Repo, error) {
	if !alg.Valid() {
		return nil, &Error{Code: CodeLayout, Op: "init", Path: dir, Msg: "invalid fingerprint algorithm"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "init", Path: dir, Msg: "cannot resolve path", Err: err}
	}
	cfg := filepath.Join(abs, ConfigFile)
	if _, err := os.Stat(cfg); err == nil {
		return nil, &Error{Code: CodeExists, Op: "init", Path: abs, Msg: "a repository already exists here"}
	}
	if err := os.MkdirAll(filepath.Join(abs, StoreDir), 0o755); err != nil {
		return nil, &Error{Code: CodeIO, Op: "init", Path: abs, Msg: "cannot create directories", Err: err}
	}
	b, _ := json.Marshal(config{Format: configFormat, Version: configVersion, Algorithm: alg.ID(), SnapshotEncoding: snapshot.EncodingZstd})
	if err := writeFileAtomic(cfg, append(b, '\n')); err != nil {
		return nil, &Error{Code: CodeIO, Op: "init", Path: cfg, Msg: "cannot write configuration", Err: err}
	}
	return Open(abs)
}

// Open opens the repository whose directory is dir (the one holding repo.json).
func Open(dir string) (*Repo, error) { return OpenWith(dir, snapshot.Options{}) }

// OpenWith is Open with the snapshot store's options (its filesystem, for fault
// injection in tests; a context check).
func OpenWith(dir string, opts snapshot.Options) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "open", Path: dir, Msg: "cannot resolve path", Err: err}
	}
	b, err := os.ReadFile(filepath.Join(abs, ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Code: CodeNotRepo, Op: "open", Path: abs,
			Msg: "not a pipewhy repository (no " + ConfigFile + " in it or in its " + DirName + "); run 'pipewhy init'"}
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "open", Path: abs, Msg: "cannot read configuration", Err: err}
	}
	c, err := parseConfig(b)
	if err != nil {
		return nil, &Error{Code: CodeLayout, Op: "open", Path: abs, Msg: err.Error()}
	}
	alg := legacyAlgorithm
	if c.Algorithm != "" {
		if alg, err = fingerprint.ParseAlgorithm(c.Algorithm); err != nil {
			return nil, &Error{Code: CodeLayout, Op: "open", Path: abs, Msg: "the repository's fingerprint algorithm " +
				strconv.Quote(c.Algorithm) + " is not one this build knows" + newerHint}
		}
	}
	switch c.SnapshotEncoding {
	case "":
	case snapshot.EncodingZstd:
		opts.Compress = true
	default:
		return nil, &Error{Code: CodeLayout, Op: "open", Path: abs, Msg: "the repository's snapshot_encoding " +
			strconv.Quote(c.SnapshotEncoding) + " is not one this build knows" + newerHint}
	}
	st, err := snapshot.Open(filepath.Join(abs, StoreDir), opts)
	if err != nil {
		return nil, &Error{Code: CodeLayout, Op: "open", Path: abs, Msg: "snapshot store missing", Err: err}
	}
	return &Repo{dir: abs, store: st, alg: alg}, nil
}

// OnStore returns the snapshot side of a repository over the store st alone, whose
// scans fingerprint with alg: for scan snapshots a command publishes to a scratch store
// of its own and reads back (compare/live's spilled sides), through LoadParts, LoadMore
// and Entries. It has no directory, configuration, registry, log or lock: only the
// methods that read snapshots work. Entries does not verify the checksums again: the
// snapshots are the caller's own, read back and verified when they were committed.
func OnStore(st *snapshot.Store, alg fingerprint.Algorithm) *Repo {
	return &Repo{store: st, alg: alg, ownWrites: true}
}

// Algorithm returns the fingerprint algorithm of the repository's scans: the one it was
// created with (pipewhy.fingerprint/xxh3-128/v1 for a repository created before
// algorithms were recorded in its configuration).
func (r *Repo) Algorithm() fingerprint.Algorithm { return r.alg }

// Find opens the repository named by explicit when it is not empty, else the
// DirName directory of start or of its nearest parent that has one (like git).
// explicit may name the repository directory itself or a project directory holding
// one in DirName. Nothing found is CodeNotRepo.
func Find(start, explicit string) (*Repo, error) {
	if explicit != "" {
		if _, err := os.Stat(filepath.Join(explicit, ConfigFile)); err != nil {
			if _, err := os.Stat(filepath.Join(explicit, DirName, ConfigFile)); err == nil {
				return Open(filepath.Join(explicit, DirName))
			}
		}
		return Open(explicit)
	}
	d, err := filepath.Abs(start)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "find", Path: start, Msg: "cannot resolve path", Err: err}
	}
	for {
		cand := filepath.Join(d, DirName)
		if _, err := os.Stat(filepath.Join(cand, ConfigFile)); err == nil {
			return Open(cand)
		}
		parent := filepath.Dir(d)
		if parent == d {
			abs, _ := filepath.Abs(start)
			return nil, &Error{Code: CodeNotRepo, Op: "find", Path: abs,
				Msg: "not a pipewhy repository (or any parent): no " + DirName + " directory; run 'pipewhy init' or pass --repo"}
		}
		d = parent
	}
}

// Dir returns the repository directory.
func (r *Repo) Dir() string { return r.dir }

// Store returns the repository's C5 snapshot store.
func (r *Repo) Store() *snapshot.Store { return r.store }

// RegistryPath returns the path of the source schema registry file.
func (r *Repo) RegistryPath() string { return filepath.Join(r.dir, RegistryFile) }

// LogEntry is one line of the scan log: a published scan snapshot.
type LogEntry struct {
	Snapshot     string `json:"snapshot"`   // 32 hex
	Artifact     string `json:"artifact"`   // artifact name (--name)
	Address      string `json:"address"`    // source address as given
	Resolution   string `json:"resolution"` // dataset | record | value
	Rows         uint64 `json:"rows,string"`
	Coverage     string `json:"coverage"` // COMPLETE | PARTIAL | UNAVAILABLE
	FinishedAtNs uint64 `json:"finished_at_ns,string"`
}

// AppendLog appends e to the scan log as one JSON line written with a single write
// and fsynced. A torn final line left by a crash (no trailing newline) is cut off
// first, so the log stays a sequence of complete lines. An entry Log would reject (a
// malformed snapshot id) or Resolve could never name (no artifact) is CodeLog and
// nothing is written: one bad line would make every later read of the log fail.
func (r *Repo) AppendLog(e LogEntry) error {
	p := filepath.Join(r.dir, LogFile)
	if _, err := snapshot.ParseID(e.Snapshot); err != nil {
		return &Error{Code: CodeLog, Op: "log", Path: p, Msg: "entry has a malformed snapshot id", Err: err}
	}
	if e.Artifact == "" {
		return &Error{Code: CodeLog, Op: "log", Path: p, Msg: "entry names no artifact"}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return &Error{Code: CodeLog, Op: "log", Path: p, Msg: "cannot encode entry", Err: err}
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot open log", Err: err}
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot seek", Err: err}
	}
	if size > 0 {
		if keep, err := completeLength(f, size); err != nil {
			return &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot read log tail", Err: err}
		} else if keep != size {
			if err := f.Truncate(keep); err != nil {
				return &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot cut torn line", Err: err}
			}
		}
		if _, err := f.Seek(0, io.SeekEnd); err != nil {
			return &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot seek", Err: err}
		}
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot append", Err: err}
	}
	if err := f.Sync(); err != nil {
		return &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot sync", Err: err}
	}
	return nil
}

// completeLength returns the length of the prefix of f that ends with a newline.
func completeLength(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 4096)
	end := size
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// Log returns the scan log entries in append order. A final line without newline
// (a torn write) is ignored; any other malformed line is CodeLog. A missing log is
// empty.
func (r *Repo) Log() ([]LogEntry, error) {
	p := filepath.Join(r.dir, LogFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "log", Path: p, Msg: "cannot read log", Err: err}
	}
	if i := bytes.LastIndexByte(b, '\n'); i+1 != len(b) {
		b = b[:i+1]
	}
	var out []LogEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		var e LogEntry
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, &Error{Code: CodeLog, Op: "log", Path: p, Msg: "malformed line " + strconv.Itoa(n), Err: err}
		}
		if _, err := snapshot.ParseID(e.Snapshot); err != nil {
			return nil, &Error{Code: CodeLog, Op: "log", Path: p, Msg: "malformed snapshot id on line " + strconv.Itoa(n)}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Code: CodeLog, Op: "log", Path: p, Msg: "cannot scan log", Err: err}
	}
	return out, nil
}

// MinPrefix is the shortest abbreviated snapshot id Resolve accepts.
const MinPrefix = 4

// Resolve returns the published snapshot s names: its id, or a unique prefix of it of
// at least MinPrefix hex digits (like git); or a scan of an artifact, from the scan log:
// NAME is the artifact's newest scan, NAME~N the Nth scan before that one (like git's
// HEAD~N). A string of at least MinPrefix hex digits only is always an id or prefix;
// a shorter one (an artifact named "f" or "abc") can be no id, so it names an artifact.
// No match is CodeUnknownID, more than one CodeAmbiguous.
func (r *Repo) Resolve(s string) (snapshot.ID, error) {
	if t := strings.ToLower(strings.TrimSpace(s)); len(t) >= MinPrefix && strings.Trim(t, "0123456789abcdef") == "" {
		return ResolveID(r.store, s)
	}
	log, err := r.Log()
	if err != nil {
		return snapshot.ID{}, err
	}
	scans := func(name string) []string {
		var ids []string
		for i := len(log) - 1; i >= 0; i-- {
			if log[i].Artifact == name {
				ids = append(ids, log[i].Snapshot)
			}
		}
		return ids
	}
	name, back := s, 0
	ids := scans(s)
	if i := strings.LastIndexByte(s, '~'); len(ids) == 0 && i > 0 {
		if n, err := strconv.ParseUint(s[i+1:], 10, 31); err == nil {
			name, back, ids = s[:i], int(n), scans(s[:i])
		}
	}
	switch {
	case len(ids) == 0:
		return snapshot.ID{}, &Error{Code: CodeUnknownID, Op: "resolve",
			Msg: "not a snapshot id, a prefix of at least " + strconv.Itoa(MinPrefix) + " hex digits, or a scanned artifact: " + strconv.Quote(s)}
	case back >= len(ids):
		scans := "1 scan (" + name + "~0)"
		if len(ids) > 1 {
			scans = fmt.Sprintf("%d scans (%s~0 to %s~%d)", len(ids), name, name, len(ids)-1)
		}
		return snapshot.ID{}, &Error{Code: CodeUnknownID, Op: "resolve", Msg: fmt.Sprintf("%s: artifact %q has %s", s, name, scans)}
	}
	return snapshot.ParseID(ids[back])
}

// ResolveID returns the published snapshot of st whose id is s or starts with s (at
// least MinPrefix hex digits), in any snapshot store, a repository's or not.
func ResolveID(st *snapshot.Store, s string) (snapshot.ID, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) < MinPrefix || len(s) > 32 || strings.Trim(s, "0123456789abcdef") != "" {
		return snapshot.ID{}, &Error{Code: CodeUnknownID, Op: "resolve",
			Msg: "not a snapshot id or prefix of at least " + strconv.Itoa(MinPrefix) + " hex digits: " + strconv.Quote(s)}
	}
	ids, err := StoreIDs(st)
	if err != nil {
		return snapshot.ID{}, err
	}
	var found []snapshot.ID
	for _, id := range ids {
		if strings.HasPrefix(id.String(), s) {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 0:
		return snapshot.ID{}, &Error{Code: CodeUnknownID, Op: "resolve", Msg: "no snapshot " + s}
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, id := range found {
		names[i] = id.String()
	}
	return snapshot.ID{}, &Error{Code: CodeAmbiguous, Op: "resolve",
		Msg: "prefix " + s + " matches " + strconv.Itoa(len(found)) + " snapshots: " + strings.Join(names, ", ")}
}

// IDs returns the ids of the published snapshots, in id order, by reading the store's
// directory only (no validation; Load validates what it opens).
func (r *Repo) IDs() ([]snapshot.ID, error) { return StoreIDs(r.store) }

// StoreIDs is IDs in any snapshot store.
func StoreIDs(st *snapshot.Store) ([]snapshot.ID, error) {
	dir := filepath.Join(st.Root(), "snapshots")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "resolve", Path: dir, Msg: "cannot list snapshots", Err: err}
	}
	var ids []snapshot.ID
	for _, e := range ents {
		if id, err := snapshot.ParseID(e.Name()); err == nil && e.IsDir() {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return bytes.Compare(ids[i][:], ids[j][:]) < 0 })
	return ids, nil
}

// writeFileAtomic writes data to path crash-safely: temporary file in the same
// directory, fsync, close, rename, fsync of the directory. A failure of the last step is
// reported too: the file is then in place but may not be durable.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp) // the write error is the one to report
		return err
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("fsync directory (the file is in place but may not be durable): %w", err)
	}
	return nil
}

// syncDir fsyncs directory dir. A variable for tests.
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// newerHint ends the messages of a configuration that a newer PipeWhy may have written:
// what the user can do about it.
const newerHint = " (a newer PipeWhy may have made this repository: use that version or newer)"

// parseConfig decodes repo.json. The version is read before the rest, so that a
// repository of a later version is refused as such, whatever its fields; in version 1
// every field must be known (a field this build does not know may change how the
// repository must be read, so it is never ignored). The errors name the configuration's
// fields and values, never anything read from a data source.
func parseConfig(b []byte) (config, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil || head.Format != configFormat {
		return config{}, errors.New("malformed repository configuration " + ConfigFile + ": not a " + configFormat + " document")
	}
	if head.Version != configVersion {
		msg := "unsupported repository version " + strconv.Itoa(head.Version) + " (this build reads version " + strconv.Itoa(configVersion) + ")"
		if head.Version > configVersion {
			msg += newerHint
		}
		return config{}, errors.New(msg)
	}
	var c config
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		// encoding/json names an unknown field as `json: unknown field "name"`.
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return config{}, errors.New(ConfigFile + " has a field this build does not know, " + name + newerHint)
		}
		return config{}, errors.New("malformed repository configuration " + ConfigFile + ": " + err.Error())
	}
	return c, nil
}
