package attackcmd

import (
	"context"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

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
