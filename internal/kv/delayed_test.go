package kv

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestDelayed checks that every operation waits its drawn latency before
// it takes effect, and that a cancelled wait is an Unavailable error that
// leaves the store untouched.
func TestDelayed(t *testing.T) {
	calls := 0
	s := &Delayed{Store: NewMemory(MemoryOptions{}), Delay: func() time.Duration { calls++; return 2 * time.Millisecond }}
	start := time.Now()
	if err := s.Put(context.Background(), "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get(context.Background(), "k"); v != "1" || !ok || err != nil {
		t.Fatalf("get = %q %v %v", v, ok, err)
	}
	if calls != 2 || time.Since(start) < 4*time.Millisecond {
		t.Errorf("%d delays drawn in %v, want 2 slept", calls, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Put(ctx, "k", "2", time.Minute); !errors.Is(err, ErrUnavailable) {
		t.Errorf("cancelled put: %v, want unavailable", err)
	}
	if v, _, _ := s.Get(context.Background(), "k"); v != "1" {
		t.Errorf("a cancelled put took effect: %q", v)
	}
}
