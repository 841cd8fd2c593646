package mysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/source"
)

// makeBig creates big(id BIGINT PK, a BIGINT, x DOUBLE, s VARCHAR(16),
// ts TIMESTAMP) with rows 1..n generated on the server: s is
// "name-" + 7 digits, ts is id seconds after the epoch.
func makeBig(t testing.TB, s *testServer, n int) {
	t.Helper()
	s.exec(t, "CREATE TABLE big (id BIGINT NOT NULL PRIMARY KEY, a BIGINT NOT NULL, x DOUBLE NOT NULL, s VARCHAR(16) NOT NULL, ts TIMESTAMP NOT NULL DEFAULT '1970-01-01 00:00:01') ENGINE=InnoDB")
	gen := fmt.Sprintf("seq_1_to_%d", n)
	s.exec(t, "INSERT INTO big SELECT seq, seq * 2, seq / 4, CONCAT('name-', LPAD(seq, 7, '0')), FROM_UNIXTIME(seq) FROM "+gen)
}

// TestLargeTableStreams reads a million rows (100k with -short) and
// checks that the live heap stays far below the table's Arrow size: the
// rows stream and each batch is released before the next.
func TestLargeTableStreams(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	s := newServer(t)
	makeBig(t, s, n)
	src, err := OpenAddress(context.Background(), s.table("big"), source.Options{BatchSize: 8192})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	var sum, rows, batches int64
	for {
		rec, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			sum += ids.Value(i)
		}
		if rows == 0 {
			a, x, name, ts := rec.Column(1).(*array.Int64), rec.Column(2).(*array.Float64), rec.Column(3).(*array.String), rec.Column(4).(*array.Timestamp)
			if ids.Value(0) != 1 || a.Value(0) != 2 || x.Value(0) != 0.25 || name.Value(0) != "name-0000001" || ts.Value(0) != 1_000_000 {
				t.Fatalf("first row %d %d %v %q %d", ids.Value(0), a.Value(0), x.Value(0), name.Value(0), ts.Value(0))
			}
		}
		rows += rec.NumRows()
		// Measure while the batch is held: one batch plus the driver's
		// buffers must be all that is live.
		if batches++; batches%16 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak {
				peak = ms.HeapAlloc - base
			}
		}
		rec.Release()
	}
	if rows != int64(n) || sum != int64(n)*int64(n+1)/2 {
		t.Fatalf("rows %d sum %d", rows, sum)
	}
	// The whole table is about 48 bytes a row in Arrow (48 MB for 1M rows);
	// one batch of 8192 rows is under 1 MB.
	if limit := uint64(16 << 20); peak > limit {
		t.Fatalf("live heap grew by %d bytes while streaming, limit %d", peak, limit)
	}
	if c := src.Evidence().Coverage; c.Status != source.StatusComplete || c.Expected != uint64(n) {
		t.Fatalf("coverage %+v", c)
	}
	t.Logf("%d rows in %d batches, peak live heap growth %d KiB", rows, batches, peak>>10)
}

// TestSnapshotIsolation: rows written after Open are not read, and the
// count agrees with the rows.
func TestSnapshotIsolation(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE iso (id INT PRIMARY KEY)", "INSERT INTO iso VALUES (1), (2), (3)")
	src, err := OpenAddress(context.Background(), s.table("iso"), source.Options{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s.exec(t, "INSERT INTO iso VALUES (4), (5)", "DELETE FROM iso WHERE id = 1")
	cols, ev := readAll(t, src)
	ids := cols[0].(*array.Int32)
	if ids.Len() != 3 || ids.Value(0) != 1 || ids.Value(2) != 3 || ev.Coverage.Status != source.StatusComplete || ev.Coverage.Expected != 3 {
		t.Fatalf("read %v coverage %+v", ids, ev.Coverage)
	}
}

// TestSchemaChangeIsReported: a column added between two reads changes the
// Arrow schema, and the registry reports the added field.
func TestSchemaChangeIsReported(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE ch (id BIGINT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO ch VALUES (1, 'a')")
	reg, err := source.OpenRegistry(filepath.Join(t.TempDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc1, _, ev1, _ := openRead(t, s.table("ch"), source.Options{})
	a1, err := reg.Assign(ev1.Namespace, sc1)
	if err != nil || !a1.First {
		t.Fatalf("first assign %+v %v", a1, err)
	}
	s.exec(t, "ALTER TABLE ch ADD COLUMN n INT UNSIGNED NOT NULL DEFAULT 7, MODIFY v VARCHAR(10) NOT NULL")
	sc2, cols, ev2, _ := openRead(t, s.table("ch"), source.Options{})
	if sc1.Equal(sc2) || ev1.Namespace != ev2.Namespace {
		t.Fatalf("schemas %v / %v namespaces %q %q", sc1, sc2, ev1.Namespace, ev2.Namespace)
	}
	if cols[2].(*array.Uint32).Value(0) != 7 {
		t.Fatalf("new column %v", cols[2])
	}
	a2, err := reg.Assign(ev2.Namespace, sc2)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range a2.Changes {
		kinds = append(kinds, string(c.Kind)+":"+c.Name)
	}
	// v became NOT NULL: how its text is stored, not what it is (a physical change).
	if got := strings.Join(kinds, ","); got != "physical:v,added:n" || a2.SchemaID == a1.SchemaID {
		t.Fatalf("changes %s", got)
	}
	if d := strings.Join(a2.Changes[0].Differences(), ", "); d != "nullable → not null" {
		t.Errorf("v: %s", d)
	}
}

// TestConnectionKilledMidRead: a connection killed while rows stream gives
// a non-EOF error and PARTIAL coverage naming the reason; never a silent
// short read.
func TestConnectionKilledMidRead(t *testing.T) {
	s := newServer(t)
	n := 300_000
	makeBig(t, s, n)
	src, err := OpenAddress(context.Background(), s.table("big"), source.Options{BatchSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rec, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	var id int64
	if err := s.admin.QueryRow("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE 'SELECT `id`%'", s.db).Scan(&id); err != nil {
		t.Fatalf("find the reader's connection: %v", err)
	}
	s.exec(t, fmt.Sprintf("KILL CONNECTION %d", id))
	var readErr error
	for {
		rec, err := src.Next(context.Background())
		if err != nil {
			readErr = err
			break
		}
		rec.Release()
	}
	if readErr == io.EOF || source.CodeOf(readErr) != source.CodeIO {
		t.Fatalf("error after kill: %v, want %s", readErr, source.CodeIO)
	}
	if _, err := src.Next(context.Background()); err != readErr {
		t.Fatalf("Next after the failure: %v, want the same error", err)
	}
	c := src.Evidence().Coverage
	if c.Status != source.StatusPartial || c.Returned == 0 || c.Returned >= uint64(n) || c.Expected != uint64(n) || c.Check() != nil {
		t.Fatalf("coverage %+v", c)
	}
	if r := c.Reasons(); len(r) != 1 || !strings.HasPrefix(r[0], "PW_SOURCE_IO: reading stopped") {
		t.Fatalf("reasons %q", r)
	}
}

// TestCloseEarly closes a source in the middle of a large table: the
// connection is dropped instead of draining the rest.
func TestCloseEarly(t *testing.T) {
	s := newServer(t)
	makeBig(t, s, 200_000)
	src, err := OpenAddress(context.Background(), s.table("big"), source.Options{BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := src.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if c := src.Evidence().Coverage; c.Status != source.StatusPartial || c.Returned != 10 || c.Failures[0].Code != source.CodeIncomplete {
		t.Fatalf("coverage %+v", c)
	}
}

// TestQuery reads a query: its ORDER BY holds, the namespace hashes the
// text, there is no primary key, and Exclude wraps the query.
func TestQuery(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE q (id INT PRIMARY KEY, price DECIMAL(12,3), note VARCHAR(5))",
		"INSERT INTO q VALUES (1, 1.5, 'a'), (2, -2.25, NULL), (3, NULL, '')")
	query := "SELECT id, price * 2 AS p2, note FROM q ORDER BY id DESC"
	sc, cols, ev, pk := openRead(t, s.addr, source.Options{Query: query})
	if pk != nil || !strings.Contains(ev.Namespace, "?query-sha256=") || ev.Choices[0] != "schema=query-declared" {
		t.Fatalf("pk %v evidence %+v", pk, ev)
	}
	if st, _ := sc.Field(1).Metadata.GetValue(source.MetaSourceType); !strings.HasPrefix(st, "mysql:decimal(") {
		t.Fatalf("p2 source type %q (%v)", st, sc.Field(1).Type)
	}
	ids := cols[0].(*array.Int32)
	p2 := cols[1].(*array.Decimal128)
	note := cols[2].(*array.String)
	if ids.Value(0) != 3 || ids.Value(2) != 1 || !p2.IsNull(0) || p2.Value(1) != dec128(-4500) || p2.Value(2) != dec128(3000) {
		t.Fatalf("rows %v %v", ids, p2)
	}
	// NULL and the empty string stay distinct.
	if note.IsNull(0) || note.Value(0) != "" || !note.IsNull(1) {
		t.Fatalf("note %v", note)
	}
	_, cols, ev, _ = openRead(t, s.addr, source.Options{Query: "SELECT id, note FROM q", Exclude: []string{"note"}})
	if len(cols) != 1 || cols[0].Len() != 3 || len(ev.Excluded) != 1 || ev.Excluded[0] != "note" {
		t.Fatalf("exclude: %d columns, evidence %+v", len(cols), ev)
	}
}

// TestOpenErrors: every failure has a stable code and no message carries
// the password.
func TestOpenErrors(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE g (id INT PRIMARY KEY, p POINT)", "CREATE TABLE ok (id INT)")
	const secret = "s3cr3t-Pa55"
	badPass := s.table("ok")
	badPass.User, badPass.Password, badPass.HasPass = "pw_nobody", secret, true
	noPort := s.table("ok")
	noPort.Host, noPort.Port, noPort.Password = "127.0.0.1", 1, secret
	cases := []struct {
		name string
		a    Address
		opts source.Options
		code source.Code
	}{
		{"bad credentials", badPass, source.Options{}, CodeAuth},
		{"unreachable", noPort, source.Options{}, source.CodeIO},
		{"unknown table", s.table("nosuch"), source.Options{}, source.CodeNotFound},
		{"unsupported type", s.table("g"), source.Options{}, source.CodeUnsupported},
		{"bad query", s.addr, source.Options{Query: "SELECT FROM WHERE"}, source.CodeSchema},
		{"query duplicate names", s.addr, source.Options{Query: "SELECT 1 AS a, 2 AS a"}, source.CodeSchema},
		{"untyped NULL", s.addr, source.Options{Query: "SELECT NULL AS n"}, source.CodeUnsupported},
		{"table and query", s.table("ok"), source.Options{Query: "SELECT 1"}, source.CodeAddress},
		{"neither", s.addr, source.Options{}, source.CodeAddress},
		{"columns option", s.table("ok"), source.Options{Columns: []source.Column{{Name: "id", Type: "int64"}}}, source.CodeOption},
		{"hash option", s.table("ok"), source.Options{HashContent: true}, source.CodeOption},
		{"unknown exclude", s.table("ok"), source.Options{Exclude: []string{"zz"}}, source.CodeNotFound},
		{"exclude all", s.table("ok"), source.Options{Exclude: []string{"id"}}, source.CodeSchema},
	}
	unknownDB := s.table("ok")
	unknownDB.Database, unknownDB.TableSchema = "pw_no_such_db", "pw_no_such_db"
	cases = append(cases, struct {
		name string
		a    Address
		opts source.Options
		code source.Code
	}{"unknown database", unknownDB, source.Options{}, source.CodeNotFound})
	for _, tc := range cases {
		src, err := OpenAddress(context.Background(), tc.a, tc.opts)
		if err == nil {
			src.Close()
			t.Errorf("%s: opened, want %s", tc.name, tc.code)
			continue
		}
		var se *source.Error
		if !errors.As(err, &se) || se.Code != tc.code {
			t.Errorf("%s: %v, want code %s", tc.name, err, tc.code)
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(fmt.Sprintf("%+v", err), secret) {
			t.Errorf("%s: message echoes the password: %v", tc.name, err)
		}
	}
	// The registered CodeAuth matches its sentinel.
	_, err := OpenAddress(context.Background(), badPass, source.Options{})
	if !errors.Is(err, ErrAuth) {
		t.Errorf("bad credentials: %v does not match ErrAuth", err)
	}
	// Excluding the unsupported column reads the rest.
	if _, _, ev, _ := openRead(t, s.table("g"), source.Options{Exclude: []string{"p"}}); ev.Coverage.Status != source.StatusComplete {
		t.Errorf("exclude unsupported: %+v", ev.Coverage)
	}
}

// TestNonTransactionalEngine records that the snapshot does not cover the
// table.
func TestNonTransactionalEngine(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE m (id INT) ENGINE=MyISAM", "INSERT INTO m VALUES (1)")
	_, _, ev, _ := openRead(t, s.table("m"), source.Options{})
	if ev.Consistency != ConsistencyNonTransactional || ev.Choices[len(ev.Choices)-1] != "engine=MyISAM" {
		t.Fatalf("evidence %+v", ev)
	}
}

// TestCancelledNext: a cancelled context stops the read, visibly.
func TestCancelledNext(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE c (id INT)", "INSERT INTO c VALUES (1), (2)")
	src, err := OpenAddress(context.Background(), s.table("c"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Next(ctx); source.CodeOf(err) != source.CodeIncomplete {
		t.Fatalf("cancelled Next: %v", err)
	}
	if c := src.Evidence().Coverage; c.Status == source.StatusComplete || c.Check() != nil {
		t.Fatalf("coverage %+v", c)
	}
}

// TestOddNamesAndSocket: identifiers with backticks, spaces and non-ASCII
// are quoted; the Unix socket address reads the same table.
func TestOddNamesAndSocket(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE `we``ird ü` (`a``b` INT PRIMARY KEY, `ü v` VARCHAR(3) CHARACTER SET latin1)",
		"INSERT INTO `we``ird ü` VALUES (1, 'äöü'), (2, NULL)")
	sc, cols, ev, pk := openRead(t, s.table("we`ird ü"), source.Options{})
	if sc.Field(0).Name != "a`b" || sc.Field(1).Name != "ü v" || len(pk) != 1 || pk[0] != "a`b" || ev.Coverage.Status != source.StatusComplete {
		t.Fatalf("schema %v pk %v coverage %+v", sc, pk, ev.Coverage)
	}
	// A latin1 column arrives converted to UTF-8.
	if v := cols[1].(*array.String); v.Value(0) != "äöü" || !v.IsNull(1) {
		t.Fatalf("latin1 text %v", v)
	}
	var sock string
	if err := s.admin.QueryRow("SELECT @@socket").Scan(&sock); err != nil || sock == "" {
		testenv.Missing(t, testenv.Services, "the server reports no socket: %v", err)
	}
	a := s.table("we`ird ü")
	a.Host, a.Port, a.Socket = "", 0, sock
	src, err := OpenAddress(context.Background(), a, source.Options{})
	if err != nil {
		if s.addr.Host != "127.0.0.1" && s.addr.Host != "localhost" {
			testenv.Missing(t, testenv.Services, "a local server (the socket %s belongs to another host): %v", sock, err)
		}
		t.Fatalf("socket: %v", err)
	}
	cols2, ev2 := readAll(t, src)
	src.Close()
	if cols2[0].Len() != 2 || !strings.HasPrefix(ev2.Namespace, "mysql://unix(") {
		t.Fatalf("socket read %d rows, namespace %q", cols2[0].Len(), ev2.Namespace)
	}
}

func TestOpenSourceNilOnError(t *testing.T) {
	src, err := OpenSource(context.Background(), "mysql://u@h/d", source.Options{})
	if src != nil || source.CodeOf(err) != source.CodeAddress {
		t.Fatalf("OpenSource: %v, %v", src, err)
	}
}

// TestInvisibleColumnsAndViews: INVISIBLE columns are read (no implicit
// exclusion); a view reads with engine "view" and no primary key.
func TestInvisibleColumnsAndViews(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE inv (id INT PRIMARY KEY, secret INT INVISIBLE DEFAULT 42)", "INSERT INTO inv (id) VALUES (1), (2)",
		"CREATE VIEW v AS SELECT id, id * 10 AS d FROM inv")
	sc, cols, ev, _ := openRead(t, s.table("inv"), source.Options{})
	if sc.NumFields() != 2 || sc.Field(1).Name != "secret" || cols[1].(*array.Int32).Value(1) != 42 || ev.Coverage.Status != source.StatusComplete {
		t.Fatalf("invisible column: %v %v %+v", sc, cols, ev.Coverage)
	}
	sc, cols, ev, pk := openRead(t, s.table("v"), source.Options{})
	if pk != nil || sc.Field(1).Type.String() != "int64" || cols[1].(*array.Int64).Value(1) != 20 ||
		ev.Consistency != ConsistencySnapshot || ev.Choices[len(ev.Choices)-1] != "engine=view" || ev.Coverage.Expected != 2 {
		t.Fatalf("view: %v pk %v evidence %+v", sc, pk, ev)
	}
}
