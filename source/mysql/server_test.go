package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	driver "github.com/go-sql-driver/mysql"

	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/sourcetest"
	"github.com/pipewhy/pipewhy/source/sourcetest/confdata"
)

// testServer is a reachable server with a fresh database for one test.
type testServer struct {
	admin *sql.DB // connection pool with the fresh database as default
	addr  Address // the fresh database, no table
	db    string
}

// newServer connects to PIPEWHY_TEST_MYSQL_DSN (a mysql:// address,
// default the local server) and creates a uniquely named database, dropped
// at the end of the test. Without a server the test is skipped, unless
// PIPEWHY_REQUIRE_SERVICES=1, where it fails.
func newServer(t testing.TB) *testServer {
	t.Helper()
	a, err := ParseAddress(testenv.MySQLAddress())
	if err != nil {
		t.Fatalf("PIPEWHY_TEST_MYSQL_DSN: %v", err)
	}
	a.Timeout = 3 * time.Second
	unavailable := func(err error) {
		testenv.Missing(t, testenv.Services, "no MySQL/MariaDB server at %s (set PIPEWHY_TEST_MYSQL_DSN): %v", a, source.ScrubError(err, a.Password))
	}
	boot, err := openPool(a)
	if err != nil {
		unavailable(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := boot.PingContext(ctx); err != nil {
		boot.Close()
		unavailable(err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	name := "pw_" + hex.EncodeToString(rnd[:])
	if _, err := boot.Exec("CREATE DATABASE " + quoteIdent(name) + " CHARACTER SET utf8mb4"); err != nil {
		boot.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := boot.Exec("DROP DATABASE IF EXISTS " + quoteIdent(name)); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		boot.Close()
	})
	a.Database = name
	admin, err := openPool(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return &testServer{admin: admin, addr: a, db: name}
}

func openPool(a Address) (*sql.DB, error) {
	cfg := a.Config()
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	c, err := driver.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

func (s *testServer) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// table returns the address of a table of the test database.
func (s *testServer) table(name string) Address {
	a := s.addr
	a.TableSchema, a.Table = s.db, name
	return a
}

// readAll drains src through the shared contract checks of sourcetest.ReadAll.
func readAll(t testing.TB, src source.Source) ([]arrow.Array, source.Evidence) {
	t.Helper()
	return sourcetest.ReadAll(t, src)
}

// openRead opens a, reads it whole and closes it.
func openRead(t testing.TB, a Address, opts source.Options) (*arrow.Schema, []arrow.Array, source.Evidence, []string) {
	t.Helper()
	src, err := OpenAddress(context.Background(), a, opts)
	if err != nil {
		t.Fatalf("open %s: %v", a, err)
	}
	cols, ev := readAll(t, src)
	if err := src.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return src.Schema(), cols, ev, src.PrimaryKey()
}

// TestConformance: the shared conformance dataset (confdata), written to a table, reads
// back as through every adapter (sourcetest.Conformance).
func TestConformance(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE conf (id BIGINT, name TEXT, amount DOUBLE, payload BLOB) ENGINE=InnoDB",
		confdata.InsertSQL("conf", func(b []byte) string { return "X'" + hex.EncodeToString(b) + "'" }))
	for _, bs := range []int{1, 2, 1000} {
		src, err := OpenAddress(context.Background(), s.table("conf"), source.Options{BatchSize: bs})
		if err != nil {
			t.Fatal(err)
		}
		sourcetest.Conformance(t, src, Kind, ConsistencySnapshot)
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
