package advise

import (
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// TestAdviseAtomicScenario: on a scenario of the atomic shape with gcra's
// burst, the space's designs (read-then-write, the three algorithms) all
// run, on Workers KV too, instead of failing on the scenario's update or
// burst; the space is unchanged.
func TestAdviseAtomicScenario(t *testing.T) {
	pl := compile(t, strings.Replace(oneClient, "limiter: {limit: 5, window: 60s}", "limiter: {limit: 5, window: 60s, algorithm: gcra, burst: 2, update: atomic}", 1))
	if n := len(Space(pl)); n != 3*5*2 {
		t.Errorf("%d designs, want the 30 of a read-then-write scenario", n)
	}
	designs := []Design{
		{Algorithm: limiter.FixedWindow, Store: plan.KV, StoreName: "kv", Policy: limiter.FailOpen},
		{Algorithm: limiter.GCRA, Store: plan.Memory, StoreName: "memory", Policy: limiter.FailOpen},
	}
	rs, err := Advise(pl, Options{Budget: conds(t, "allowed.max<=7"), Designs: designs, Seed: 1, Trials: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2", len(rs))
	}
	if q := variant(pl, designs[1], 5); q.Limiter.Burst != 2 || q.Limiter.Update != limiter.ReadThenWrite {
		t.Errorf("gcra's variant: burst %d, update %s; want the scenario's burst, read-then-write", q.Limiter.Burst, q.Limiter.Update)
	}
}
