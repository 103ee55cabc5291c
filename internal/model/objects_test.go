package model

import (
	"math"
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

// slidingObjects is objectScenario on a Durable Object with a sliding
// window, whose check reads two keys at the object in one request.
func slidingObjects(p scenario.Population) *scenario.Scenario {
	sc := objectScenario(scenario.KindDurableObject, 5, 0, []string{"A"}, time.Minute, p)
	sc.Limiter.Algorithm = "sliding-window"
	return sc
}

// TestCostPricedByStore: every store is priced at its published prices,
// with the Workers request fee on top: Workers KV by reads and writes, the
// memory store as the KV binding it stands for (marked a reference), a
// Durable Object by requests and duration, the Rate Limiting binding at $0
// a call (no price of its own is published).
func TestCostPricedByStore(t *testing.T) {
	b := burst(bot("bot"), 16, 0, 0)
	cases := []struct {
		name      string
		sc        *scenario.Scenario
		basis     string
		store     func(c measure.Cost) float64
		reference bool
	}{
		{"kv", kvScenario(5, time.Minute, kvParams(1, 10, 20), []string{"A"}, time.Minute, b), "Workers KV reads $0.50 and writes $5.00",
			func(c measure.Cost) float64 {
				return c.ReadsPerMillionRequests*0.5e-6 + c.WritesPerMillionRequests*5e-6
			}, false},
		{"memory", memoryScenario(5, time.Minute, ms(1), time.Minute, b), "the memory reference",
			func(c measure.Cost) float64 {
				return c.ReadsPerMillionRequests*0.5e-6 + c.WritesPerMillionRequests*5e-6
			}, true},
		{"durable-object", objectScenario(scenario.KindDurableObject, 5, 0, []string{"A"}, time.Minute, b), "Durable Object requests $0.15",
			func(c measure.Cost) float64 { return 0.15 + 1e6*0.016*0.128*12.5e-6 }, false},
		{"durable-object, sliding window (two keys read, one request)", slidingObjects(b), "Durable Object requests $0.15",
			func(c measure.Cost) float64 { return 0.15 + 1e6*0.016*0.128*12.5e-6 }, false},
		{"durable-object, sliding window (two keys read, one request)", slidingObjects(b), "Durable Object requests $0.15",
			func(c measure.Cost) float64 { return 0.15 + 1e6*0.016*0.128*12.5e-6 }, false},
		{"per-location", objectScenario(scenario.KindPerLocation, 5, 0, []string{"A"}, time.Minute, b), "Rate Limiting binding calls $0",
			func(c measure.Cost) float64 { return 0 }, false},
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
		want := c.store(s.Cost) + 0.30
		if !s.Cost.Priced() || !ok || math.Abs(v-want) > 1e-9 || s.Cost.WorkersUSDPerMillionRequests != 0.30 || s.Cost.Reference != c.reference {
			t.Errorf("%s: cost %v (measured %v), want %v; %+v", c.name, v, ok, want, s.Cost)
		}
		if !strings.Contains(s.Cost.Basis, c.basis) || !strings.Contains(s.Cost.Basis, "Workers requests $0.30 per million") {
			t.Errorf("%s: basis %q, want %q and the Workers request fee", c.name, s.Cost.Basis, c.basis)
		}
		var text strings.Builder
		measure.WriteText(&text, &s)
		if !strings.Contains(text.String(), "Workers requests $0.300") || strings.Contains(text.String(), "not priced") {
			t.Errorf("%s: terminal summary:\n%s", c.name, text.String())
		}
	}
}

// TestPerLocationSync: the Rate Limiting binding's counters are cached and
// updated asynchronously. Limit 5 per hour, a burst of 16 at t = 0 and
// another at t = 2 s, one location. With sync 0 the counter is exact: 5.
// With sync 1 s the first check caches the count 0 and the whole first
// burst reads it: 16 allowed; its increments land on the count itself
// (5 of them, then the count refuses more), so the second burst, after a
// refresh, reads 5 and is denied: 16, not 32.
func TestPerLocationSync(t *testing.T) {
	b := burst(bot("bot"), 16, 0, 2*time.Second)
	for _, tc := range []struct {
		sync time.Duration
		want int64
	}{{0, 5}, {time.Second, 16}, {10 * time.Second, 32}} {
		sc := objectScenario(scenario.KindPerLocation, 5, 0, []string{"A"}, 3*time.Second, b)
		sc.Store.RateLimit.Sync = dur(tc.sync)
		s, err := Run(planOf(t, sc), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if s.Totals.Requests != 32 || s.Totals.Allowed != tc.want {
			t.Errorf("sync %v: %d of %d allowed, want %d of 32", tc.sync, s.Totals.Allowed, s.Totals.Requests, tc.want)
		}
	}
}

// TestDurableObjectPlacement: an object lives near the first request for
// it unless the scenario pins it. A bot at location B pays the 2 ms local
// round trip to an object placed near it, and the 100 ms rtt to one
// pinned at A.
func TestDurableObjectPlacement(t *testing.T) {
	p := closedLoop(bot("bot"), 1, ms(10))
	p.Arrive = scenario.Arrive{Mode: "one", Location: "B"}
	for _, tc := range []struct {
		location string
		lo, hi   float64 // latency p50, ms
	}{{scenario.DurableObjectFirstRequest, 1, 5}, {"A", 90, 110}} {
		sc := objectScenario(scenario.KindDurableObject, 1000, 0, []string{"A", "B"}, 10*time.Second, p)
		sc.Store.DurableObject.Location = tc.location
		s, err := Run(planOf(t, sc), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if s.LatencyMs == nil || s.LatencyMs.P50 < tc.lo || s.LatencyMs.P50 > tc.hi {
			t.Errorf("location %s: latency %+v, want p50 in [%v, %v] ms", tc.location, s.LatencyMs, tc.lo, tc.hi)
		}
	}
}
