package fingerprint

import "github.com/pipewhy/pipewhy/normalize"

// Resolution selects how much an Engine run produces.
type Resolution uint8

const (
	// DatasetResolution produces the dataset State (and column states when asked).
	DatasetResolution Resolution = iota
	// RecordResolution adds the sorted (key digest, record digest) pairs.
	RecordResolution
	// ValueResolution adds per-field value digests of every record, and column states.
	ValueResolution
)

func (r Resolution) String() string {
	switch r {
	case DatasetResolution:
		return "dataset"
	case RecordResolution:
		return "record"
	case ValueResolution:
		return "value"
	}
	return "Resolution(" + uitoa(uint64(r)) + ")"
}

// Array strides of a Result.
const (
	// RecordStride is the words per record entry: key_lo, key_hi, record_lo, record_hi.
	RecordStride = 4
	// ValueStride is the words per value entry: field_id, value_lo, value_hi.
	ValueStride = 3
)

// Options configure an Engine. The zero Options run at dataset resolution on
// GOMAXPROCS workers.
type Options struct {
	// Workers is the number of goroutines digesting records; 0 means GOMAXPROCS.
	// Results never depend on it.
	Workers int
	// Resolution is what the run produces; see Result.
	Resolution Resolution
	// Columns asks for per-field column states at any resolution (always produced at
	// ValueResolution, where the value digests exist anyway).
	Columns bool
	// KeyFields are the field ids whose frames form a record's key (record and value
	// resolution only). Each must be in the schema and present in every record. Empty means
	// the whole record is its key.
	KeyFields []uint64
	// Offset is the global position of the first record of the run (Ordered mode only):
	// a partition fingerprinted with its offset merges into the one-pass result.
	Offset uint64
	// ChunkRecords is the number of records per unit of work; 0 means 4096. Results never
	// depend on it.
	ChunkRecords int
	// Release, if set, is called once for each batch the engine has completely read (from
	// Run's goroutine or a worker's), so that a producer can recycle its buffers. Whether or not it
	// was called, the engine reads no batch after Run returns and retains none.
	Release func(*normalize.RecordBatch)
	// Origins asks for Result.Origins (record and value resolution only): for every
	// record entry, which input record it came from.
	Origins bool
	// KeyWords asks for Result.KeyWords and Result.KeyOffsets (record and value resolution
	// only): every entry's key record, the words its key digest was computed from, so
	// that a caller need not keep the batches to know the keys.
	KeyWords bool
	// KeyStore, with KeyWords, leaves the key records where the engine stored them:
	// Result.Keys instead of Result.KeyWords and Result.KeyOffsets (nil then), for a
	// caller that reads the keys of a few entries only (see KeyStore).
	KeyStore bool
	// TrustedFrames skips the C2 payload-shape validation of each record: set it only
	// for batches produced by normalize/columnar.Encoder or normalize.AppendRecord, whose
	// words are valid C2 frames by construction (columnar's property tests compare it with
	// the scalar encoder, which validates). What is skipped is only the check that each
	// payload has the word count its type code's layout requires (text and bytes byte
	// counts, decimal coefficient counts, timestamp zone-name lengths, fixed widths).
	// Everything the engine itself relies on to read a record safely is still checked on
	// every record, in the same single walk over its frames that digests it: the record
	// slice lies inside the word pool; the header is [1, 2, field_count]; every field
	// header and payload lies inside the record; field ids strictly increase and are in
	// the schema; each type code is one the profile (v1 or extension) and the field's
	// schema type admit; the key fields are present; the frames end exactly at the record
	// end and their number is field_count. A malformed record is therefore still an error
	// (CodeRecord, CodeSchemaMismatch or CodeKeyField), never a panic or an out-of-range
	// read; only a frame whose payload shape is wrong but whose bounds are right is
	// digested as it is instead of being refused. Results of valid records do not depend
	// on it.
	TrustedFrames bool
	// Select, when set (record and value resolution), keeps the entries (and their key
	// words, values and origins) of only the records whose key digest it accepts; every
	// record still counts in the state and the column states. It is called from the
	// worker goroutines, concurrently. A second pass over data whose differences a
	// first pass found at record resolution looks at those records only, in as much
	// memory as they need. Without it, the state's lanes are the sums of the entries'
	// record words (and the column states of the value entries); with it, only of the
	// selected ones.
	Select func(key Digest) bool
}

const (
	defaultChunk = 4096
	maxChunk     = 1 << 30
	maxWorkers   = 1024
)
