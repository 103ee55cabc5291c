package attackcmd

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
)

// TestStoresSleepTheScaledLatency: the built-in target's stores sleep the
// latencies of the live plan, divided by live.time_scale (the one rule that
// simulate -compare predicts with): the memory store its store.latency
// (40 ms / 10) per operation, the eventual store its cold reads, hot reads
// and writes. Every operation takes at least 3/4 of the scaled latency (a
// sleep is never short, however busy the machine), and the fastest of
// eight well under 3/4 of the unscaled one: that catches a store that
// ignores the time scale or divides twice, and says nothing of speed. A
// busy machine only makes sleeps longer, so when even the fastest is over,
// eight more are timed (three rounds at most) before the test fails.
func TestStoresSleepTheScaledLatency(t *testing.T) {
	pl := livePlan(t, parse(t, plantest.TimeScaleYAML))
	live := map[string]time.Duration{}
	for _, l := range plantest.TimeScaled {
		live[l.Path] = l.Live
	}
	ctx := context.Background()
	mem, err := NewStore(plan.LiveMemory, pl, 1)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewStore(plan.LiveEventual, pl, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Each operation gets a key of its own, so that no write meets the
	// write limit of an earlier one; a hot read reads its key once first.
	keys := 0
	key := func() string { keys++; return "k" + strconv.Itoa(keys) }
	var took time.Duration // the last operation's time
	get := func(s *BuiltinStore, hot bool) func() error {
		return func() error {
			k := key()
			if hot {
				if _, _, err := s.Get(ctx, k); err != nil {
					return err
				}
			}
			began := time.Now()
			_, _, err := s.Get(ctx, k)
			took = time.Since(began)
			return err
		}
	}
	put := func(s *BuiltinStore) func() error {
		return func() error {
			k := key()
			began := time.Now()
			err := s.Put(ctx, k, "1", time.Minute)
			took = time.Since(began)
			return err
		}
	}
	tests := []struct {
		what string
		op   func() error
		want time.Duration
	}{
		{"memory get", get(mem, false), live["store.latency"]},
		{"memory put", put(mem), live["store.latency"]},
		{"eventual cold read", get(ev, false), live["store.kv.cold_read"]},
		{"eventual hot read", get(ev, true), live["store.kv.hot_read"]},
		{"eventual write", put(ev), live["store.kv.write"]},
	}
	const n, rounds = 8, 3
	for _, tc := range tests {
		lo, hi := tc.want*3/4, tc.want*10*3/4
		fastest := time.Duration(math.MaxInt64)
		for round := 0; round < rounds && fastest > hi; round++ {
			for range n {
				if err := tc.op(); err != nil {
					t.Fatalf("%s: %v", tc.what, err)
				}
				if took < lo {
					t.Errorf("%s took %v, want at least %v (3/4 of the scaled %v)", tc.what, took, lo, tc.want)
				}
				fastest = min(fastest, took)
			}
		}
		if fastest > hi {
			t.Errorf("%s took at least %v in %d tries, want about %v (under %v, 3/4 of the unscaled latency)", tc.what, fastest, n*rounds, tc.want, hi)
		}
	}
}
