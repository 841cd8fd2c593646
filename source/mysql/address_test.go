package mysql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/source"
)

func TestParseAddress(t *testing.T) {
	cases := []struct {
		in   string
		want Address
		str  string
		dsn  string
	}{
		{"mysql://app:p%40ss@db.example:3307/shop#orders",
			Address{User: "app", Password: "p@ss", HasPass: true, Host: "db.example", Port: 3307, Database: "shop", TableSchema: "shop", Table: "orders", Timeout: 10 * time.Second},
			"mysql://app@db.example:3307/shop#shop.orders",
			"app:p@ss@tcp(db.example:3307)/shop?collation=utf8mb4_general_ci&timeout=10s"},
		{"mysql://root@127.0.0.1/test#other.t%23x",
			Address{User: "root", Host: "127.0.0.1", Port: 3306, Database: "test", TableSchema: "other", Table: "t#x", Timeout: 10 * time.Second},
			"mysql://root@127.0.0.1:3306/test#other.t#x",
			"root@tcp(127.0.0.1:3306)/test?collation=utf8mb4_general_ci&timeout=10s"},
		{"mysql://u@[::1]:3306/d?tls=skip-verify&timeout=2s",
			Address{User: "u", Host: "::1", Port: 3306, Database: "d", TLS: "skip-verify", Timeout: 2 * time.Second},
			"mysql://u@[::1]:3306/d",
			"u@tcp([::1]:3306)/d?collation=utf8mb4_general_ci&timeout=2s&tls=skip-verify"},
		{"mysql://u@/d?socket=/run/mysqld/mysqld.sock",
			Address{User: "u", Socket: "/run/mysqld/mysqld.sock", Database: "d", Timeout: 10 * time.Second},
			"mysql://u@unix(/run/mysqld/mysqld.sock)/d",
			"u@unix(/run/mysqld/mysqld.sock)/d?collation=utf8mb4_general_ci&timeout=10s"},
	}
	for _, c := range cases {
		got, err := ParseAddress(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.in, got, c.want)
		}
		if got.String() != c.str {
			t.Errorf("%s: String %q, want %q", c.in, got.String(), c.str)
		}
		if d := got.Config().FormatDSN(); d != c.dsn {
			t.Errorf("%s: DSN %q, want %q", c.in, d, c.dsn)
		}
	}
}

func TestParseAddressErrors(t *testing.T) {
	const secret = "hunter2"
	bad := []string{
		"", "postgres://u@h/d#t", "mysql://u:" + secret + "@h:0/d#t", "mysql://u:" + secret + "@h:99999/d#t",
		"mysql://u@h/d#", "mysql://u@h/#t", "mysql://u@h/d#.t", "mysql://u@h/d#s.", "mysql://u@h/a/b#t",
		"mysql://u@h", "mysql://u:" + secret + "@h/d?foo=1#t", "mysql://u@h/d?tls=maybe", "mysql://u@h/d?timeout=-1s",
		"mysql://u@h/d?socket=", "mysql://u@h:3306/d?socket=/s", "mysql://u@/d", "mysql://u@h/d\x00#t",
		"mysql://u@h/d?tls=true&tls=false", "mysql://u:" + secret + "@h:x/d#t",
	}
	for _, in := range bad {
		_, err := ParseAddress(in)
		if !errors.Is(err, source.ErrAddress) {
			t.Errorf("%q: %v, want %s", in, err, source.CodeAddress)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q: message echoes the password: %v", in, err)
		}
	}
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"mysql://u:p@h:1/d#t", "mysql://u@/d?socket=/s#a.b", "mysql://%zz@h/d", "mysql://u@[::1]/d?tls=true", "mysql://h/d#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		a, err := ParseAddress(s)
		if err != nil {
			if !errors.Is(err, source.ErrAddress) {
				t.Fatalf("error without code: %v", err)
			}
			return
		}
		// The password takes no part in String.
		b := a
		b.Password, b.HasPass = "", false
		if a.String() != b.String() {
			t.Fatalf("String depends on the password")
		}
		if a.Socket == "" && (a.Port < 1 || a.Port > 65535) {
			t.Fatalf("port %d", a.Port)
		}
		if a.Table != "" && a.TableSchema == "" {
			t.Fatalf("table without schema")
		}
		_ = a.Config().FormatDSN()
	})
}
