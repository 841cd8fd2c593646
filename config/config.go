package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pipewhy/pipewhy/normalize"
	"go.yaml.in/yaml/v3"
)

// FileName is the project file's name.
const FileName = "pipewhy.yaml"

// maxFileSize bounds what Load reads: a project file is small.
const maxFileSize = 1 << 20

// Code is a stable error code.
type Code string

// Error codes.
const (
	CodeRead    Code = "PW_CONFIG_READ"    // the file cannot be read
	CodeSyntax  Code = "PW_CONFIG_SYNTAX"  // not YAML, or keys/kinds the format does not have
	CodeInvalid Code = "PW_CONFIG_INVALID" // well-formed but a value is not allowed
	CodeUnknown Code = "PW_CONFIG_UNKNOWN" // a source name the file does not define
)

// Error is a configuration error. Line is 1-based, 0 when unknown.
type Error struct {
	Code Code
	Path string
	Line int
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return fmt.Sprintf("%s (%s)", b.String(), e.Code)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode: the method every
// PipeWhy error has, for callers that do not know its type).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Scan is the scan settings of one source entry, or the defaults. Zero values (empty
// strings, nil lists and pointers) mean "not set here".
type Scan struct {
	Address      string   `yaml:"address"`
	Query        string   `yaml:"query"`
	Name         string   `yaml:"name"`
	Resolution   string   `yaml:"resolution"`
	Key          []string `yaml:"key"`
	Profile      string   `yaml:"profile"`
	Exclude      []string `yaml:"exclude"`
	Schema       string   `yaml:"schema"`
	Infer        *bool    `yaml:"infer"`
	Null         *string  `yaml:"csv_null"`
	AllowPartial *bool    `yaml:"allow_partial"`
	// MissingAsNull reads a member absent from a JSON record as null.
	MissingAsNull *bool `yaml:"json_missing_as_null"`
	// Memory is the scan's memory budget (ParseSize: "1GiB", "512MiB").
	Memory string `yaml:"memory"`
}

// File is a loaded pipewhy.yaml.
type File struct {
	Path         string // absolute
	Defaults     Scan
	sources      map[string]Scan
	lineage      []LineageEdge
	lineageNames map[string]string
	policy       map[string]Policy
}

type fileYAML struct {
	Version      *int                  `yaml:"version"`
	Defaults     Scan                  `yaml:"defaults"`
	Sources      map[string]Scan       `yaml:"sources"`
	Lineage      []lineageYAML         `yaml:"lineage"`
	LineageNames map[string]string     `yaml:"lineage_names"`
	Policy       map[string]policyYAML `yaml:"policy"`
}

// Find returns the path of the nearest pipewhy.yaml in dir or one of its parents, or ""
// when there is none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", &Error{Code: CodeRead, Path: dir, Msg: "working directory", Err: err}
	}
	for {
		p := filepath.Join(dir, FileName)
		st, err := os.Stat(p)
		switch {
		case err == nil && st.Mode().IsRegular():
			return p, nil
		case err == nil:
			return "", &Error{Code: CodeRead, Path: p, Msg: "not a regular file"}
		case !errors.Is(err, os.ErrNotExist):
			return "", &Error{Code: CodeRead, Path: p, Msg: "cannot inspect", Err: err}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// Load reads and validates the file at path.
func Load(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{Code: CodeRead, Path: path, Msg: "path", Err: err}
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, &Error{Code: CodeRead, Path: abs, Msg: "cannot open", Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, &Error{Code: CodeRead, Path: abs, Msg: "cannot read", Err: err}
	}
	if len(data) > maxFileSize {
		return nil, &Error{Code: CodeRead, Path: abs, Msg: fmt.Sprintf("larger than %d bytes", maxFileSize)}
	}
	return Parse(abs, data)
}

// Parse decodes and validates data as the file at path (absolute; its directory anchors
// relative paths).
func Parse(path string, data []byte) (*File, error) {
	fail := func(code Code, line int, msg string, err error) (*File, error) {
		return nil, &Error{Code: code, Path: path, Line: line, Msg: msg, Err: err}
	}
	if !utf8.Valid(data) {
		return fail(CodeSyntax, 0, "not UTF-8 text", nil)
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return fail(CodeInvalid, 0, "empty file: version: 1 is required", nil)
		}
		return fail(CodeSyntax, 0, "not valid YAML", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return fail(CodeSyntax, extra.Line, "more than one YAML document", nil)
	}
	if line := nonStringKey(&root); line > 0 {
		return fail(CodeSyntax, line, "a mapping key is not a string (quote keys such as null, true or 1)", nil)
	}
	var raw fileYAML
	dec = yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return fail(CodeSyntax, 0, "not a pipewhy.yaml", err)
	}
	if raw.Version == nil || *raw.Version != 1 {
		return fail(CodeInvalid, lineOf(&root, "version"), "version must be 1", nil)
	}
	file := &File{Path: path, sources: map[string]Scan{}}
	dir := filepath.Dir(path)
	if raw.Defaults.Address != "" || raw.Defaults.Query != "" || raw.Defaults.Name != "" {
		return fail(CodeInvalid, lineOf(&root, "defaults"), "defaults cannot set address, query or name: they belong to one source", nil)
	}
	if err := validate(raw.Defaults); err != "" {
		return fail(CodeInvalid, lineOf(&root, "defaults"), "defaults: "+err, nil)
	}
	file.Defaults = resolve(dir, raw.Defaults)
	for name, s := range raw.Sources {
		line := lineOf(&root, "sources", name)
		if err := validName(name); err != "" {
			return fail(CodeInvalid, line, "source name "+err, nil)
		}
		if s.Address == "" {
			return fail(CodeInvalid, line, "source "+name+": address is required", nil)
		}
		if err := validate(s); err != "" {
			return fail(CodeInvalid, line, "source "+name+": "+err, nil)
		}
		file.sources[name] = resolve(dir, s)
	}
	var line int
	var msg string
	if file.lineage, line, msg = parseLineage(raw.Lineage, &root); msg != "" {
		return fail(CodeInvalid, line, msg, nil)
	}
	if file.lineageNames, line, msg = parseLineageNames(raw.LineageNames, &root); msg != "" {
		return fail(CodeInvalid, line, msg, nil)
	}
	if file.policy, line, msg = parsePolicy(raw.Policy, &root); msg != "" {
		return fail(CodeInvalid, line, msg, nil)
	}
	return file, nil
}

func dirOf(path string) string { return filepath.Dir(path) }

// Names returns the source names in ascending order.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.sources))
	for n := range f.sources {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Source returns the entry called name with the defaults filled in where it sets nothing,
// and false when the file has no such source. Name defaults to the entry's name.
func (f *File) Source(name string) (Scan, bool) {
	s, ok := f.sources[name]
	if !ok {
		return Scan{}, false
	}
	s = Merge(s, f.Defaults)
	if s.Name == "" {
		s.Name = name
	}
	return s, true
}

// Merge returns s with every setting it leaves unset taken from base.
func Merge(s, base Scan) Scan {
	if s.Address == "" {
		s.Address = base.Address
	}
	if s.Query == "" {
		s.Query = base.Query
	}
	if s.Name == "" {
		s.Name = base.Name
	}
	if s.Resolution == "" {
		s.Resolution = base.Resolution
	}
	if s.Key == nil {
		s.Key = base.Key
	}
	if s.Profile == "" {
		s.Profile = base.Profile
	}
	if s.Exclude == nil {
		s.Exclude = base.Exclude
	}
	if s.Schema == "" {
		s.Schema = base.Schema
	}
	if s.Infer == nil {
		s.Infer = base.Infer
	}
	if s.Null == nil {
		s.Null = base.Null
	}
	if s.AllowPartial == nil {
		s.AllowPartial = base.AllowPartial
	}
	if s.MissingAsNull == nil {
		s.MissingAsNull = base.MissingAsNull
	}
	if s.Memory == "" {
		s.Memory = base.Memory
	}
	return s
}

// validName accepts names that cannot be mistaken for an address: a letter or digit,
// then letters, digits, '_', '-' and '.', without a file extension a source address
// would have. It returns "" or what is wrong.
func validName(n string) string {
	if n == "" || len(n) > 128 {
		return fmt.Sprintf("%q must have 1 to 128 characters", n)
	}
	for i, r := range n {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '_' || r == '-' || r == '.')
		if !ok {
			return fmt.Sprintf("%q: use letters, digits, '_', '-' and '.' (starting with a letter or digit)", n)
		}
	}
	return ""
}

// validate checks the values of one entry; it returns "" or what is wrong.
func validate(s Scan) string {
	switch s.Resolution {
	case "", "dataset", "record", "value":
	default:
		return fmt.Sprintf("resolution %q is not dataset, record or value", s.Resolution)
	}
	if s.Profile != "" {
		if _, err := normalize.ParseProfile(s.Profile); err != nil {
			return fmt.Sprintf("profile %q is not strict-v1, logical-v1, strict-v1+ext1 or logical-v1+ext1", s.Profile)
		}
	}
	for _, list := range [][]string{s.Key, s.Exclude} {
		for _, c := range list {
			if c == "" {
				return "an empty column name in key or exclude"
			}
		}
	}
	if strings.ContainsAny(s.Name, "\n\r") {
		return "name must be one line"
	}
	if s.Key != nil && len(s.Key) == 0 {
		return "key is an empty list (leave it out for no key)"
	}
	if s.Memory != "" {
		if _, err := ParseSize(s.Memory); err != nil {
			return "memory: " + err.Error()
		}
	}
	return ""
}

// fileKinds are the address prefixes whose rest is a file path.
var fileKinds = []string{"csv", "jsonl", "json", "parquet", "arrow-file", "arrow-stream", "sqlite", "duckdb"}

// resolve makes the relative file paths of s relative to dir.
func resolve(dir string, s Scan) Scan {
	s.Address = resolveAddress(dir, s.Address)
	if s.Schema != "" && !filepath.IsAbs(s.Schema) {
		s.Schema = filepath.Join(dir, s.Schema)
	}
	return s
}

// resolveAddress joins dir with the file path of a file or embedded-database address.
// URLs (postgres://, mysql://), :memory: databases and absolute paths are unchanged.
func resolveAddress(dir, addr string) string {
	if addr == "" || strings.Contains(addr, "://") {
		return addr
	}
	prefix, rest := "", addr
	if k, p, ok := strings.Cut(addr, ":"); ok && slices.Contains(fileKinds, k) {
		prefix, rest = k+":", p
	}
	if rest == "" || strings.HasPrefix(rest, ":") || filepath.IsAbs(rest) {
		return addr
	}
	return prefix + filepath.Join(dir, rest)
}

// nonStringKey returns the line of the first mapping key anywhere in n that is not a
// plain string (YAML reads an unquoted null, true or 1 as another type), or 0.
func nonStringKey(n *yaml.Node) int {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
				return k.Line
			}
		}
	}
	for _, c := range n.Content {
		if l := nonStringKey(c); l > 0 {
			return l
		}
	}
	return 0
}

// lineOf returns the line of the mapping key reached by path from the document root,
// or 0.
func lineOf(root *yaml.Node, path ...string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, key := range path {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line = n.Content[i].Line
				n = n.Content[i+1]
				found = true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
}
