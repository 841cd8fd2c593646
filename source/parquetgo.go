package source

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/parquet-go/parquet-go"
)

// The Parquet reader is chosen per file at open (see doc.go, "Parquet and
// Arrow IPC"). ParquetReaderEnv overrides the choice for the whole process,
// for measurements and for checking one reader against the other:
//
//	""/"auto"    parquet-go when every kept column is in its scope, else pqarrow
//	"pqarrow"    always pqarrow
//	"parquet-go" parquet-go, or PW_SOURCE_UNSUPPORTED when the file is out of its scope
//
// The reader that read a file is the evidence choice "reader=parquet-go" or
// "reader=pqarrow". Both readers return the same schema and, value for value
// and bit for bit, the same columns (parquetgo_test.go proves it on random
// files); only the batch boundaries may differ.
const ParquetReaderEnv = "PIPEWHY_PARQUET_READER"

const (
	choiceReaderPQGo    = "reader=parquet-go"
	choiceReaderPQArrow = "reader=pqarrow"
)

// pgKind is how the fast path stores one column: the parquet-go value kind
// it reads and the Arrow layout it builds.
type pgKind uint8

const (
	pgBool     pgKind = iota + 1
	pgInt8            // INT32 narrowed to 8 bits (int8, uint8)
	pgInt16           // INT32 narrowed to 16 bits (int16, uint16)
	pgInt32           // INT32 as is (int32, uint32, date32)
	pgInt64           // INT64 as is (int64, uint64, timestamp)
	pgFloat32         // FLOAT
	pgFloat64         // DOUBLE
	pgBytes           // BYTE_ARRAY with 32-bit offsets (binary, string)
	pgLarge           // BYTE_ARRAY with 64-bit offsets (large_binary, large_string)
	pgDec32           // INT32 decimal as decimal128 (sign-extended)
	pgDec64           // INT64 decimal as decimal128 (sign-extended)
	pgDecFixed        // FIXED_LEN_BYTE_ARRAY(1..16) decimal as decimal128 (big-endian, sign-extended)
)

// pgCol is one kept column of the fast path.
type pgCol struct {
	leaf     int // Parquet leaf column index
	kind     pgKind
	optional bool // max definition level 1 (else 0: required)
	size     int  // FIXED_LEN_BYTE_ARRAY length (pgDecFixed)
}

// parquetGoKind returns how the fast path reads a flat Parquet leaf of
// physical type phys and logical type lt into the Arrow type t that pqarrow
// derived for it, or false when the pair is outside the fast path's scope.
// Every accepted pair is one where pqarrow copies the stored value (or
// narrows an INT32 with Go's conversion), so the two readers agree bit for
// bit; anything pqarrow converts (a timestamp unit other than the stored one,
// date64, decimals, durations, INT96, dictionaries, float16) is left to it.
func parquetGoKind(phys pq.Type, lt schema.LogicalType, t arrow.DataType, typeLen int) (pgKind, bool) {
	_, none := lt.(schema.NoLogicalType)
	if dl, ok := lt.(schema.DecimalLogicalType); ok {
		// pqarrow sign-extends the stored integer or big-endian bytes into
		// 128 bits (decimal128.FromI64, bigEndianToDecimal128).
		dt, is128 := t.(*arrow.Decimal128Type)
		if !is128 || dt.Precision != dl.Precision() || dt.Scale != dl.Scale() {
			return 0, false
		}
		switch phys {
		case pq.Types.Int32:
			return pgDec32, true
		case pq.Types.Int64:
			return pgDec64, true
		case pq.Types.FixedLenByteArray:
			return pgDecFixed, typeLen >= 1 && typeLen <= 16
		}
		return 0, false
	}
	switch phys {
	case pq.Types.Boolean:
		return pgBool, none && t.ID() == arrow.BOOL
	case pq.Types.Int32:
		if _, ok := lt.(schema.DateLogicalType); ok {
			return pgInt32, t.ID() == arrow.DATE32
		}
		width, signed := int8(32), true
		if il, ok := lt.(schema.IntLogicalType); ok {
			width, signed = il.BitWidth(), il.IsSigned()
		} else if !none {
			return 0, false
		}
		want := map[[2]int8]arrow.Type{{8, 1}: arrow.INT8, {16, 1}: arrow.INT16, {32, 1}: arrow.INT32,
			{8, 0}: arrow.UINT8, {16, 0}: arrow.UINT16, {32, 0}: arrow.UINT32}[[2]int8{width, b2i(signed)}]
		if want == 0 || t.ID() != want {
			return 0, false
		}
		switch width {
		case 8:
			return pgInt8, true
		case 16:
			return pgInt16, true
		}
		return pgInt32, true
	case pq.Types.Int64:
		if ts, ok := lt.(schema.TimestampLogicalType); ok {
			at, isTS := t.(*arrow.TimestampType)
			if !isTS {
				return 0, false
			}
			unit := map[schema.TimeUnitType]arrow.TimeUnit{schema.TimeUnitMillis: arrow.Millisecond,
				schema.TimeUnitMicros: arrow.Microsecond, schema.TimeUnitNanos: arrow.Nanosecond}
			u, known := unit[ts.TimeUnit()]
			return pgInt64, known && at.Unit == u
		}
		width, signed := int8(64), true
		if il, ok := lt.(schema.IntLogicalType); ok {
			width, signed = il.BitWidth(), il.IsSigned()
		} else if !none {
			return 0, false
		}
		if width != 64 {
			return 0, false
		}
		return pgInt64, (signed && t.ID() == arrow.INT64) || (!signed && t.ID() == arrow.UINT64)
	case pq.Types.Float:
		return pgFloat32, none && t.ID() == arrow.FLOAT32
	case pq.Types.Double:
		return pgFloat64, none && t.ID() == arrow.FLOAT64
	case pq.Types.ByteArray:
		if _, isString := lt.(schema.StringLogicalType); !none && !isString {
			return 0, false // enum, JSON, BSON...: left to pqarrow
		}
		switch t.ID() {
		case arrow.STRING, arrow.BINARY:
			return pgBytes, true
		case arrow.LARGE_STRING, arrow.LARGE_BINARY:
			return pgLarge, true
		}
	}
	return 0, false
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// errOutOfScope explains why a file is left to pqarrow (used in tests and
// with ParquetReaderEnv=parquet-go; never shown with user values).
var errOutOfScope = errors.New("outside the parquet-go reader's scope")

// planParquetGo returns the fast path's columns for the kept fields of the
// file, or an error wrapping errOutOfScope.
func planParquetGo(pr *file.Reader, fr *pqarrow.FileReader, schema *arrow.Schema, keep []int) ([]pgCol, error) {
	if len(keep) == 0 {
		return nil, fmt.Errorf("%w: no columns kept", errOutOfScope)
	}
	cols := make([]pgCol, len(keep))
	for i, k := range keep {
		sf := &fr.Manifest.Fields[k]
		if !sf.IsLeaf() {
			return nil, fmt.Errorf("%w: column %d is nested", errOutOfScope, i+1)
		}
		c := pr.MetaData().Schema.Column(sf.ColIndex)
		if c.MaxRepetitionLevel() != 0 || c.MaxDefinitionLevel() > 1 {
			return nil, fmt.Errorf("%w: column %d is repeated or nested", errOutOfScope, i+1)
		}
		kind, ok := parquetGoKind(c.PhysicalType(), c.LogicalType(), schema.Field(i).Type, c.TypeLength())
		if !ok {
			return nil, fmt.Errorf("%w: column %d is %s/%s read as %s", errOutOfScope, i+1, c.PhysicalType(), c.LogicalType(), schema.Field(i).Type)
		}
		cols[i] = pgCol{leaf: sf.ColIndex, kind: kind, optional: c.MaxDefinitionLevel() == 1, size: c.TypeLength()}
	}
	// Encodings: the chunk metadata lists every encoding of its pages.
	for g := 0; g < pr.NumRowGroups(); g++ {
		rg := pr.MetaData().RowGroup(g)
		for _, c := range cols {
			cc, err := rg.ColumnChunk(c.leaf)
			if err != nil {
				return nil, fmt.Errorf("%w: row group %d: %w", errOutOfScope, g+1, err)
			}
			if !pgCodecs[cc.Compression()] {
				return nil, fmt.Errorf("%w: compression %s", errOutOfScope, cc.Compression())
			}
			if cc.Compression() != compress.Codecs.Uncompressed && cc.TotalUncompressedSize() <= 0 && rg.NumRows() > 0 {
				// checkPages bounds the pages' uncompressed sizes by the chunk's
				// total; DuckDB's writer of 2021 wrote 0 there (boolean_stats.parquet in
				// DuckDB's data/parquet-testing), which no valid compressed chunk
				// with rows has. pqarrow reads such chunks, bounding each page itself.
				return nil, fmt.Errorf("%w: row group %d column %d records no uncompressed size", errOutOfScope, g+1, c.leaf+1)
			}
			for _, e := range cc.Encodings() {
				if !pgEncodings[e] {
					return nil, fmt.Errorf("%w: encoding %s", errOutOfScope, e)
				}
			}
		}
	}
	return cols, nil
}

// pgEncodings are the page encodings the fast path reads. DELTA_BINARY_PACKED
// and the byte-array encodings built on it (DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY) are left to pqarrow: parquet-go v0.32.0 rejects blocks
// that arrow-go writes ("invalid block size is not a multiple of 128"), and
// arrow-go v18.8.0 cannot read back some of its own ("cannot have zero values
// per block"), so the two readers would not fail alike.
// pgCodecs are the compression codecs the fast path reads. LZ4_RAW is left
// to pqarrow: parquet-go v0.32.0 decodes some of arrow-go's LZ4_RAW pages to
// other values (found by TestParquetGoDifferential); LZ4 (Hadoop framing)
// differs between writers; BROTLI is left to pqarrow so that a file pqarrow
// cannot decompress (arrow-go v18.8.0 fails on some of its own Brotli pages)
// fails the same way as before.
var pgCodecs = map[compress.Compression]bool{
	compress.Codecs.Uncompressed: true, compress.Codecs.Snappy: true, compress.Codecs.Gzip: true,
	compress.Codecs.Zstd: true,
}

var pgEncodings = map[pq.Encoding]bool{
	pq.Encodings.Plain: true, pq.Encodings.PlainDict: true, pq.Encodings.RLEDict: true,
	pq.Encodings.RLE: true, pq.Encodings.BitPacked: true, pq.Encodings.ByteStreamSplit: true,
}

// parquetGoSource reads a flat Parquet file with parquet-go's page API and
// builds the Arrow columns itself: one row group is decoded at a time (all
// kept columns, into Go buffers), and handed out in batches of at most
// Options.BatchSize rows that never span row groups. The batches share the
// row group's value memory instead of copying it; that memory is decoded
// into again only after every batch over it has been released (groupMem), so
// a batch the caller holds never sees a later row group's values.
type parquetGoSource struct {
	fileBase
	pf     *parquet.File
	pr     *file.Reader // arrow-go's view of the same footer (metadata only)
	groups []parquet.RowGroup
	cols   []pgCol
	pool   groupPool
	cur    *groupMem // the decoded row group batches are cut from; nil before the first
	size   int64     // file size at open (checkPages bounds page extents by it)
	g      int       // next row group to decode
	pos, n int       // next row and row count of the decoded row group

	// pre delivers row group g decoded ahead on its own goroutine while the
	// caller consumes the batches of the one before (nil: none in flight);
	// preCancel stops its wait for row group memory (Close).
	pre       chan decodedGroup
	preCancel context.CancelFunc
}

// aheadMaxRows bounds the row groups decoded ahead. A small row group (DuckDB
// writes 122,880 rows) decodes in a short phase that decoding ahead hides; a
// large one (bench/gen's 1 M rows) already keeps the cores busy decoding its
// columns, and a second one in memory costs more in fresh pages than the
// overlap gains (dataset scan of bench/gen's 10 M rows: 1.24–1.30 CPU s
// decoding ahead against 1.18, RSS 220 MiB against 160).
const aheadMaxRows = 1 << 18

// decodedGroup is a row group decoded by decodeInto: its memory and rows, or
// the pool's error (waiting for memory was cancelled) or the decode's.
type decodedGroup struct {
	mem     *groupMem
	n       int
	poolErr error
	err     error
}

// openParquetGo opens the fast path over the file f that arrow-go has already
// parsed (pr, fr, and the adapter schema with its kept columns). It returns
// an error wrapping errOutOfScope when the file is not one it reads exactly;
// the caller then uses pqarrow. It reads no data pages.
func openParquetGo(base fileBase, f *os.File, pr *file.Reader, fr *pqarrow.FileReader, keep []int) (_ *parquetGoSource, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: parquet-go failed on the footer (recovered panic)", errOutOfScope)
		}
	}()
	cols, err := planParquetGo(pr, fr, base.schema, keep)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errOutOfScope, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("%w: parquet-go cannot open it: %w", errOutOfScope, err)
	}
	// Both libraries must see the same leaves, in the same order, with the
	// same physical types and levels, and the same row counts. leaves are
	// parquet-go's top-level columns: equal in number to arrow-go's leaves
	// only when every column is flat (a file with a nested column, even an
	// excluded one, is left to pqarrow).
	leaves := pf.Root().Columns()
	if len(leaves) != pr.MetaData().Schema.NumColumns() || pf.NumRows() != pr.NumRows() {
		return nil, fmt.Errorf("%w: parquet-go sees another schema", errOutOfScope)
	}
	for _, c := range cols {
		lc, ac := leaves[c.leaf], pr.MetaData().Schema.Column(c.leaf)
		if !lc.Leaf() || lc.Index() != c.leaf || lc.Name() != ac.Name() ||
			lc.MaxDefinitionLevel() != int(ac.MaxDefinitionLevel()) || lc.MaxRepetitionLevel() != 0 ||
			int(lc.Type().Kind()) != int(ac.PhysicalType()) {
			return nil, fmt.Errorf("%w: parquet-go sees column %q differently", errOutOfScope, ac.Name())
		}
	}
	groups := pf.RowGroups()
	var rows int64
	for _, g := range groups {
		if g.NumRows() < 0 || len(g.ColumnChunks()) != len(leaves) {
			return nil, fmt.Errorf("%w: parquet-go sees another row group layout", errOutOfScope)
		}
		if g.NumRows() > maxParquetGoGroupRows {
			// This reader decodes a whole row group at once; pqarrow streams it in
			// batches, so very large (or implausibly counted) row groups go there.
			return nil, fmt.Errorf("%w: a row group of %d rows (more than %d)", errOutOfScope, g.NumRows(), maxParquetGoGroupRows)
		}
		rows += g.NumRows()
	}
	if len(groups) != pr.NumRowGroups() || rows != pr.NumRows() {
		return nil, fmt.Errorf("%w: parquet-go sees other row groups", errOutOfScope)
	}
	s := &parquetGoSource{fileBase: base, pf: pf, pr: pr, groups: groups, cols: cols, pool: newGroupPool(len(cols)), size: st.Size()}
	s.keep = nil // records are built with the adapter schema directly
	s.ev.Choices = append(s.ev.Choices, choiceReaderPQGo)
	return s, nil
}

func (s *parquetGoSource) Next(ctx context.Context) (rec arrow.RecordBatch, err error) {
	const op = "parquet next"
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		s.stop = &Error{Code: CodeIncomplete, Op: op, Source: s.a.String(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	defer func() {
		if r := recover(); r != nil {
			rec = nil
			err = s.fatal(&Error{Code: CodeCorrupt, Op: op, Source: s.a.String(), Msg: "the reader failed on malformed input (recovered panic)"})
		}
	}()
	for s.pos >= s.n {
		if s.g >= len(s.groups) {
			s.t.Done = true
			checkUnchanged(&s.t, s.f, s.before)
			return nil, io.EOF
		}
		if s.cur != nil {
			s.cur.release() // the batches cut from it hold their own references
			s.cur = nil
		}
		var d decodedGroup
		if s.pre != nil {
			select {
			case d = <-s.pre:
			case <-ctx.Done():
				// The row group decoded ahead may be waiting for memory
				// under an earlier call's context: stop it, as a wait of
				// this call would have stopped.
				s.preCancel()
				if d = <-s.pre; d.mem != nil {
					d.mem.release()
				}
				d = decodedGroup{poolErr: ctx.Err()}
			}
			s.preCancel()
			s.pre, s.preCancel = nil, nil
		} else {
			d = s.decodeInto(ctx, s.g, 1)
		}
		if d.poolErr != nil {
			s.stop = &Error{Code: CodeIncomplete, Op: op, Source: s.a.String(), Msg: "cancelled while waiting for earlier batches to be released", Err: d.poolErr}
			return nil, s.stop
		}
		if d.err != nil {
			d.mem.release()
			return nil, s.fatal(&Error{Code: CodeCorrupt, Op: op, Source: s.a.String(), Msg: fmt.Sprintf("cannot decode column data of row group %d", s.g+1), Err: d.err})
		}
		s.cur, s.pos, s.n = d.mem, 0, d.n
		s.g++
		if s.g < len(s.groups) && s.groups[s.g].NumRows() <= aheadMaxRows {
			// Decode the next row group while the caller consumes this one's
			// batches: otherwise every row group's decoding is a phase in which
			// the caller's goroutines wait, and its consumption one in which
			// the reader does.
			pctx, cancel := context.WithCancel(ctx)
			ch, g := make(chan decodedGroup, 1), s.g
			s.pre, s.preCancel = ch, cancel
			go func() { ch <- s.decodeInto(pctx, g, 2) }()
		}
	}
	lo, hi := s.pos, min(s.pos+s.opts.BatchSize, s.n)
	cols := make([]arrow.Array, len(s.cols))
	for i := range s.cols {
		a, err := s.cur.bufs[i].array(s.cur, s.schema.Field(i).Type, s.cols[i].kind, lo, hi)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, s.fatal(&Error{Code: CodeUnsupported, Op: op, Source: s.a.String(), Msg: fmt.Sprintf("column %q: %v", s.schema.Field(i).Name, err)})
		}
		cols[i] = a
	}
	s.pos = hi
	out := newRecord(s.schema, cols, int64(hi-lo))
	return s.screen(out)
}

// decodeInto decodes row group g into row group memory from the pool (with
// Options.ReleasedPromptly, once most row groups' memory exist, waiting for
// one to be released, until ctx ends: one on the caller's goroutine, two
// decoding ahead). It runs on the caller's goroutine or, decoding ahead, on
// its own: a panic of the decoder is an error either way.
func (s *parquetGoSource) decodeInto(ctx context.Context, g, most int) (d decodedGroup) {
	mem, err := s.pool.get(ctx, s.opts.ReleasedPromptly, most)
	if err != nil {
		return decodedGroup{poolErr: err}
	}
	defer func() {
		if r := recover(); r != nil {
			d = decodedGroup{mem: mem, err: errors.New("the reader failed on malformed input (recovered panic)")}
		}
	}()
	n, err := s.decodeGroup(g, mem)
	return decodedGroup{mem: mem, n: n, err: err}
}

// decodeGroup decodes every kept column of row group g into mem, row group
// memory that no batch refers to, and returns its rows. The columns decode on
// up to GOMAXPROCS goroutines: a whole row group decodes before its first
// batch exists, and decoding it on one core while the caller's goroutines
// wait for batches would leave the other cores idle. The error is that of the
// first failing column.
func (s *parquetGoSource) decodeGroup(g int, mem *groupMem) (int, error) {
	n := s.groups[g].NumRows()
	if n < 0 || n > maxGroupRows {
		return 0, fmt.Errorf("row group of %d rows", n)
	}
	errs := make([]error, len(s.cols))
	order := s.largestFirst(g)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(s.cols)) {
		wg.Go(func() {
			var hdr []byte // checkPages' scratch
			for k := int(next.Add(1) - 1); k < len(order); k = int(next.Add(1) - 1) {
				i := order[k]
				errs[i] = s.decodeColumn(g, i, int(n), mem, &hdr)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return 0, fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return int(n), nil
}

// largestFirst returns the kept columns' indexes by decreasing uncompressed
// size of their chunks in row group g (the footer's figures; ties in column
// order), the order in which decodeGroup's goroutines take them: the largest
// column taken last would decode alone while the other cores wait for the row
// group (entropy.parquet of bench/algorithms.sh, whose text column is twice the
// others: dataset scan 6-10 % less wall time).
func (s *parquetGoSource) largestFirst(g int) []int {
	order := make([]int, len(s.cols))
	size := make([]int64, len(s.cols))
	meta := s.pf.Metadata().RowGroups[g].Columns
	for i, c := range s.cols {
		order[i] = i
		if c.leaf < len(meta) {
			size[i] = meta[c.leaf].MetaData.TotalUncompressedSize
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	return order
}

// decodeColumn decodes kept column i of row group g (n rows) into mem; a
// panic of parquet-go on malformed input is an error.
func (s *parquetGoSource) decodeColumn(g, i, n int, mem *groupMem, hdr *[]byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("the reader failed on malformed input (recovered panic)")
		}
	}()
	c := s.cols[i]
	chunks := s.groups[g].ColumnChunks()
	meta := s.pf.Metadata().RowGroups[g].Columns // the chunks' metadata, as parquet-go reads it
	if c.leaf >= len(chunks) || c.leaf >= len(meta) {
		return fmt.Errorf("row group without column %d", c.leaf+1)
	}
	// Page headers are checked against the file and the footer before
	// parquet-go sizes anything by them (see checkPages).
	if err := checkPages(s.f, s.size, &meta[c.leaf].MetaData, c, n, hdr); err != nil {
		return err
	}
	// The chunk's uncompressed size presizes a byte-array column's data
	// (a hint only: append grows it when dictionaries expand it).
	var hint int64
	if cc, err := s.pr.MetaData().RowGroup(g).ColumnChunk(c.leaf); err == nil {
		hint = cc.TotalUncompressedSize()
	}
	return mem.bufs[i].decode(chunks[c.leaf], c, n, hint)
}

func (s *parquetGoSource) Close() error {
	if s.pre != nil {
		// The row group decoded ahead: stop its wait for memory, let it
		// finish (it reads the file) and drop it.
		s.preCancel()
		if d := <-s.pre; d.mem != nil {
			d.mem.release()
		}
		s.pre, s.preCancel = nil, nil
	}
	if s.cur != nil {
		s.cur.release()
		s.cur = nil
	}
	s.pool.close()
	s.groups, s.pf, s.pr = nil, nil, nil
	return s.closeFile("parquet close")
}

// chooseParquetReader decides, at open, which reader reads the file that
// openParquet has parsed into s (pqarrow's state, before its record reader
// exists). It returns the parquet-go source, or nil with s's evidence
// recording pqarrow, or an error when ParquetReaderEnv demands parquet-go
// for a file outside its scope.
// maxParquetGoGroupRows bounds the row groups the parquet-go reader takes: it holds a
// decoded row group and the next in memory (about 16 M rows of a few columns is a few hundred MB).
// A variable so that tests can lower it.
var maxParquetGoGroupRows int64 = 1 << 24

func chooseParquetReader(s *parquetSource, pr *file.Reader, fr *pqarrow.FileReader, keep []int) (Source, error) {
	mode := os.Getenv(ParquetReaderEnv)
	switch mode {
	case "", "auto", "parquet-go":
		fast, err := openParquetGo(s.fileBase, s.f, pr, fr, keep)
		if err == nil {
			return fast, nil
		}
		if mode == "parquet-go" {
			return nil, &Error{Code: CodeUnsupported, Op: "parquet open", Source: s.a.String(), Msg: ParquetReaderEnv + "=parquet-go but the file cannot be read with it", Err: err}
		}
	case "pqarrow":
	default:
		return nil, &Error{Code: CodeOption, Op: "parquet open", Source: s.a.String(), Msg: ParquetReaderEnv + " must be auto, pqarrow or parquet-go"}
	}
	s.ev.Choices = append(s.ev.Choices, choiceReaderPQArrow)
	return nil, nil
}
