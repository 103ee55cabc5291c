package limiter

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// failStore is a kv.Store whose reads or writes fail, counting its calls.
type failStore struct {
	getErr, putErr error
	mu             sync.Mutex
	gets, puts     int
}

func (s *failStore) Get(ctx context.Context, key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	return "", false, s.getErr
}

func (s *failStore) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts++
	return s.putErr
}

func TestCheckErrorPolicy(t *testing.T) {
	down := kv.NewUnavailable("get", "k", "503 Service Unavailable")
	limited := kv.NewWriteRateLimited("k")
	cases := []struct {
		name      string
		store     *failStore
		policy    Policy
		alg       Algorithm
		allowed   bool
		remaining int64
		wantErr   error
		puts      int
	}{
		{"read error, fail-open", &failStore{getErr: down}, FailOpen, FixedWindow, true, 5, down, 0},
		{"write error, fail-open", &failStore{putErr: limited}, FailOpen, FixedWindow, true, 5, limited, 1},
		{"read error, fail-closed", &failStore{getErr: down}, FailClosed, FixedWindow, false, 0, down, 0},
		{"write error, fail-closed", &failStore{putErr: limited}, FailClosed, FixedWindow, false, 0, limited, 1},
		{"sliding read error, fail-open", &failStore{getErr: down}, FailOpen, SlidingWindow, true, 5, down, 0},
		{"bucket write error, fail-closed", &failStore{putErr: limited}, FailClosed, TokenBucket, false, 0, limited, 1},
		{"no error", &failStore{}, FailClosed, FixedWindow, true, 4, nil, 1},
	}
	for _, c := range cases {
		l := mustNew(t, Config{Name: "x", Algorithm: c.alg, Limit: 5, Window: time.Minute, Policy: c.policy})
		d := l.Check(context.Background(), c.store, day293120, "c")
		failed := c.wantErr != nil
		if d.Allowed != c.allowed || d.Remaining != c.remaining || d.Err != c.wantErr || c.store.puts != c.puts ||
			d.FailOpen != (failed && c.policy == FailOpen) || d.FailClosed != (failed && c.policy == FailClosed) {
			t.Errorf("%s: %+v after %d puts; want allowed %v remaining %d err %v after %d puts",
				c.name, d, c.store.puts, c.allowed, c.remaining, c.wantErr, c.puts)
		}
	}
}

// fixedClock is a settable clock for kv.Memory.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func TestCheckSequential(t *testing.T) {
	clock := &fixedClock{t: day293120}
	store := kv.NewMemory(kv.MemoryOptions{Now: clock.Now, Latency: time.Millisecond})
	l := mustNew(t, Config{Name: "roast", Limit: 5, Window: 24 * time.Hour})
	allowed := 0
	for i := range 10 {
		d := l.Check(context.Background(), store, clock.Now(), "anon:1.2.3.4")
		if d.Err != nil {
			t.Fatalf("request %d: %v", i+1, d.Err)
		}
		if d.Allowed {
			allowed++
		}
	}
	v, _, _ := store.Get(context.Background(), "rl:roast:anon:1.2.3.4:293120")
	if allowed != 5 || v != "5" {
		t.Errorf("sequential: %d allowed, stored %q; want exactly 5 and \"5\"", allowed, v)
	}
}

// TestCheckConcurrentFirstRequests shows the seed's race: N requests that
// all read before any writes are all allowed, whatever the limit, and the
// store ends at 1 (N-1 lost updates).
func TestCheckConcurrentFirstRequests(t *testing.T) {
	const n = 16
	clock := &fixedClock{t: day293120}
	// The latency is long next to goroutine start-up, so every read lands
	// before the first write.
	store := kv.NewMemory(kv.MemoryOptions{Now: clock.Now, Latency: 200 * time.Millisecond})
	l := mustNew(t, Config{Name: "roast", Limit: 5, Window: 24 * time.Hour})
	var wg sync.WaitGroup
	start := make(chan struct{})
	decisions := make([]Decision, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			decisions[i] = l.Check(context.Background(), store, clock.Now(), "anon:1.2.3.4")
		}()
	}
	close(start)
	wg.Wait()
	for i, d := range decisions {
		if !d.Allowed || d.Remaining != 4 || d.Err != nil {
			t.Errorf("request %d: %+v, want allowed with remaining 4 (it read no count)", i, d)
		}
	}
	v, _, _ := store.Get(context.Background(), "rl:roast:anon:1.2.3.4:293120")
	if v != "1" {
		t.Errorf("stored %q after %d concurrent first requests, want \"1\"", v, n)
	}
}

// TestCheckWriteLimitFailsOpen shows what the seed does under Workers KV's
// one write per second per key: every second request inside a second gets
// a 429 on its put, and fail-open allows it with remaining = limit.
func TestCheckWriteLimitFailsOpen(t *testing.T) {
	clock := &fixedClock{t: day293120}
	store := kv.NewMemory(kv.MemoryOptions{Now: clock.Now, WriteLimit: true})
	l := mustNew(t, Config{Name: "roast", Limit: 5, Window: 24 * time.Hour})
	allowed, failOpen := 0, 0
	for range 20 {
		d := l.Check(context.Background(), store, clock.Now(), "c")
		if d.Allowed {
			allowed++
		}
		if d.FailOpen {
			failOpen++
			if !errors.Is(d.Err, kv.ErrWriteRateLimited) || d.Remaining != 5 {
				t.Fatalf("fail-open decision %+v: want a 429 and remaining 5", d)
			}
		}
	}
	if allowed != 20 || failOpen != 19 {
		t.Errorf("20 requests in one instant: %d allowed, %d failed open; want 20 and 19", allowed, failOpen)
	}
}

// TestCheckLongCallerFailsOpen shows that a caller long enough to push the
// key past 512 bytes makes every read fail, and the seed's fail-open then
// allows everything: a token is attacker-controlled.
func TestCheckLongCallerFailsOpen(t *testing.T) {
	store := kv.NewMemory(kv.MemoryOptions{})
	l := mustNew(t, Config{Name: "roast", Limit: 1, Window: time.Hour})
	caller := strings.Repeat("a", 500) + ":1.2.3.4"
	for i := range 3 {
		d := l.Check(context.Background(), store, day293120, caller)
		if !d.Allowed || !d.FailOpen || !errors.Is(d.Err, kv.ErrKeyTooLong) {
			t.Fatalf("request %d with a %d-byte caller: %+v, want fail-open on a key-too-long error", i+1, len(caller), d)
		}
	}
}

func TestCheckCancelled(t *testing.T) {
	store := kv.NewMemory(kv.MemoryOptions{Latency: time.Hour})
	l := mustNew(t, Config{Name: "x", Limit: 1, Window: time.Hour, Policy: FailClosed})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := l.Check(ctx, store, day293120, "c")
	if d.Allowed || !d.FailClosed || !errors.Is(d.Err, context.Canceled) || !errors.Is(d.Err, kv.ErrUnavailable) {
		t.Errorf("cancelled: %+v, want fail-closed with an unavailable error wrapping context.Canceled", d)
	}
}
