package model

import (
	"testing"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestReferenceAgreesWhenSequential: one user sending one request at a
// time through the memory store (linearizable, no lag) is limited exactly,
// whatever each read takes, so the exact-limiter reference must agree
// with every algorithm's decisions: nothing let through beyond it, nothing
// wrongly denied. The reference decides at the time the limiter planned
// for, not at the decision's: judged at the decision's time, the token
// bucket's GCRA drifts with the read's latency (10 false denials and 10
// let through in 3 trials of this scenario).
func TestReferenceAgreesWhenSequential(t *testing.T) {
	for _, alg := range []string{"fixed-window", "sliding-window", "token-bucket"} {
		t.Run(alg, func(t *testing.T) {
			sc, err := scenario.Parse("seq.yaml", []byte(`
name: seq
trials: 3
start: 2026-01-01T00:00:00Z
duration: 5m
limiter: {limit: 5, window: 10s, algorithm: `+alg+`}
store: {kind: memory, latency: {dist: exponential, mean: 100ms}}
locations: [{name: ams}]
traffic:
  - name: user
    legitimate: true
    identity: {token: per-client, ip: per-client}
    arrive: {mode: one, location: ams}
    closed_loop: {concurrency: 1, think: 300ms}
`))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Run(planOf(t, sc), Options{Seed: 1, Trials: 3})
			if err != nil {
				t.Fatal(err)
			}
			r := s.Overshoot.Reference
			if r.Allowed != s.Totals.Allowed || r.Excess != 0 || r.LetThrough != 0 || r.WronglyDenied != 0 || r.Denied != s.Totals.Denied {
				t.Errorf("allowed %d, denied %d; reference %+v: want it to agree", s.Totals.Allowed, s.Totals.Denied, r)
			}
			if p := s.Populations[0]; p.FalseDenials != 0 || s.Totals.Denied == 0 {
				t.Errorf("%d false denials of %d denied: want denials, none false", p.FalseDenials, s.Totals.Denied)
			}
		})
	}
}
