package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/fakeclock"
)

func newTestMemory(opts MemoryOptions) (*Memory, *fakeclock.Clock) {
	c := fakeclock.New(time.Unix(1_700_000_000, 0))
	opts.Now = c.Now
	return NewMemory(opts), c
}

func get(t *testing.T, m *Memory, key string) (string, bool) {
	t.Helper()
	v, ok, err := m.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return v, ok
}

func TestMemoryTTL(t *testing.T) {
	m, c := newTestMemory(MemoryOptions{})
	ctx := context.Background()
	if v, ok := get(t, m, "k"); ok || v != "" {
		t.Fatalf("missing key: %q, %v; want \"\", false and no error", v, ok)
	}
	if err := m.Put(ctx, "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok := get(t, m, "k"); !ok || v != "1" {
		t.Fatalf("after put: %q, %v", v, ok)
	}
	c.Advance(time.Minute - time.Nanosecond)
	if _, ok := get(t, m, "k"); !ok {
		t.Fatalf("expired a nanosecond early")
	}
	c.Advance(time.Nanosecond)
	if _, ok := get(t, m, "k"); ok {
		t.Fatalf("still there at its expiry")
	}
	// Every put restarts the TTL.
	m.Put(ctx, "k", "1", time.Minute)
	c.Advance(50 * time.Second)
	m.Put(ctx, "k", "2", time.Minute)
	c.Advance(50 * time.Second)
	if v, ok := get(t, m, "k"); !ok || v != "2" {
		t.Fatalf("second put did not restart the TTL: %q, %v", v, ok)
	}
	if m.Len() != 1 {
		t.Errorf("Len = %d, want 1", m.Len())
	}
}

func TestMemoryRules(t *testing.T) {
	m, _ := newTestMemory(MemoryOptions{})
	ctx := context.Background()
	err := m.Put(ctx, "k", "1", 59*time.Second)
	if err == nil || err.Error() != "Invalid expiration_ttl of 59. Expiration TTL must be at least 60." || !errors.Is(err, ErrInvalidTTL) {
		t.Errorf("TTL 59s: %v, want the invalid TTL error", err)
	}
	long := strings.Repeat("k", MaxKeyBytes+1)
	if err := m.Put(ctx, long, "1", time.Minute); !errors.Is(err, ErrKeyTooLong) {
		t.Errorf("put of a 513-byte key: %v", err)
	}
	if _, _, err := m.Get(ctx, long); !errors.Is(err, ErrKeyTooLong) ||
		err.Error() != "KV GET failed: 414 UTF-8 encoded length of 513 exceeds key length limit of 512." {
		t.Errorf("get of a 513-byte key: %v", err)
	}
	if err := m.Put(ctx, long[:MaxKeyBytes], "1", time.Minute); err != nil {
		t.Errorf("put of a 512-byte key: %v", err)
	}
	if m.Len() != 1 {
		t.Errorf("rejected puts were stored: Len = %d", m.Len())
	}
}

func TestMemoryWriteLimit(t *testing.T) {
	m, c := newTestMemory(MemoryOptions{WriteLimit: true})
	ctx := context.Background()
	if err := m.Put(ctx, "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	err := m.Put(ctx, "k", "2", time.Minute)
	if err == nil || err.Error() != "KV PUT failed: 429 Too Many Requests" || !errors.Is(err, ErrWriteRateLimited) {
		t.Fatalf("second put within a second: %v, want the 429", err)
	}
	if err := m.Put(ctx, "other", "1", time.Minute); err != nil {
		t.Errorf("the limit is per key, but another key failed: %v", err)
	}
	c.Advance(999 * time.Millisecond)
	if err := m.Put(ctx, "k", "3", time.Minute); !errors.Is(err, ErrWriteRateLimited) {
		t.Errorf("put 999ms later: %v, want the 429", err)
	}
	c.Advance(time.Millisecond)
	if err := m.Put(ctx, "k", "4", time.Minute); err != nil {
		t.Errorf("put a second later: %v", err)
	}
	if v, _ := get(t, m, "k"); v != "4" {
		t.Errorf("value %q, want 4 (a rejected put changes nothing)", v)
	}
	free, _ := newTestMemory(MemoryOptions{})
	for i := range 3 {
		if err := free.Put(ctx, "k", fmt.Sprint(i), time.Minute); err != nil {
			t.Errorf("no write limit, put %d: %v", i, err)
		}
	}
}

func TestMemoryLatencyAndCancel(t *testing.T) {
	m, _ := newTestMemory(MemoryOptions{Latency: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := m.Get(ctx, "k"); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("cancelled get: %v", err)
	}
	if err := m.Put(ctx, "k", "1", time.Minute); !errors.Is(err, context.Canceled) || m.Len() != 0 {
		t.Errorf("cancelled put: %v, Len %d", err, m.Len())
	}
}

// TestMemoryConcurrent is for the race detector: many goroutines reading and
// writing the same keys.
func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory(MemoryOptions{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				key := fmt.Sprint("k", i%5)
				if err := m.Put(ctx, key, fmt.Sprint(g), time.Minute); err != nil {
					t.Error(err)
					return
				}
				if _, ok, err := m.Get(ctx, key); err != nil || !ok {
					t.Errorf("get %s: %v %v", key, ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if m.Len() != 5 {
		t.Errorf("Len = %d, want 5", m.Len())
	}
}

func ExampleMemory() {
	m := NewMemory(MemoryOptions{WriteLimit: true})
	ctx := context.Background()
	fmt.Println(m.Put(ctx, "rl:roast:tok:1.2.3.4:20000", "1", 60*time.Second))
	fmt.Println(m.Put(ctx, "rl:roast:tok:1.2.3.4:20000", "2", 60*time.Second))
	fmt.Println(m.Put(ctx, "other", "1", 30*time.Second))
	v, found, err := m.Get(ctx, "rl:roast:tok:1.2.3.4:20000")
	fmt.Println(v, found, err)
	_, found, err = m.Get(ctx, "missing")
	fmt.Println(found, err)
	// Output:
	// <nil>
	// KV PUT failed: 429 Too Many Requests
	// Invalid expiration_ttl of 30. Expiration TTL must be at least 60.
	// 1 true <nil>
	// false <nil>
}
