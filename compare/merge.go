package compare

import "github.com/pipewhy/pipewhy/fingerprint"

// Kind classifies one entry of a merge pass.
type Kind uint8

// Merge outcomes.
const (
	Unchanged Kind = iota // same key, same record digest
	Added                 // key only in B
	Removed               // key only in A
	Changed               // same key, different record digest
)

func (k Kind) String() string {
	switch k {
	case Unchanged:
		return "unchanged"
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Changed:
		return "changed"
	}
	return "kind?"
}

// Counts are the record counts of a merge pass.
type Counts struct {
	Added     uint64 `json:"added"`
	Removed   uint64 `json:"removed"`
	Changed   uint64 `json:"changed"`
	Unchanged uint64 `json:"unchanged"`
	// DuplicateKeys counts keys that occur more than once in A or B. Within such a
	// key, records with equal digests pair as unchanged and the rest count as removed
	// (from A) and added (to B): without a unique key there is no way to say which
	// record became which.
	DuplicateKeys uint64 `json:"duplicate_keys"`
}

// Merge compares two record arrays of C3 entries [key_lo, key_hi, record_lo,
// record_hi], each sorted ascending by the four words, in ONE merge pass: no map, no
// second pass (order is verified within the same pass), O(len(a)+len(b)) time and no
// allocation. visit, when not nil, is
// called for every entry that is not unchanged, in key order: Added with ia = -1,
// Removed with ib = -1, Changed with both entry indexes. Arrays whose length is not a
// multiple of the stride, or that are not sorted, are CodeRecords.
func Merge(a, b []uint64, visit func(k Kind, ia, ib int)) (Counts, error) {
	const s = fingerprint.RecordStride
	var c Counts
	if len(a)%s != 0 || len(b)%s != 0 {
		return c, &Error{Code: CodeRecords, Op: "merge", Msg: "record array length is not a multiple of 4"}
	}
	na, nb := len(a)/s, len(b)/s
	// Order is checked inside the same pass: every entry is compared with its
	// predecessor when the pass reaches it (checkedA/checkedB: entries verified so far).
	checkedA, checkedB := 0, 0
	check := func(r []uint64, upto int, done *int) bool {
		for ; *done < upto; *done++ {
			if k := *done; k > 0 && compareEntry(r[(k-1)*s:k*s], r[k*s:k*s+s]) > 0 {
				return false
			}
		}
		return true
	}
	i, j := 0, 0
	for i < na && j < nb {
		if !check(a, i+1, &checkedA) || !check(b, j+1, &checkedB) {
			return c, errUnsorted()
		}
		ka0, ka1 := a[i*s], a[i*s+1]
		kb0, kb1 := b[j*s], b[j*s+1]
		switch {
		case ka0 < kb0 || (ka0 == kb0 && ka1 < kb1):
			c.Removed++
			if visit != nil {
				visit(Removed, i, -1)
			}
			i++
		case ka0 > kb0 || (ka0 == kb0 && ka1 > kb1):
			c.Added++
			if visit != nil {
				visit(Added, -1, j)
			}
			j++
		default:
			ie, je := i+1, j+1
			for ie < na && a[ie*s] == ka0 && a[ie*s+1] == ka1 {
				ie++
			}
			for je < nb && b[je*s] == kb0 && b[je*s+1] == kb1 {
				je++
			}
			if !check(a, ie, &checkedA) || !check(b, je, &checkedB) {
				return c, errUnsorted()
			}
			if ie-i == 1 && je-j == 1 {
				if a[i*s+2] == b[j*s+2] && a[i*s+3] == b[j*s+3] {
					c.Unchanged++
				} else {
					c.Changed++
					if visit != nil {
						visit(Changed, i, j)
					}
				}
			} else {
				c.DuplicateKeys++
				mergeGroup(a, b, i, ie, j, je, &c, visit)
			}
			i, j = ie, je
		}
	}
	if !check(a, na, &checkedA) || !check(b, nb, &checkedB) {
		return c, errUnsorted()
	}
	for ; i < na; i++ {
		c.Removed++
		if visit != nil {
			visit(Removed, i, -1)
		}
	}
	for ; j < nb; j++ {
		c.Added++
		if visit != nil {
			visit(Added, -1, j)
		}
	}
	return c, nil
}

// mergeGroup pairs the entries of one duplicated key by record digest (both groups
// are sorted by it): equal digests are unchanged, the rest removed or added.
func mergeGroup(a, b []uint64, i, ie, j, je int, c *Counts, visit func(Kind, int, int)) {
	const s = fingerprint.RecordStride
	for i < ie && j < je {
		ra0, ra1 := a[i*s+2], a[i*s+3]
		rb0, rb1 := b[j*s+2], b[j*s+3]
		switch {
		case ra0 == rb0 && ra1 == rb1:
			c.Unchanged++
			i++
			j++
		case ra0 < rb0 || (ra0 == rb0 && ra1 < rb1):
			c.Removed++
			if visit != nil {
				visit(Removed, i, -1)
			}
			i++
		default:
			c.Added++
			if visit != nil {
				visit(Added, -1, j)
			}
			j++
		}
	}
	for ; i < ie; i++ {
		c.Removed++
		if visit != nil {
			visit(Removed, i, -1)
		}
	}
	for ; j < je; j++ {
		c.Added++
		if visit != nil {
			visit(Added, -1, j)
		}
	}
}

// compareEntry orders two entries by their four words.
func compareEntry(p, q []uint64) int {
	for k := 0; k < fingerprint.RecordStride; k++ {
		if p[k] != q[k] {
			if p[k] < q[k] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func errUnsorted() error {
	return &Error{Code: CodeRecords, Op: "merge", Msg: "record array is not sorted"}
}
