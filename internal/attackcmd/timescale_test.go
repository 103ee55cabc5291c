package attackcmd

import (
	"context"
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
// and writes. The bounds are loose on purpose, from 3/4 of the scaled
// latency to 3/4 of the unscaled one: they catch a store that ignores the
// time scale or divides twice, and say nothing of speed.
func TestStoresSleepTheScaledLatency(t *testing.T) {
	pl := livePlan(t, parse(t, plantest.TimeScaleYAML))
	live := map[string]time.Duration{}
	for _, l := range plantest.TimeScaled {
		live[l.Path] = l.Live
	}
	ctx := context.Background()
	const n = 8
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	// mean runs op on every key and returns its mean time.
	mean := func(op func(key string) error) time.Duration {
		began := time.Now()
		for _, k := range keys {
			if err := op(k); err != nil {
				t.Fatal(err)
			}
		}
		return time.Since(began) / n
	}
	get := func(s *BuiltinStore) func(string) error {
		return func(k string) error { _, _, err := s.Get(ctx, k); return err }
	}
	put := func(s *BuiltinStore) func(string) error {
		return func(k string) error { return s.Put(ctx, k, "1", time.Minute) }
	}

	mem, err := NewStore(plan.LiveMemory, pl, 1)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewStore(plan.LiveEventual, pl, 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		what string
		op   func(string) error
		want time.Duration
	}{
		{"memory get", get(mem), live["store.latency"]},
		{"memory put", put(mem), live["store.latency"]},
		{"eventual cold read", get(ev), live["store.kv.cold_read"]},
		{"eventual hot read", get(ev), live["store.kv.hot_read"]}, // the same keys again: cached
		{"eventual write", put(ev), live["store.kv.write"]},
	}
	for _, tc := range tests {
		got := mean(tc.op)
		if lo, hi := tc.want*3/4, tc.want*10*3/4; got < lo || got > hi {
			t.Errorf("%s took %v on average, want about %v (between %v and %v)", tc.what, got, tc.want, lo, hi)
		}
	}
}
