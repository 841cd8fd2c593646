package canonical

// Version is the canonical contract version implemented by this package.
const Version uint32 = 1

// The v1 limits. Every one is checked before the memory it bounds is allocated.
const (
	MaxDepth           = 32          // container nesting levels (list<int64> is depth 1)
	MaxFields          = 4096        // fields per struct or schema
	MaxMetadataEntries = 256         // metadata entries per field or schema
	MaxTextBytes       = 16 << 20    // one UTF-8 value, field name or metadata text
	MaxBinaryBytes     = 64 << 20    // one binary or fixed-size binary value
	MaxElements        = 10_000_000  // elements in one list or map value
	MaxRows            = 100_000_000 // rows in one canonical table
	MaxPayloadBytes    = 2 << 30     // one canonical payload (schema or table bytes)
)

// CheckPayloadLength reports a GF_CANONICAL_LIMIT error when n exceeds MaxPayloadBytes.
func CheckPayloadLength(n uint64) error {
	if n > MaxPayloadBytes {
		return &Error{Code: CodeLimit, Op: "payload", Observed: n, Limit: MaxPayloadBytes}
	}
	return nil
}

// CheckTextLength reports a GF_CANONICAL_LIMIT error when a UTF-8 value of n bytes is too long.
func CheckTextLength(n uint64) error {
	if n > MaxTextBytes {
		return &Error{Code: CodeLimit, Op: "text", Observed: n, Limit: MaxTextBytes}
	}
	return nil
}

// CheckBinaryLength reports a GF_CANONICAL_LIMIT error when a binary value of n bytes is too long.
func CheckBinaryLength(n uint64) error {
	if n > MaxBinaryBytes {
		return &Error{Code: CodeLimit, Op: "binary", Observed: n, Limit: MaxBinaryBytes}
	}
	return nil
}

// CheckElementCount reports a GF_CANONICAL_LIMIT error when one list or map holds n > MaxElements.
func CheckElementCount(n uint64) error {
	if n > MaxElements {
		return &Error{Code: CodeLimit, Op: "elements", Observed: n, Limit: MaxElements}
	}
	return nil
}

// CheckRowCount reports a GF_CANONICAL_LIMIT error when a table of n rows is too long.
func CheckRowCount(n uint64) error {
	if n > MaxRows {
		return &Error{Code: CodeLimit, Op: "rows", Observed: n, Limit: MaxRows}
	}
	return nil
}

// addSize adds b to a, reporting false on uint64 overflow.
func addSize(a, b uint64) (uint64, bool) {
	s := a + b
	return s, s >= a
}

// mulSize multiplies a by b, reporting false on uint64 overflow.
func mulSize(a, b uint64) (uint64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	return p, p/b == a
}
