package calibrate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// plainScenario is a user's scenario: memory store, one client keeping
// requests in flight, no server: section, no live.warmup.
const plainScenario = `name: plain
limiter: {limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
live: {duration: 300ms}
duration: 300ms
`

// handRun is a live run of sc at concurrency c made by hand: its repeats'
// max ratios are ratios, each with latencies p50 and p99 (ms), its
// allowed requests' p50 allowedP50, and rate requests per second.
func handRun(t *testing.T, sc *scenario.Scenario, c string, ratios []float64, p50, p99, allowedP50, rate float64) Run {
	t.Helper()
	run, err := sc.With("traffic.bot.closed_loop.concurrency=" + c)
	if err != nil {
		t.Fatal(err)
	}
	reps := &measure.Repeats{MaxRatio: measure.SpreadOf(ratios),
		LatencyP50Ms: measure.Spread{Median: p50, Min: p50, Max: p50}, LatencyP99Ms: measure.Spread{Median: p99, Min: p99, Max: p99}}
	for i, r := range ratios {
		reps.Runs = append(reps.Runs, measure.RepeatRun{RunID: fmt.Sprint(i), MaxRatio: r, LatencyP50Ms: p50, LatencyP99Ms: p99, Complete: true})
	}
	m := &measure.Summary{Mode: "attack", Complete: true, Trials: 1, Totals: measure.Totals{Requests: 100, Allowed: 20, Denied: 80},
		Limiter:           measure.LimiterRef{Store: "url", Limit: 5},
		Overshoot:         measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{N: 1, Max: reps.MaxRatio.Median}},
		LatencyByDecision: &measure.LatencyByDecision{Allowed: &measure.Stats{N: 5, P50: allowedP50}},
		Repeats:           reps,
		Live:              &measure.Live{DurationSecs: 0.9, AchievedRate: rate, LatencyMs: measure.Stats{N: 100, P50: p50, P99: p99}}}
	return Run{Path: "c" + c + ".json", Measured: m, Scenario: run, File: sc}
}

// TestBandNotAPoint calibrates the default fit on a plain scenario (the
// serving side added at its starting values) to hand-made runs at C = 1
// and C = 4 whose C = 4 repeats spread (1.4x, 2x, 2.6x), and checks that
// the C = 4 run's band at the fit is not a point and that the report does
// not say it is.
func TestBandNotAPoint(t *testing.T) {
	sc, err := scenario.Parse("plain.yaml", []byte(plainScenario))
	if err != nil {
		t.Fatal(err)
	}
	runs, params, err := Inputs([]Run{handRun(t, sc, "1", []float64{1, 1, 1}, 2, 12, 5, 450),
		handRun(t, sc, "4", []float64{1.4, 2, 2.6}, 5, 30, 9, 700)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(runs, params, Settings{Trials: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cmp, _, err := res.fitter.compare(runs[1], res.X)
	if err != nil {
		t.Fatal(err)
	}
	if b := cmp.PredictedBand; !(b[1] > b[0]) {
		t.Errorf("the C = 4 run's band %v is a point while its repeats spread from 1.4x to 2.6x", b)
	}
	text, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "the band is a point") {
		t.Errorf("the report says a band is a point:\n%s", text)
	}
	t.Logf("band %v, median %v\n%s", cmp.PredictedBand, cmp.PredictedMedian, text)
}
