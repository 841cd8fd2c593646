package source

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"runtime"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// The parallel CSV read. Splitting records (csvParser) is serial by nature;
// converting cells to Arrow (UTF-8 checks, number and timestamp parsing,
// appends) is most of the CPU time and independent per record. So:
//
//  1. one reader goroutine splits up to BatchSize records into a raw batch
//     (their field bytes copied into one buffer), recording a malformed
//     record's failure, and the error that stops the read, at their
//     positions;
//  2. workers, each with builders of its own (csvConv), convert raw batches
//     to Arrow batches, merging conversion failures with the reader's in
//     record order;
//  3. Next hands the batches out in source order and applies each one's
//     failures, row count, end or stop to the Tracker, which no other
//     goroutine touches, in the order the serial read records them.
//
// Values, failures and coverage are those of the serial read; only the rows
// per batch may differ: a failed record no longer makes room for a later one
// in its batch (a batch holds at most BatchSize rows, never zero).

// csvParallelMinBytes: smaller files are read serially, where the goroutines
// and batches in flight cost more than they save.
const csvParallelMinBytes = 4 << 20

// csvParallelMinBatch: smaller batches are read serially, where handing
// every batch between goroutines costs about as much as converting it.
const csvParallelMinBatch = 256

// csvMaxRowsInFlight bounds the rows of the raw and converted batches in
// flight (about 64 bytes a row in each form for typical rows), so that a
// large BatchSize does not multiply memory by the number of workers.
const csvMaxRowsInFlight = 1 << 21

// csvForceWorkers, when positive, is the worker count of every CSV source
// whatever its size (tests: the parallel path over small files).
var csvForceWorkers = 0

// csvHookTaken, when set, is called by Next with every job it takes from
// the pipeline (nil when the pipeline ended), before it waits for the job:
// tests cancel a Next at that point.
var csvHookTaken func(*csvJob)

// csvWorkers is the number of converting goroutines for a file of size bytes
// read in batches of batchSize rows: 0 (a serial read) for small files, small
// batches or a single processor.
func csvWorkers(size int64, batchSize int) int {
	if csvForceWorkers > 0 {
		return csvForceWorkers
	}
	n := runtime.GOMAXPROCS(0)
	if n < 2 || size < csvParallelMinBytes || batchSize < csvParallelMinBatch {
		return 0
	}
	return n
}

// csvRaw is a raw batch: records split but not converted. Its buffers are
// reused from batch to batch.
type csvRaw struct {
	buf   []byte      // the field bytes, one ASCII byte between fields and between records
	ends  []int       // the end offset in buf of every field, record after record
	recs  []csvRawRec // every record read, malformed ones included
	pfail []Failure   // the failures of the malformed records, in order
	good  int         // records not malformed
}

type csvRawRec struct {
	line  int // the record's first line
	start int // offset in buf of its first field
	end   int // index in ends just past its last field
	bad   bool
}

func (r *csvRaw) reset() {
	r.buf, r.ends, r.recs, r.pfail, r.good = r.buf[:0], r.ends[:0], r.recs[:0], r.pfail[:0], 0
}

// add copies the record p.next just parsed. An unquoted record's fields
// lie in p.buf one separator apart, exactly the layout of buf: one copy of
// the whole line then (p.fields gives their offsets); other records are
// copied field by field.
func (r *csvRaw) add(line int, p *csvParser) {
	if len(r.buf) > 0 {
		r.buf = append(r.buf, '\n') // see csvConv.convert
	}
	start := len(r.buf)
	fs := p.fields
	whole := len(fs) > 0
	for i := 0; whole && i < len(fs); i++ {
		whole = !fs[i].inScratch && (i == 0 || fs[i].start == fs[i-1].end+1)
	}
	if whole {
		shift := start - fs[0].start
		r.buf = append(r.buf, p.buf[fs[0].start:fs[len(fs)-1].end]...)
		for _, f := range fs {
			r.ends = append(r.ends, f.end+shift)
		}
	} else {
		for i, v := range p.record() {
			if i > 0 {
				r.buf = append(r.buf, ',')
			}
			r.buf = append(r.buf, v...)
			r.ends = append(r.ends, len(r.buf))
		}
	}
	r.recs = append(r.recs, csvRawRec{line: line, start: start, end: len(r.ends)})
	r.good++
}

// csvJob is one batch on its way through the pipeline. The reader sets raw,
// eof and stop before it sends the job; the worker sets rec, rows and fails
// before it closes done.
type csvJob struct {
	raw  *csvRaw
	eof  bool  // the source ended after the batch's records
	stop error // the read stopped after the batch's records, with stopF
	// stopF is the failure recorded for stop.
	stopF Failure
	done  chan struct{}
	rec   arrow.RecordBatch // nil when no record converted
	rows  int
	fails []Failure // every failed record of the batch, in record order
}

// csvPipe is the running pipeline of one source.
type csvPipe struct {
	stop  chan struct{} // closed to stop every goroutine
	free  chan *csvRaw  // raw batches ready to be filled
	work  chan *csvJob  // filled raw batches, for the workers
	order chan *csvJob  // every job, in source order, for Next
	wg    sync.WaitGroup
	held  *csvJob // a job taken from order and not handed out (Next cancelled)
	// hint is the largest raw batch filled so far (the reader's alone): a raw
	// batch filled for the first time is allocated at that size at once, where
	// growing it by doubling would allocate, fault in and copy memory about
	// twice its size.
	hint csvRawSize
}

// csvRawSize is the length of a raw batch's slices.
type csvRawSize struct{ buf, ends, recs int }

// startPipe starts the reader and the workers. At most slots raw batches
// exist and at most slots converted ones wait for Next.
func (s *csvSource) startPipe() {
	slots := s.workers + 2
	slots = min(slots, max(2, csvMaxRowsInFlight/s.opts.BatchSize))
	workers := min(s.workers, slots-1)
	pp := &csvPipe{
		stop:  make(chan struct{}),
		free:  make(chan *csvRaw, slots),
		work:  make(chan *csvJob, slots),
		order: make(chan *csvJob, slots),
	}
	for range slots {
		pp.free <- new(csvRaw)
	}
	// The workers' builders are made here, on the caller's goroutine: the
	// converter reads s's column types, and nothing of s is touched later.
	convs := make([]*csvConv, workers)
	for i := range convs {
		convs[i] = s.newConv()
	}
	s.pipe = pp
	pp.wg.Go(func() { pp.read(s) })
	for _, c := range convs {
		pp.wg.Go(func() { pp.convert(c) })
	}
}

// read is the reader goroutine: the only user of s.p (and of s's
// immutable fields) once the pipeline runs.
func (pp *csvPipe) read(s *csvSource) {
	defer close(pp.order)
	defer close(pp.work)
	for {
		var raw *csvRaw
		select {
		case raw = <-pp.free:
		case <-pp.stop:
			return
		}
		job := &csvJob{raw: raw, done: make(chan struct{})}
		if !pp.fill(s, job) {
			return
		}
		// Into order first: Next waits for the jobs in the order they are
		// read, whichever worker converts them.
		select {
		case pp.order <- job:
		case <-pp.stop:
			return
		}
		select {
		case pp.work <- job:
		case <-pp.stop:
			return
		}
		if job.eof || job.stop != nil {
			return
		}
	}
}

// fill reads up to BatchSize records into job.raw, as the serial Next reads
// a batch except that malformed records count towards the batch. It returns
// false when the pipeline is stopped meanwhile.
func (pp *csvPipe) fill(s *csvSource, job *csvJob) bool {
	raw := job.raw
	raw.reset()
	if h := pp.hint; cap(raw.buf) < h.buf || cap(raw.ends) < h.ends || cap(raw.recs) < h.recs {
		raw.buf = make([]byte, 0, max(h.buf, cap(raw.buf)))
		raw.ends = make([]int, 0, max(h.ends, cap(raw.ends)))
		raw.recs = make([]csvRawRec, 0, max(h.recs, cap(raw.recs)))
	}
	defer func() {
		pp.hint = csvRawSize{max(pp.hint.buf, len(raw.buf)), max(pp.hint.ends, len(raw.ends)), max(pp.hint.recs, len(raw.recs))}
	}()
	for n := 0; n < s.opts.BatchSize; n++ {
		if n&4095 == 4095 {
			select {
			case <-pp.stop:
				return false
			default:
			}
		}
		line, err := s.p.next()
		if err == io.EOF {
			job.eof = true
			return true
		}
		if err != nil {
			var rec [][]byte
			if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
				rec = s.p.record() // the fields as far as parsed
			}
			f, stop := s.readFailure(rec, err)
			if stop != nil {
				job.stopF, job.stop = f, stop
				return true
			}
			raw.recs = append(raw.recs, csvRawRec{bad: true})
			raw.pfail = append(raw.pfail, f)
			continue
		}
		raw.add(line, s.p)
	}
	return true
}

// convert is a worker goroutine.
func (pp *csvPipe) convert(c *csvConv) {
	defer c.release()
	for job := range pp.work {
		select {
		case <-pp.stop:
			// Stopping: the job will not be handed out.
		default:
			c.convert(job)
		}
		pp.free <- job.raw // never blocks: free holds every raw batch
		job.raw = nil
		close(job.done)
	}
}

// convert converts job's raw batch: the serial Next's conversion of the same
// records, the failures in record order.
func (c *csvConv) convert(job *csvJob) {
	raw := job.raw
	if raw.good > 0 {
		c.reserve(raw.good) // the rows of the batch at most, known here
	}
	// One check of the batch's bytes instead of one per cell: the fields lie in
	// raw.buf one ASCII byte apart (a comma within a record, a newline between
	// records), and valid UTF-8 cut at ASCII bytes is valid UTF-8 in every
	// piece. When it fails, record checks cell by cell and names the column.
	c.utf8OK = utf8.Valid(raw.buf)
	defer func() { c.utf8OK = false }()
	pf, field := 0, 0
	rows := 0
	for _, r := range raw.recs {
		if r.bad {
			job.fails = append(job.fails, raw.pfail[pf])
			pf++
			continue
		}
		ends := raw.ends[field:r.end]
		field = r.end
		if f, ok := c.record(raw.buf, ends, r.start, r.line); ok {
			rows++
		} else {
			job.fails = append(job.fails, f)
		}
	}
	job.rows = rows
	job.rec = c.batch()
}

// nextParallel is Next on the pipeline.
func (s *csvSource) nextParallel(ctx context.Context) (arrow.RecordBatch, error) {
	if s.pipe == nil {
		s.startPipe()
	}
	pp := s.pipe
	for {
		var job *csvJob
		var ok bool
		select {
		case job, ok = <-pp.order:
		case <-ctx.Done():
			return nil, s.cancelled(ctx.Err())
		}
		if csvHookTaken != nil {
			csvHookTaken(job)
		}
		if !ok {
			// Unreachable: the reader ends the order only after the job that
			// ends the read, or once stopped, which leaves Next unreachable.
			s.stopErr = &Error{Code: CodeIO, Op: "csv next", Source: s.a.String(), Msg: "the reader stopped"}
			s.stopPipe()
			return nil, s.stopErr
		}
		select {
		case <-job.done:
		case <-ctx.Done():
		}
		// Cancellation wins over a batch that is ready too: whatever the
		// select picked, a cancelled Next returns no batch.
		if err := ctx.Err(); err != nil {
			pp.held = job
			return nil, s.cancelled(err)
		}
		for _, f := range job.fails {
			s.t.Fail(f, true)
		}
		s.t.Returned += uint64(job.rows)
		switch {
		case job.stop != nil:
			s.fatal(job.stopF, job.stop)
			s.stopPipe()
		case job.eof:
			s.finish()
			s.stopPipe()
		}
		if job.rec != nil {
			return job.rec, nil
		}
		// Every record of the batch failed: on to the next one, unless the
		// read ended.
		if s.stopErr != nil {
			return nil, s.stopErr
		}
		if s.t.Done {
			return nil, io.EOF
		}
	}
}

// stopPipe stops the pipeline, if one runs, waits for all its goroutines and
// releases the batches converted but not handed out.
func (s *csvSource) stopPipe() {
	pp := s.pipe
	if pp == nil {
		return
	}
	close(pp.stop)
	pp.wg.Wait()
	// The goroutines have ended: their writes to the jobs are visible.
	if pp.held != nil && pp.held.rec != nil {
		pp.held.rec.Release()
	}
	pp.held = nil
	for job := range pp.order {
		if job.rec != nil {
			job.rec.Release()
		}
	}
	// Nothing is converted any more: the buffers kept for reuse go back to
	// Options.Allocator now, and those of batches still held when released.
	s.mem.close()
	s.pipe = nil
}
