package redis_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/redis"
	"github.com/overshoot-dev/overshoot/internal/redis/redistest"
)

// TestUpdateScriptsAgainstCore runs each algorithm's atomic update on a
// real redis-server, as its Lua script, and on the memory store, as the
// limiter's core under a lock, request by request: the decisions and the
// values stored are the same, and the script sets the TTL itself.
func TestUpdateScriptsAgainstCore(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	ctx := ctxFor(t, 60*time.Second)
	configs := []limiter.Config{
		{Algorithm: limiter.FixedWindow, Limit: 4, Window: 10 * time.Second},
		{Algorithm: limiter.SlidingWindow, Limit: 5, Window: 10 * time.Second},
		{Algorithm: limiter.TokenBucket, Limit: 3, Window: 3 * time.Second},
		{Algorithm: limiter.GCRA, Limit: 10, Window: 7 * time.Second, Burst: 4},
	}
	for i, cfg := range configs {
		t.Run(string(cfg.Algorithm), func(t *testing.T) {
			cfg.Name, cfg.Update = "s", limiter.Atomic
			l, err := limiter.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			prefix := fmt.Sprintf("t%d:", i)
			rs := newStore(t, redis.Config{Addr: srv.Addr, Prefix: prefix})
			if err := l.CanRun(rs); err != nil {
				t.Fatal(err)
			}
			now := time.UnixMilli(1_800_000_000_000)
			mem := kv.NewMemory(kv.MemoryOptions{Now: func() time.Time { return now }})
			rng := rand.New(rand.NewPCG(uint64(i), 3))
			allowed, denied := 0, 0
			for n := range 120 {
				// Steps of a quarter of the rate's interval, 0 to 4 of them
				// (twice the rate on average), so that requests land on
				// each other and on the limits' edges.
				now = now.Add(time.Duration(rng.Int64N(5)) * cfg.Window / time.Duration(4*cfg.Limit))
				caller := []string{"a", "b"}[rng.IntN(2)]
				want := l.Check(ctx, mem, now, caller)
				got := l.Check(ctx, rs, now, caller)
				if got.Err != nil || want.Err != nil {
					t.Fatalf("request %d: redis %v, memory %v", n, got.Err, want.Err)
				}
				if got.Allowed != want.Allowed || got.Remaining != want.Remaining || !got.Reset().Equal(want.Reset()) {
					t.Fatalf("request %d at %v: redis %+v, core %+v", n, now, got, want)
				}
				if got.Allowed {
					allowed++
				} else {
					denied++
				}
				p := l.Plan(now, caller)
				for _, k := range p.Keys[:p.NKeys] {
					mv, mf, _ := mem.Get(ctx, k)
					rv, err := rc.Get(ctx, prefix+k).Result()
					if rf := err == nil; rf != mf || rv != mv {
						t.Fatalf("request %d: key %s holds %q (%v) on redis, %q (%v) in the core's store", n, k, rv, rf, mv, mf)
					}
					if mf {
						if ttl := rc.PTTL(ctx, prefix+k).Val(); ttl <= 0 || ttl > 2*time.Minute {
							t.Fatalf("request %d: key %s has PTTL %v on redis, want the script's TTL", n, k, ttl)
						}
					}
				}
			}
			if allowed == 0 || denied == 0 {
				t.Errorf("%d allowed, %d denied: the sequence does not reach the limit", allowed, denied)
			}
		})
	}

	t.Run("EVAL when the server lost the script", func(t *testing.T) {
		l, _ := limiter.New(limiter.Config{Name: "f", Limit: 2, Window: time.Minute, Update: limiter.Atomic})
		rs := newStore(t, redis.Config{Addr: srv.Addr, Prefix: "flush:"})
		if err := rc.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if d := l.Check(ctx, rs, time.Now(), "c"); !d.Allowed || d.Err != nil {
			t.Errorf("after SCRIPT FLUSH: %+v, want allowed (EVALSHA's NOSCRIPT, then EVAL)", d)
		}
	})

	t.Run("concurrent requests never pass the limit", func(t *testing.T) {
		const n, limit = 32, 5
		for _, update := range limiter.Updates {
			l, _ := limiter.New(limiter.Config{Name: "c", Limit: limit, Window: time.Hour, Update: update})
			rs := newStore(t, redis.Config{Addr: srv.Addr, Prefix: "conc-" + string(update) + ":"})
			slow := &kv.Delayed{Store: rs, Delay: func() time.Duration { return 50 * time.Millisecond }}
			now := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			allowed := 0
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					d := l.Check(context.Background(), slow, now, "c")
					mu.Lock()
					defer mu.Unlock()
					if d.Err != nil {
						t.Error(d.Err)
					}
					if d.Allowed {
						allowed++
					}
				}()
			}
			wg.Wait()
			if update == limiter.Atomic && allowed != limit {
				t.Errorf("atomic on redis: %d of %d allowed, want exactly %d", allowed, n, limit)
			}
			if update == limiter.ReadThenWrite && allowed <= limit {
				t.Errorf("read-then-write on redis: %d of %d allowed, want more than %d (GET, then SET)", allowed, n, limit)
			}
		}
	})
}
