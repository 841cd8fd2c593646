package lineage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// codeExtensions are file extensions that make a transform that names no existing file
// an error rather than a literal version id: "models/x.sql" or "x.sql" is a file the user
// meant, mistyped or not yet written, never a version called "x.sql".
var codeExtensions = []string{".sql", ".py", ".ipynb", ".scala", ".java", ".r", ".sh", ".jinja", ".j2",
	".yml", ".yaml", ".json", ".toml", ".js", ".ts", ".go", ".rb", ".kt", ".hql", ".ddl", ".dbt"}

// ParseTransform interprets a declared transform s, relative paths resolved against
// base, and returns it with a file path relative to project (or absolute when the file
// lies outside it):
//
//   - "file:PATH" is a file, which must exist;
//   - "id:VALUE" is the literal VALUE;
//   - a path naming an existing regular file is that file;
//   - otherwise s is a literal version id, unless it contains a path separator or ends
//     with a code file extension (.sql, .py, ...): then it names a file that does not
//     exist, CodeTransform, never silently a literal.
func ParseTransform(s, base, project string) (TransformRef, error) {
	bad := func(msg string) (TransformRef, error) {
		return TransformRef{}, &Error{Code: CodeTransform, Op: "declare", Msg: fmt.Sprintf("transform %q: %s", s, msg)}
	}
	if s == "" || strings.ContainsAny(s, "\n\r") {
		return bad("must be a nonempty single line")
	}
	if v, ok := strings.CutPrefix(s, "id:"); ok {
		if v == "" {
			return bad("id: needs a value")
		}
		return TransformRef{Kind: TransformLiteral, Ref: v}, nil
	}
	path, forced := strings.CutPrefix(s, "file:")
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	st, err := os.Stat(p)
	switch {
	case err == nil && st.Mode().IsRegular():
		return TransformRef{Kind: TransformFile, Ref: relativeTo(project, p)}, nil
	case err == nil:
		return bad("not a regular file")
	case !errors.Is(err, fs.ErrNotExist):
		return bad("cannot inspect the file: " + err.Error())
	case forced:
		return bad("no such file")
	}
	if strings.ContainsAny(s, `/\`) {
		return bad("no such file (a literal version id has no '/'; write id:" + s + " to mean one)")
	}
	ext := strings.ToLower(filepath.Ext(s))
	for _, e := range codeExtensions {
		if ext == e {
			return bad("no such file (write id:" + s + " for a literal version id)")
		}
	}
	return TransformRef{Kind: TransformLiteral, Ref: s}, nil
}

// relativeTo returns p relative to dir with '/' separators when p lies inside dir, else
// p as an absolute path.
func relativeTo(dir, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if dir != "" {
		if rel, err := filepath.Rel(dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// Identity returns the identity of t now: a literal is itself, a file is "sha256:" and
// the lowercase hex SHA-256 of its bytes (a relative Ref is resolved against project).
// A file that cannot be read is an error naming the file, for the caller to record.
func Identity(t TransformRef, project string) (string, error) {
	switch t.Kind {
	case TransformLiteral:
		return t.Ref, nil
	case TransformFile:
		p := filepath.FromSlash(t.Ref)
		if !filepath.IsAbs(p) {
			p = filepath.Join(project, p)
		}
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", t.Ref)
		}
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
	}
	return "", fmt.Errorf("no transform")
}
