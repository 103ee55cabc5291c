package model

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// timedMemory is a Memory that logs when the engine's operations take
// effect at it.
type timedMemory struct {
	*Memory
	log *[]string
}

func (m timedMemory) ReadHalf(now, lat time.Duration, loc, dom int, key string) ReadResult {
	*m.log = append(*m.log, fmt.Sprintf("%v read", now))
	return m.Memory.ReadHalf(now, lat, loc, dom, key)
}

func (m timedMemory) Commit(now time.Duration, w PendingWrite) {
	*m.log = append(*m.log, fmt.Sprintf("%v commit", now))
	m.Memory.Commit(now, w)
}

func (m timedMemory) Update(now time.Duration, keys *[2]string, n int, cur *[2]limiter.Read) error {
	*m.log = append(*m.log, fmt.Sprintf("%v update", now))
	return m.Memory.Update(now, keys, n, cur)
}

// TestHalfwayTranscript runs one closed-loop client with no think time on
// the memory store, 4 ms per operation, and logs when each operation
// takes effect: a request sent at t0 reads at t0+2ms (half its read's
// round trip), decides at t0+4ms, commits at t0+6ms (half its write's)
// and completes at t0+8ms, when the client sends again. An atomic update
// applies at t0+2ms and completes at t0+4ms.
func TestHalfwayTranscript(t *testing.T) {
	for _, tt := range []struct {
		update limiter.Update
		want   []string
	}{
		{limiter.ReadThenWrite, []string{"0s send", "2ms read", "6ms commit", "8ms send", "10ms read", "14ms commit", "16ms send", "18ms read"}},
		{limiter.Atomic, []string{"0s send", "2ms update", "4ms send", "6ms update", "8ms send", "10ms update", "12ms send", "14ms update", "16ms send", "18ms update"}},
	} {
		t.Run(string(tt.update), func(t *testing.T) {
			sc := atomicScenario("fixed-window", string(tt.update), 1000, time.Hour, ms(4), 19*time.Millisecond, closedLoop(bot("bot"), 1, scenario.Latency{}))
			c, err := compile(planOf(t, sc))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := c.newTrial(1, 0)
			if err != nil {
				t.Fatal(err)
			}
			var log []string
			m := timedMemory{Memory: tr.store.(*Memory), log: &log}
			tr.store, tr.hw = m, m
			if tr.mem != nil {
				tr.mem = m
			}
			tr.onSend = func(*client, int32, int64, int32) {
				log = append(log, fmt.Sprintf("%v send", time.Duration(tr.now)))
			}
			if _, err := tr.run(context.Background(), -1); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(log, tt.want) {
				t.Errorf("transcript\n%q\nwant\n%q", log, tt.want)
			}
		})
	}
}

// TestHalfwayLiveAndModel: one client sends two requests gap apart to a
// memory store of 40 ms per operation, limit 1. In both drivers (the
// model's memory store, and limiter.Check on the live kv.Memory at the
// model's send times, on the wall clock) the first request reads at 20 ms
// and commits at 60 ms; the second reads at gap+20 ms. A gap of 20 ms
// races (2 allowed); 60 ms and 100 ms do not (1 allowed). Each margin is
// 20 ms, far above the live store's timing error. (With the read taking
// effect when sent and the write when its latency ends, the model let the
// 60 ms gap through while the live store did not.)
func TestHalfwayLiveAndModel(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps on the wall clock")
	}
	const lat = 40 * time.Millisecond
	for _, tt := range []struct {
		gap     time.Duration
		allowed int64
	}{{20 * time.Millisecond, 2}, {60 * time.Millisecond, 1}, {100 * time.Millisecond, 1}} {
		p := burst(bot("bot"), 2, 0, 0)
		p.Burst.Spread = dur(2 * tt.gap)
		pl := planOf(t, memoryScenario(1, time.Hour, ms(float64(lat/time.Millisecond)), time.Second, p))
		s, err := Run(pl, Options{Seed: 1, Trials: 1})
		if err != nil {
			t.Fatal(err)
		}
		c, reqs := sentBy(t, pl)
		if len(reqs) != 2 || time.Duration(reqs[1].at-reqs[0].at) != tt.gap {
			t.Fatalf("gap %v: the model sent %+v, want two requests gap apart", tt.gap, reqs)
		}
		live := liveRace(t, c, pl, reqs, lat)
		if s.Totals.Allowed != tt.allowed || live != tt.allowed {
			t.Errorf("gap %v: the model allowed %d, the live kv.Memory %d; want %d in both", tt.gap, s.Totals.Allowed, live, tt.allowed)
		}
	}
}

// liveRace sends reqs through limiter.Check on a kv.Memory of latency lat
// at their times on the wall clock, concurrently, and counts those
// allowed.
func liveRace(t *testing.T, c *compiled, pl *plan.Plan, reqs []sent, lat time.Duration) int64 {
	ctx := context.Background()
	store := kv.NewMemory(kv.MemoryOptions{Latency: lat})
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for _, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := time.Duration(r.at)
			if err := kv.Sleep(ctx, time.Until(start.Add(at))); err != nil {
				t.Error(err)
				return
			}
			d := c.lim.Check(ctx, store, pl.Start.Add(at), r.caller)
			if d.Err != nil {
				t.Error(d.Err)
			} else if d.Allowed {
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return n.Load()
}
