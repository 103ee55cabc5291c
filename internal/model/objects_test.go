package model

import (
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

func objectScenario(kind string, limit int64, maxRPS float64, locs []string, length time.Duration, traffic ...scenario.Population) *scenario.Scenario {
	sc := kvScenario(limit, time.Hour, scenario.KV{}, locs, length, traffic...)
	sc.Store = scenario.Store{Kind: kind, Latency: ms(2),
		DurableObject: scenario.DurableObject{Location: locs[0], Local: ms(2), RTT: ms(100), MaxRPS: maxRPS}}
	return sc
}

// TestOracleObjects: limit 5 per hour, one client bursting 16 requests at
// t = 0 (one identity).
//
//   - durable-object, no soft limit: the 16 reach the object at 1 ms (half
//     the 2 ms local round trip) and run one after another, each reading
//     what the previous wrote: counts 0..4 allowed, 5 to 15 denied: 5.
//   - durable-object, max_rps 10: the first 10 are admitted (5 allowed, 5
//     denied); the other 6 are refused as overloaded and fail-open allows
//     them: 11 allowed, 6 fail-open.
//   - per-location over A and B, arrivals alternating: 8 requests per
//     location, each location's counter allows 5: 10 allowed.
func TestOracleObjects(t *testing.T) {
	b := burst(bot("bot"), 16, 0, 0)
	alt := b
	alt.Arrive.Mode = "alternate"
	cases := []struct {
		name              string
		sc                *scenario.Scenario
		allowed, failOpen int64
	}{
		{"durable-object", objectScenario(scenario.KindDurableObject, 5, 0, []string{"A"}, time.Minute, b), 5, 0},
		{"durable-object overloaded", objectScenario(scenario.KindDurableObject, 5, 10, []string{"A"}, time.Minute, b), 11, 6},
		{"per-location", objectScenario(scenario.KindPerLocation, 5, 0, []string{"A", "B"}, time.Minute, alt), 10, 0},
	}
	for _, c := range cases {
		trials, err := RunTrials(planOf(t, c.sc), Options{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tr := trials[0]
		if tr.Totals.Requests != 16 || tr.Totals.Allowed != c.allowed || tr.Totals.FailOpen != c.failOpen || tr.KV.LostUpdates != 0 {
			t.Errorf("%s: %d requests, %d allowed, %d fail-open, %d lost updates; want 16, %d, %d, 0",
				c.name, tr.Totals.Requests, tr.Totals.Allowed, tr.Totals.FailOpen, tr.KV.LostUpdates, c.allowed, c.failOpen)
		}
	}
}

// TestDurableObjectRoundTrip: a client at B, the object at A, rtt 100 ms, a
// closed loop with no think time for 10 s: one request per 100 ms, decided
// 50 ms after it is sent: arrivals at 0, 0.1, ..., 9.9 s, all decided by
// 9.95 s: 100 requests.
func TestDurableObjectRoundTrip(t *testing.T) {
	p := closedLoop(bot("bot"), 1, ms(0))
	p.Arrive = scenario.Arrive{Mode: "one", Location: "B"}
	sc := objectScenario(scenario.KindDurableObject, 1000, 0, []string{"A", "B"}, 10*time.Second, p)
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := trials[0].Totals.Requests; n != 100 {
		t.Errorf("requests = %d, want 100", n)
	}
}

// TestCostPricedByStore: a run's cost is priced at Workers KV's prices for
// the kv and memory stores (memory stands for a KV binding without lag),
// and not priced for a Durable Object or the Rate Limiting binding, whose
// prices are not in the model's sources: their summaries say so, keep the
// operation counts, and leave the cost metric unmeasured.
func TestCostPricedByStore(t *testing.T) {
	b := burst(bot("bot"), 16, 0, 0)
	cases := []struct {
		name   string
		sc     *scenario.Scenario
		priced bool
	}{
		{"kv", kvScenario(5, time.Minute, kvParams(1, 10, 20), []string{"A"}, time.Minute, b), true},
		{"memory", memoryScenario(5, time.Minute, ms(1), time.Minute, b), true},
		{"durable-object", objectScenario(scenario.KindDurableObject, 5, 0, []string{"A"}, time.Minute, b), false},
		{"per-location", objectScenario(scenario.KindPerLocation, 5, 0, []string{"A"}, time.Minute, b), false},
	}
	usd, err := measure.LookupMetric("cost.usd_per_million")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		s, err := Run(planOf(t, c.sc), Options{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		v, ok := usd.Value(&s)
		if s.Cost.Priced() != c.priced || ok != c.priced || (v > 0) != c.priced {
			t.Errorf("%s: priced %v, cost metric %v (measured %v), not_priced %q; want priced %v",
				c.name, s.Cost.Priced(), v, ok, s.Cost.NotPriced, c.priced)
		}
		if s.Cost.ReadsPerMillionRequests+s.Cost.WritesPerMillionRequests <= 0 {
			t.Errorf("%s: no operations per million requests (%+v); the counts are kept whether priced or not", c.name, s.Cost)
		}
		var text strings.Builder
		measure.WriteText(&text, &s)
		if got := strings.Contains(text.String(), "cost: not priced: "); got == c.priced {
			t.Errorf("%s: terminal summary says not priced: %v, want %v:\n%s", c.name, got, !c.priced, text.String())
		}
	}
}
