package source

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/pipewhy/pipewhy/internal/arrowfb"
)

// ipcSource reads an Arrow IPC file or stream, its flatbuffer metadata bounds-checked
// first (internal/arrowfb) and every batch validated (arrowvalidate.go).
type ipcSource struct {
	fileBase
	fr   *ipc.FileReader
	sr   *ipc.Reader
	next int // next batch of fr
}

var ipcMagic = []byte("ARROW1")

func openIPC(ctx context.Context, a Address, opts Options) (_ Source, err error) {
	const op = "arrow open"
	f, st, version, err := openFile(op, a, opts)
	if err != nil {
		return nil, err
	}
	defer CloseOnError(&err, f)
	defer recoverPanic(op, a, &err)
	if a.Kind == KindArrowAuto {
		head := make([]byte, len(ipcMagic))
		n, _ := io.ReadFull(f, head)
		a.Kind = KindArrowStream
		if n == len(head) && bytes.Equal(head, ipcMagic) {
			a.Kind = KindArrowFile
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "seek failed", Err: err}
		}
	}
	// arrow-go sizes allocations from the metadata's vector counts before checking them:
	// every message is checked first. A truncated stream is left to the reader, which
	// returns the batches before the cut and then fails (coverage PARTIAL).
	format := arrowfb.Stream
	if a.Kind == KindArrowFile {
		format = arrowfb.File
	}
	if err := arrowfb.Check(f, st.size, arrowfb.Options{Format: format, MaxDepth: maxNestedDepth, PartialTail: true}); err != nil {
		return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "not a readable Arrow IPC file or stream", Err: err}
	}
	s := &ipcSource{fileBase: fileBase{a: a, opts: opts, f: f, before: st}}
	var sc *arrow.Schema
	// No message metadata or body can be larger than the file: bounding both by its size
	// keeps a damaged length from allocating more (arrow-go's defaults, 64 MiB and 256 MiB,
	// would also reject valid batches above 256 MiB). arrow-go's stream reader ignores the
	// limits (v18.8.0); for streams the check above bounds every message instead.
	limit := max(st.size, 1)
	ipcOpts := []ipc.Option{ipc.WithAllocator(opts.Allocator), ipc.WithMetadataSizeLimit(limit), ipc.WithBodySizeLimit(limit)}
	if a.Kind == KindArrowFile {
		s.fr, err = ipc.NewFileReader(f, ipcOpts...)
		if err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "not a readable Arrow IPC file", Err: err}
		}
		sc = s.fr.Schema()
	} else {
		s.sr, err = ipc.NewReader(f, ipcOpts...)
		if err != nil {
			return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "not a readable Arrow IPC stream", Err: err}
		}
		sc = s.sr.Schema()
	}
	srcType := func(i int) string {
		if n, ok := TypeName(sc.Field(i).Type); ok {
			return n
		}
		return sc.Field(i).Type.String()
	}
	schema, keep, excluded, err := buildSchema(op, a, sc, opts.Exclude, srcType)
	if err != nil {
		s.closeReaders()
		return nil, err
	}
	s.schema, s.keep = schema, keep
	s.ev = Evidence{Adapter: a.Kind, Namespace: "file:" + a.Path, Version: version, Consistency: ConsistencyFileRead,
		Choices: []string{"schema=file", "batches=as-written"}, Excluded: excluded}
	s.t.MaxDetails = opts.MaxFailureDetails
	return s, nil
}

func (s *ipcSource) closeReaders() {
	if s.fr != nil {
		_ = s.fr.Close() // a reader of a file only read
		s.fr = nil
	}
	if s.sr != nil {
		s.sr.Release()
		s.sr = nil
	}
}

func (s *ipcSource) Next(ctx context.Context) (rec arrow.RecordBatch, err error) {
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		s.stop = &Error{Code: CodeIncomplete, Op: "arrow next", Source: s.a.String(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	defer func() {
		if r := recover(); r != nil {
			rec = nil
			err = s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Msg: "the reader failed on malformed input (recovered panic)"})
		}
	}()
	var raw arrow.RecordBatch
	if s.fr != nil {
		if s.next >= s.fr.NumRecords() {
			s.finish()
			return nil, io.EOF
		}
		raw, err = s.fr.RecordBatchAt(s.next)
		s.next++
		if err != nil {
			return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Msg: fmt.Sprintf("record batch %d is unreadable", s.next), Err: err})
		}
		defer raw.Release()
	} else {
		if !s.sr.Next() {
			if err := s.sr.Err(); err != nil && err != io.EOF {
				return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Msg: "the stream is damaged or truncated", Err: err})
			}
			s.finish()
			return nil, io.EOF
		}
		raw = s.sr.RecordBatch()
	}
	if err := validateRecord(raw); err != nil {
		return nil, s.fatal(&Error{Code: CodeCorrupt, Op: "arrow next", Source: s.a.String(), Msg: "record batch fails structural validation"})
	}
	out, err := s.project(raw)
	if err != nil {
		return nil, s.fatal(err)
	}
	return s.screen(out)
}

func (s *ipcSource) finish() {
	s.t.Done = true
	s.t.Expected, s.t.ExpectedKnown = s.t.Returned+s.t.FailedRecords(), true
	checkUnchanged(&s.t, s.f, s.before)
}

func (s *ipcSource) Close() error {
	s.closeReaders()
	return s.closeFile("arrow close")
}
