package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLayout checks the published bytes against the hand-written fixture.
func TestLayout(t *testing.T) {
	s := newStore(t, Options{})
	id := publishFixture(t, s)
	dir := filepath.Join(s.Root(), "snapshots", fixtureID)
	if got := listDir(t, s.Root()); !slices.Equal(got, []string{"snapshots", "staging"}) {
		t.Fatalf("root holds %v", got)
	}
	if got := listDir(t, stagingDirOf(s)); len(got) != 0 {
		t.Fatalf("staging holds %v after a successful publish", got)
	}
	want := []string{"array-flags.bin", "array-ids.bin", "array-none.bin", "complete.sha256", "intent.json", "manifest.json"}
	if got := listDir(t, dir); !slices.Equal(got, want) {
		t.Fatalf("snapshot holds %v, want %v", got, want)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := string(read("manifest.json")); got != fixtureManifest {
		t.Fatalf("manifest.json:\n%s\nwant\n%s", got, fixtureManifest)
	}
	sum := sha256.Sum256([]byte(fixtureManifest))
	if got, want := string(read("complete.sha256")), hex.EncodeToString(sum[:])+"\n"; got != want {
		t.Fatalf("complete.sha256 = %q, want %q", got, want)
	}
	if got, want := string(read("intent.json")), `{"format":"pipewhy.snapshot.intent","snapshot_id":"`+fixtureID+`","version":1}`; got != want {
		t.Fatalf("intent.json = %s, want %s", got, want)
	}
	ids := []byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	for name, want := range map[string][]byte{"array-ids.bin": ids, "array-flags.bin": {0x80, 0xff, 0x7f}, "array-none.bin": {}} {
		if got := read(name); !bytes.Equal(got, want) {
			t.Errorf("%s = % x, want % x", name, got, want)
		}
	}
	if err := s.Verify(id); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTripAllDTypes(t *testing.T) {
	s := newStore(t, Options{})
	in := map[string]Array{
		"i8":    FromInt8([]int8{math.MinInt8, -1, 0, 1, math.MaxInt8}),
		"i16":   FromInt16([]int16{math.MinInt16, -1, 0, 1, math.MaxInt16}),
		"i32":   FromInt32([]int32{math.MinInt32, -1, 0, 1, math.MaxInt32}),
		"i64":   FromInt64([]int64{math.MinInt64, -1, 0, 1, math.MaxInt64}),
		"u8":    FromUint8([]uint8{0, 1, math.MaxUint8 - 1, math.MaxUint8}),
		"u16":   FromUint16([]uint16{0, 1, math.MaxUint16 - 1, math.MaxUint16}),
		"u32":   FromUint32([]uint32{0, 1, math.MaxUint32 - 1, math.MaxUint32}),
		"u64":   FromUint64([]uint64{0, 1, math.MaxUint64 - 1, math.MaxUint64}),
		"e_i8":  FromInt8(nil),
		"e_i16": FromInt16([]int16{}),
		"e_i32": FromInt32(nil),
		"e_i64": FromInt64(nil),
		"e_u8":  FromUint8(nil),
		"e_u16": FromUint16(nil),
		"e_u32": FromUint32(nil),
		"e_u64": FromUint64(nil),
		"a" + string(bytes.Repeat([]byte("z"), 63)): FromUint8([]uint8{7}),
	}
	md := fixtureMetadata(t)
	md.ID = NewID()
	if err := s.Publish(context.Background(), md, in); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Open(md.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sameMetadata(snap.Metadata, md) {
		t.Fatalf("metadata %+v, want %+v", snap.Metadata, md)
	}
	if !slices.Equal(snap.Keys(), sortedKeys(in)) {
		t.Fatalf("keys %v", snap.Keys())
	}
	for k, a := range in {
		if !snap.Arrays[k].Equal(a) {
			t.Errorf("%s: got %v % x, want %v % x", k, snap.Arrays[k].DType(), snap.Arrays[k].Bytes(), a.DType(), a.Bytes())
		}
	}
	// Typed accessors give the boundary values back, little-endian bytes are exact.
	if v, err := snap.Arrays["i64"].Int64s(); err != nil || !slices.Equal(v, []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}) {
		t.Errorf("Int64s = %v, %v", v, err)
	}
	if v, err := snap.Arrays["u64"].Uint64s(); err != nil || !slices.Equal(v, []uint64{0, 1, math.MaxUint64 - 1, math.MaxUint64}) {
		t.Errorf("Uint64s = %v, %v", v, err)
	}
	if v, err := snap.Arrays["i16"].Int16s(); err != nil || !slices.Equal(v, []int16{math.MinInt16, -1, 0, 1, math.MaxInt16}) {
		t.Errorf("Int16s = %v, %v", v, err)
	}
	if got := snap.Arrays["i16"].Bytes(); !bytes.Equal(got, []byte{0x00, 0x80, 0xff, 0xff, 0, 0, 1, 0, 0xff, 0x7f}) {
		t.Errorf("int16 bytes % x", got)
	}
	if got := snap.Arrays["u32"].Bytes(); !bytes.Equal(got, []byte{0, 0, 0, 0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
		t.Errorf("uint32 bytes % x", got)
	}
	if v, err := snap.Arrays["e_u64"].Uint64s(); err != nil || len(v) != 0 || snap.Arrays["e_u64"].DType() != Uint64 {
		t.Errorf("empty uint64 = %v, %v", v, err)
	}
	if _, err := snap.Arrays["u64"].Int64s(); err == nil {
		t.Error("Int64s of a uint64 array succeeded")
	}
}

func sortedKeys(m map[string]Array) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestImmutability(t *testing.T) {
	s := newStore(t, Options{})
	src := []uint64{1, 2, 3}
	a := FromUint64(src)
	src[0] = 99 // after construction
	md := fixtureMetadata(t)
	md.Coverage.FailureReasons = nil
	in := map[string]Array{"ids": a}
	if err := s.Publish(context.Background(), md, in); err != nil {
		t.Fatal(err)
	}
	src[1] = 99 // after publish
	in["ids"] = FromUint64([]uint64{5})
	md.Scope = "changed"
	snap, err := s.Open(md.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := snap.Arrays["ids"].Uint64s()
	if !slices.Equal(got, []uint64{1, 2, 3}) || snap.Metadata.Scope != fixtureMetadata(t).Scope {
		t.Fatalf("stored snapshot changed: %v %q", got, snap.Metadata.Scope)
	}
	got[0] = 42 // mutate the returned copy
	b := snap.Arrays["ids"].Bytes()
	b[0] = 42
	snap.Arrays["ids"] = FromUint64(nil)
	again, err := s.Open(md.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := again.Arrays["ids"].Uint64s(); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Fatalf("reopened %v", got)
	}
	if got, _ := snap.Arrays["ids"].Uint64s(); len(got) != 0 {
		t.Fatalf("caller's map is its own: %v", got)
	}
}

func TestNewArray(t *testing.T) {
	a, err := NewArray(Int16, []byte{1, 0, 0xff, 0xff})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Int16s(); !slices.Equal(v, []int16{1, -1}) || a.Len() != 2 || a.ByteLen() != 4 {
		t.Fatalf("NewArray = %v", v)
	}
	if _, err := NewArray(Int32, []byte{1, 2, 3}); codeOf(err) != CodeInvalidArray {
		t.Fatalf("odd length: %v", err)
	}
	if _, err := NewArray(DType(0), nil); codeOf(err) != CodeInvalidArray {
		t.Fatalf("zero dtype: %v", err)
	}
	if _, err := NewArray(DType(9), nil); codeOf(err) != CodeInvalidArray {
		t.Fatalf("dtype 9: %v", err)
	}
	for d := Int8; d <= Uint64; d++ {
		p, err := ParseDType(d.String())
		if err != nil || p != d {
			t.Errorf("ParseDType(%s) = %v, %v", d, p, err)
		}
	}
	for _, s := range []string{"", "int", "Int8", "float32", "bool", "int128", "uint64 "} {
		if _, err := ParseDType(s); err == nil {
			t.Errorf("ParseDType(%q) succeeded", s)
		}
	}
}

func TestKeys(t *testing.T) {
	good := []string{"a", "a0", "a_", "z9_x", "a" + string(bytes.Repeat([]byte("b"), 63))}
	bad := []string{"", "A", "0a", "_a", "a-b", "a.b", "a/b", "../a", "aé", "a b", "a\n", "a" + string(bytes.Repeat([]byte("b"), 64))}
	for _, k := range good {
		if !ValidKey(k) {
			t.Errorf("ValidKey(%q) = false", k)
		}
	}
	s := newStore(t, Options{})
	for _, k := range bad {
		if ValidKey(k) {
			t.Errorf("ValidKey(%q) = true", k)
		}
		md := fixtureMetadata(t)
		md.ID = NewID()
		err := s.Publish(context.Background(), md, map[string]Array{k: FromUint8(nil)})
		if codeOf(err) != CodeInvalidArray || !errors.Is(err, ErrInvalid) {
			t.Errorf("Publish with key %q: %v", k, err)
		}
	}
	md := fixtureMetadata(t)
	if err := s.Publish(context.Background(), md, map[string]Array{"zero": {}}); codeOf(err) != CodeInvalidArray {
		t.Errorf("Publish of a zero Array: %v", err)
	}
	if got := listDir(t, s.Root()); len(got) != 0 {
		t.Errorf("rejected publishes touched the store: %v", got)
	}
}

func TestPublishRejects(t *testing.T) {
	s := newStore(t, Options{})
	id := publishFixture(t, s)
	ctx := context.Background()

	err := s.Publish(ctx, fixtureMetadata(t), fixtureArrays())
	if !errors.Is(err, fs.ErrExist) || codeOf(err) != CodeExists {
		t.Fatalf("republish: %v", err)
	}
	md := fixtureMetadata(t)
	md.Scope = ""
	if err := s.Publish(ctx, md, nil); codeOf(err) != CodeInvalidMetadata {
		t.Fatalf("invalid metadata: %v", err)
	}
	// Parents: a published snapshot is accepted, a missing one or itself is not.
	child := fixtureMetadata(t)
	child.ID = NewID()
	child.Parent = &id
	if err := s.Publish(ctx, child, nil); err != nil {
		t.Fatalf("child of a published parent: %v", err)
	}
	orphan := fixtureMetadata(t)
	orphan.ID = NewID()
	missing := NewID()
	orphan.Parent = &missing
	if err := s.Publish(ctx, orphan, nil); codeOf(err) != CodeParent || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing parent: %v", err)
	}
	self := fixtureMetadata(t)
	self.ID = NewID()
	self.Parent = &self.ID
	if err := s.Publish(ctx, self, nil); codeOf(err) != CodeParent {
		t.Fatalf("self parent: %v", err)
	}
	// An attempt staged but never published is not a complete snapshot.
	staged := fixtureMetadata(t)
	staged.ID = NewID()
	failing := Options{FS: failAt(func(op string) bool { return op == "rename" })}
	fs2, err := Open(s.Root(), failing)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs2.Publish(ctx, staged, nil); err == nil {
		t.Fatal("injected rename failure did not fail")
	}
	notParent := fixtureMetadata(t)
	notParent.ID = NewID()
	notParent.Parent = &staged.ID
	if err := s.Publish(ctx, notParent, nil); codeOf(err) != CodeParent {
		t.Fatalf("staged parent: %v", err)
	}
	// A child opens without its parent.
	if err := os.RemoveAll(s.Path(id)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(child.ID); err != nil {
		t.Fatalf("child without parent: %v", err)
	}
	// A canceled context publishes nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	c := fixtureMetadata(t)
	c.ID = NewID()
	if err := s.Publish(cctx, c, nil); codeOf(err) != CodeCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
}

func TestVerifyContext(t *testing.T) {
	reject := errors.New("unknown context")
	allow := true
	opts := Options{VerifyContext: func(fc FingerprintContext) error {
		if !allow || fc.ContextID != "ctx-id" {
			return reject
		}
		return nil
	}}
	s := newStore(t, opts)
	md := fixtureMetadata(t)
	md.Fingerprint.ContextID = "other"
	if err := s.Publish(context.Background(), md, nil); codeOf(err) != CodeContext || !errors.Is(err, reject) {
		t.Fatalf("publish with rejected context: %v", err)
	}
	if got := listDir(t, s.Root()); len(got) != 0 {
		t.Fatalf("rejected publish touched the store: %v", got)
	}
	id := publishFixture(t, s)
	allow = false // the registry no longer knows the context
	if _, err := s.Open(id); codeOf(err) != CodeContext {
		t.Fatalf("open: %v", err)
	}
	if err := s.Verify(id); codeOf(err) != CodeContext {
		t.Fatalf("verify: %v", err)
	}
	if _, err := s.List(); codeOf(err) != CodeContext {
		t.Fatalf("list: %v", err)
	}
}

func TestOpenMissingAndBadStore(t *testing.T) {
	s := newStore(t, Options{})
	if _, err := s.Open(NewID()); !errors.Is(err, fs.ErrNotExist) || codeOf(err) != CodeNotFound {
		t.Fatalf("open missing: %v", err)
	}
	if err := s.Verify(NewID()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("verify missing: %v", err)
	}
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("empty list: %v, %v", l, err)
	}
	if a, err := s.InspectIncomplete(); err != nil || len(a) != 0 {
		t.Fatalf("empty inspect: %v, %v", a, err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "nope"), Options{}); codeOf(err) != CodeBadStore || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing root: %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Open(f, Options{}); codeOf(err) != CodeBadStore {
		t.Fatalf("file root: %v", err)
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "snapshots"), nil, 0o644)
	if _, err := Open(root, Options{}); codeOf(err) != CodeBadStore {
		t.Fatalf("snapshots is a file: %v", err)
	}
	if _, err := Open(t.TempDir(), Options{MaxManifestBytes: -1}); err == nil {
		t.Fatal("negative MaxManifestBytes accepted")
	}
}

func TestListOrderAndStat(t *testing.T) {
	s := newStore(t, Options{})
	var ids []ID
	for i, fin := range []uint64{30, 10, 20} {
		md := fixtureMetadata(t)
		md.ID = NewID()
		md.StartedAtNs, md.FinishedAtNs = 0, fin
		if err := s.Publish(context.Background(), md, map[string]Array{"n": FromUint64([]uint64{uint64(i)})}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, md.ID)
	}
	l, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 3 || l[0].ID != ids[1] || l[1].ID != ids[2] || l[2].ID != ids[0] {
		t.Fatalf("list order wrong: %v", l)
	}
	md, inv, err := s.Stat(ids[0])
	if err != nil || md.ID != ids[0] || len(inv) != 1 || inv[0].Key != "n" || inv[0].DType != Uint64 || inv[0].Count != 1 ||
		inv[0].ByteLength != 8 || inv[0].File != "array-n.bin" || len(inv[0].SHA256) != 64 {
		t.Fatalf("Stat = %+v %+v %v", md, inv, err)
	}
}

// TestParentWithOtherContext: a parent recorded under another (historical) fingerprint
// context is linked as it is; it is neither converted nor rejected at publish time.
func TestParentWithOtherContext(t *testing.T) {
	root := t.TempDir()
	old, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	parent := fixtureMetadata(t)
	parent.Fingerprint.ContextID = "ctx-old"
	if err := old.Publish(context.Background(), parent, nil); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{VerifyContext: func(fc FingerprintContext) error {
		if fc.ContextID != "ctx-id" {
			return errors.New("not the current context")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	child := fixtureMetadata(t)
	child.ID = NewID()
	child.Parent = &parent.ID
	if err := s.Publish(context.Background(), child, nil); err != nil {
		t.Fatalf("child of an older-context parent: %v", err)
	}
	if _, err := s.Open(child.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(parent.ID); codeOf(err) != CodeContext {
		t.Fatalf("opening the old-context parent under the current context check: %v", err)
	}
}
