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

// TestDelayedTakesEffectHalfWay: a Get of 200 ms sent at 0 and a Put of
// 60 ms sent at 100 ms on one store. The Get reads at 100 ms, before the
// Put's write at 130 ms, and finds nothing. (Were each operation to take
// effect at the end of its latency, the Get would read at 200 ms, after
// the write at 160 ms.) The margins, 30 ms and 40 ms, are far above the
// sleeps' error.
func TestDelayedTakesEffectHalfWay(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(MemoryOptions{})
	get := &Delayed{Store: m, Delay: func() time.Duration { return 200 * time.Millisecond }}
	put := &Delayed{Store: m, Delay: func() time.Duration { return 60 * time.Millisecond }}
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		if err := Sleep(ctx, 100*time.Millisecond); err != nil {
			done <- err
			return
		}
		done <- put.Put(ctx, "k", "1", time.Minute)
	}()
	v, ok, err := get.Get(ctx, "k")
	took := time.Since(start)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err != nil || ok {
		t.Errorf("get = %q %v %v, want missing: it read half-way, before the put's write", v, ok, err)
	}
	if took < 200*time.Millisecond {
		t.Errorf("get returned after %v, want its whole 200 ms latency", took)
	}
	if v, ok, _ := m.Get(ctx, "k"); !ok || v != "1" {
		t.Errorf("after the put the store holds %q %v, want 1", v, ok)
	}
}

// TestMemoryLatencyHalfWay: kv.Memory with a latency of 100 ms acts 50 ms
// into each operation (when it reads its clock) and returns at 100 ms.
func TestMemoryLatencyHalfWay(t *testing.T) {
	ctx := context.Background()
	var start time.Time
	var at []time.Duration
	m := NewMemory(MemoryOptions{Latency: 100 * time.Millisecond, Now: func() time.Time {
		at = append(at, time.Since(start))
		return time.Now()
	}})
	start = time.Now()
	if err := m.Put(ctx, "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if len(at) != 1 || at[0] < 40*time.Millisecond || at[0] > 90*time.Millisecond || took < 100*time.Millisecond {
		t.Errorf("put acted at %v and returned after %v, want once at about 50 ms and after 100 ms", at, took)
	}
}
