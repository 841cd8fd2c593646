package arrays

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
)

func wantCode(t *testing.T, err error, code Code) {
	t.Helper()
	if got := CodeOf(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

func TestDType(t *testing.T) {
	tests := []struct {
		d      DType
		name   string
		size   int
		signed bool
	}{
		{Int8, "int8", 1, true}, {Int16, "int16", 2, true}, {Int32, "int32", 4, true}, {Int64, "int64", 8, true},
		{Uint8, "uint8", 1, false}, {Uint16, "uint16", 2, false}, {Uint32, "uint32", 4, false}, {Uint64, "uint64", 8, false},
	}
	for _, tt := range tests {
		if tt.d.String() != tt.name || tt.d.Size() != tt.size || tt.d.Signed() != tt.signed || !tt.d.Valid() {
			t.Errorf("%d: got %s/%d/%v", tt.d, tt.d.String(), tt.d.Size(), tt.d.Signed())
		}
		d, err := ParseDType(tt.name)
		if err != nil || d != tt.d {
			t.Errorf("ParseDType(%q) = %v, %v", tt.name, d, err)
		}
	}
	for _, bad := range []DType{0, 9, 255} {
		if bad.Valid() || bad.Size() != 0 || bad.String() != "invalid" {
			t.Errorf("DType(%d) looks valid", bad)
		}
	}
	for s, code := range map[string]Code{
		"float64": CodeNotInteger, "float32": CodeNotInteger, "bool": CodeNotInteger,
		"int128": CodeDType, "Int8": CodeDType, "": CodeDType, "uint64 ": CodeDType, "int": CodeDType,
	} {
		_, err := ParseDType(s)
		wantCode(t, err, code)
	}
}

func TestFromBytesLittleEndianAnyAlignment(t *testing.T) {
	// 0x0102030405060708 little-endian is 08 07 06 05 04 03 02 01.
	raw := []byte{0xEE, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	v, err := FromBytes(raw[1:], Uint64, Options{}) // deliberately unaligned
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 2 || v.DType() != Uint64 {
		t.Fatalf("Len %d DType %v", v.Len(), v.DType())
	}
	if x, err := v.Uint64At(0); err != nil || x != 0x0102030405060708 {
		t.Errorf("Uint64At(0) = %#x, %v", x, err)
	}
	if x, err := v.Uint64At(1); err != nil || x != math.MaxUint64 {
		t.Errorf("Uint64At(1) = %#x, %v", x, err)
	}
	_, err = v.Int64At(1)
	wantCode(t, err, CodeRange)
	for _, i := range []int{-1, 2, math.MaxInt} {
		_, err = v.Uint64At(i)
		wantCode(t, err, CodeIndex)
	}

	cases := []struct {
		dt   DType
		b    []byte
		want []int64
	}{
		{Int8, []byte{0x80, 0x7F, 0xFF}, []int64{-128, 127, -1}},
		{Uint8, []byte{0x80, 0xFF}, []int64{128, 255}},
		{Int16, []byte{0x00, 0x80, 0xFF, 0x7F}, []int64{-32768, 32767}},
		{Uint16, []byte{0x34, 0x12}, []int64{0x1234}},
		{Int32, []byte{0xFE, 0xFF, 0xFF, 0xFF}, []int64{-2}},
		{Uint32, []byte{0x78, 0x56, 0x34, 0x12}, []int64{0x12345678}},
		{Int64, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, []int64{math.MinInt64}},
	}
	for _, c := range cases {
		v, err := FromBytes(c.b, c.dt, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.want {
			got, err := v.Int64At(i)
			if err != nil || got != w {
				t.Errorf("%v[%d] = %d, %v; want %d", c.dt, i, got, err, w)
			}
			u, err := v.Uint64At(i)
			if w < 0 {
				wantCode(t, err, CodeRange)
			} else if err != nil || u != uint64(w) {
				t.Errorf("%v[%d] Uint64At = %d, %v", c.dt, i, u, err)
			}
		}
	}
}

func TestFromBytesRejects(t *testing.T) {
	_, err := FromBytes(make([]byte, 7), Uint64, Options{})
	wantCode(t, err, CodeLengthMisaligned)
	_, err = FromBytes(make([]byte, 3), Int16, Options{})
	wantCode(t, err, CodeLengthMisaligned)
	_, err = FromBytes(nil, DType(0), Options{})
	wantCode(t, err, CodeDType)
	_, err = FromBytes(nil, Uint8, Options{LogicalID: ID(Absent)})
	wantCode(t, err, CodeLogicalID)
	if !errors.Is(err, ErrBuffer) {
		t.Errorf("errors.Is(%v, ErrBuffer) = false", err)
	}
	v, err := FromBytes(nil, Uint64, Options{LogicalID: ID(Absent - 1)})
	if err != nil || v.Len() != 0 {
		t.Fatalf("empty view: %v, %v", v, err)
	}
	if id, ok := v.Descriptor().LogicalID.Get(); !ok || id != Absent-1 {
		t.Errorf("logical id %d %v", id, ok)
	}
}

func TestBigEndianHostRejected(t *testing.T) {
	defer func(old bool) { littleEndianHost = old }(littleEndianHost)
	littleEndianHost = false
	_, err := FromBytes(make([]byte, 8), Uint64, Options{})
	wantCode(t, err, CodeBigEndianHost)
	_, err = FromSlice([]uint32{1}, Options{})
	wantCode(t, err, CodeBigEndianHost)
	_, err = Borrow(Buffer{Data: make([]byte, 8), Format: "uint64"})
	wantCode(t, err, CodeBigEndianHost)
}

type myID uint64

func TestFromSliceBorrowsWithoutCopy(t *testing.T) {
	s := []int32{-1, 2, 3}
	v, err := FromSlice(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.DType() != Int32 || v.Len() != 3 {
		t.Fatalf("%v", v)
	}
	s[1] = 20 // an alias write is visible: no copy was made
	if x, _ := v.Int64At(1); x != 20 {
		t.Errorf("view did not alias the slice: %d", x)
	}
	ids := []myID{5, 6}
	w, err := FromSlice(ids, Options{ReadOnly: true})
	if err != nil || w.DType() != Uint64 {
		t.Fatalf("%v %v", w, err)
	}
}

func TestViewKeepsOwnerAlive(t *testing.T) {
	v := func() *View {
		s := make([]uint64, 1<<16)
		for i := range s {
			s[i] = uint64(i) * 3
		}
		v, err := FromSlice(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}()
	for range 3 {
		runtime.GC()
		_ = make([]uint64, 1<<16) // give the allocator a chance to reuse freed memory
	}
	for _, i := range []int{0, 1, 12345, 1<<16 - 1} {
		if x, err := v.Uint64At(i); err != nil || x != uint64(i)*3 {
			t.Fatalf("element %d = %d, %v", i, x, err)
		}
	}
}

func TestFromAny(t *testing.T) {
	ok := []struct {
		v  any
		dt DType
		n  int
	}{
		{[]int8{1}, Int8, 1}, {[]uint16{1, 2}, Uint16, 2}, {[]int64{}, Int64, 0},
		{[]myID{1, 2, 3}, Uint64, 3}, {[]byte("abc"), Uint8, 3},
	}
	for _, c := range ok {
		v, err := FromAny(c.v, Options{})
		if err != nil || v.DType() != c.dt || v.Len() != c.n {
			t.Errorf("FromAny(%T) = %v, %v", c.v, v, err)
		}
	}
	bad := []struct {
		v    any
		code Code
	}{
		{nil, CodeNotInteger},
		{[]float64{1}, CodeNotInteger},
		{[]float32{1}, CodeNotInteger},
		{[]string{"1"}, CodeNotInteger},
		{[]bool{true}, CodeNotInteger},
		{"123", CodeNotInteger},
		{[]int{1}, CodeNotFixedWidth},
		{[]uint{1}, CodeNotFixedWidth},
		{[]uintptr{1}, CodeNotFixedWidth},
		{[][]uint64{{1}}, CodeNotOneDim},
		{[][2]int32{{1, 2}}, CodeNotOneDim},
		{uint64(7), CodeNotOneDim},
		{7, CodeNotOneDim},
		{[3]uint64{}, CodeNotContiguous},
		{&[]uint64{1}, CodeNotInteger},
	}
	for _, c := range bad {
		_, err := FromAny(c.v, Options{})
		if CodeOf(err) != c.code || !errors.Is(err, ErrBuffer) {
			t.Errorf("FromAny(%T): %v, want %s", c.v, err, c.code)
		}
	}
}

func TestBorrow(t *testing.T) {
	data := make([]byte, 24)
	data[8] = 1
	good := []Buffer{
		{Data: data, Format: "uint64"},
		{Data: data, Format: "uint64", Shape: []int{3}, Strides: []int{8}, Device: DeviceCPU},
		{Data: data, Format: "uint8", BigEndian: true}, // byte order is moot for one byte
		{Data: data[:8], Format: "int64", Shape: []int{1}, Strides: []int{24}},
		{Data: nil, Format: "int32", Shape: []int{0}},
	}
	for i, b := range good {
		v, err := Borrow(b)
		if err != nil {
			t.Errorf("good[%d]: %v", i, err)
			continue
		}
		if i == 0 {
			if x, _ := v.Uint64At(1); x != 1 {
				t.Errorf("Uint64At(1) = %d", x)
			}
		}
	}
	bad := []struct {
		b    Buffer
		code Code
	}{
		{Buffer{Data: data, Format: "uint64", Device: DeviceCUDA}, CodeDevice},
		{Buffer{Data: data, Format: "float64"}, CodeNotInteger},
		{Buffer{Data: data, Format: "int128"}, CodeDType},
		{Buffer{Data: data, Format: "int32", BigEndian: true}, CodeForeignEndian},
		{Buffer{Data: data, Format: "uint64", Shape: []int{}}, CodeNotOneDim},
		{Buffer{Data: data, Format: "uint64", Shape: []int{1, 3}}, CodeNotOneDim},
		{Buffer{Data: data, Format: "uint64", Shape: []int{3}, Strides: []int{8, 8}}, CodeNotOneDim},
		{Buffer{Data: data, Format: "uint64", Shape: []int{4}}, CodeLengthMisaligned},
		{Buffer{Data: data, Format: "uint64", Shape: []int{-1}}, CodeLengthMisaligned},
		{Buffer{Data: data, Format: "uint64", Shape: []int{math.MaxInt}}, CodeLengthMisaligned},
		{Buffer{Data: data, Format: "uint64", Strides: []int{16}}, CodeNotContiguous},
		{Buffer{Data: data, Format: "uint64", Strides: []int{-8}}, CodeNotContiguous},
		{Buffer{Data: data[:20], Format: "uint64"}, CodeLengthMisaligned},
		{Buffer{Data: data, Format: "uint64", Options: Options{LogicalID: ID(Absent)}}, CodeLogicalID},
	}
	for i, c := range bad {
		_, err := Borrow(c.b)
		if CodeOf(err) != c.code {
			t.Errorf("bad[%d]: %v, want %s", i, err, c.code)
		}
	}
}

func TestDescriptor(t *testing.T) {
	v, err := FromSlice([]uint16{1, 2, 3}, Options{ReadOnly: true, LogicalID: ID(42)})
	if err != nil {
		t.Fatal(err)
	}
	want := Descriptor{LogicalID: ID(42), DType: Uint16, Len: 3, Device: DeviceCPU, ReadOnly: true, Access: AccessByteSafe, Alignment: 1}
	if got := v.Descriptor(); got != want {
		t.Errorf("Descriptor = %+v, want %+v", got, want)
	}
	anon, _ := FromSlice([]uint16{1}, Options{})
	if _, ok := anon.Descriptor().LogicalID.Get(); ok {
		t.Error("anonymous view has a logical id")
	}
	if d := anon.Descriptor(); d.HasDeviceID || d.Device != DeviceCPU {
		t.Errorf("cpu view device %+v", d)
	}
	s := v.String()
	if strings.Contains(s, "0x") || s != "arrays.View{uint16 len=3 id=42 read-only}" {
		t.Errorf("String() = %q", s)
	}
}

func TestReadOnly(t *testing.T) {
	s := []uint8{1, 2, 3}
	ro, _ := FromSlice(s, Options{ReadOnly: true})
	_, err := ro.Bytes()
	wantCode(t, err, CodeReadOnly)
	cp, err := ro.AppendBytes(nil)
	if err != nil || !bytes.Equal(cp, s) {
		t.Fatalf("AppendBytes = %v, %v", cp, err)
	}
	cp[0] = 9
	if s[0] != 1 {
		t.Error("AppendBytes returned the borrowed memory")
	}
	var buf bytes.Buffer
	if n, err := ro.WriteTo(&buf); err != nil || n != 3 || !bytes.Equal(buf.Bytes(), s) {
		t.Errorf("WriteTo = %d, %v, %v", n, err, buf.Bytes())
	}
	rw, _ := FromSlice(s, Options{})
	b, err := rw.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	b[2] = 30
	if s[2] != 30 {
		t.Error("writable Bytes is not the borrowed memory")
	}
}

func TestAppendUint64s(t *testing.T) {
	v, _ := FromSlice([]uint64{1, Absent}, Options{})
	got, err := v.AppendUint64s([]uint64{9})
	if err != nil || len(got) != 3 || got[0] != 9 || got[1] != 1 || got[2] != Absent {
		t.Errorf("AppendUint64s = %v, %v", got, err)
	}
	w, _ := FromSlice([]int16{3, -4}, Options{})
	_, err = w.AppendUint64s(nil)
	wantCode(t, err, CodeRange)
	var e *Error
	if errors.As(err, &e); e.Row != 1 {
		t.Errorf("row %d, want 1", e.Row)
	}
	u, _ := FromSlice([]uint32{math.MaxUint32}, Options{})
	if got, err := u.AppendUint64s(nil); err != nil || got[0] != math.MaxUint32 {
		t.Errorf("uint32 widen = %v, %v", got, err)
	}
}

func TestRelease(t *testing.T) {
	v, _ := FromSlice([]uint64{1, 2}, Options{LogicalID: ID(3)})
	v.Release()
	v.Release() // idempotent
	if !v.Released() {
		t.Fatal("Released() = false")
	}
	ops := map[string]func() error{
		"Uint64At":      func() error { _, err := v.Uint64At(0); return err },
		"Int64At":       func() error { _, err := v.Int64At(0); return err },
		"AppendUint64s": func() error { _, err := v.AppendUint64s(nil); return err },
		"AppendBytes":   func() error { _, err := v.AppendBytes(nil); return err },
		"Bytes":         func() error { _, err := v.Bytes(); return err },
		"WriteTo":       func() error { _, err := v.WriteTo(&bytes.Buffer{}); return err },
	}
	for name, op := range ops {
		err := op()
		if CodeOf(err) != CodeReleased || !errors.Is(err, ErrReleased) {
			t.Errorf("%s after Release: %v", name, err)
		}
	}
	got, err := v.AppendUint64s([]uint64{7})
	if err == nil || len(got) != 1 {
		t.Errorf("released AppendUint64s returned data: %v", got)
	}
	// Metadata survives.
	if v.Len() != 2 || v.DType() != Uint64 || v.Descriptor().Len != 2 {
		t.Errorf("metadata after release: %v", v)
	}
	if !strings.HasSuffix(v.String(), " released}") {
		t.Errorf("String() = %q", v.String())
	}
}

func TestErrorFormat(t *testing.T) {
	e := &Error{Code: CodeCycle, Op: "validate", Table: "artifact", Column: "parent_id", Row: 4}
	want := "arrays: validate: artifact.parent_id row 4: containment_cycle (artifact containment cycle)"
	if e.Error() != want {
		t.Errorf("Error() = %q", e.Error())
	}
	cause := errors.New("boom")
	e2 := &Error{Code: CodeIndex, Op: "read", Row: 9, Err: cause}
	if e2.Error() != "arrays: read: index 9: index (index out of range): boom" || !errors.Is(e2, cause) || !errors.Is(e2, ErrRange) {
		t.Errorf("Error() = %q", e2.Error())
	}
	if errors.Is(e2, ErrInvalid) || CodeOf(cause) != "" {
		t.Error("category mismatch")
	}
	// Every code has a description and a category.
	for c := range describe {
		if category(c) == nil {
			t.Errorf("code %s has no category", c)
		}
	}
}

// TestSignBoundaryReads: the range checks of Uint64At, AppendUint64s and
// Int64At sit exactly at the sign boundary. Zero, the value at the limit, is
// a valid uint64 of every signed dtype and -1, one past it, is not; a uint64
// element of MaxInt64 is a valid int64 and MaxInt64+1 is not.
func TestSignBoundaryReads(t *testing.T) {
	views := map[string]*View{}
	add := func(name string, v *View, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		views[name] = v
	}
	// Element 0 is 0, element 1 is -1.
	v8, err := FromSlice([]int8{0, -1}, Options{})
	add("int8", v8, err)
	v16, err := FromSlice([]int16{0, -1}, Options{})
	add("int16", v16, err)
	v32, err := FromSlice([]int32{0, -1}, Options{})
	add("int32", v32, err)
	v64, err := FromSlice([]int64{0, -1}, Options{})
	add("int64", v64, err)
	for name, v := range views {
		if x, err := v.Uint64At(0); err != nil || x != 0 {
			t.Errorf("%s Uint64At(0) = %d, %v; want 0, nil", name, x, err)
		}
		_, err := v.Uint64At(1)
		wantErr(t, err, CodeRange, "", 1)
		// AppendUint64s: the zero is appended, then the -1 fails at row 1.
		got, err := v.AppendUint64s(nil)
		wantErr(t, err, CodeRange, "", 1)
		if len(got) != 1 || got[0] != 0 {
			t.Errorf("%s AppendUint64s = %v before the error, want [0]", name, got)
		}
	}
	u, err := FromSlice([]uint64{math.MaxInt64, math.MaxInt64 + 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if x, err := u.Int64At(0); err != nil || x != math.MaxInt64 {
		t.Errorf("Int64At(MaxInt64) = %d, %v; want %d, nil", x, err, int64(math.MaxInt64))
	}
	_, err = u.Int64At(1)
	wantErr(t, err, CodeRange, "", 1)
}

// TestErrorFormatRowZero: Row is a row index, -1 when the error is about no
// row, so row 0 is printed like any other row, with and without a table.
func TestErrorFormatRowZero(t *testing.T) {
	e := &Error{Code: CodeCycle, Op: "validate", Table: "artifact", Column: "parent_id", Row: 0}
	if want := "arrays: validate: artifact.parent_id row 0: containment_cycle (artifact containment cycle)"; e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	e2 := &Error{Code: CodeIndex, Op: "read", Row: 0}
	if want := "arrays: read: index 0: index (index out of range)"; e2.Error() != want {
		t.Errorf("Error() = %q, want %q", e2.Error(), want)
	}
}
