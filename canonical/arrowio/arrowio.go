// Package arrowio reads Arrow IPC (file and stream formats) and Parquet files as
// re-iterable record-batch sequences for the canonical encoder, whose streaming
// fingerprint reads the batches twice (a sizing pass, then a hashing pass) instead of
// holding the whole table in memory.
//
// arrow-go's readers can panic on corrupt input (out-of-range buffer slicing while a
// batch is assembled). Every call into a reader is made behind a recover boundary here,
// and a panic becomes a GF_CANONICAL_ENCODING error, so malformed files are errors, never
// crashes. The canonical encoder has the same boundary around its array access. What a
// recover cannot catch, an allocation sized by a damaged metadata count, is prevented by
// checking every IPC message's flatbuffer metadata and a Parquet footer's ARROW:schema
// first (internal/arrowfb).
package arrowio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipewhy/pipewhy/canonical"
	"github.com/pipewhy/pipewhy/internal/arrowfb"
)

// Format is a file format this package reads.
type Format string

const (
	ArrowFile   Format = "arrow-file"   // Arrow IPC file ("ARROW1" magic), also Feather v2
	ArrowStream Format = "arrow-stream" // Arrow IPC stream
	Parquet     Format = "parquet"      // Parquet ("PAR1" magic)
)

// File is an opened input whose batches can be iterated more than once.
type File struct {
	Format Format
	Schema *arrow.Schema
	r      io.ReaderAt
	size   int64
	mem    memory.Allocator
	closer io.Closer
}

// Open opens path and detects its format from its magic bytes, falling back to the
// extension (.arrows and .stream are IPC streams).
func Open(path string, mem memory.Allocator) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &canonical.Error{Code: canonical.CodeEncoding, Op: "open", Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &canonical.Error{Code: canonical.CodeEncoding, Op: "open", Err: err}
	}
	af, err := New(f, st.Size(), filepath.Ext(path), mem)
	if err != nil {
		f.Close()
		return nil, err
	}
	af.closer = f
	return af, nil
}

// New reads from r (size bytes). ext, such as ".arrow", is only a hint used when the
// magic bytes do not decide. Unless mem is already a *LimitedAllocator, it is wrapped in
// one with DefaultMaxAllocation and DefaultMaxLive (nil mem: the Go allocator).
func New(r io.ReaderAt, size int64, ext string, mem memory.Allocator) (*File, error) {
	if _, limited := mem.(*LimitedAllocator); !limited {
		mem = NewLimitedAllocator(mem, DefaultMaxAllocation, DefaultMaxLive)
	}
	f := &File{r: r, size: size, mem: mem, Format: detect(r, size, ext)}
	var err error
	if f.Format != Parquet {
		format := arrowfb.Stream
		if f.Format == ArrowFile {
			format = arrowfb.File
		}
		if err := guard("check ipc metadata", func() error {
			return arrowfb.Check(r, size, arrowfb.Options{Format: format, MaxDepth: maxFieldDepth})
		}); err != nil {
			return nil, err
		}
	}
	switch f.Format {
	case Parquet:
		err = guard("read parquet", func() error {
			pr, err := file.NewParquetReader(f.section())
			if err != nil {
				return err
			}
			defer func() { _ = pr.Close() }() // only read
			// pqarrow decodes the stored Arrow schema without bounds on its flatbuffer.
			if v := pr.MetaData().KeyValueMetadata().FindValue(arrowfb.ParquetSchemaKey); v != nil {
				if err := arrowfb.CheckParquetSchema(*v, arrowfb.Options{MaxDepth: maxFieldDepth}); err != nil {
					return err
				}
			}
			fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, mem)
			if err != nil {
				return err
			}
			f.Schema, err = fr.Schema()
			return err
		})
	case ArrowFile:
		err = guard("read arrow file", func() error {
			fr, err := ipc.NewFileReader(f.section(), f.ipcOptions()...)
			if err != nil {
				return err
			}
			defer func() { _ = fr.Close() }() // only read
			f.Schema = fr.Schema()
			return nil
		})
	default:
		err = guard("read arrow stream", func() error {
			sr, err := ipc.NewReader(f.section(), f.ipcOptions()...)
			if err != nil {
				return err
			}
			defer sr.Release()
			f.Schema = sr.Schema()
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	if f.Schema == nil {
		return nil, &canonical.Error{Code: canonical.CodeEncoding, Op: "read schema"}
	}
	return f, nil
}

// maxFieldDepth bounds field nesting in IPC metadata (a schema's own fields are at depth
// 0): a map is two field levels per container level, and canonicalisation rejects more
// than MaxDepth containers anyway.
const maxFieldDepth = 2*canonical.MaxDepth + 3

// ipcOptions bound the IPC reader by the file: a message's metadata and body are bytes of
// the file, so neither can be longer than it (the reader allocates them before reading).
// arrow-go's stream reader ignores the two limits (v18.8.0): for streams, arrowfb.Check's
// walk of every message is what bounds them.
func (f *File) ipcOptions() []ipc.Option {
	limit := max(f.size, 8)
	return []ipc.Option{ipc.WithAllocator(f.mem), ipc.WithMetadataSizeLimit(min(limit, 64<<20)), ipc.WithBodySizeLimit(limit)}
}

func (f *File) section() *io.SectionReader { return io.NewSectionReader(f.r, 0, f.size) }

func detect(r io.ReaderAt, size int64, ext string) Format {
	head := make([]byte, 6)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return ArrowFile
	case bytes.HasPrefix(head, []byte("PAR1")):
		return Parquet
	}
	switch strings.ToLower(ext) {
	case ".parquet", ".pq":
		return Parquet
	case ".arrow", ".feather", ".ipc":
		if size == 0 {
			return ArrowFile
		}
	}
	return ArrowStream
}

// Close closes the underlying file, if Open opened it.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// guard runs fn behind a recover boundary and gives any failure the stable code.
func guard(op string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if ae, ok := r.(*allocError); ok {
				err = &canonical.Error{Code: canonical.CodeEncoding, Op: op, Err: ae.error}
				return
			}
			err = &canonical.Error{Code: canonical.CodeEncoding, Op: op, Err: fmt.Errorf("malformed input (recovered panic: %T)", r)}
		}
	}()
	if err := fn(); err != nil {
		if canonical.CodeOf(err) != "" {
			return err
		}
		return &canonical.Error{Code: canonical.CodeEncoding, Op: op, Err: err}
	}
	return nil
}

// Batches returns the file's record batches; every iteration reads the file again from
// the start. A batch is valid only until the next one is yielded.
func (f *File) Batches(ctx context.Context) canonical.Batches {
	return func(yield func(arrow.RecordBatch, error) bool) {
		var next func() (arrow.RecordBatch, bool, error)
		var done func()
		err := guard("open "+string(f.Format), func() error {
			var err error
			next, done, err = f.iterator(ctx)
			return err
		})
		if err != nil {
			yield(nil, err)
			return
		}
		defer done()
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, &canonical.Error{Code: canonical.CodeEncoding, Op: "read", Err: err})
				return
			}
			var rec arrow.RecordBatch
			var ok bool
			err := guard("read "+string(f.Format), func() error {
				var err error
				rec, ok, err = next()
				return err
			})
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				return
			}
			if !rec.Schema().Equal(f.Schema) && !sameTypes(rec.Schema(), f.Schema) {
				yield(nil, &canonical.Error{Code: canonical.CodeEncoding, Op: "batch schema"})
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
	}
}

func sameTypes(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.NumFields() {
		if !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return false
		}
	}
	return true
}

// iterator returns a pull function over the batches and a cleanup function.
func (f *File) iterator(ctx context.Context) (func() (arrow.RecordBatch, bool, error), func(), error) {
	switch f.Format {
	case Parquet:
		pr, err := file.NewParquetReader(f.section())
		if err != nil {
			return nil, nil, err
		}
		fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, f.mem)
		if err != nil {
			_ = pr.Close() // the error being returned is the one to report
			return nil, nil, err
		}
		rr, err := fr.GetRecordReader(ctx, nil, nil)
		if err != nil {
			_ = pr.Close() // the error being returned is the one to report
			return nil, nil, err
		}
		next := func() (arrow.RecordBatch, bool, error) {
			if rr.Next() {
				return rr.RecordBatch(), true, nil
			}
			if err := rr.Err(); err != nil && err != io.EOF {
				return nil, false, err
			}
			return nil, false, nil
		}
		return next, func() { rr.Release(); _ = pr.Close() }, nil // done reading
	case ArrowFile:
		fr, err := ipc.NewFileReader(f.section(), f.ipcOptions()...)
		if err != nil {
			return nil, nil, err
		}
		i := 0
		next := func() (arrow.RecordBatch, bool, error) {
			if i >= fr.NumRecords() {
				return nil, false, nil
			}
			rec, err := fr.RecordBatch(i)
			i++
			if err != nil {
				return nil, false, err
			}
			return rec, true, nil
		}
		return next, func() { _ = fr.Close() }, nil // done reading
	default:
		sr, err := ipc.NewReader(f.section(), f.ipcOptions()...)
		if err != nil {
			return nil, nil, err
		}
		next := func() (arrow.RecordBatch, bool, error) {
			if sr.Next() {
				return sr.RecordBatch(), true, nil
			}
			if err := sr.Err(); err != nil && err != io.EOF {
				return nil, false, err
			}
			return nil, false, nil
		}
		return next, func() { sr.Release() }, nil
	}
}

// Fingerprint fingerprints the file's table in domain d with the streaming encoder, and
// returns the fingerprint and the row count.
func (f *File) Fingerprint(ctx context.Context, d canonical.Domain, opts *canonical.Options) (canonical.Fingerprint, uint64, error) {
	enc, err := canonical.NewEncoder(f.Schema, opts)
	if err != nil {
		return canonical.Fingerprint{}, 0, err
	}
	var rows uint64
	counted := func(yield func(arrow.RecordBatch, error) bool) {
		rows = 0
		for rec, err := range f.Batches(ctx) {
			if rec != nil {
				rows += uint64(rec.NumRows())
			}
			if !yield(rec, err) {
				return
			}
		}
	}
	fp, err := enc.Fingerprint(d, counted)
	return fp, rows, err
}
