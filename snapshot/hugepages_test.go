package snapshot

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/internal/testenv"
)

// TestOpenAdvisesLargePayloads: a payload of several megabytes is read into memory
// advised for huge pages (one fault per 2 MiB instead of per 4 KiB when the diff loads
// two 10 M-row snapshots), with its contents as published.
func TestOpenAdvisesLargePayloads(t *testing.T) {
	s := newStore(t, Options{})
	md := fixtureMetadata(t)
	big := make([]uint64, 6<<20/8)
	for i := range big {
		big[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	arrays := fixtureArrays()
	arrays["big"] = FromUint64(big)
	if err := s.Publish(context.Background(), md, arrays); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Open(md.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := snap.Arrays["big"].Uint64sView()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, big) {
		t.Fatal("the loaded payload differs from the published one")
	}
	advised, err := hugemem.Advised(got)
	if errors.Is(err, hugemem.ErrUnobservable) {
		testenv.Missing(t, testenv.HugePages, "%v", err)
	}
	if err != nil || !advised {
		t.Fatalf("the loaded payload is not advised for huge pages (%v)", err)
	}
}
