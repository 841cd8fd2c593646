package source

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestGroupPoolMost: a waiting get allocates row group memory until most exist, then
// waits for a release (until its context ends) and takes the released memory.
func TestGroupPoolMost(t *testing.T) {
	p := newGroupPool(1)
	a, err := p.get(context.Background(), true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.get(context.Background(), true, 2); err != nil || p.fresh != 2 {
		t.Fatalf("second get with most 2: %v, %d allocated, want 2", err, p.fresh)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.get(ctx, true, 2); !errors.Is(err, context.DeadlineExceeded) || p.fresh != 2 {
		t.Fatalf("third get with most 2 and nothing released: %v, %d allocated; want a wait that ends with the context", err, p.fresh)
	}
	ctx1, cancel1 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel1()
	if _, err := p.get(ctx1, true, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("get with most 1 while two exist: %v, want a wait", err)
	}
	go func() {
		time.Sleep(5 * time.Millisecond)
		a.release()
	}()
	c, err := p.get(context.Background(), true, 2)
	if err != nil || c != a || p.fresh != 2 {
		t.Fatalf("get after a release: %v, reused %v, %d allocated; want the released memory", err, c == a, p.fresh)
	}
}
