package eventual

import (
	"slices"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// liveLike is the summary attack would write for a run of the built-in
// target over the eventual store of the default scenario with sets: the
// model's trial 0 of seed, which the target's run on a virtual clock
// matches request by request (TestTargetSleepsAsTheModelTimes), its
// latencies what the store stated (X-Overshoot-Store-Us), with overheadMs
// of the target's own added to every request's service time.
func liveLike(t *testing.T, seed uint64, overheadMs float64, sets ...string) *measure.Summary {
	t.Helper()
	s := predict(t, 1, seed, sets...)
	s.Mode, s.Trials = "attack", 1
	s.Mechanism = nil // one run: compare takes its pooled counts
	s.KV.Observed = true
	store, service := *s.LatencyMs, *s.LatencyMs
	service.P50 += overheadMs
	service.P99 += overheadMs
	s.Live = &measure.Live{Target: "eventual", DurationSecs: 10, LatencyMs: service, ServiceMs: &service,
		StoreMs: &store, OverheadMs: &measure.Stats{N: store.N, P50: overheadMs, P99: overheadMs}}
	return s
}

// predict runs trials of the default scenario's live plan with sets.
func predict(t *testing.T, trials int, seed uint64, sets ...string) *measure.Summary {
	t.Helper()
	sc, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = sc.With(sets...); err != nil {
		t.Fatal(err)
	}
	pl, err := plan.CompileLive(sc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.Run(pl, model.Options{Seed: seed, Trials: trials})
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestCompareCatchesAnotherStore: against the default prediction, a run of
// the built-in target whose store writes in 20 ms instead of the model's
// 80 ms (attack -set store.kv.write=20ms) does not hold, whatever time of
// its own the target spends; a run of the model's own store holds with
// the target's own time beside its store's, and does not hold when the
// target states only its service time (the model's latency plus what the
// model has no part for).
func TestCompareCatchesAnotherStore(t *testing.T) {
	predicted := predict(t, 200, 0)
	tests := []struct {
		name     string
		measured *measure.Summary
		verdict  string
		outside  string // one of the figures outside, when it does not hold
	}{
		{"the model's store", liveLike(t, 1, 0), measure.VerdictHolds, ""},
		{"the model's store, 0.5 ms of the target's own", liveLike(t, 1, 0.5), measure.VerdictHolds, ""},
		{"writes in 20 ms", liveLike(t, 1, 0, "store.kv.write=20ms"), measure.VerdictFails, measure.CheckLatencyP99},
		{"writes in 20 ms, 0.5 ms of the target's own", liveLike(t, 1, 0.5, "store.kv.write=20ms"), measure.VerdictFails, measure.CheckLatencyP99},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := measure.Compare(predicted, tc.measured)
			if c.Verdict != tc.verdict || (tc.outside != "" && !slices.Contains(c.Outside, tc.outside)) {
				t.Errorf("verdict %q, outside %v; want %q with %q outside (why: %s)", c.Verdict, c.Outside, tc.verdict, tc.outside, c.Why)
			}
		})
	}
	// The store's time unstated: the service time is the model's plus
	// 0.5 ms, and the median request (a hot read, 2 ms) is outside.
	m := liveLike(t, 1, 0.5)
	m.Live.StoreMs, m.Live.OverheadMs = nil, nil
	if c := measure.Compare(predicted, m); c.Verdict != measure.VerdictFails || !slices.Contains(c.Outside, measure.CheckLatencyP50) {
		t.Errorf("an unstated overhead of 0.5 ms: verdict %q, outside %v; want does not hold, latency.p50_ms outside", c.Verdict, c.Outside)
	}
}
