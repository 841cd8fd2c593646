// Package arrays implements PipeWhy's C1 array contract (PW-02.01 to
// PW-02.13): borrowed integer views with C7 buffer descriptors, checked
// count/offset arithmetic, validity bitmaps, and the five schema 1.0 tables
// with their validators and their named-column storage form.
//
// # Dtypes and byte order
//
// Elements are fixed-width integers: int8, int16, int32, int64, uint8,
// uint16, uint32, uint64 (DType, ParseDType). Serialized and borrowed storage
// is little-endian. Go int, uint and uintptr have no fixed width and are
// rejected, as are non-integer element types.
//
// # The sentinel
//
// Id, reference and offset columns are uint64. Absent (UINT64_MAX) is the
// absent-reference sentinel; valid ids are 0 through Absent-1. Absent is
// allowed in exactly two reference columns: artifact.parent_id (a root) and
// lineage_edge.transform_id (COPY: required; DERIVED: allowed). Every other
// reference column must resolve, and Absent there fails with
// CodeAbsentReference. In payload and fingerprint words UINT64_MAX is an
// ordinary value.
//
// Counts, offsets and lengths are checked before use and never wrap
// (AddUint64, MulUint64, ToInt, SliceBounds): a slice (offset, length) of a
// buffer of w words is valid iff offset <= w and length <= w-offset, so an
// empty slice may start at the end, and slices may overlap.
//
// # Validity bitmaps
//
// A Bitmap is flat uint64 words, least-significant bit first; 1 = present,
// 0 = null. Row i is bit i%64 of word i/64. n rows take exactly ceil(n/64)
// words; the unused high bits of the final word are zero; zero rows take zero
// words.
//
//	row:     63 … 2 1 0 | 127 … 66 65 64 | … | (unused, zero)  n-1 … 128
//	bit:     63 … 2 1 0 |  63 …  2  1  0 | … | 63 …  n%64      n%64-1 … 0
//	         word 0      | word 1          | … | word ceil(n/64)-1
//
// Empty and null are distinguished by validity, not by payload length: a
// null row has length 0, an empty present row also has length 0.
//
// # The five tables (schema 1.0)
//
// Columns, in order, with dtypes; (aux) marks auxiliary arrays whose length
// is not the row count. All row columns of a table have equal length.
//
//	artifact:     artifact_id u64, parent_id u64, kind_id u8, name_id u64
//	value:        value_id u64, artifact_id u64, field_id u64, type_id u8,
//	              payload_offset u64, payload_length u64,
//	              payload_words u64 (aux), validity_bitmap u64 (aux)
//	observation:  observation_id u64, artifact_id u64, snapshot_id u64,
//	              observed_at_ns u64, status_id u8, policy_id u64,
//	              algorithm_id u64, fingerprint_offset u64,
//	              fingerprint_length u64, fingerprint_words u64 (aux)
//	lineage_edge: edge_id u64, source_id u64, target_id u64, relation_id u8,
//	              evidence_id u64, transform_id u64
//	incident:     incident_id u64, artifact_id u64, observation_id u64,
//	              reason_id u8, evidence_id u64, grouping_policy_id u64
//
// Rules (each checked by the table's Validate, with a stable Code):
//
//   - Every table: the first column is a unique id, never Absent.
//   - artifact: parent_id is another row's artifact_id or Absent (a root); no
//     self-parenting, no containment cycle (checked iteratively in linear
//     time); kind_id in Context.Kinds; name_id in Context.Names. Names need
//     not be unique and row order carries no identity.
//   - value: artifact_id in the artifact table; field_id in Context.Fields;
//     type_id in Context.Types; payload slice within payload_words; a null
//     row has payload_length 0 (its offset is still bounds-checked); the
//     bitmap is well formed for the row count.
//   - observation: artifact_id in the artifact table; snapshot_id, policy_id
//     and algorithm_id in Context.Snapshots, Policies and Algorithms;
//     observed_at_ns is nonnegative Unix UTC nanoseconds, which for a uint64
//     column means < 2**63 (MaxObservedAtNs): larger values are negative
//     int64 times stored bit for bit; status_id is 0 UNKNOWN, 1 CAPTURED or
//     2 ERROR; CAPTURED has >= 1 fingerprint word, UNKNOWN and ERROR none;
//     fingerprint slice within fingerprint_words.
//   - lineage_edge: source_id and target_id in the artifact table;
//     relation_id 0 COPY, 1 TRANSFORM or 2 DERIVED; evidence_id in
//     Context.Evidence; transform_id Absent for COPY, in Context.Transforms
//     for TRANSFORM, either for DERIVED. Cycles and self-edges are allowed.
//   - incident: artifact_id in the artifact table; observation_id in the
//     observation table, whose artifact_id must equal the incident's;
//     evidence_id in Context.Evidence; grouping_policy_id in
//     Context.GroupingPolicies. reason_id is a versioned analysis-policy code
//     and is not resolved by C1.
//
// References to dictionaries and registries resolve only in sets the caller
// supplies in a Context (IDSet); a needed set that is nil is an error
// (CodeMissingContext), never an implicit "accept all", and membership is
// never guessed from integer ranges.
//
// Validators never panic, whatever the column contents, run in linear time
// without recursion, and report the first violation in a fixed order: equal
// row column lengths; required contexts present; the id column (lowest
// offending row); auxiliary arrays (the bitmap); row rules, row by row and
// each row's columns left to right; then containment cycles (reported at the
// lowest row of the first cycle found). Id uniqueness, reference resolution
// and the cycle check are sequential or independent passes (presence
// bitmaps, hash-partitioned joins, order checks, leaf peeling), not a
// lookup per row into a table-sized index, so that unordered and sparse ids
// validate at close to the speed of ordered ones; the errors are those of
// the row-order definition above. A validator that references another
// table (value, observation, lineage_edge, incident) only indexes it: its
// id column must be unique and sentinel-free; Tables.Validate validates all
// present tables and builds each index once.
//
// # Schema versioning
//
// SchemaVersion is "1.0". A Frame (version, table name, named column views)
// is the storage form; CheckFrame and Decode require an exact version match,
// then a known table name, then no unknown column, no missing column and the
// exact dtype of every column, all before any buffer is read. Adding,
// removing or renaming columns, or changing widths, sentinels, units or enum
// meanings is incompatible and needs a new version and an explicit migration.
//
// # Views, ownership and release
//
// A View borrows a one-dimensional, C-contiguous, little-endian integer
// buffer without copying (FromBytes, FromSlice, FromAny, Borrow). Holding the
// View keeps the owner alive. Any byte alignment is accepted: reads are
// byte-safe scalar loads and no aligned or SIMD access is implied. Borrowing
// rejects, with a stable code, big-endian hosts, non-CPU devices, unknown and
// non-integer dtypes, platform-width ints, foreign byte order,
// multi-dimensional shapes, non-contiguous strides and byte lengths that are
// not a multiple of the element size.
//
// The Descriptor is C7 metadata: optional logical id (never Absent; anonymous
// views have none), dtype, length, device "cpu" with no device id, read-only
// capability, access contract and alignment claim (1). No API publishes a
// memory address, and identity is never derived from one.
//
// ReadOnly is a capability of the view: a read-only view never hands out its
// memory for writing (Bytes fails; AppendBytes copies; WriteTo lends it to an
// io.Writer, which must not modify it). It is not a promise that other
// aliases are immutable; callers must finish writes and prevent concurrent
// mutation while a scan reads. Release drops the owner reference; afterwards
// every buffer operation fails with CodeReleased and never returns empty
// data, while metadata (Len, DType, ReadOnly, Descriptor) stays readable.
// Release must not race with other use of the same View. Decode copies into
// tables it owns; FrameOf lends zero-copy read-only views of a table.
//
// # Errors
//
// Every error is an *Error carrying Code, Op, Table, Column and Row (never
// data values), matchable with errors.As and, by category, with errors.Is
// against ErrBuffer, ErrReleased, ErrRange, ErrSchema and ErrInvalid.
package arrays
