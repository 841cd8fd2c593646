package source

import (
	"io"
	"os"
	"sync/atomic"
)

// FileProgress is implemented by the sources that read one file from its start to its
// end (CSV, JSON lines): BytesRead returns the bytes of the file read so far and the
// file's size, for progress reports. Readers read ahead, so the bytes read run ahead of
// the rows Next has returned. It may be called from any goroutine.
type FileProgress interface {
	BytesRead() (read, size uint64)
}

// byteCounter counts the bytes read from a file through it, atomically: the parallel
// CSV reader reads on a goroutine of its own.
type byteCounter struct {
	f *os.File
	n atomic.Uint64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	c.n.Add(uint64(n))
	return n, err
}

// rewind positions the file at its start for another pass and restarts the count.
func (c *byteCounter) rewind() error {
	if _, err := c.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	c.n.Store(0)
	return nil
}

// inferProgress calls opts.InferProgress, if set, with the bytes c has read of size.
func inferProgress(opts Options, c *byteCounter, size int64) {
	if opts.InferProgress != nil {
		opts.InferProgress(c.n.Load(), uint64(size))
	}
}
