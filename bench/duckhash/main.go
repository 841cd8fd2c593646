//go:build duckdb_arrow

// Command duckhash is the in-process baseline and helper of bench/scan.sh. It
// needs cgo and the build tag duckdb_arrow:
//
//	go build -tags duckdb_arrow -o duckhash ./bench/duckhash
//
//	duckhash hash    FILE.parquet      DuckDB: SELECT count(*), sum(hash(id,qty,price,name,"at")) over the file
//	duckhash entropy ROWS FILE.parquet DuckDB writes FILE (COPY … TO, default settings): ROWS rows of
//	                                   the five columns of bench/gen's file with high-entropy values (random
//	                                   int64 id and qty, random double price, random 8–16-character name,
//	                                   random timestamp at)
//	duckhash mkview  FILE.parquet DB   writes DB, a DuckDB database with view v = SELECT * FROM read_parquet(FILE)
//	duckhash drain   READER FILE.parquet
//	                                   the reader alone: every value read and added to a checksum
//	                                   (bench/pqgo.Sum, the same work for every reader), printed as
//	                                   check=...; the readers must agree on it. TOUCH=0: batches or
//	                                   pages are read and released untouched (check= then only counts
//	                                   rows; parquet-go-arrow and parquet-go-rows always touch).
//	                                   READER:
//	                                   duckdb       source/duckdb, read_parquet (DuckDB's vectors decoded into Arrow)
//	                                   source       package source's Parquet adapter as it chooses (parquet-go when exact, else pqarrow;
//	                                                PIPEWHY_PARQUET_READER=pqarrow forces arrow-go's reader); alias pqarrow
//	                                   pqarrow-raw  pqarrow directly, same settings, without the adapter's checks
//	                                   pqarrow-par  pqarrow directly with ArrowReadProperties.Parallel (columns in parallel)
//	                                   pqarrow-rg   pqarrow directly, GOMAXPROCS goroutines on disjoint row groups
//	                                   parquet-go       github.com/parquet-go/parquet-go's page API (pages, typed values), one goroutine
//	                                   parquet-go-rg    the same, GOMAXPROCS goroutines on disjoint row groups
//	                                   parquet-go-arrow parquet-go's pages built into one Arrow record per row group,
//	                                                    then touched as the pqarrow records are (what an adapter would add)
//	                                   parquet-go-arrow-rg  the same, GOMAXPROCS goroutines on disjoint row groups
//	                                   parquet-go-rows  parquet-go's GenericReader, row by row into structs
//	duckhash observe ADDR PROF [RES [KEY]]
//	                                   scan.Observe of a source address (no publish) at resolution RES
//	                                   (default dataset; KEY a key column) with a CPU profile to PROF;
//	                                   $BATCH sets the source's batch size (rows)
//
// Each mode prints one line: the mode, rows, wall seconds, process CPU seconds
// (user+sys from getrusage) and, for hash, DuckDB's sum as text; for drain, the
// reader and its checksum (check=, equal for every reader of one file). DuckDB runs
// with its default thread count (one per core), as pipewhy does with GOMAXPROCS.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pqfile "github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/pipewhy/pipewhy/bench/pqgo"
	"github.com/pipewhy/pipewhy/internal/cputime"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/duckdb"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: duckhash hash FILE | mkview FILE DB | drain READER FILE | observe ADDR PROF [RES [KEY]]")
		os.Exit(2)
	}
	start, cpu0 := time.Now(), cputime.Process().Seconds()
	var rows int64
	var extra string
	var err error
	switch os.Args[1] {
	case "hash":
		rows, extra, err = hash(os.Args[2])
	case "hash-csv": // bench/duckhash/csv.go
		rows, extra, err = hashCSV(os.Args[2])
	case "entropy":
		if len(os.Args) != 4 {
			err = errors.New("entropy ROWS FILE")
			break
		}
		rows, err = entropy(os.Args[2], os.Args[3])
	case "mkview":
		if len(os.Args) != 4 {
			err = errors.New("mkview FILE DB")
			break
		}
		err = mkview(os.Args[2], os.Args[3])
	case "drain":
		if len(os.Args) != 4 {
			err = errors.New("drain READER FILE")
			break
		}
		rows, extra, err = drain(os.Args[2], os.Args[3])
		extra = "reader=" + os.Args[2] + " " + extra
	case "observe":
		if len(os.Args) < 4 || len(os.Args) > 6 {
			err = errors.New("observe ADDR PROF [RES [KEY]]")
			break
		}
		res, key := "dataset", []string(nil)
		if len(os.Args) > 4 {
			res = os.Args[4]
		}
		if len(os.Args) > 5 {
			key = []string{os.Args[5]}
		}
		rows, extra, err = observe(os.Args[2], os.Args[3], snapshot.Resolution(res), key)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "duckhash:", err)
		os.Exit(1)
	}
	fmt.Printf("%s rows=%d wall_s=%.3f cpu_s=%.3f %s\n", strings.Join(os.Args[1:2], ""), rows,
		time.Since(start).Seconds(), cputime.Process().Seconds()-cpu0, extra)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// openDB opens path (":memory:" or a file) with no extension loading.
func openDB(path string) (bindings.Database, bindings.Connection, error) {
	var db bindings.Database
	var conn bindings.Connection
	var cfg bindings.Config
	if bindings.CreateConfig(&cfg) == bindings.StateError {
		return db, conn, errors.New("create config")
	}
	defer bindings.DestroyConfig(&cfg)
	for _, kv := range [][2]string{{"autoinstall_known_extensions", "false"}, {"autoload_known_extensions", "false"}} {
		if bindings.SetConfig(cfg, kv[0], kv[1]) == bindings.StateError {
			return db, conn, errors.New("set config " + kv[0])
		}
	}
	var msg string
	if bindings.OpenExt(path, &db, cfg, &msg) == bindings.StateError {
		return db, conn, errors.New("open: " + msg)
	}
	if bindings.Connect(db, &conn) == bindings.StateError {
		bindings.Close(&db)
		return db, conn, errors.New("connect")
	}
	return db, conn, nil
}

// query runs q and returns its rows as text (every column must be VARCHAR).
func query(conn bindings.Connection, q string) ([][]string, error) {
	var res bindings.Result
	defer bindings.DestroyResult(&res)
	if bindings.Query(conn, q, &res) == bindings.StateError {
		return nil, errors.New(bindings.ResultError(&res))
	}
	opts := bindings.ResultGetArrowOptions(&res)
	defer bindings.DestroyArrowOptions(&opts)
	cc := int(bindings.ColumnCount(&res))
	lt := make([]bindings.LogicalType, cc)
	names := make([]string, cc)
	for i := range lt {
		lt[i] = bindings.ColumnLogicalType(&res, bindings.IdxT(i))
		names[i] = bindings.ColumnName(&res, bindings.IdxT(i))
	}
	defer func() {
		for i := range lt {
			bindings.DestroyLogicalType(&lt[i])
		}
	}()
	sc, ed := bindings.NewArrowSchema(opts, lt, names)
	if err := errorData(ed); err != nil {
		return nil, err
	}
	var out [][]string
	for {
		chunk := bindings.FetchChunk(res)
		if chunk.Ptr == nil {
			break
		}
		// The record may point into the chunk (VARCHAR data): destroy the chunk only
		// after the values are copied out.
		rec, ed := bindings.DataChunkToArrowArray(opts, sc, chunk)
		if err := errorData(ed); err != nil {
			bindings.DestroyDataChunk(&chunk)
			return nil, err
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, cc)
			for c := range cc {
				s, ok := rec.Column(c).(*array.String)
				if !ok {
					err := fmt.Errorf("column %d is %s, not VARCHAR", c, rec.Column(c).DataType())
					rec.Release()
					bindings.DestroyDataChunk(&chunk)
					return nil, err
				}
				row[c] = strings.Clone(s.Value(r)) // the value aliases the chunk's memory
			}
			out = append(out, row)
		}
		rec.Release()
		bindings.DestroyDataChunk(&chunk)
	}
	if msg := bindings.ResultError(&res); msg != "" {
		return nil, errors.New(msg)
	}
	return out, nil
}

// errorData turns an ErrorData into an error and destroys it.
func errorData(ed bindings.ErrorData) error {
	defer bindings.DestroyErrorData(&ed)
	if ed.Ptr == nil || !bindings.ErrorDataHasError(ed) {
		return nil
	}
	return errors.New(bindings.ErrorDataMessage(ed))
}

// hash is the baseline of the issue: DuckDB hashing every value of every row and
// summing the hashes (sum of UBIGINT is HUGEINT, read back as text).
func hash(file string) (int64, string, error) {
	return hashFrom(`read_parquet(` + quote(file) + `)`)
}

// hashFrom counts the rows of the table expression from and sums the DuckDB hashes of
// their five columns, returning the count and "sum=S threads=T".
func hashFrom(from string) (int64, string, error) {
	db, conn, err := openDB(":memory:")
	if err != nil {
		return 0, "", err
	}
	defer bindings.Close(&db)
	defer bindings.Disconnect(&conn)
	rows, err := query(conn, `SELECT count(*)::VARCHAR, sum(hash(id, qty, price, name, "at"))::VARCHAR, current_setting('threads')::VARCHAR FROM `+from)
	if err != nil {
		return 0, "", err
	}
	if len(rows) != 1 {
		return 0, "", fmt.Errorf("%d result rows", len(rows))
	}
	n, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("count: %w", err)
	}
	return n, "sum=" + rows[0][1] + " threads=" + rows[0][2], nil
}

// entropy has DuckDB write a Parquet file as users' files are written, with values
// that neither dictionary nor run-length encoding compresses.
func entropy(rows, file string) (int64, error) {
	n, err := strconv.ParseInt(rows, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("ROWS %q", rows)
	}
	db, conn, err := openDB(":memory:")
	if err != nil {
		return 0, err
	}
	defer bindings.Close(&db)
	defer bindings.Disconnect(&conn)
	err = exec(conn, `COPY (SELECT
		(hash(i) >> 1)::BIGINT - 4611686018427387904 AS id,
		(hash(i, 1) >> 1)::BIGINT - 4611686018427387904 AS qty,
		random() * 1e6 AS price,
		substr(md5(i::VARCHAR), 1, 8 + (hash(i, 2) % 9)::INTEGER) AS name,
		TIMESTAMP '1970-01-01' + to_microseconds((hash(i, 3) % 4102444800000000)::BIGINT) AS "at"
		FROM range(`+strconv.FormatInt(n, 10)+`) t(i)) TO `+quote(file)+` (FORMAT parquet)`)
	return n, err
}

// exec runs one statement and discards its result.
func exec(conn bindings.Connection, q string) error {
	var res bindings.Result
	defer bindings.DestroyResult(&res)
	if bindings.Query(conn, q, &res) == bindings.StateError {
		return errors.New(bindings.ResultError(&res))
	}
	return nil
}

func mkview(file, db string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	d, conn, err := openDB(db)
	if err != nil {
		return err
	}
	defer bindings.Close(&d)
	defer bindings.Disconnect(&conn)
	_, err = query(conn, "CREATE OR REPLACE VIEW v AS SELECT * FROM read_parquet("+quote(abs)+")")
	return err
}

// touch is false when $TOUCH is 0: drain then reads and releases without
// reading the values.
func touch() bool { return os.Getenv("TOUCH") != "0" }

func drain(reader, file string) (int64, string, error) {
	ctx := context.Background()
	var src source.Source
	var err error
	switch reader {
	case "duckdb":
		abs, aerr := filepath.Abs(file)
		if aerr != nil {
			return 0, "", aerr
		}
		src, err = duckdb.Open(ctx, duckdb.Options{Path: duckdb.Memory, Query: "SELECT * FROM read_parquet(" + quote(abs) + ")"})
	case "source", "pqarrow":
		// Package source's Parquet reader, as it chooses for the file (parquet-go when
		// exact, else pqarrow; PIPEWHY_PARQUET_READER forces one). "pqarrow" is the
		// older name of this mode.
		src, err = source.Open(ctx, file, source.Options{})
	case "pqarrow-raw", "pqarrow-par", "pqarrow-rg":
		sum, err := drainRaw(ctx, reader, file)
		return sum.Rows, sum.String(), err
	case "parquet-go", "parquet-go-rg":
		workers := 1
		if reader == "parquet-go-rg" {
			workers = runtime.GOMAXPROCS(0)
		}
		var sum pqgo.Sum
		if touch() {
			sum, err = pqgo.Drain(file, workers)
		} else {
			sum, err = pqgo.DrainUntouched(file, workers)
		}
		return sum.Rows, sum.String(), err
	case "parquet-go-arrow", "parquet-go-arrow-rg":
		workers := 1
		if reader == "parquet-go-arrow-rg" {
			workers = runtime.GOMAXPROCS(0)
		}
		sum, err := pqgo.DrainArrow(file, workers)
		return sum.Rows, sum.String(), err
	case "parquet-go-rows":
		sum, err := pqgo.DrainRows(file)
		return sum.Rows, sum.String(), err
	default:
		return 0, "", fmt.Errorf("unknown reader %q", reader)
	}
	if err != nil {
		return 0, "", err
	}
	defer src.Close()
	var sum pqgo.Sum
	t := touch()
	for {
		rec, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			return sum.Rows, sum.String(), nil
		}
		if err != nil {
			return sum.Rows, "", err
		}
		if t {
			err = sum.AddRecord(rec)
		} else {
			sum.Rows += rec.NumRows()
		}
		rec.Release()
		if err != nil {
			return sum.Rows, "", err
		}
	}
}

// drainRaw reads file with pqarrow directly, in batches of 16384 rows (the adapter's
// default): one reader, one reader decoding columns in parallel, or one reader per
// goroutine over disjoint row groups.
func drainRaw(ctx context.Context, mode, file string) (pqgo.Sum, error) {
	open := func(parallel bool) (*pqarrow.FileReader, *os.File, error) {
		f, err := os.Open(file)
		if err != nil {
			return nil, nil, err
		}
		pr, err := pqfile.NewParquetReader(f)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 16384, Parallel: parallel}, memory.DefaultAllocator)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return fr, f, nil
	}
	t := touch()
	read := func(parallel bool, groups []int) (pqgo.Sum, error) {
		var sum pqgo.Sum
		fr, f, err := open(parallel)
		if err != nil {
			return sum, err
		}
		defer f.Close()
		rr, err := fr.GetRecordReader(ctx, nil, groups)
		if err != nil {
			return sum, err
		}
		defer rr.Release()
		for rr.Next() {
			if !t {
				sum.Rows += rr.RecordBatch().NumRows()
				continue
			}
			if err := sum.AddRecord(rr.RecordBatch()); err != nil {
				return sum, err
			}
		}
		if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return sum, err
		}
		return sum, nil
	}
	switch mode {
	case "pqarrow-raw":
		return read(false, nil)
	case "pqarrow-par":
		return read(true, nil)
	}
	fr, f, err := open(false)
	if err != nil {
		return pqgo.Sum{}, err
	}
	groups := fr.ParquetReader().NumRowGroups()
	f.Close()
	workers := runtime.GOMAXPROCS(0)
	sums := make([]pqgo.Sum, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		var mine []int
		for g := w; g < groups; g += workers {
			mine = append(mine, g)
		}
		if len(mine) == 0 {
			continue
		}
		wg.Go(func() { sums[w], errs[w] = read(false, mine) })
	}
	wg.Wait()
	return pqgo.MergeAll(pqgo.Sum{}, sums, errs)
}

// batchSize is $BATCH (rows per source batch; 0 or unset: the adapter's default).
func batchSize() int {
	n, _ := strconv.Atoi(os.Getenv("BATCH"))
	return n
}

// observe runs the scan path without publishing, under the CPU profiler: the
// profiles that bench/profile-scan.md reads.
func observe(addr, prof string, resolution snapshot.Resolution, key []string) (int64, string, error) {
	dir, err := os.MkdirTemp("", "duckhash-observe")
	if err != nil {
		return 0, "", err
	}
	defer os.RemoveAll(dir)
	reg, err := source.OpenRegistry(filepath.Join(dir, "registry.json"))
	if err != nil {
		return 0, "", err
	}
	pf, err := os.Create(prof)
	if err != nil {
		return 0, "", err
	}
	defer pf.Close()
	if err := pprof.StartCPUProfile(pf); err != nil {
		return 0, "", err
	}
	res, err := scan.Observe(context.Background(), reg, scan.Options{Address: addr, Resolution: resolution, Key: key, Profile: normalize.StrictV1,
		Source: source.Options{BatchSize: batchSize()}})
	pprof.StopCPUProfile()
	if err != nil {
		return 0, "", err
	}
	return int64(res.Scan.State.Count()), "", nil
}
