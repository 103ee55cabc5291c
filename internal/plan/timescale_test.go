package plan_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestTimeScale pins the one time-scale rule: CompileLive divides every
// store latency and lag, of every store kind, by live.time_scale, and
// Compile keeps them as written. What does not pass in a request's time
// (the cache TTL) keeps its real value.
func TestTimeScale(t *testing.T) {
	sc, err := scenario.Parse("time-scale.yaml", []byte(plantest.TimeScaleYAML))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	live, err := plan.CompileLive(sc)
	if err != nil {
		t.Fatal(err)
	}
	if live.TimeScale != 10 || sim.TimeScale != 1 {
		t.Errorf("TimeScale: live %g, simulated %g; want 10 and 1", live.TimeScale, sim.TimeScale)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range plantest.TimeScaled {
		simD, liveD := l.Of(&sim.Store), l.Of(&live.Store)
		if got := simD.Sample(rng); got != l.Real {
			t.Errorf("%s: Compile gives %v, want %v as written", l.Path, got, l.Real)
		}
		if got := liveD.Sample(rng); got != l.Live {
			t.Errorf("%s: CompileLive gives %v, want %v (%v / time_scale 10)", l.Path, got, l.Live, l.Real)
		}
	}
	if live.Store.KV.CacheTTL != sim.Store.KV.CacheTTL || sim.Store.KV.CacheTTL != 60*time.Second {
		t.Errorf("cache TTL: live %v, simulated %v; want 60s in both", live.Store.KV.CacheTTL, sim.Store.KV.CacheTTL)
	}
}
