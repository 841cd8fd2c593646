package fingerprint

// StateVersion is the format version of state words; it never changes meaning.
const StateVersion = 1

// maxLanes bounds the lanes of every registered algorithm.
const maxLanes = 2

// State is a dataset fingerprint: a record count and lanes that are wrapping uint64 sums
// of digest words (lane 0 sums Digest.Lo, lane 1 sums Digest.Hi), a multiset hash. It is
// bound to its Context: adding, merging, subtracting or comparing states of different
// contexts is an error. The zero State is invalid; start from NewState.
type State struct {
	ctx   Context
	count uint64
	lanes [maxLanes]uint64
}

// NewState returns the empty state of c (no records, zero lanes).
func NewState(c Context) State { return State{ctx: c} }

// Context returns the state's context.
func (s State) Context() Context { return s.ctx }

// Count returns the number of records the state sums.
func (s State) Count() uint64 { return s.count }

// Lanes returns a copy of the lane words.
func (s State) Lanes() []uint64 {
	n := s.ctx.Algorithm().Lanes()
	return append([]uint64(nil), s.lanes[:n]...)
}

// Add adds one record digest: count+1 and each lane plus its digest word, wrapping.
// Lanes wrap by definition; the count never does: a state already holding 2**64-1
// records is CodeCountOverflow and stays unchanged.
func (s *State) Add(d Digest) error {
	if s.count == ^uint64(0) {
		return newErr("add", CodeCountOverflow, "record count would exceed 2**64-1")
	}
	s.count++
	s.lanes[0] += d.Lo
	s.lanes[1] += d.Hi
	return nil
}

// Merge adds o into s: the state of the multiset union. Merging is commutative and
// associative, so partitions may be merged in any order. A record count above 2**64-1 is
// CodeCountOverflow and leaves s unchanged.
func (s *State) Merge(o State) error {
	if err := s.same("merge", o); err != nil {
		return err
	}
	if o.count > ^uint64(0)-s.count {
		return newErr("merge", CodeCountOverflow, "record count would exceed 2**64-1")
	}
	s.count += o.count
	for i := range s.lanes {
		s.lanes[i] += o.lanes[i]
	}
	return nil
}

// Subtract removes o from s: the state of s's records without o's. It fails, leaving s
// unchanged, when o counts more records than s (CodeUnderflow). Subtracting records that
// were never added is not detectable beyond that count check: the lanes just wrap.
func (s *State) Subtract(o State) error {
	if err := s.same("subtract", o); err != nil {
		return err
	}
	if o.count > s.count {
		return newErr("subtract", CodeUnderflow, "subtracting "+uitoa(o.count)+" records from a state of "+uitoa(s.count))
	}
	s.count -= o.count
	for i := range s.lanes {
		s.lanes[i] -= o.lanes[i]
	}
	return nil
}

// Equal reports whether s and o hold equal record counts and lanes. States of different
// contexts are never compared: that is CodeForeignContext, not false.
func (s State) Equal(o State) (bool, error) {
	if err := s.same("equal", o); err != nil {
		return false, err
	}
	return s.count == o.count && s.lanes == o.lanes, nil
}

func (s State) same(op string, o State) error {
	if !s.ctx.Valid() || !o.ctx.Valid() {
		return newErr(op, CodeContext, "state has no context")
	}
	if !s.ctx.Equal(o.ctx) {
		return newErr(op, CodeForeignContext, "states of different contexts")
	}
	return nil
}

// Words returns the state words [StateVersion, lane_count, record_count, lane_0, ...].
func (s State) Words() []uint64 { return s.AppendWords(nil) }

// AppendWords appends the state words to dst.
func (s State) AppendWords(dst []uint64) []uint64 {
	n := s.ctx.Algorithm().Lanes()
	dst = append(dst, StateVersion, uint64(n), s.count)
	return append(dst, s.lanes[:n]...)
}

// FromWords decodes state words stored for context c. recordedContextID is the context
// identity stored beside the words (words never carry their context): it must equal
// c.ID(), else CodeForeignContext. The words must be exactly
// [StateVersion, c.Algorithm().Lanes(), record_count, lanes...]: another version is
// CodeStateVersion, another lane count CodeLaneCount, any other length CodeState.
// FromWords never panics and does not retain words.
func FromWords(c Context, recordedContextID string, words []uint64) (State, error) {
	if !c.Valid() {
		return State{}, newErr("state", CodeContext, "invalid context")
	}
	if recordedContextID != c.ID() {
		return State{}, newErr("state", CodeForeignContext, "words were recorded for another context")
	}
	return parseWords(c, words)
}

// parseWords checks words for c whose identity the caller has already established.
func parseWords(c Context, words []uint64) (State, error) {
	if len(words) < 3 {
		return State{}, newErr("state", CodeState, "state of "+uitoa(uint64(len(words)))+" words lacks its 3-word header")
	}
	if words[0] != StateVersion {
		return State{}, newErr("state", CodeStateVersion, "unknown state version")
	}
	lanes := uint64(c.Algorithm().Lanes())
	if words[1] != lanes {
		return State{}, newErr("state", CodeLaneCount, "lane count "+uitoa(words[1])+", algorithm has "+uitoa(lanes))
	}
	if uint64(len(words)) != 3+lanes {
		return State{}, newErr("state", CodeState, "state of "+uitoa(uint64(len(words)))+" words, want "+uitoa(3+lanes))
	}
	s := State{ctx: c, count: words[2]}
	copy(s.lanes[:], words[3:])
	return s, nil
}
