package compare

import (
	"errors"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
	"github.com/pipewhy/pipewhy/repo"
)

// cursor is one side of a streaming merge: the entry at its head and the one after it
// (a duplicated key is seen by looking one entry ahead), copies of what the reader
// returned.
type cursor struct {
	r    *repo.EntryReader
	buf  [2]repo.Entry
	has  [2]bool
	head int
}

func newCursor(r *repo.EntryReader) (*cursor, error) {
	c := &cursor{r: r}
	for i := range 2 {
		if err := c.read(i); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *cursor) read(slot int) error {
	e, ok, err := c.r.Next()
	if err != nil {
		return err
	}
	c.has[slot] = ok
	if ok {
		c.buf[slot].CopyFrom(e)
	}
	return nil
}

func (c *cursor) valid() bool      { return c.has[c.head] }
func (c *cursor) cur() *repo.Entry { return &c.buf[c.head] }

// nextHasKey reports whether the entry after the head has key words k0, k1.
func (c *cursor) nextHasKey(k0, k1 uint64) bool {
	n := c.head ^ 1
	return c.has[n] && c.buf[n].Record[0] == k0 && c.buf[n].Record[1] == k1
}

func (c *cursor) advance() error {
	old := c.head
	c.head ^= 1
	c.has[old] = false
	return c.read(old)
}

func (c *cursor) hasKey(k0, k1 uint64) bool {
	return c.valid() && c.cur().Record[0] == k0 && c.cur().Record[1] == k1
}

// MergeStreams is Merge over two entry streams: the same counts and the same visits, in
// the same order, with the entries instead of their indexes (nil for the missing side;
// they are valid during the call only). The streams check their own order.
func MergeStreams(ra, rb *repo.EntryReader, visit func(k Kind, ea, eb *repo.Entry) error) (Counts, error) {
	var c Counts
	a, err := newCursor(ra)
	if err != nil {
		return c, err
	}
	b, err := newCursor(rb)
	if err != nil {
		return c, err
	}
	emit := func(k Kind, ea, eb *repo.Entry) error {
		switch k {
		case Added:
			c.Added++
		case Removed:
			c.Removed++
		case Changed:
			c.Changed++
		default:
			c.Unchanged++
			return nil
		}
		if visit == nil {
			return nil
		}
		return visit(k, ea, eb)
	}
	step := func(cs ...*cursor) error {
		for _, x := range cs {
			if err := x.advance(); err != nil {
				return err
			}
		}
		return nil
	}
	for a.valid() && b.valid() {
		ea, eb := a.cur(), b.cur()
		ka0, ka1, kb0, kb1 := ea.Record[0], ea.Record[1], eb.Record[0], eb.Record[1]
		switch {
		case ka0 < kb0 || (ka0 == kb0 && ka1 < kb1):
			if err := emit(Removed, ea, nil); err != nil {
				return c, err
			}
			err = step(a)
		case ka0 > kb0 || (ka0 == kb0 && ka1 > kb1):
			if err := emit(Added, nil, eb); err != nil {
				return c, err
			}
			err = step(b)
		case !a.nextHasKey(ka0, ka1) && !b.nextHasKey(ka0, ka1):
			k := Unchanged
			if ea.Record[2] != eb.Record[2] || ea.Record[3] != eb.Record[3] {
				k = Changed
			}
			if err := emit(k, ea, eb); err != nil {
				return c, err
			}
			err = step(a, b)
		default:
			c.DuplicateKeys++
			err = mergeGroupStreams(a, b, ka0, ka1, emit)
		}
		if err != nil {
			return c, err
		}
	}
	for a.valid() {
		if err := emit(Removed, a.cur(), nil); err != nil {
			return c, err
		}
		if err := a.advance(); err != nil {
			return c, err
		}
	}
	for b.valid() {
		if err := emit(Added, nil, b.cur()); err != nil {
			return c, err
		}
		if err := b.advance(); err != nil {
			return c, err
		}
	}
	return c, nil
}

// mergeGroupStreams is mergeGroup over the entries of key (k0, k1) at the heads of a
// and b: equal record digests pair as unchanged, the rest are removed or added.
func mergeGroupStreams(a, b *cursor, k0, k1 uint64, emit func(Kind, *repo.Entry, *repo.Entry) error) error {
	for a.hasKey(k0, k1) && b.hasKey(k0, k1) {
		ea, eb := a.cur(), b.cur()
		ra0, ra1, rb0, rb1 := ea.Record[2], ea.Record[3], eb.Record[2], eb.Record[3]
		var err error
		switch {
		case ra0 == rb0 && ra1 == rb1:
			if err = emit(Unchanged, ea, eb); err == nil {
				if err = a.advance(); err == nil {
					err = b.advance()
				}
			}
		case ra0 < rb0 || (ra0 == rb0 && ra1 < rb1):
			if err = emit(Removed, ea, nil); err == nil {
				err = a.advance()
			}
		default:
			if err = emit(Added, nil, eb); err == nil {
				err = b.advance()
			}
		}
		if err != nil {
			return err
		}
	}
	for a.hasKey(k0, k1) {
		if err := emit(Removed, a.cur(), nil); err != nil {
			return err
		}
		if err := a.advance(); err != nil {
			return err
		}
	}
	for b.hasKey(k0, k1) {
		if err := emit(Added, nil, b.cur()); err != nil {
			return err
		}
		if err := b.advance(); err != nil {
			return err
		}
	}
	return nil
}

// openStreams opens both scans' entry streams for parts.
func openStreams(o Options, parts repo.Parts, a, b *repo.Scan) (ra, rb *repo.EntryReader, err error) {
	if ra, err = o.Stream(a, parts); err != nil {
		return nil, nil, err
	}
	if rb, err = o.Stream(b, parts); err != nil {
		_ = ra.Close() // read only; the open error is the one to report
		return nil, nil, err
	}
	return ra, rb, nil
}

// streamDiff is the record pass of Diff over entry streams (Options.Stream): memory is
// the examples kept, not the rows. Examples of changed records are rendered when they
// are kept, since their entries are gone after the pass.
func streamDiff(r *Report, a, b *repo.Scan, o Options, values bool) (c Counts, added, removed, changed []pick, err error) {
	parts := repo.PartRecords | repo.PartKeys
	if values {
		parts |= repo.PartValues
	}
	var fieldIdx map[uint64]int
	if values {
		fieldIdx = fieldIndex(r, a, b)
	}
	nameB := namer(&b.Descriptor)
	ra, rb, err := openStreams(o, parts, a, b)
	if err != nil {
		return c, nil, nil, nil, err
	}
	defer func() { err = closeStreams(err, ra, rb) }()
	keep := func(s []pick, key []uint64, fill func(*pick)) []pick {
		if o.Limit <= 0 || len(s) == o.Limit && !lessKey(key, s[len(s)-1].key) {
			return s
		}
		p := pick{ia: -1, ib: -1, key: append([]uint64(nil), key...)}
		if fill != nil {
			fill(&p)
		}
		return keepSmallest(s, p, o.Limit)
	}
	c, err = MergeStreams(ra, rb, func(k Kind, ea, eb *repo.Entry) error {
		switch k {
		case Added:
			added = keep(added, eb.Key, nil)
		case Removed:
			removed = keep(removed, ea.Key, nil)
		case Changed:
			if values {
				entryValueDiff(ea, eb, r.Fields, fieldIdx, nameB, false)
			}
			changed = keep(changed, eb.Key, func(p *pick) {
				p.rendered = true
				if values {
					p.changes = entryValueDiff(ea, eb, nil, nil, nameB, true)
				}
			})
		}
		return nil
	})
	return c, added, removed, changed, err
}

// entryValueDiff is valueDiff over two streamed entries.
func entryValueDiff(ea, eb *repo.Entry, fields []FieldCount, idx map[uint64]int, name func(uint64) string, keep bool) []ValueChange {
	return diffValues(ea.Values, eb.Values, fields, idx, name, keep, func(i, j int) (string, string) {
		return c2text.Value(normalize.TypeCode(ea.Types[i]), ea.Payloads[i]), c2text.Value(normalize.TypeCode(eb.Types[j]), eb.Payloads[j])
	}, nil)
}

// closeStreams closes both streams. The merge's error, when there is one, is the error,
// unwrapped (a joined error would hide its code from a caller that walks one chain); a
// close error of read-only files matters only when the merge succeeded.
func closeStreams(err error, ra, rb *repo.EntryReader) error {
	cerr := errors.Join(ra.Close(), rb.Close())
	if err != nil {
		return err
	}
	return cerr
}

// streamRecordsOnly is the Merge of equalStates over record streams.
func streamRecordsOnly(o Options, a, b *repo.Scan) (c Counts, err error) {
	ra, rb, err := openStreams(o, repo.PartRecords, a, b)
	if err != nil {
		return c, err
	}
	defer func() { err = closeStreams(err, ra, rb) }()
	return MergeStreams(ra, rb, nil)
}
