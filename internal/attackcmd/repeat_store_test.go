package attackcmd

import (
	"context"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// TestPooledLiveStoreTime: repeated runs over the eventual store keep the
// store's time per request (the median of the runs' means, for -compare's
// closed loops); when a run did not state it, none is kept.
func TestPooledLiveStoreTime(t *testing.T) {
	run := func(mean float64) measure.Summary {
		s := measure.Summary{Live: &measure.Live{DurationSecs: 4}}
		if mean > 0 {
			s.Live.StoreMs = &measure.Stats{N: 100, Mean: mean}
		}
		return s
	}
	if l := pooledLive([]measure.Summary{run(5), run(7), run(6)}); l.StoreMs == nil || l.StoreMs.Mean != 6 || l.StoreMs.N != 300 {
		t.Errorf("store time %+v, want mean 6 (the median) over 300 requests", l.StoreMs)
	}
	if l := pooledLive([]measure.Summary{run(5), run(0)}); l.StoreMs != nil {
		t.Errorf("store time %+v with a run that stated none, want none", l.StoreMs)
	}
}

// TestEventualStoreDrawsItsOwn: two eventual stores built for runs of one
// seed draw their own latencies (a first, cold read of one key takes
// another time in each), not the model's trial 0 of the seed twice.
func TestEventualStoreDrawsItsOwn(t *testing.T) {
	sc, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.CompileLive(sc)
	if err != nil {
		t.Fatal(err)
	}
	cold := func() time.Duration {
		bs, err := newEventual(pl, 0)
		if err != nil {
			t.Fatal(err)
		}
		ts, ok := bs.Store.(target.TimedStore)
		if !ok {
			t.Fatalf("the eventual store %T does not state its time", bs.Store)
		}
		ctx, cancel := context.WithCancel(kv.WithLocation(context.Background(), ""))
		cancel() // the read takes effect and its latency is drawn; no sleep
		bs.Store.Get(ctx, "k")
		d, _ := ts.StoreTime(ctx)
		return d
	}
	a, b := cold(), cold()
	if a <= 0 || a == b {
		t.Errorf("cold reads of two stores of seed 0 took %v and %v: want two draws", a, b)
	}
}
