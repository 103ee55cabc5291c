package simulatecmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/advise"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// gcraAdviseYAML is a Redis scenario whose advise section names gcra.
const gcraAdviseYAML = `
name: gcra-advice
duration: 10s
limiter: {limit: 5, window: 60s, algorithm: gcra, burst: 2}
store: {kind: redis}
traffic:
  - name: bot
    closed_loop: {concurrency: 2}
advise: {budget: ["ratio.max<=2"], algorithms: [gcra, fixed-window]}
`

// TestAdviseGCRA: advise.algorithms may name gcra (the core runs it on
// every store, read-then-write, and on Redis as the GCRA script): the
// space then holds a gcra design at the scenario's burst beside every
// token-bucket one, and only those the section lists.
func TestAdviseGCRA(t *testing.T) {
	sc, err := scenario.Parse("gcra.yaml", []byte(gcraAdviseYAML))
	if err != nil {
		t.Fatalf("a scenario whose advise.algorithms names gcra: %v", err)
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	space := designSpace(pl, sc.Advise)
	var gcra, fixed, atomicGCRA int
	for _, d := range space {
		switch d.Algorithm {
		case limiter.GCRA:
			gcra++
			if d.Burst != 2 {
				t.Errorf("%s: burst %d, want the scenario's 2", d, d.Burst)
			}
			if d.Store == plan.Redis && d.Update == limiter.Atomic {
				atomicGCRA++
			}
		case limiter.FixedWindow:
			fixed++
		default:
			t.Errorf("%s: not in advise.algorithms", d)
		}
	}
	if gcra == 0 || gcra != fixed || atomicGCRA != 2 {
		t.Errorf("%d gcra designs (%d atomic on Redis), %d fixed-window: want one gcra beside each token bucket, as many as fixed windows, and the GCRA script fail-open and fail-closed", gcra, atomicGCRA, fixed)
	}
	r := advise.Result{Design: advise.Design{Algorithm: limiter.GCRA, Store: plan.Redis, Update: limiter.Atomic, Policy: limiter.FailClosed, Burst: 2}, Limit: 5}
	if s := advise.Snippet(r, "1m"); !strings.Contains(s, "algorithm: gcra") || !strings.Contains(s, "burst: 2") {
		t.Errorf("snippet %q: want gcra with its burst", s)
	}
}

// TestWriteShip: the change to ship is said to go in the Worker, or for a
// Redis design in the code that calls Redis, which is no Worker.
func TestWriteShip(t *testing.T) {
	for _, tc := range []struct {
		d    advise.Design
		want string
	}{
		{advise.Design{Algorithm: limiter.FixedWindow, Store: plan.DurableObject, Policy: limiter.FailOpen}, "\nIn the Worker: move the counter"},
		{advise.Design{Algorithm: limiter.FixedWindow, Store: plan.Redis, Update: limiter.Atomic, Policy: limiter.FailClosed}, "\nIn the code that calls Redis: move the counter to Redis"},
	} {
		r := advise.Result{Design: tc.d, Limit: 5}
		var b bytes.Buffer
		writeShip(&b, adviceBody{Snippet: advise.Snippet(r, "1m"), WorkerChange: advise.WorkerChange(r), ChangeIn: advise.ChangeIn(r)})
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: %q, want %q", tc.d, b.String(), tc.want)
		}
	}
}
