package eventual

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// fastKV is the published KV model with latencies scaled 1000x down, so a
// test takes milliseconds; no write limit unless a test sets one.
func fastKV() scenario.KV {
	p := scenario.DefaultKV()
	p.WriteLimit.PerSecond = 0
	return p
}

// newStore builds the store for KV parameters p at the named locations,
// through a live plan with time scale scale, as the attack command does.
func newStore(t *testing.T, p scenario.KV, scale float64, locs ...string) *Store {
	t.Helper()
	sc, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	sc.Store.KV, sc.Live.TimeScale, sc.Locations = p, scale, nil
	for _, l := range locs {
		sc.Locations = append(sc.Locations, scenario.Location{Name: l, Weight: 1})
	}
	sc.Traffic[0].Arrive = scenario.Arrive{Mode: "one", Location: locs[0]}
	sc.Store.DurableObject.Location = locs[0]
	pl, err := plan.CompileLive(sc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{KV: pl.Store.KV, Locations: pl.Locations, Seed: 1, Counts: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStoreIsAKVStore checks the kv.Store contract at one location: a
// missing key, a write then a read of it, and the published rules.
func TestStoreIsAKVStore(t *testing.T) {
	var _ kv.Store = (*Store)(nil)
	s := newStore(t, fastKV(), 1000, "a")
	ctx := context.Background()
	if _, found, err := s.Get(kv.WithLocation(ctx, "a"), "k"); found || err != nil {
		t.Fatalf("missing key: found %v, err %v", found, err)
	}
	if err := s.Put(kv.WithLocation(ctx, "a"), "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	// The writer's location sees its own write (read_your_writes_failure 0).
	if v, found, err := s.Get(kv.WithLocation(ctx, "a"), "k"); v != "1" || !found || err != nil {
		t.Errorf("read after write = %q, %v, %v; want 1", v, found, err)
	}
	if err := s.Put(ctx, "k", "2", 10*time.Second); !errors.Is(err, kv.ErrInvalidTTL) {
		t.Errorf("ttl 10s: %v, want the invalid-TTL error", err)
	}
}

// TestStaleAcrossLocations is the eventual part: a location that cached
// "missing" keeps serving it after another location's write (no purge
// here), until its cache entry expires.
func TestStaleAcrossLocations(t *testing.T) {
	p := fastKV()
	p.Purge.Enabled = false
	s := newStore(t, p, 1000, "a", "b")
	ctx := context.Background()
	s.Get(kv.WithLocation(ctx, "b"), "k") // b caches "missing"
	if err := s.Put(kv.WithLocation(ctx, "a"), "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.Get(kv.WithLocation(ctx, "b"), "k"); found {
		t.Errorf("b saw a's write at once; want its cached miss (cache_ttl 60s)")
	}
	if v, _, _ := s.Get(kv.WithLocation(ctx, "a"), "k"); v != "1" {
		t.Errorf("a reads %q, want its own write", v)
	}
	var c measure.KVCounters
	s.AddTo(&c)
	if c.Reads != 3 || c.Writes != 1 || c.StaleReads != 1 {
		t.Errorf("counters %+v: want 3 reads, 1 write, 1 stale read", c)
	}
}

// TestLatencySlept checks that the model's latencies are really slept: at
// real time, a write takes tens of milliseconds (lognormal median 80 ms).
func TestLatencySlept(t *testing.T) {
	s := newStore(t, fastKV(), 1, "a")
	began := time.Now()
	if err := s.Put(context.Background(), "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d < 5*time.Millisecond {
		t.Errorf("a real-time write took %v: latency not slept", d)
	}
}

// TestLostUpdates: concurrent limiter requests read the same count and
// overwrite each other; the versions noted in each request's context let
// the model count the lost updates, and the limiter lets more than its
// limit through.
func TestLostUpdates(t *testing.T) {
	s := newStore(t, fastKV(), 20, "a") // writes ~4 ms
	l, err := limiter.New(limiter.Config{Name: "t", Limit: 3, Window: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	now := time.Now()
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := l.Check(kv.WithLocation(context.Background(), "a"), s, now, "c:ip")
			if d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var c measure.KVCounters
	s.AddTo(&c)
	if allowed <= 3 || c.LostUpdates == 0 {
		t.Errorf("allowed %d of 16 with limit 3, lost updates %d: want overshoot and lost updates", allowed, c.LostUpdates)
	}
}

// TestCancelledWriteCommits: a caller that gives up during a write's
// latency gets an error, and the write still commits (it was sent).
func TestCancelledWriteCommits(t *testing.T) {
	s := newStore(t, fastKV(), 1, "a")
	ctx, cancel := context.WithTimeout(kv.WithLocation(context.Background(), "a"), time.Millisecond)
	defer cancel()
	if err := s.Put(ctx, "k", "1", time.Minute); err == nil {
		t.Skip("the write's latency drew under 1 ms")
	}
	s.Wait()
	if v, _, _ := s.Get(kv.WithLocation(context.Background(), "a"), "k"); v != "1" {
		t.Errorf("after a cancelled put, read %q; want the write committed", v)
	}
}

// TestWriteLimit: the per-key write limit of 1/s fails a second write to a
// key within a second with Workers KV's 429.
func TestWriteLimit(t *testing.T) {
	p := fastKV()
	p.WriteLimit.PerSecond = 1
	s := newStore(t, p, 1000, "a")
	ctx := context.Background()
	if err := s.Put(ctx, "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k", "2", time.Minute); !errors.Is(err, kv.ErrWriteRateLimited) {
		t.Errorf("second write within 1 s: %v, want 429", err)
	}
}
