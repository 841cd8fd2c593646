package postgres

import (
	"net/url"
	"strings"

	"github.com/pipewhy/pipewhy/source"
)

// Address is a parsed postgres:// address.
type Address struct {
	// DSN is the connection URL without the #fragment; it may hold a
	// password and must never be printed: use Redacted.
	DSN string
	// Schema and Table name the relation (exact names, after PostgreSQL's
	// identifier rules were applied). Schema is empty when the address
	// gave none: the relation is then looked up through the search_path.
	// Both are empty for a query address.
	Schema, Table string
	redacted      string
}

// ParseAddress parses
//
//	postgres://[user[:password]@][host][:port][/database][?params][#[schema.]table]
//
// (also postgresql://). The fragment names the relation with PostgreSQL's
// identifier rules: an unquoted part is folded to lower case, a
// double-quoted part is taken exactly ("" is a quote), and the first
// unquoted '.' separates schema and table. Without a fragment the address
// needs source.Options.Query. Errors never contain the password.
func ParseAddress(s string) (Address, error) {
	bad := func(detail string) (Address, error) {
		return Address{}, &source.Error{Code: source.CodeAddress, Op: "postgres parse address", Msg: detail}
	}
	if !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		return bad("not a postgres:// or postgresql:// address")
	}
	if strings.ContainsRune(s, 0) {
		return bad("address contains a NUL byte")
	}
	dsn, frag, hasFrag := strings.Cut(s, "#")
	a := Address{DSN: dsn}
	if _, err := url.Parse(dsn); err != nil {
		// url errors quote the whole input, password included: drop the cause.
		return bad("malformed connection URL")
	}
	a.redacted = source.RedactAddress(dsn)
	if hasFrag {
		if frag == "" {
			return bad("empty relation name after #")
		}
		f, err := url.PathUnescape(frag)
		if err != nil {
			return bad("malformed percent-escape in the relation name")
		}
		parts, ok := splitIdent(f)
		if !ok || len(parts) > 2 {
			return bad("the relation must be TABLE or SCHEMA.TABLE (double-quote names containing '.' or '\"')")
		}
		if len(parts) == 2 {
			a.Schema, a.Table = parts[0], parts[1]
		} else {
			a.Table = parts[0]
		}
	}
	return a, nil
}

// splitIdent splits a possibly qualified name into identifiers by
// PostgreSQL's rules.
func splitIdent(s string) ([]string, bool) {
	var parts []string
	for {
		var id string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, false
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			id, s = b.String(), s[i:]
		} else {
			j := strings.IndexAny(s, `."`)
			if j < 0 {
				j = len(s)
			}
			id, s = strings.ToLower(s[:j]), s[j:]
		}
		if id == "" {
			return nil, false
		}
		parts = append(parts, id)
		if s == "" {
			return parts, true
		}
		if s[0] != '.' {
			return nil, false
		}
		s = s[1:]
	}
}

// Redacted returns the address with its password replaced by "xxxxx"; it
// is the form used in every error message.
func (a Address) Redacted() string {
	r := a.redacted
	if a.Table != "" {
		r += "#" + a.Relation()
	}
	return r
}

// Relation is the quoted relation name, "schema.table" or "table".
func (a Address) Relation() string {
	if a.Schema == "" {
		return quoteIdentIfNeeded(a.Table)
	}
	return quoteIdentIfNeeded(a.Schema) + "." + quoteIdentIfNeeded(a.Table)
}

// quoteIdentIfNeeded leaves a lower-case simple identifier as it is and
// double-quotes anything else, so that the result parses back to the name.
func quoteIdentIfNeeded(s string) string {
	simple := s != ""
	for i := 0; i < len(s) && simple; i++ {
		c := s[i]
		simple = c == '_' || (c >= 'a' && c <= 'z') || (i > 0 && (c >= '0' && c <= '9' || c == '$'))
	}
	if simple {
		return s
	}
	return quoteIdent(s)
}

// quoteIdent double-quotes an identifier for SQL text.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
