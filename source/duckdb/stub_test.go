//go:build !cgo

package duckdb

import (
	"context"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/source"
)

// TestStub: without cgo the adapter is absent, says so, and names cgo.
func TestStub(t *testing.T) {
	if Available {
		t.Fatal("Available without cgo")
	}
	_, err := Open(context.Background(), Options{Query: "SELECT 1"})
	if source.CodeOf(err) != source.CodeUnsupported || !strings.Contains(err.Error(), "cgo") {
		t.Fatalf("err %v, want %s naming cgo", err, source.CodeUnsupported)
	}
	// Bad options are reported as such first.
	if _, err := Open(context.Background(), Options{}); source.CodeOf(err) != source.CodeAddress {
		t.Fatalf("err %v, want %s", err, source.CodeAddress)
	}
}
