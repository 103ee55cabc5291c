package calibrate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// calibrateScenario is a wrangler-dev-like scenario: memory store behind
// one thread.
const calibrateScenario = `name: cal
limiter: {limit: 5, window: 10s}
store: {kind: memory}
server: {mode: single-thread}
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
live: {duration: 1s}
`

// TestNelderMead checks the search on a bowl with a known minimum.
func TestNelderMead(t *testing.T) {
	x, v := nelderMead(func(x []float64) float64 { return (x[0]-1)*(x[0]-1) + 4*(x[1]+2)*(x[1]+2) }, []float64{0, 0}, 0.5, 400, 1e-12)
	if v > 1e-6 || abs(x[0]-1) > 1e-3 || abs(x[1]+2) > 1e-3 {
		t.Errorf("minimum at %v (%v), want (1, -2)", x, v)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// TestStartingServerIsTheExample holds the starting values to their doc
// comment: they are examples/worker/closed-loop.yaml's server section, and
// the stalls of docs/serving-side.md, section 12 (which that file has not).
func TestStartingServerIsTheExample(t *testing.T) {
	ex, err := scenario.Load("../../examples/worker/closed-loop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "plain.yaml")
	os.WriteFile(plain, []byte(strings.Replace(calibrateScenario, "server: {mode: single-thread}", "", 1)), 0o644)
	sc, err := scenario.Load(plain)
	if err != nil {
		t.Fatal(err)
	}
	sets, _, err := startingServer(sc)
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = sc.With(sets...); err != nil {
		t.Fatal(err)
	}
	if st := sc.Server.Stall; st == nil || fmt.Sprint(st.Every, st.Lasts) != fmt.Sprint(startStallEvery, startStallLasts) {
		t.Errorf("starting stalls %v, want every %v, lasts %v", st, startStallEvery, startStallLasts)
	}
	sc.Server.Stall = nil
	got, want := sc.Server.Latencies(), ex.Server.Latencies()
	if fmt.Sprint(got) != fmt.Sprint(want) || sc.Server.BatchMax != ex.Server.BatchMax {
		t.Errorf("starting server %v (batch %d), want closed-loop.yaml's %v (batch %d)", got, sc.Server.BatchMax, want, ex.Server.BatchMax)
	}
}

// TestTargetOf checks what a fit matches for a run: its own values without
// repeats, the median over the repeats (the largest read group too, and
// how far the repeats' max ratios spread), or one repeat's.
func TestTargetOf(t *testing.T) {
	one := &measure.Summary{}
	one.Overshoot.Ratio.Max, one.Overshoot.LargestReadGroup = 2.5, 9
	rep := &measure.Summary{}
	rep.Overshoot.Ratio.Max, rep.Overshoot.LargestReadGroup = 3, 7
	rep.Repeats = &measure.Repeats{Runs: []measure.RepeatRun{
		{MaxRatio: 1, ReadGroup: 3, LatencyP50Ms: 10}, {MaxRatio: 3, ReadGroup: 7, LatencyP50Ms: 30}, {MaxRatio: 2, ReadGroup: 5, LatencyP50Ms: 20},
	}, MaxRatio: measure.Spread{Median: 2, Min: 1, Max: 3}, LatencyP50Ms: measure.Spread{Median: 20}}
	tests := []struct {
		name string
		s    *measure.Summary
		i    int
		want target
	}{
		{"one run", one, -1, target{ratio: 2.5, readGroup: 9, spread: -1}},
		// The spread: the repeats' range (1 to 3) over their median (2).
		{"median over repeats", rep, -1, target{ratio: 2, latencyP50: 20, readGroup: 5, spread: 1, repeats: 3}},
		{"repeat 2", rep, 1, target{ratio: 3, latencyP50: 30, readGroup: 7, spread: -1}},
	}
	for _, tc := range tests {
		if got := targetOf(tc.s, tc.i); got != tc.want {
			t.Errorf("%s: target %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestUnconstrained checks which fit parameters a set of runs cannot fit:
// those whose every latency each run keeps at its own value.
func TestUnconstrained(t *testing.T) {
	keeps := func(leaves ...string) Run {
		r := Run{Keep: map[string]bool{}}
		for _, l := range leaves {
			r.Keep[l] = true
		}
		return r
	}
	store := Param{Path: "store.latency", Leaves: []string{"store.latency"}}
	kv := Param{Path: "store.kv", Leaves: []string{"store.kv.hot_read", "store.kv.write"}}
	tests := []struct {
		name string
		runs []Run
		p    Param
		want bool
	}{
		{"the only other run keeps it", []Run{keeps("store.latency")}, store, true},
		{"every other run keeps it", []Run{keeps("store.latency"), keeps("store.latency", "server.rtt")}, store, true},
		{"one run fits it", []Run{keeps("store.latency"), keeps()}, store, false},
		{"no run keeps anything", []Run{{}, {}}, store, false},
		{"one of a section's latencies is free", []Run{keeps("store.kv.write")}, kv, false},
		{"all of a section's are kept", []Run{keeps("store.kv.write", "store.kv.hot_read")}, kv, true},
	}
	for _, tc := range tests {
		if got := unconstrained(tc.runs, tc.p); got != tc.want {
			t.Errorf("%s: unconstrained = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFitPathsRedis checks that on store.kind redis the Redis model's
// latencies can be fitted, and that another store does not offer them.
func TestFitPathsRedis(t *testing.T) {
	for _, tc := range []struct {
		store string
		want  bool
	}{{"{kind: redis}", true}, {"{kind: memory}", false}} {
		sc, err := scenario.Parse("cal.yaml", []byte(strings.Replace(calibrateScenario, "store: {kind: memory}\nserver: {mode: single-thread}", "store: "+tc.store, 1)))
		if err != nil {
			t.Fatal(err)
		}
		paths := strings.Join(fitPaths(sc), ",")
		for _, p := range []string{"store.redis.latency", "store.redis.service", "store.redis.request_service", "store.redis.replication_lag", "store.redis.failover", "store.redis.reconnect"} {
			if got := strings.Contains(paths, p); got != tc.want {
				t.Errorf("store %s: %s offered %v, want %v (offered: %s)", tc.store, p, got, tc.want, paths)
			}
		}
	}
}

// TestDefaultFitRedis: without -fit, runs of a redis scenario with no
// serving side fit DefaultRedisFit (store.redis.service from its start
// value, the scenario setting none) and get no serving side added.
func TestDefaultFitRedis(t *testing.T) {
	sc, err := scenario.Parse("cal.yaml", []byte(strings.Replace(calibrateScenario, "store: {kind: memory}\nserver: {mode: single-thread}", "store: {kind: redis}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	m := &measure.Summary{Mode: "attack", Complete: true}
	runs, params, err := Inputs([]Run{{Path: "a.json", Measured: m, Scenario: sc, File: sc}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range params {
		got = append(got, p.Path)
	}
	if strings.Join(got, ",") != strings.Join(DefaultRedisFit, ",") {
		t.Errorf("default fit of a redis scenario: %v, want %v", got, DefaultRedisFit)
	}
	if runs[0].Scenario.Server != nil && runs[0].Scenario.Server.Mode != scenario.ServerNone {
		t.Errorf("a serving side was added: %+v", runs[0].Scenario.Server)
	}
	for _, p := range params {
		if p.Path == "store.redis.service" && p.Mean(0) != scenario.RedisServiceStart().MeanDuration() {
			t.Errorf("store.redis.service starts at %v, want RedisServiceStart's mean %v", p.Mean(0), scenario.RedisServiceStart().MeanDuration())
		}
	}
}

// TestHostStart: with no store.redis.service or request_service in the
// scenario, a fit of them starts at the host time per request the fastest
// run leaves (threads over its rate), half each; from the scenario's own
// values when it sets them, and from RedisServiceStart without a rate.
func TestHostStart(t *testing.T) {
	redis := func(extra string) *scenario.Scenario {
		t.Helper()
		sc, err := scenario.Parse("cal.yaml", []byte(strings.Replace(calibrateScenario, "store: {kind: memory}\nserver: {mode: single-thread}", "store: {kind: redis, redis: {threads: 2"+extra+"}}", 1)))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	live := func(rate float64) *measure.Summary {
		return &measure.Summary{Mode: "attack", Complete: true, Live: &measure.Live{AchievedRate: rate}}
	}
	start := scenario.RedisServiceStart().MeanDuration()
	for _, tc := range []struct {
		name          string
		sc            *scenario.Scenario
		rates         []float64
		fit           []string
		service, both time.Duration // the starts of store.redis.service and of a param scaling both
	}{
		{"the fastest run's rate", redis(""), []float64{4000, 10000}, nil, 100 * time.Microsecond, 0},
		{"both in one param", redis(""), []float64{10000}, []string{"store.redis.service+store.redis.request_service"}, 0, 200 * time.Microsecond},
		{"no rate", redis(""), []float64{0}, nil, start, 0},
		{"the scenario's own", redis(", service: 40us"), []float64{10000}, nil, 40 * time.Microsecond, 0},
	} {
		var runs []Run
		for i, r := range tc.rates {
			runs = append(runs, Run{Path: fmt.Sprintf("r%d.json", i), Measured: live(r), Scenario: tc.sc, File: tc.sc})
		}
		_, params, err := Inputs(runs, Options{Fit: tc.fit})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, p := range params {
			got := p.Mean(p.Init)
			want := tc.service
			if len(p.Leaves) == 2 {
				want = tc.both
			}
			if (p.Path == "store.redis.service" || len(p.Leaves) == 2) && !p.spread && (got < want*99/100 || got > want*101/100) {
				t.Errorf("%s: %s starts at %v, want %v", tc.name, p.Path, got, want)
			}
		}
	}
}

// TestMisfitOf: the misfit is the least and the most of live median over
// predicted median across the fitted runs, bounded by 1 on each side,
// rounded outward to three places; nil when every median was met; runs
// without a key-window or a prediction count for nothing.
func TestMisfitOf(t *testing.T) {
	cmp := func(measured, predicted float64) measure.Comparison {
		return measure.Comparison{MeasuredMaxRatio: measured, PredictedMedian: predicted, KeyWindows: 3}
	}
	tests := []struct {
		name string
		fits []measure.Comparison
		want []float64
	}{
		{"every median met", []measure.Comparison{cmp(1, 1), cmp(3.4, 3.4)}, nil},
		{"live below the fit", []measure.Comparison{cmp(1, 1), cmp(3.45, 4.12)}, []float64{0.837, 1}},
		{"live above the fit", []measure.Comparison{cmp(5.5, 4.925), cmp(1, 1)}, []float64{1, 1.117}},
		{"both ways", []measure.Comparison{cmp(3, 3.4), cmp(4.4, 4)}, []float64{0.882, 1.1}},
		{"no key-window: left out", []measure.Comparison{{MeasuredMaxRatio: 2, PredictedMedian: 1}, cmp(1, 1)}, nil},
		{"no prediction: left out", []measure.Comparison{cmp(2, 0), cmp(1, 1)}, nil},
		{"none", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := misfitOf(tc.fits); !slices.Equal(got, tc.want) {
				t.Errorf("misfitOf = %v, want %v", got, tc.want)
			}
		})
	}
}
