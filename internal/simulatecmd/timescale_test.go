package simulatecmd

import (
	"math/rand/v2"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestComparePredictsWithTheLiveLatencies: simulate -compare predicts a
// live run with the latencies that run's stores slept: the scenario as the
// measured run played it (measuredProfile) compiled as a live run
// (compilePoint), every latency divided by live.time_scale, as
// plan.CompileLive gives the attack command. Without -compare the
// latencies are as written.
func TestComparePredictsWithTheLiveLatencies(t *testing.T) {
	sc, err := scenario.Parse("time-scale.yaml", []byte(plantest.TimeScaleYAML))
	if err != nil {
		t.Fatal(err)
	}
	// What a live run of the scenario on the built-in memory store reports.
	measured := &measure.Summary{Limiter: measure.LimiterRef{Limit: 5, WindowSecs: 10, Store: string(plan.LiveMemory)},
		Live: &measure.Live{DurationSecs: 5}}
	profile, _, err := measuredProfile(sc, measured, nil)
	if err != nil {
		t.Fatal(err)
	}
	predict, err := compilePoint(profile, true)
	if err != nil {
		t.Fatal(err)
	}
	simulate, err := compilePoint(sc, false)
	if err != nil {
		t.Fatal(err)
	}
	if predict.Store.Kind != plan.Memory || predict.TimeScale != 10 {
		t.Errorf("-compare predicts on %v at time scale %g, want memory at 10", predict.Store.Kind, predict.TimeScale)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range plantest.TimeScaled {
		p, s := l.Of(&predict.Store), l.Of(&simulate.Store)
		if got := p.Sample(rng); got != l.Live {
			t.Errorf("%s: -compare predicts with %v, want %v (%v / time_scale 10)", l.Path, got, l.Live, l.Real)
		}
		if got := s.Sample(rng); got != l.Real {
			t.Errorf("%s: simulate uses %v, want %v as written", l.Path, got, l.Real)
		}
	}
}
