package canonical

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Batches is a re-iterable sequence of record batches. The streaming methods iterate it
// twice (a sizing pass, then an encoding pass), so it must yield the same batches each
// time; a non-nil error ends the sequence.
type Batches = iter.Seq2[arrow.RecordBatch, error]

// Records returns the Batches of an in-memory list of record batches.
func Records(recs ...arrow.RecordBatch) Batches {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// chunkSize is how many encoded bytes are buffered before they are written to the hash.
const chunkSize = 64 << 10

// Encoder canonicalises tables of one Arrow schema. It is not safe for concurrent use.
type Encoder struct {
	schema      *arrow.Schema
	schemaBytes []byte
	buf         []byte // reusable chunk buffer
}

// NewEncoder compiles schema into its canonical schema bytes; every type and metadata rule
// is checked here, once, before any value is read.
func NewEncoder(schema *arrow.Schema, opts *Options) (enc *Encoder, err error) {
	defer recoverTo(&err, "schema")
	sb, err := SchemaBytes(schema, opts)
	if err != nil {
		return nil, err
	}
	return &Encoder{schema: schema, schemaBytes: sb}, nil
}

// SchemaBytes returns the canonical schema bytes (GFS1). The caller must not modify them.
func (e *Encoder) SchemaBytes() []byte { return e.schemaBytes }

// headerSize is the length of the table bytes before the row values.
func (e *Encoder) headerSize() uint64 { return 4 + 8 + uint64(len(e.schemaBytes)) + 8 }

// Size runs the sizing pass: it returns the canonical table payload length and the row
// count, checking the row, nullability, offset, element and payload limits on the way.
func (e *Encoder) Size(batches Batches) (payload, rows uint64, err error) {
	defer recoverTo(&err, "table size")
	payload = e.headerSize()
	for rec, ierr := range batches {
		if ierr != nil {
			return 0, 0, &Error{Code: CodeEncoding, Op: "read batch", Err: ierr}
		}
		n := uint64(rec.NumRows())
		if rows, err = addRows(rows, n); err != nil {
			return 0, 0, err
		}
		cols, err := e.columns(rec)
		if err != nil {
			return 0, 0, err
		}
		for c, col := range cols {
			s, err := col.sizeRange(0, int(n))
			if err != nil {
				return 0, 0, withRow(err, -1, c)
			}
			var ok bool
			if payload, ok = addSize(payload, s); !ok || payload > MaxPayloadBytes {
				return 0, 0, &Error{Code: CodeLimit, Op: "payload", Observed: payload, Limit: MaxPayloadBytes}
			}
		}
	}
	return payload, rows, CheckPayloadLength(payload)
}

func addRows(rows, n uint64) (uint64, error) {
	t, ok := addSize(rows, n)
	if !ok || t > MaxRows {
		return 0, &Error{Code: CodeLimit, Op: "rows", Observed: t, Limit: MaxRows}
	}
	return t, nil
}

// columns builds the value encoders of one batch, after checking that the batch has the
// encoder's schema (column count and types; metadata may differ).
func (e *Encoder) columns(rec arrow.RecordBatch) ([]column, error) {
	fields := e.schema.Fields()
	if int(rec.NumCols()) != len(fields) {
		return nil, &Error{Code: CodeEncoding, Op: "batch schema", Observed: uint64(rec.NumCols()), Limit: uint64(len(fields))}
	}
	if rec.NumRows() < 0 {
		return nil, &Error{Code: CodeEncoding, Op: "batch rows"}
	}
	cols := make([]column, len(fields))
	for i, f := range fields {
		a := rec.Column(i)
		path := "field[" + strconv.Itoa(i) + "]"
		if !arrow.TypeEqual(a.DataType(), f.Type) {
			return nil, &Error{Code: CodeEncoding, Op: "batch schema", Path: path}
		}
		if int64(a.Len()) != rec.NumRows() {
			return nil, &Error{Code: CodeEncoding, Op: "batch column length", Path: path}
		}
		var err error
		if cols[i], err = newColumn(a, f.Nullable, path); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

// withRow prefixes a value error's path with its row position.
func withRow(err error, row, col int) error {
	if e, ok := err.(*Error); ok {
		if row >= 0 {
			e.Path = "row " + strconv.Itoa(row) + " " + e.Path
		}
		if e.Op == "" {
			e.Op = "table"
		}
	}
	return err
}

// encode runs the encoding pass, handing the table bytes to emit in chunks of about
// chunkSize bytes. It returns the number of bytes emitted and the row count.
func (e *Encoder) encode(batches Batches, rows uint64, emit func([]byte) error) (n uint64, gotRows uint64, err error) {
	buf := e.buf[:0]
	if cap(buf) < chunkSize+1024 {
		buf = make([]byte, 0, chunkSize+1024)
	}
	defer func() { e.buf = buf[:0] }()
	flush := func() error {
		n += uint64(len(buf))
		err := emit(buf)
		buf = buf[:0]
		return err
	}
	buf = append(buf, "GFT1"...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(e.schemaBytes)))
	if err := flush(); err != nil {
		return n, 0, err
	}
	// The schema bytes go out as they are: no copy into the chunk buffer.
	n += uint64(len(e.schemaBytes))
	if err := emit(e.schemaBytes); err != nil {
		return n, 0, err
	}
	buf = binary.BigEndian.AppendUint64(buf, rows)
	for rec, ierr := range batches {
		if ierr != nil {
			return n, gotRows, &Error{Code: CodeEncoding, Op: "read batch", Err: ierr}
		}
		cols, err := e.columns(rec)
		if err != nil {
			return n, gotRows, err
		}
		nr := int(rec.NumRows())
		for r := 0; r < nr; r++ {
			for c, col := range cols {
				if buf, err = col.appendValue(buf, r); err != nil {
					return n, gotRows, withRow(err, int(gotRows)+r, c)
				}
			}
			if len(buf) >= chunkSize {
				if err := flush(); err != nil {
					return n, gotRows, err
				}
			}
		}
		gotRows += uint64(nr)
	}
	return n, gotRows, flush()
}

// stream sizes, then encodes, and checks the two passes agree.
func (e *Encoder) stream(batches Batches, begin func(payload uint64) error, emit func([]byte) error) (payload, rows uint64, err error) {
	if payload, rows, err = e.Size(batches); err != nil {
		return 0, 0, err
	}
	if err = begin(payload); err != nil {
		return 0, 0, err
	}
	defer recoverTo(&err, "table")
	n, got, err := e.encode(batches, rows, emit)
	if err != nil {
		return 0, 0, err
	}
	if n != payload || got != rows {
		// The batches changed between the passes, or a size rule disagrees with its
		// encoder: never hash bytes whose length prefix is wrong.
		return 0, 0, &Error{Code: CodeEncoding, Op: "table passes differ", Observed: n, Limit: payload}
	}
	return payload, rows, nil
}

// AppendTable appends the canonical table bytes (GFT1) to dst. The exact length is known
// from the sizing pass before the buffer grows, so an oversized table never allocates.
func (e *Encoder) AppendTable(dst []byte, batches Batches) ([]byte, error) {
	start := len(dst)
	_, _, err := e.stream(batches,
		func(payload uint64) error {
			if uint64(cap(dst)-len(dst)) < payload {
				grown := make([]byte, len(dst), uint64(len(dst))+payload)
				copy(grown, dst)
				dst = grown
			}
			return nil
		},
		func(p []byte) error { dst = append(dst, p...); return nil })
	if err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// WriteTable writes the canonical table bytes to w without materialising them, and returns
// the payload length and row count.
func (e *Encoder) WriteTable(w io.Writer, batches Batches) (payload, rows uint64, err error) {
	return e.stream(batches, func(uint64) error { return nil }, func(p []byte) error {
		_, err := w.Write(p)
		if err != nil {
			return &Error{Code: CodeEncoding, Op: "write", Err: err}
		}
		return nil
	})
}

// Fingerprint computes the domain-separated fingerprint of the table without
// materialising its canonical bytes: a sizing pass yields the payload length for the
// envelope, then the encoding pass hands 64 KiB chunks to SHA-256. Hashing runs in a
// second goroutine, fed through a small ring of chunk buffers, so encoding the next chunk
// overlaps hashing the last one; memory stays a few chunks, whatever the table size.
func (e *Encoder) Fingerprint(d Domain, batches Batches) (Fingerprint, error) {
	if err := checkEnvelope(d, Version); err != nil {
		return Fingerprint{}, err
	}
	h := sha256.New()
	const ring = 3
	work := make(chan []byte, ring)
	free := make(chan []byte, ring)
	for range ring {
		free <- make([]byte, 0, chunkSize+1024)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range work {
			h.Write(b)
			free <- b[:0]
		}
	}()
	send := func(p []byte) error {
		b := <-free
		work <- append(b, p...)
		return nil
	}
	payload, _, err := e.stream(batches,
		func(payload uint64) error {
			hdr, err := AppendEnvelopeHeader(make([]byte, 0, 64), d, Version, payload)
			if err != nil {
				return err
			}
			return send(hdr)
		},
		send)
	close(work)
	<-done
	if err != nil {
		if ce, ok := err.(*Error); ok {
			ce.Domain, ce.Version = d, Version
		}
		return Fingerprint{}, err
	}
	return finish(h, d, Version, payload), nil
}

// TableBytes returns the canonical table bytes of schema and its record batches.
func TableBytes(schema *arrow.Schema, recs []arrow.RecordBatch, opts *Options) ([]byte, error) {
	enc, err := NewEncoder(schema, opts)
	if err != nil {
		return nil, err
	}
	return enc.AppendTable(nil, Records(recs...))
}

// FingerprintTable streams the fingerprint of a table in domain d.
func FingerprintTable(d Domain, schema *arrow.Schema, recs []arrow.RecordBatch, opts *Options) (Fingerprint, error) {
	enc, err := NewEncoder(schema, opts)
	if err != nil {
		return Fingerprint{}, err
	}
	return enc.Fingerprint(d, Records(recs...))
}

// FingerprintSchema fingerprints the canonical schema bytes of s in domain graphforge/schema.
func FingerprintSchema(s *arrow.Schema, opts *Options) (Fingerprint, error) {
	sb, err := SchemaBytes(s, opts)
	if err != nil {
		return Fingerprint{}, err
	}
	return Sum(DomainSchema, Version, sb)
}

// recoverTo turns a panic inside arrow-go array access (corrupt buffers from a reader)
// into a GF_CANONICAL_ENCODING error. Canonicalisation itself never panics by design;
// this is the boundary that keeps a malformed input from crashing the caller.
func recoverTo(err *error, op string) {
	if r := recover(); r != nil {
		*err = &Error{Code: CodeEncoding, Op: op, Err: fmt.Errorf("malformed Arrow data (recovered panic: %T)", r)}
	}
}
