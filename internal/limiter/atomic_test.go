package limiter

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// stepAtomic is step for the atomic shape: Update on the map's values,
// its write applied (a map holds no TTLs, so KeepTTL changes nothing).
func stepAtomic(l *Limiter, store map[string]string, now time.Time, caller string) Decision {
	p := l.Plan(now, caller)
	var cur [2]Read
	for i := 0; i < p.NKeys; i++ {
		v, ok := store[p.Keys[i]]
		cur[i] = Read{Value: v, Found: ok}
	}
	d := l.Update(p, cur)
	if d.Write.Key != "" {
		store[d.Write.Key] = d.Write.Value
	}
	return d
}

// sameDecision reports whether two decisions answer a caller alike: what
// the seed returns and when the limit resets.
func sameDecision(a, b Decision) bool {
	return a.Allowed == b.Allowed && a.Remaining == b.Remaining && a.Limit == b.Limit && a.Window == b.Window && a.Reset().Equal(b.Reset())
}

// TestUpdateFixedWindowCountsEveryRequest is the atomic fixed window as
// envoyproxy/ratelimit runs it: INCR on every request, denied or not, the
// TTL set by the first increment only.
func TestUpdateFixedWindowCountsEveryRequest(t *testing.T) {
	l := mustNew(t, Config{Name: "roast", Limit: 3, Window: time.Minute, Update: Atomic})
	store := map[string]string{}
	now := time.Unix(600, 0)
	for i, want := range []struct {
		allowed   bool
		remaining int64
		stored    string
	}{{true, 2, "1"}, {true, 1, "2"}, {true, 0, "3"}, {false, 0, "4"}, {false, 0, "5"}} {
		d := stepAtomic(l, store, now, "c")
		if d.Allowed != want.allowed || d.Remaining != want.remaining || store["rl:roast:c:10"] != want.stored {
			t.Errorf("request %d: allowed %v remaining %d stored %q; want %v %d %q", i+1, d.Allowed, d.Remaining, store["rl:roast:c:10"], want.allowed, want.remaining, want.stored)
		}
		if !d.Write.KeepTTL || d.Write.TTL != time.Minute {
			t.Errorf("request %d: write %+v, want the TTL of a new counter (60s) kept once set", i+1, d.Write)
		}
	}
	// The next window starts again.
	if d := stepAtomic(l, store, now.Add(time.Minute), "c"); !d.Allowed || d.Remaining != 2 {
		t.Errorf("next window: %+v, want allowed with remaining 2", d)
	}
}

// TestGCRA is go-redis/redis_rate's semantics: a rate of limit per window
// and a burst of its own; remaining counts down from the burst.
func TestGCRA(t *testing.T) {
	// 10 per second, burst 3: 3 back to back, then one every 100ms.
	for _, update := range Updates {
		l := mustNew(t, Config{Name: "api", Algorithm: GCRA, Limit: 10, Window: time.Second, Burst: 3, Update: update})
		store := map[string]string{}
		at := time.Unix(1000, 0)
		run := step
		if update == Atomic {
			run = stepAtomic
		}
		for i, want := range []struct {
			after     time.Duration
			allowed   bool
			remaining int64
		}{{0, true, 2}, {0, true, 1}, {0, true, 0}, {0, false, 0}, {99 * time.Millisecond, false, 0},
			{time.Millisecond, true, 0}, {0, false, 0}, {time.Second, true, 2}} {
			at = at.Add(want.after)
			d := run(l, store, at, "c")
			if d.Allowed != want.allowed || d.Remaining != want.remaining {
				t.Errorf("%s request %d at +%v: allowed %v remaining %d, want %v %d", update, i+1, want.after, d.Allowed, d.Remaining, want.allowed, want.remaining)
			}
		}
	}
	// With the burst at the limit, gcra is the token bucket.
	g := mustNew(t, Config{Name: "x", Algorithm: GCRA, Limit: 7, Window: time.Minute})
	b := mustNew(t, Config{Name: "x", Algorithm: TokenBucket, Limit: 7, Window: time.Minute})
	gs, bs := map[string]string{}, map[string]string{}
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Unix(5000, 0)
	for i := range 200 {
		at = at.Add(time.Duration(rng.IntN(20_000)) * time.Millisecond)
		if dg, db := step(g, gs, at, "c"), step(b, bs, at, "c"); !sameDecision(dg, db) {
			t.Fatalf("request %d: gcra %+v, token bucket %+v", i, dg, db)
		}
	}
}

// TestUpdateSameDecisionsAsReadThenWrite is the property of the two
// shapes on a linearizable store with one request at a time: for every
// algorithm, the same requests get the same decisions.
func TestUpdateSameDecisionsAsReadThenWrite(t *testing.T) {
	for _, alg := range Algorithms {
		for seed := range uint64(20) {
			rng := rand.New(rand.NewPCG(seed, 7))
			cfg := Config{Name: "p", Algorithm: alg, Limit: int64(1 + rng.IntN(8)), Window: time.Duration(1+rng.IntN(90)) * time.Second}
			if alg == GCRA {
				cfg.Burst = int64(rng.IntN(10))
			}
			rtw := mustNew(t, cfg)
			cfg.Update = Atomic
			atomic := mustNew(t, cfg)
			a, b := map[string]string{}, map[string]string{}
			at := time.UnixMilli(1_700_000_000_000 + rng.Int64N(1e6))
			for i := range 300 {
				at = at.Add(time.Duration(rng.Int64N(int64(cfg.Window) / 3)))
				caller := []string{"x", "y"}[rng.IntN(2)]
				if d1, d2 := step(rtw, a, at, caller), stepAtomic(atomic, b, at, caller); !sameDecision(d1, d2) {
					t.Fatalf("%s seed %d request %d: read-then-write %+v, atomic %+v", alg, seed, i, d1, d2)
				}
			}
		}
	}
}

// TestAtomicNeverOverAdmits is the other side: requests that overlap
// (every read before any write) are all allowed by read-then-write, and
// the atomic shape over the same store allows exactly the limit.
func TestAtomicNeverOverAdmits(t *testing.T) {
	const n, limit = 16, 5
	for _, update := range Updates {
		clock := &fixedClock{t: day293120}
		store := kv.NewMemory(kv.MemoryOptions{Now: clock.Now, Latency: 100 * time.Millisecond})
		l := mustNew(t, Config{Name: "roast", Limit: limit, Window: 24 * time.Hour, Update: update})
		var wg sync.WaitGroup
		var mu sync.Mutex
		allowed := 0
		start := make(chan struct{})
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				d := l.Check(context.Background(), store, clock.Now(), "anon:1.2.3.4")
				if d.Err != nil {
					t.Error(d.Err)
				}
				mu.Lock()
				if d.Allowed {
					allowed++
				}
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
		switch {
		case update == Atomic && allowed != limit:
			t.Errorf("atomic: %d of %d concurrent requests allowed, want exactly the limit %d", allowed, n, limit)
		case update == ReadThenWrite && allowed <= limit:
			t.Errorf("read-then-write: %d of %d concurrent requests allowed, want more than the limit %d (the race)", allowed, n, limit)
		}
	}
}

// noUpdates is a store without atomic updates.
type noUpdates struct{ kv.Store }

// TestAtomicRefusedWithoutUpdater checks that an atomic limiter on a store
// that cannot apply updates is refused (CanRun), and that Check, if asked
// anyway, hands every request to the error policy with that error: it
// never falls back to read-then-write.
func TestAtomicRefusedWithoutUpdater(t *testing.T) {
	l := mustNew(t, Config{Name: "r", Limit: 5, Window: time.Minute, Update: Atomic, Policy: FailClosed})
	mem := kv.NewMemory(kv.MemoryOptions{})
	for name, s := range map[string]kv.Store{"plain": noUpdates{mem}, "delayed": &kv.Delayed{Store: noUpdates{mem}, Delay: func() time.Duration { return 0 }}} {
		err := l.CanRun(s)
		if err == nil || !strings.Contains(err.Error(), "use limiter.update read-then-write") {
			t.Errorf("%s: CanRun = %v, want the refusal naming what to use", name, err)
		}
		d := l.Check(context.Background(), s, time.Unix(100, 0), "c")
		if d.Allowed || !d.FailClosed || d.Err == nil {
			t.Errorf("%s: Check = %+v, want fail-closed with the refusal", name, d)
		}
		if mem.Len() != 0 {
			t.Errorf("%s: the store holds %d keys: the limiter wrote through another shape", name, mem.Len())
		}
	}
	if err := l.CanRun(&kv.Delayed{Store: mem, Delay: func() time.Duration { return 0 }}); err != nil {
		t.Errorf("memory behind a delay: %v, want it accepted", err)
	}
	if err := mustNew(t, Config{Name: "r", Limit: 5, Window: time.Minute}).CanRun(noUpdates{mem}); err != nil {
		t.Errorf("read-then-write on any store: %v", err)
	}
}

// TestUpdateConfigErrors checks the new fields' faults.
func TestUpdateConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg         Config
		field, want string
	}{
		{Config{Name: "a", Limit: 1, Window: time.Second, Update: "cas"}, "update", `"cas" is unknown: use one of read-then-write, atomic`},
		{Config{Name: "a", Limit: 1, Window: time.Second, Burst: 3}, "burst", "only gcra has a burst"},
		{Config{Name: "a", Limit: 1, Window: time.Second, Algorithm: GCRA, Burst: -1}, "burst", "out of range"},
	} {
		_, err := New(tc.cfg)
		ce, ok := err.(*ConfigError)
		if !ok || ce.Field != tc.field || !strings.Contains(ce.Msg, tc.want) {
			t.Errorf("New(%+v) = %v, want a fault of %s containing %q", tc.cfg, err, tc.field, tc.want)
		}
	}
}

// FuzzUpdate holds Update to Decide: on any stored values, the same
// decision; the write is Decide's, but for the fixed window's increment
// of a denied count, and counters keep their TTL.
func FuzzUpdate(f *testing.F) {
	f.Add("3", true, "1", true, int64(5), int64(1_700_000_000_000), int64(60_000), int64(0))
	f.Add("9", true, "", false, int64(9), int64(0), int64(1000), int64(2))
	f.Add(" -12x", true, "99999999999999999999", true, int64(MaxLimit), int64(math.MaxInt64), int64(math.MaxInt64), int64(MaxLimit))
	f.Fuzz(func(t *testing.T, raw0 string, found0 bool, raw1 string, found1 bool, limitSeed, nowMilli, windowSeed, burstSeed int64) {
		limit := int64(uint64(limitSeed)%MaxLimit) + 1
		window := time.Duration(uint64(windowSeed)%(400*24*3600*1000)+1) * time.Millisecond
		cur := [2]Read{{Value: raw0, Found: found0}, {Value: raw1, Found: found1}}
		for _, alg := range Algorithms {
			cfg := Config{Name: "f", Algorithm: alg, Limit: limit, Window: window}
			if alg == GCRA {
				cfg.Burst = int64(uint64(burstSeed) % (MaxLimit + 1))
			}
			l := mustNew(t, cfg)
			p := l.Plan(time.UnixMilli(nowMilli), "c")
			d, u := l.Decide(p, cur), l.Update(p, cur)
			if !sameDecision(d, u) || d.Count != u.Count {
				t.Fatalf("%s: Decide %+v, Update %+v", alg, d, u)
			}
			w := d.Write
			switch alg {
			case FixedWindow:
				if !d.Allowed {
					if u.Write.Key != p.Keys[0] || u.Write.Value != nextCount(raw0, d.Count) {
						t.Fatalf("denied: write %+v, want the count incremented", u.Write)
					}
					w = u.Write
				}
				w.KeepTTL = true
			case SlidingWindow:
				w.KeepTTL = d.Allowed
			}
			if u.Write != w {
				t.Fatalf("%s: Update writes %+v, want %+v", alg, u.Write, w)
			}
			if u.Write.Key != "" && u.Write.TTL < 60*time.Second {
				t.Fatalf("%s: TTL %v under the stores' 60s", alg, u.Write.TTL)
			}
		}
	})
}
