package arrays

// Bitmap is a C1 validity bitmap: flat uint64 words, least-significant bit
// first. Row i is word i/64, bit i%64; 1 means present, 0 means null. A bitmap
// for n rows has exactly ceil(n/64) words and the unused high bits of the
// final word are zero; zero rows means zero words.
type Bitmap []uint64

// BitmapWords returns ceil(rows/64), the word count of a bitmap for rows rows.
// It fails with CodeRange for a negative row count.
func BitmapWords(rows int) (int, error) {
	if rows < 0 {
		return 0, &Error{Code: CodeRange, Op: "bitmap", Row: -1}
	}
	return rows/64 + min(rows%64, 1), nil
}

// NewBitmap returns a bitmap with one bit per element of valid.
func NewBitmap(valid []bool) Bitmap {
	b := make(Bitmap, (len(valid)+63)/64)
	for i, ok := range valid {
		if ok {
			b[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return b
}

// AllValid returns a bitmap of rows rows, all present.
func AllValid(rows int) (Bitmap, error) {
	n, err := BitmapWords(rows)
	if err != nil {
		return nil, err
	}
	b := make(Bitmap, n)
	for i := range b {
		b[i] = ^uint64(0)
	}
	if r := rows % 64; r != 0 {
		b[n-1] = 1<<uint(r) - 1
	}
	return b, nil
}

// Valid reports whether row i is present. Rows outside the words (including
// negative i) read as 0, like big.Int.Bit; call Validate first to know the
// bitmap covers exactly the table's rows.
func (b Bitmap) Valid(i int) bool {
	if i < 0 || i>>6 >= len(b) {
		return false
	}
	return b[i>>6]>>(uint(i)&63)&1 == 1
}

// Validate checks that b is a well-formed bitmap for rows rows: exactly
// ceil(rows/64) words (CodeBitmapLength) and zero unused tail bits
// (CodeBitmapTail, reported at the first offending row position).
func (b Bitmap) Validate(rows int) error {
	return b.validate("", "", rows)
}

func (b Bitmap) validate(table, column string, rows int) error {
	n, err := BitmapWords(rows)
	if err != nil {
		return err
	}
	if len(b) != n {
		return &Error{Code: CodeBitmapLength, Op: "validate", Table: table, Column: column, Row: -1}
	}
	if r := rows % 64; r != 0 {
		if tail := b[n-1] >> uint(r); tail != 0 {
			pos := rows
			for tail&1 == 0 {
				tail >>= 1
				pos++
			}
			return &Error{Code: CodeBitmapTail, Op: "validate", Table: table, Column: column, Row: pos}
		}
	}
	return nil
}
