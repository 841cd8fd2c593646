package repo

import (
	"errors"
	"strconv"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Entry is one record entry of a scan read as a stream (EntryReader): its record words
// and, as the reader was asked for them, its key record and its value entries with
// each value's C2 type code and payload words. The slices are the reader's: they
// change at the next Next.
type Entry struct {
	Record [fingerprint.RecordStride]uint64
	Key    []uint64 // PartKeys: the key record's C2 words
	// PartValues: the value digest entries (fingerprint.ValueStride words each), and for
	// each of them its type code and payload words.
	Values   []uint64
	Types    []uint8
	Payloads [][]uint64
	words    []uint64 // the payload words of the entry, Payloads' backing
}

// EntryReader reads the per-record arrays of a published scan snapshot entry by entry,
// in their stored (sorted) order, in memory independent of the row count: each array
// is a payload stream (snapshot.Store.ReadArray), all read in step. The checks Load
// makes on the whole arrays are made as the entries pass: counts, sorted records,
// offsets that tile their words, key records that are valid C2 frames under the scan's
// profile (validateKey, as Load checks them), value fields ascending and matching the value table,
// payloads laid out in entry order (as scan writes them); a violation is CodeFormat
// when it is met. Close releases the files.
type EntryReader struct {
	id                        snapshot.ID
	ctx                       fingerprint.Context // the scan's: the profile its key records are checked under
	parts                     Parts
	n, i                      uint64 // entries, entries read
	keyAt, valAt, payAt       uint64
	rec, keyW, keyOff         *snapshot.ArrayReader
	vals, valOff              *snapshot.ArrayReader
	vField, vType, vOff, vLen *snapshot.ArrayReader
	vPay                      *snapshot.ArrayReader
	all                       []*snapshot.ArrayReader
	prev                      [4]uint64
	one                       [1]uint64
	scratch                   []uint64
	e                         Entry
}

// Entries verifies the checksums of the arrays of parts in s's snapshot (StepRead to
// fn: the first pass) and opens them as streams (the second). s is a scan of this
// repository (LoadParts with any parts); parts must be ones its resolution has.
func (r *Repo) Entries(s *Scan, parts Parts, fn snapshot.ProgressFunc) (*EntryReader, error) {
	id := s.Metadata.ID
	if parts&^resolutionParts(s.Metadata.Resolution) != 0 {
		return nil, &Error{Code: CodeFormat, Op: "load", Path: r.store.Path(id), Msg: "the snapshot's resolution has no such arrays"}
	}
	parts |= PartRecords
	if !r.ownWrites { // OnStore's were verified as their commit read them back
		if err := r.store.VerifyArrays(id, func(k string) bool { return partOf(k)&parts != 0 }, fn); err != nil {
			return nil, &Error{Code: CodeFormat, Op: "load", Path: r.store.Path(id), Msg: "cannot open snapshot", Err: err}
		}
	}
	er := &EntryReader{id: id, ctx: s.Context, parts: parts, n: uint64(s.Descriptor.Rows)}
	open := func(key string) (*snapshot.ArrayReader, error) {
		a, err := r.store.ReadArray(id, key)
		if err != nil {
			return nil, err
		}
		er.all = append(er.all, a)
		return a, nil
	}
	fail := func(err error) (*EntryReader, error) {
		if derr := er.integrity(err); derr != nil {
			err = derr // the bad content is a payload that fails its checksum
		}
		_ = er.Close() // read only; the open error is the one to report
		return nil, &Error{Code: CodeFormat, Op: "load", Path: r.store.Path(id), Msg: "cannot open snapshot", Err: err}
	}
	var err error
	if er.rec, err = open(KeyRecords); err != nil {
		return fail(err)
	}
	if er.rec.Left() != er.n*fingerprint.RecordStride {
		return fail(errors.New("records length does not match the row count"))
	}
	if parts&PartKeys != 0 {
		if er.keyW, err = open(KeyKeyWords); err != nil {
			return fail(err)
		}
		if er.keyOff, err = open(KeyKeyOffsets); err != nil {
			return fail(err)
		}
		if er.keyOff.Left() != er.n+1 || er.readOne(er.keyOff) != 0 {
			return fail(errors.New("key offsets do not tile the key words"))
		}
	}
	if parts&PartValues != 0 {
		col := func(name string) string { return string(arrays.TableValue) + "_" + name }
		for _, x := range []struct {
			p   **snapshot.ArrayReader
			key string
		}{{&er.vals, KeyValues}, {&er.valOff, KeyValueOffsets}, {&er.vField, col("field_id")}, {&er.vType, col("type_id")},
			{&er.vOff, col("payload_offset")}, {&er.vLen, col("payload_length")}, {&er.vPay, col("payload_words")}} {
			if *x.p, err = open(x.key); err != nil {
				return fail(err)
			}
		}
		m := er.vField.Left()
		if er.valOff.Left() != er.n+1 || er.readOne(er.valOff) != 0 || er.vals.Left() != 3*m || er.vType.Left() != m ||
			er.vOff.Left() != m || er.vLen.Left() != m {
			return fail(errors.New("value arrays do not match the records"))
		}
	}
	return er, nil
}

// readOne reads one element (a reader error reads as a value no check accepts).
func (er *EntryReader) readOne(a *snapshot.ArrayReader) uint64 {
	if err := a.Uint64s(er.one[:]); err != nil {
		return ^uint64(0)
	}
	return er.one[0]
}

// bad is the error of content that breaks a rule of the entry stream. Bad content may
// be the decoded bytes of a compressed payload that fails its logical SHA-256, which
// is checked only at the end of the stream: bad reads the arrays to their ends first,
// and a storage integrity error found there is the error (as the checksum pass of an
// uncompressed snapshot would have reported before any entry was read).
func (er *EntryReader) bad(msg string, err error) error {
	if derr := er.integrity(err); derr != nil {
		return er.fail("payload", derr)
	}
	return er.fail(msg, err)
}

// integrity drains every array (unless err already is one) and returns the first
// storage integrity error found, or nil.
func (er *EntryReader) integrity(err error) error {
	var ie *snapshot.StorageIntegrityError
	if errors.As(err, &ie) {
		return nil
	}
	for _, a := range er.all {
		if derr := a.Drain(); errors.As(derr, &ie) {
			return derr
		}
	}
	return nil
}

func (er *EntryReader) fail(msg string, err error) error {
	return &Error{Code: CodeFormat, Op: "load", Msg: msg + " (entry stream of " + er.id.String() + ")", Err: err}
}

// Next reads the next entry; false after the last, when every stream has been read to
// its end.
func (er *EntryReader) Next() (*Entry, bool, error) {
	if er.i == er.n {
		for _, a := range er.all {
			if a.Left() != 0 {
				return nil, false, er.bad("an array is longer than its records", nil)
			}
		}
		// The end of the stream is where a compressed payload's logical SHA-256 is
		// checked (snapshot.ArrayReader.End): no entry stream ends successfully on
		// bytes that fail it, so a merge reports nothing from them.
		for _, a := range er.all {
			if err := a.End(); err != nil {
				return nil, false, er.fail("payload", err)
			}
		}
		return nil, false, nil
	}
	e := &er.e
	if err := er.rec.Uint64s(e.Record[:]); err != nil {
		return nil, false, er.bad("records", err)
	}
	if er.i > 0 && compareEntry(er.prev[:], e.Record[:]) > 0 {
		return nil, false, er.bad("records are not sorted", nil)
	}
	er.prev = e.Record
	if er.keyOff != nil {
		end := er.readOne(er.keyOff)
		if end < er.keyAt || end-er.keyAt > er.keyW.Left() {
			return nil, false, er.bad("key offsets do not tile the key words", nil)
		}
		e.Key = grow(e.Key, end-er.keyAt)
		if err := er.keyW.Uint64s(e.Key); err != nil {
			return nil, false, er.bad("key words", err)
		}
		// Offsets that tile the words do not make each slice a record: its frames must
		// consume it exactly, or the examples kept from it print (and order) garbage.
		if err := validateKey(er.ctx, e.Key); err != nil {
			return nil, false, er.bad("key record "+strconv.FormatUint(er.i, 10), err)
		}
		er.keyAt = end
	}
	if er.valOff != nil {
		if err := er.nextValues(e); err != nil {
			return nil, false, err
		}
	}
	er.i++
	return e, true, nil
}

func (er *EntryReader) nextValues(e *Entry) error {
	end := er.readOne(er.valOff)
	if end < er.valAt || end-er.valAt > er.vField.Left() {
		return er.bad("value offsets do not tile the values", nil)
	}
	k := end - er.valAt
	e.Values = grow(e.Values, 3*k)
	er.scratch = grow(er.scratch, 3*k)
	fields, offs, lens := er.scratch[:k], er.scratch[k:2*k], er.scratch[2*k:]
	e.Types = growU8(e.Types, k)
	for _, x := range []struct {
		a   *snapshot.ArrayReader
		dst []uint64
	}{{er.vals, e.Values}, {er.vField, fields}, {er.vOff, offs}, {er.vLen, lens}} {
		if err := x.a.Uint64s(x.dst); err != nil {
			return er.bad("value table", err)
		}
	}
	if err := er.vType.Uint8s(e.Types); err != nil {
		return er.bad("value table", err)
	}
	var words uint64
	for j := range k {
		if j > 0 && e.Values[3*j] <= e.Values[3*(j-1)] {
			return er.bad("value fields not ascending", nil)
		}
		if fields[j] != e.Values[3*j] {
			return er.bad("value table row does not match its value digest entry", nil)
		}
		if offs[j] != er.payAt+words || lens[j] > er.vPay.Left()-words {
			return er.bad("value payloads are not laid out in entry order (load the snapshot whole)", nil)
		}
		words += lens[j]
	}
	e.words = grow(e.words, words)
	if err := er.vPay.Uint64s(e.words); err != nil {
		return er.bad("value payload words", err)
	}
	e.Payloads = e.Payloads[:0]
	var at uint64
	for j := range k {
		e.Payloads = append(e.Payloads, e.words[at:at+lens[j]])
		at += lens[j]
	}
	er.payAt += words
	er.valAt = end
	return nil
}

func grow(s []uint64, n uint64) []uint64 {
	if uint64(cap(s)) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

func growU8(s []uint8, n uint64) []uint8 {
	if uint64(cap(s)) < n {
		return make([]uint8, n)
	}
	return s[:n]
}

// Close closes every stream.
func (er *EntryReader) Close() error {
	var errs []error
	for _, a := range er.all {
		errs = append(errs, a.Close())
	}
	er.all = nil
	return errors.Join(errs...)
}

// CopyFrom makes e a deep copy of src, reusing e's memory.
func (e *Entry) CopyFrom(src *Entry) {
	e.Record = src.Record
	e.Key = append(e.Key[:0], src.Key...)
	e.Values = append(e.Values[:0], src.Values...)
	e.Types = append(e.Types[:0], src.Types...)
	e.words = e.words[:0]
	for _, p := range src.Payloads {
		e.words = append(e.words, p...)
	}
	e.Payloads = e.Payloads[:0]
	at := 0
	for _, p := range src.Payloads {
		e.Payloads = append(e.Payloads, e.words[at:at+len(p)])
		at += len(p)
	}
}
