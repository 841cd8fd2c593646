package source

import (
	"context"
	"errors"
	"testing"
)

func TestRegisterDispatchesByLongestPrefix(t *testing.T) {
	errShort, errLong := errors.New("short"), errors.New("long")
	Register("test-reg:", func(context.Context, string, Options) (Source, error) { return nil, errShort })
	Register("test-reg://x", func(context.Context, string, Options) (Source, error) { return nil, errLong })
	if _, err := Open(context.Background(), "test-reg:/a", Options{}); !errors.Is(err, errShort) {
		t.Fatalf("test-reg:/a went to %v", err)
	}
	if _, err := Open(context.Background(), "test-reg://x/y", Options{}); !errors.Is(err, errLong) {
		t.Fatalf("test-reg://x/y went to %v", err)
	}
	// Unregistered addresses still go through ParseAddress.
	if _, err := Open(context.Background(), "nosuch.ext", Options{}); CodeOf(err) != CodeAddress {
		t.Fatalf("nosuch.ext: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering a prefix twice did not panic")
		}
	}()
	Register("test-reg:", func(context.Context, string, Options) (Source, error) { return nil, nil })
}
