package report

import (
	"math"
	"slices"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// Sample summaries with realistic numbers for tests: the seed's limiter (5
// per day, fixed window on Workers KV, fail-open) under a 32-wide bot loop
// beside ordinary users. They are built by hand, not by the simulator, so
// that report tests do not depend on the model.

// lcg is a tiny deterministic generator for sample data.
type lcg uint64

func (g *lcg) float() float64 {
	*g = *g*6364136223846793005 + 1442695040888963407
	return float64(uint64(*g)>>11) / (1 << 53)
}

// trialMaxima draws n trials' max ratios around mean with the given spread,
// rounded to whole allowed counts, and their interval.
func trialMaxima(seed uint64, n int, limit int64, mean, spread float64) ([]float64, measure.Interval) {
	g := lcg(seed)
	out := make([]float64, n)
	for i := range out {
		// Sum of three uniforms: a bell shape without math/rand.
		z := (g.float() + g.float() + g.float() - 1.5) * 2
		allowed := math.Max(1, math.Round((mean+z*spread)*float64(limit)))
		if limit == 5 {
			allowed = math.Min(allowed, 38) // the sample's histogram ends at 38
		}
		out[i] = allowed / float64(limit)
	}
	s := slices.Clone(out)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	return out, measure.Interval{Mean: sum / float64(n), Lo: measure.Quantile(s, 0.025), Hi: measure.Quantile(s, 0.975), P95: measure.Quantile(s, 0.95)}
}

// sampleSimulate is a simulate run of the default scenario: 200 trials.
func sampleSimulate() *measure.Summary {
	const limit = 5
	maxima, iv := trialMaxima(1, 200, limit, 6.4, 0.45)
	return &measure.Summary{
		Schema: measure.SchemaVersion,
		Mode:   "simulate",
		Scenario: measure.ScenarioRef{
			Name:     "default",
			File:     "scenarios/default.yaml",
			Hash:     "sha256:3f1c9a7e5b2d",
			Question: "How many requests does the seed's KV limiter let through when one bot keeps 32 requests in flight from one location?",
			Params:   []string{"traffic.bot.closed_loop.concurrency=32"},
		},
		Seed:     42,
		Trials:   200,
		Complete: true,
		Limiter:  measure.LimiterRef{Algorithm: "fixed-window", Limit: limit, Window: "1d", WindowSecs: 86400, Store: "kv", ErrorPolicy: "fail-open"},
		Totals: measure.Totals{Requests: 1_288_000, Allowed: 62_410, Denied: 1_224_790, Errors: 0, FailOpen: 800,
			SimulatedSeconds: 60},
		Overshoot: measure.Overshoot{
			KeyWindows: 6_400, OverLimit: 200, OverLimitShare: 200.0 / 6400, Excess: 5_620,
			Ratio:      measure.Stats{N: 6400, Max: 7.6, Mean: 1.21, P50: 1, P95: 1, P99: 6.4},
			MaxAllowed: 38, MaxInInterval: 38, MaxInIntervalRatio: 7.6,
			PerTrial: measure.PerTrial{MaxRatio: iv, P99Ratio: measure.Interval{Mean: 1, Lo: 1, Hi: 1, P95: 1},
				Excess: measure.Interval{Mean: 28.1, Lo: 21, Hi: 34, P95: 33}, MaxRatios: maxima},
			Histogram: []measure.Bin{{Allowed: 1, KeyWindows: 310}, {Allowed: 2, KeyWindows: 420}, {Allowed: 3, KeyWindows: 880},
				{Allowed: 4, KeyWindows: 1190}, {Allowed: 5, KeyWindows: 3400}, {Allowed: 28, KeyWindows: 6},
				{Allowed: 30, KeyWindows: 21}, {Allowed: 32, KeyWindows: 48}, {Allowed: 33, KeyWindows: 57}, {Allowed: 34, KeyWindows: 41},
				{Allowed: 35, KeyWindows: 18}, {Allowed: 36, KeyWindows: 6}, {Allowed: 38, KeyWindows: 3}},
		},
		Populations: []measure.Population{
			{Name: "bot", Requests: 1_280_000, Allowed: 6_620, Denied: 1_273_380},
			{Name: "users", Legitimate: true, Requests: 8_000, Allowed: 7_950, Denied: 50, FalseDenials: 12},
		},
		KV: measure.KVWork{Observed: true, Reads: 1_288_000, Writes: 62_410, WriteErrors: 800, WriteRateLimited: 800, LostUpdates: 5_410,
			StaleReads: 310_000, StalenessMs: measure.Stats{N: 310_000, Max: 59_800, Mean: 21_000, P50: 18_000, P95: 55_000, P99: 59_000},
			Visibility: []measure.VisibilityPoint{
				{SinceMs: 0, Reads: 40_000, Fresh: 2_000, P: 0.05}, {SinceMs: 10, Reads: 60_000, Fresh: 6_000, P: 0.1},
				{SinceMs: 100, Reads: 80_000, Fresh: 16_000, P: 0.2}, {SinceMs: 1_000, Reads: 120_000, Fresh: 48_000, P: 0.4},
				{SinceMs: 10_000, Reads: 300_000, Fresh: 195_000, P: 0.65}, {SinceMs: 30_000, Reads: 300_000, Fresh: 255_000, P: 0.85},
				{SinceMs: 60_000, Reads: 200_000, Fresh: 200_000, P: 1},
			}},
		Cost: measure.Cost{ReadsPerMillionRequests: 1e6, WritesPerMillionRequests: 48_455, USDPerMillionRequests: 0.742,
			FreeWritesExhaustedAfterSecs: 231.7, FreeReadsExhaustedAfterSecs: 1_863.4},
		WorstKeys: []measure.KeyTimeline{
			timeline(17, "rl:api:tok-bot-17:203.0.113.9:20422", 38, 12.0, 0.009),
			timeline(88, "rl:api:tok-bot-88:203.0.113.9:20422", 36, 12.0, 0.011),
			timeline(5, "rl:api:tok-bot-5:203.0.113.9:20422", 35, 12.0, 0.010),
		},
	}
}

// sampleTwoFigures is sampleSimulate with only what its two ratio figures
// (histogram and CDF) draw: for tests of how a report's files are put in
// place, which hold for any number of figures, without drawing seven
// (seconds each under the race detector).
func sampleTwoFigures() *measure.Summary { return twoFigures(sampleSimulate()) }

// twoFigures leaves s (a sample) with only what its own two ratio figures
// draw, and returns it; a sweep's points keep theirs.
func twoFigures(s *measure.Summary) *measure.Summary {
	s.Overshoot.PerTrial.MaxRatios = nil
	s.WorstKeys = nil
	s.KV = measure.KVWork{}
	s.Cost = measure.Cost{}
	return s
}

// timeline is a worst key's allowed times: a burst of n in the first
// round trips after start (seconds from the run's start), spaced by gap.
func timeline(trial int, key string, n int64, start, gap float64) measure.KeyTimeline {
	ts := make([]float64, n)
	for i := range ts {
		ts[i] = start + 0.035 + float64(i)*gap
	}
	return measure.KeyTimeline{Trial: trial, Key: key, Window: 20422, Allowed: n, AllowedAtSecs: ts, WindowStartSecs: start - 3}
}

// sampleAttack is a live attack against the built-in target for the same
// scenario: one trial, with a 10 s window so that it can be watched.
func sampleAttack() *measure.Summary {
	s := &measure.Summary{
		Schema: measure.SchemaVersion,
		Mode:   "attack",
		Scenario: measure.ScenarioRef{Name: "default", File: "scenarios/default.yaml", Hash: "sha256:3f1c9a7e5b2d",
			Question: "How many requests does the seed's KV limiter let through when one bot keeps 32 requests in flight from one location?"},
		Seed: 42, Trials: 1, Complete: true,
		Limiter: measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, Store: "eventual", ErrorPolicy: "fail-open"},
		Totals:  measure.Totals{Requests: 4_000, Allowed: 35, Denied: 3_965, SimulatedSeconds: 10},
		Overshoot: measure.Overshoot{KeyWindows: 1, OverLimit: 1, OverLimitShare: 1, Excess: 30,
			Ratio:      measure.Stats{N: 1, Max: 7.0, Mean: 7.0, P50: 7.0, P95: 7.0, P99: 7.0},
			MaxAllowed: 35, MaxInInterval: 35, MaxInIntervalRatio: 7.0,
			PerTrial:  measure.PerTrial{MaxRatio: measure.Interval{Mean: 7.0, Lo: 7.0, Hi: 7.0, P95: 7.0}, MaxRatios: []float64{7.0}},
			Histogram: []measure.Bin{{Allowed: 35, KeyWindows: 1}}},
		Populations: []measure.Population{{Name: "bot", Requests: 4_000, Allowed: 35, Denied: 3_965}},
		KV:          measure.KVWork{Observed: true, Reads: 4_000, Writes: 35, LostUpdates: 29},
		Cost:        measure.Cost{ReadsPerMillionRequests: 1e6, WritesPerMillionRequests: 9_250, USDPerMillionRequests: 0.546, FreeWritesExhaustedAfterSecs: 270.3, FreeReadsExhaustedAfterSecs: 250},
		WorstKeys:   []measure.KeyTimeline{timeline(0, "rl:api:tok-bot:127.0.0.1:177", 35, 0.2, 0.004)},
		Live: &measure.Live{URL: "http://127.0.0.1:8787/", Target: "eventual", OfferedRate: 400, AchievedRate: 398.7, DurationSecs: 10,
			LatencyMs:   measure.Stats{N: 4_000, Max: 48.2, Mean: 6.1, P50: 4.9, P95: 12.3, P99: 21.7},
			LatencyNote: "Measured by vegeta from request start to response end on loopback; open-loop, so queueing delay is included.",
			Status:      map[string]int64{"200": 35, "429": 3_965}, ResultsFile: "results.bin"},
	}
	return s
}

// sampleSeries is a live series for Extra: 10 one-second intervals.
func sampleSeries() []LivePoint {
	var ps []LivePoint
	for i := range 10 {
		allowed := int64(0)
		if i == 0 {
			allowed = 35
		}
		ps = append(ps, LivePoint{AtSecs: float64(i), OfferedRate: 400, AchievedRate: 398 + float64(i%3)/2,
			LatencyP50Ms: 4.5 + float64(i%4)*0.2, LatencyP95Ms: 11 + float64(i%3), LatencyP99Ms: 19 + float64(i%5),
			Status: map[string]int64{"200": allowed, "429": 399 - allowed}})
	}
	return ps
}

// sampleSweep sweeps the bot's concurrency (numeric) across two stores
// (categorical): three series of lines.
func sampleSweep() *measure.Summary {
	s := sampleSimulate()
	s.Scenario.Name = "concurrency-sweep"
	s.Scenario.Question = "How does the overshoot grow with the bot's concurrency on each store?"
	s.Scenario.Params = nil
	i := uint64(0)
	for _, store := range []string{"kv", "durable-object", "per-location"} {
		for _, c := range []int{1, 2, 4, 8, 16, 32, 64} {
			i++
			p := sampleSimulate()
			over := 1.0
			switch store {
			case "kv":
				over = 1 + float64(c)*0.2
			case "per-location":
				over = 1 + math.Min(float64(c), 3)*0.2
			}
			maxima, iv := trialMaxima(i, 100, 5, over, over*0.08)
			p.Trials = 100
			p.Overshoot.PerTrial.MaxRatio = iv
			p.Overshoot.PerTrial.MaxRatios = maxima
			p.Overshoot.Ratio.Max = slices.Max(maxima)
			p.Overshoot.Ratio.P99 = math.Max(1, iv.Mean*0.9)
			p.Overshoot.Ratio.P50 = 1
			p.Overshoot.MaxAllowed = int64(math.Round(p.Overshoot.Ratio.Max * 5))
			p.Limiter.Store = store
			s.Points = append(s.Points, measure.Point{
				Params:  []measure.Param{{Path: "store.kind", Value: store}, {Path: "traffic.bot.closed_loop.concurrency", Value: itoa(c)}},
				Summary: p,
			})
		}
	}
	return s
}

// sampleGrid sweeps two numeric parameters: concurrency by cache TTL.
func sampleGrid() *measure.Summary {
	s := sampleSimulate()
	s.Scenario.Name = "grid"
	i := uint64(100)
	for _, ttl := range []string{"30s", "60s", "120s", "300s"} {
		for _, c := range []int{2, 8, 32} {
			i++
			p := sampleSimulate()
			t, _, _ := paramNumber(ttl)
			over := 1 + float64(c)*0.05*math.Log2(t/15)
			maxima, iv := trialMaxima(i, 50, 5, over, 0.2)
			p.Overshoot.PerTrial.MaxRatio = iv
			p.Overshoot.PerTrial.MaxRatios = maxima
			p.Overshoot.Ratio.Max = slices.Max(maxima)
			s.Points = append(s.Points, measure.Point{
				Params:  []measure.Param{{Path: "store.kv.cache_ttl", Value: ttl}, {Path: "traffic.bot.closed_loop.concurrency", Value: itoa(c)}},
				Summary: p,
			})
		}
	}
	return s
}

func itoa(n int) string { return count(int64(n)) }

// natOffice is the sample simulate run led by false denials, as
// nat-office.yaml names them.
func natOffice() *measure.Summary {
	s := sampleSimulate()
	s.Scenario.Name = "nat-office"
	s.Scenario.Headline = "false_denials.rate"
	return s
}

// outageSweep is a sweep over the error policy led by false denials, as
// outage.yaml: failing open lets the bot through, failing closed denies
// the users.
func outageSweep() *measure.Summary {
	s := sampleSimulate()
	s.Scenario.Name = "outage"
	s.Scenario.Headline = "false_denials.rate"
	s.Totals, s.Overshoot, s.Populations, s.KV, s.Cost, s.WorstKeys = measure.Totals{}, measure.Overshoot{}, nil, measure.KVWork{}, measure.Cost{}, nil
	for _, policy := range []string{"fail-open", "fail-closed"} {
		p := sampleSimulate()
		p.Limiter.ErrorPolicy = policy
		if policy == "fail-closed" {
			p.Populations[1].FalseDenials = 2_000
			p.Overshoot.Ratio = measure.Stats{N: 6400, Max: 1, Mean: 0.8, P50: 1, P95: 1, P99: 1}
			p.Overshoot.MaxAllowed, p.Overshoot.MaxInIntervalRatio = 5, 1
			p.Totals.FailOpen, p.Totals.FailClosed = 0, 800
		} else {
			p.Populations[1].FalseDenials = 0
		}
		s.Points = append(s.Points, measure.Point{Params: []measure.Param{{Path: "limiter.error_policy", Value: policy}}, Summary: p})
	}
	measure.SetWorst(s)
	return s
}
