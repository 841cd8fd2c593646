package mysql

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	driver "github.com/go-sql-driver/mysql"

	"github.com/pipewhy/pipewhy/source"
)

// Kind is the adapter name recorded in Evidence.Adapter; it is also the
// address scheme.
const Kind source.Kind = "mysql"

// DefaultPort is the port of an address without one.
const DefaultPort = 3306

// Address is a parsed mysql:// address. Its String form never contains the
// password.
type Address struct {
	User     string
	Password string
	HasPass  bool   // a password was given (possibly empty)
	Host     string // host name or IP address; empty with Socket
	Port     int
	Socket   string // Unix socket path (?socket=PATH); replaces Host:Port
	Database string // the connection's default database
	// TableSchema and Table name the table to read: the fragment "TABLE"
	// (TableSchema = Database) or "SCHEMA.TABLE". Empty for query sources.
	TableSchema string
	Table       string
	TLS         string        // "" (driver default: no TLS), "true", "false", "skip-verify" or "preferred"
	Timeout     time.Duration // dial timeout; default 10s
}

// ParseAddress parses
//
//	mysql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?PARAMS][#TABLE | #SCHEMA.TABLE]
//
// User, password, database and fragment are percent-decoded. PARAMS are
// socket=PATH (a Unix socket instead of HOST:PORT; HOST may then be
// empty), tls=true|false|skip-verify|preferred and timeout=DURATION (dial
// timeout, Go syntax, default 10s); any other parameter is an error. The
// fragment splits at its first '.': a table whose name contains '.' is read
// with Options.Query. Without a fragment the address needs Options.Query.
func ParseAddress(s string) (Address, error) {
	bad := func(detail string) (Address, error) {
		// The raw address may hold a password: never echo it.
		return Address{}, &source.Error{Code: source.CodeAddress, Op: "mysql parse address", Msg: detail}
	}
	if !strings.HasPrefix(s, "mysql://") {
		return bad("not a mysql:// address")
	}
	if strings.ContainsRune(s, 0) {
		return bad("address contains a NUL byte")
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("malformed URL")
	}
	var a Address
	if u.User != nil {
		a.User = u.User.Username()
		a.Password, a.HasPass = u.User.Password()
	}
	a.Host = u.Hostname()
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("port must be 1 to 65535")
		}
		a.Port = n
	}
	db := strings.TrimPrefix(u.Path, "/")
	if strings.Contains(db, "/") {
		return bad("the path must be one database name")
	}
	a.Database = db
	a.Timeout = 10 * time.Second
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("malformed query parameters")
	}
	for k, v := range q {
		if len(v) != 1 {
			return bad("parameter " + strconv.Quote(k) + " given more than once")
		}
		switch k {
		case "socket":
			if v[0] == "" {
				return bad("empty socket path")
			}
			a.Socket = v[0]
		case "tls":
			switch v[0] {
			case "true", "false", "skip-verify", "preferred":
				a.TLS = v[0]
			default:
				return bad("tls must be true, false, skip-verify or preferred")
			}
		case "timeout":
			d, err := time.ParseDuration(v[0])
			if err != nil || d <= 0 {
				return bad("timeout must be a positive duration")
			}
			a.Timeout = d
		default:
			return bad("unknown parameter " + strconv.Quote(k))
		}
	}
	if a.Socket == "" && a.Host == "" {
		return bad("missing host (or ?socket=PATH)")
	}
	if a.Socket != "" && (a.Host != "" && a.Host != "localhost" || a.Port != 0) {
		return bad("give either HOST[:PORT] or ?socket=PATH")
	}
	if a.Socket == "" && a.Port == 0 {
		a.Port = DefaultPort
	}
	if f := u.Fragment; f != "" || strings.HasSuffix(s, "#") {
		if f == "" {
			return bad("empty table name after #")
		}
		if sch, t, ok := strings.Cut(f, "."); ok {
			if sch == "" || t == "" {
				return bad("empty schema or table name in #SCHEMA.TABLE")
			}
			a.TableSchema, a.Table = sch, t
		} else {
			a.TableSchema, a.Table = a.Database, f
		}
		if a.TableSchema == "" {
			return bad("a #TABLE needs a database in the path (or #SCHEMA.TABLE)")
		}
	} else if a.Database == "" {
		return bad("missing database")
	}
	return a, nil
}

// server is the redacted server part: "HOST:PORT" or "unix(PATH)".
func (a Address) server() string {
	if a.Socket != "" {
		return "unix(" + a.Socket + ")"
	}
	return net.JoinHostPort(a.Host, strconv.Itoa(a.Port))
}

// String is the address without the password (the user stays), e.g.
// "mysql://app@db.example:3306/shop#orders". Use it in messages.
func (a Address) String() string {
	var b strings.Builder
	b.WriteString("mysql://")
	if a.User != "" {
		b.WriteString(url.PathEscape(a.User))
		b.WriteByte('@')
	}
	b.WriteString(a.server())
	b.WriteByte('/')
	b.WriteString(url.PathEscape(a.Database))
	if a.Table != "" {
		b.WriteByte('#')
		b.WriteString(a.TableSchema)
		b.WriteByte('.')
		b.WriteString(a.Table)
	}
	return b.String()
}

// Config is the go-sql-driver configuration of the address:
//
//	User, Passwd          from the userinfo
//	Net, Addr             "tcp", HOST:PORT (IPv6 in brackets) or "unix", the socket path
//	DBName                the path's database
//	TLSConfig             the tls parameter
//	Timeout               the timeout parameter (dial only; reads have no deadline)
//	InterpolateParams     false: statements are server-side prepared, rows use the binary protocol
//	ParseTime             false: temporal values arrive as the driver's fixed text, parsed here
//	Collation             utf8mb4_general_ci: every text result is converted to UTF-8 by the server
//	Logger                silent: errors are returned, never printed
//
// Its FormatDSN is the equivalent DSN string, e.g.
// "user:pass@tcp(host:3306)/db?collation=utf8mb4_general_ci&timeout=10s"
// (it contains the password: never print it).
func (a Address) Config() *driver.Config {
	c := driver.NewConfig()
	c.User, c.Passwd = a.User, a.Password
	if a.Socket != "" {
		c.Net, c.Addr = "unix", a.Socket
	} else {
		c.Net, c.Addr = "tcp", net.JoinHostPort(a.Host, strconv.Itoa(a.Port))
	}
	c.DBName = a.Database
	c.TLSConfig = a.TLS
	c.Timeout = a.Timeout
	c.InterpolateParams = false
	c.ParseTime = false
	c.Collation = "utf8mb4_general_ci"
	c.Logger = silent{}
	return c
}

type silent struct{}

func (silent) Print(...any) {}
