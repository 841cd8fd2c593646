package fingerprint

import (
	"runtime"
	"sync"

	"github.com/pipewhy/pipewhy/internal/hugemem"
)

// KeyStore holds the key records of a Result's entries where the engine stored them
// while digesting (Options.KeyStore), instead of gathered into Result.KeyWords and
// Result.KeyOffsets. A key of one shape is stored as its frames' payload words alone
// (a one-field int64 or short text key: 1 word instead of 7), so the store with one
// reference word per entry costs a third or less of the gathered arrays, and the merge
// copies no key. Entry e's key record, Key(e), is the one KeyWords would hold at
// KeyWords[KeyOffsets[e]:KeyOffsets[e+1]]; Gather makes those two arrays when a caller
// needs them whole (to publish a snapshot). A KeyStore is read-only and safe for
// concurrent use.
type KeyStore struct {
	stores []wordStore // per engine lane (by value: nothing else of the lane is kept)
	refs   []uint64    // per entry, in Records order: lane << refShift | the lane's record index
}

// Len returns the number of entries.
func (k *KeyStore) Len() int { return len(k.refs) }

// Key returns entry e's key record: [1, 2, k, key frames in ascending field id] (the
// whole record when no key field is declared). It shares memory with the store unless
// the key was stored as payload words: it must not be modified.
func (k *KeyStore) Key(e int) []uint64 {
	ref := k.refs[e]
	return k.stores[ref>>refShift].at(ref & (1<<refShift - 1))
}

// Gather returns every entry's key record in one array, in entry order, and the
// offsets of each (len(offsets) = Len()+1): what Result.KeyWords and Result.KeyOffsets
// hold without Options.KeyStore. The copies run on GOMAXPROCS goroutines.
func (k *KeyStore) Gather() (words, offsets []uint64) {
	n := len(k.refs)
	offsets = make([]uint64, n+1)
	hugemem.Advise(offsets)
	// each runs f over every entry's store and location, the entries split over
	// GOMAXPROCS goroutines.
	parts := max(1, min(runtime.GOMAXPROCS(0), n/max(mergeSegmentMin, 1)))
	each := func(f func(e int, s *wordStore, loc uint64)) {
		var wg sync.WaitGroup
		for i := range parts {
			lo, hi := i*n/parts, (i+1)*n/parts
			wg.Go(func() {
				for e := lo; e < hi; e++ {
					ref := k.refs[e]
					s := &k.stores[ref>>refShift]
					f(e, s, s.where.at(ref&(1<<refShift-1)))
				}
			})
		}
		wg.Wait()
	}
	// First the sizes: offsets[e+1] = the size of entry e, then summed in place.
	each(func(e int, s *wordStore, loc uint64) { offsets[e+1] = uint64(s.size(loc)) })
	for e := range n {
		offsets[e+1] += offsets[e]
	}
	words = make([]uint64, offsets[n])
	hugemem.Advise(words)
	each(func(e int, s *wordStore, loc uint64) { s.copyRun(words[offsets[e]:offsets[e+1]], loc) })
	return words, offsets
}

// Gather replaces r.Keys, if set, by r.KeyWords and r.KeyOffsets (KeyStore.Gather).
func (r *Result) Gather() {
	if r.Keys != nil {
		r.KeyWords, r.KeyOffsets = r.Keys.Gather()
		r.Keys = nil
	}
}
