package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/sourcetest"
)

// testDSN is the server under test: PIPEWHY_TEST_POSTGRES_DSN, or the local
// default.
func testDSN() string { return testenv.PostgresDSN() }

// server connects for test setup. Without a reachable server the test is
// skipped, unless PIPEWHY_REQUIRE_SERVICES=1 (CI), where it fails.
func server(t testing.TB) *pgconn.PgConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, testDSN())
	if err != nil {
		testenv.Missing(t, testenv.Services, "PostgreSQL server not reachable (set PIPEWHY_TEST_POSTGRES_DSN): %v", source.ScrubError(err, password(testDSN())))
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// exec runs SQL statements for setup, failing the test on error.
func exec(t testing.TB, conn *pgconn.PgConn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql).ReadAll(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// schema creates a uniquely named schema dropped at the end of the test and
// returns its name.
func schema(t testing.TB, conn *pgconn.PgConn) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "pw_test_" + hex.EncodeToString(b[:])
	exec(t, conn, "CREATE SCHEMA "+name)
	t.Cleanup(func() {
		c, err := pgconn.Connect(context.Background(), testDSN())
		if err != nil {
			t.Errorf("cleanup connect: %v", err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE").ReadAll(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return name
}

// addr is the test server's address of schema.table.
func addr(schema, table string) string { return dsnWith(nil) + "#" + schema + "." + table }

// dsnWith returns the test DSN with extra query parameters.
func dsnWith(params map[string]string) string {
	u, err := url.Parse(testDSN())
	if err != nil {
		panic(err)
	}
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// readAll drains src through the shared contract checks of sourcetest.ReadAll.
func readAll(t testing.TB, src source.Source) ([]arrow.Array, source.Evidence) {
	t.Helper()
	return sourcetest.ReadAll(t, src)
}

func openT(t testing.TB, address string, opts source.Options) *Source {
	t.Helper()
	src, err := Open(context.Background(), address, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func hasString(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
