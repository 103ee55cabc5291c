package advise

import (
	"testing"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// BenchmarkAdviseLaunchPlan is the advice on scenarios/launch-plan.yaml as
// simulate runs it: every design of the default space at the product's
// limit, 10 trials each, two workers (docs/speed.md). One iteration takes a
// few CPU-seconds: run it with -benchtime=1x.
func BenchmarkAdviseLaunchPlan(b *testing.B) {
	sc, err := scenario.Load("../../scenarios/launch-plan.yaml")
	if err != nil {
		b.Fatal(err)
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		b.Fatal(err)
	}
	budget := conds(b, sc.Advise.Budget...)
	for b.Loop() {
		rs, err := Advise(pl, Options{Budget: budget, Seed: sc.Seed, Trials: 10, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		if Recommend(rs) < 0 {
			b.Fatal("no recommendation")
		}
	}
}
