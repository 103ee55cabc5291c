package simulatecmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/calibrate"
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

// handRun writes a live summary by hand, as attack would have for the
// scenario at scPath with sets: its repeats' max ratios are ratios, and
// every repeat has the latencies p50 and p99 (ms), allowed ones allowedP50.
func handRun(t *testing.T, dir, scPath string, ratios []float64, p50, p99, allowedP50 float64, sets ...string) string {
	t.Helper()
	sc, err := scenario.LoadWithOverrides(scPath, sets)
	if err != nil {
		t.Fatal(err)
	}
	reps := &measure.Repeats{MaxRatio: measure.SpreadOf(ratios),
		LatencyP50Ms: measure.Spread{Median: p50, Min: p50, Max: p50}, LatencyP99Ms: measure.Spread{Median: p99, Min: p99, Max: p99}}
	for i, r := range ratios {
		reps.Runs = append(reps.Runs, measure.RepeatRun{RunID: fmt.Sprint(i), MaxRatio: r, LatencyP50Ms: p50, LatencyP99Ms: p99, Complete: true})
	}
	m := measure.Summary{Schema: measure.SchemaVersion, Mode: "attack", Complete: true, Trials: 1,
		Scenario:          measure.ScenarioRef{Name: sc.Name, File: scPath, Hash: sc.Hash(), BaseHash: sc.BaseHash(), Params: sc.Overrides()},
		Limiter:           measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, Store: "url", ErrorPolicy: "fail-open"},
		Totals:            measure.Totals{Requests: 100, Allowed: 20, Denied: 80},
		Overshoot:         measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{N: 1, Max: reps.MaxRatio.Median}},
		LatencyMs:         &measure.Stats{N: 100, P50: p50, P99: p99},
		LatencyByDecision: &measure.LatencyByDecision{Allowed: &measure.Stats{N: 5, P50: allowedP50}},
		Repeats:           reps,
		Live:              &measure.Live{DurationSecs: 0.3}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, fmt.Sprintf("run-%s.json", sc.Hash()))
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCalibrateBandsSpread calibrates a plain scenario on hand-made live
// runs whose repeats spread (C = 4: 1.4x, 2x and 2.6x) and checks that no
// band is a point: neither the fit's own for that run nor the one
// -compare gives with calibrated.yaml, which must hold the run's repeats'
// median.
func TestCalibrateBandsSpread(t *testing.T) {
	t.Parallel() // CPU-bound: beside the others, so that both cores work when the package runs alone
	dir := t.TempDir()
	scPath := filepath.Join(dir, "plain.yaml")
	os.WriteFile(scPath, []byte(plainScenario), 0o644)
	one := handRun(t, dir, scPath, []float64{1, 1, 1}, 2, 12, 5)
	four := handRun(t, dir, scPath, []float64{1.4, 2, 2.6}, 5, 30, 9, "traffic.bot.closed_loop.concurrency=4")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runMain(t, "-calibrate", one+","+four, "-trials", "12", "-seed", "3", "-out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "it has no server: section, so -calibrate starts from") || strings.Contains(stderr+stdout, "left out of the fit") {
		t.Errorf("the calibration does not say in one line that it added the serving side:\n%s\n%s", stdout, stderr)
	}
	if n := strings.Count(stderr, "it has no server: section"); n != 1 {
		t.Errorf("the note on what was added is said %d times for two runs of one file, want once:\n%s", n, stderr)
	}
	if strings.Contains(stdout, "the band is a point while the live repeats spread") {
		t.Errorf("a fitted run's band is a point:\n%s", stdout)
	}
	code, cmpOut, errOut := runMain(t, "-compare", four, "-no-report", "-json", "-trials", "40", filepath.Join(out, CalibratedFile))
	if code != ExitOK {
		t.Fatalf("-compare: exit %d: %s", code, errOut)
	}
	var s struct {
		Comparison measure.Comparison `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(cmpOut), &s); err != nil {
		t.Fatal(err)
	}
	band := s.Comparison.PredictedBand
	if !(band[1] > band[0]) {
		t.Errorf("-compare's band %v is a point while the repeats spread from 1.4x to 2.6x\n%s", band, stdout)
	}
	t.Logf("band %v, predicted median %v, measured %v\n%s", band, s.Comparison.PredictedMedian, s.Comparison.MeasuredMaxRatio, stdout)
}

// TestWidenedAlternatives checks that the points of an unidentified
// parameter join calibrated.alternatives after the fits to each repeat, so
// that a simulation of calibrated.yaml spreads its trials over them too.
func TestWidenedAlternatives(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "plain.yaml")
	os.WriteFile(scPath, []byte(plainScenario), 0o644)
	run := handRun(t, dir, scPath, []float64{1, 1, 1}, 2, 12, 5)
	runs, params, err := calibrateInputs(&config{calibrate: []string{run}, fit: "server.rtt=1ms"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{params[0].Init}
	rep := []float64{x[0] + 0.1}
	low, high := []float64{x[0] - math.Ln2}, []float64{x[0] + math.Ln2}
	path, err := calibrate.WriteCalibrated(filepath.Join(dir, "out"), runs, params, x, [][]float64{rep}, [][]float64{low, high}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	alts := sc.Calibrated.Alternatives
	f := &calibrate.Fitter{Params: params}
	var want [][]string
	for _, xr := range [][]float64{rep, low, high} {
		w, err := f.Sets(xr, nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	if fmt.Sprint(alts) != fmt.Sprint(want) || fmt.Sprint(want[1]) == fmt.Sprint(want[2]) {
		t.Errorf("alternatives %v, want the repeat's fit, then server.rtt a factor 2 down and up: %v", alts, want)
	}
	t.Logf("alternatives %v", alts)
}

// TestMisfitWidensCompare: a calibration that missed its own runs by a
// factor (calibrated.misfit) has -compare widen its band by that factor,
// the low end by the first number and the high end by the second, and say
// so; the same calibration without it predicts the same trials with the
// band unwidened.
func TestMisfitWidensCompare(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "plain.yaml")
	os.WriteFile(scPath, []byte(plainScenario), 0o644)
	run := handRun(t, dir, scPath, []float64{1.4, 2, 2.6}, 5, 30, 9, "traffic.bot.closed_loop.concurrency=4")
	runs, params, err := calibrateInputs(&config{calibrate: []string{run}, fit: "server.rtt=1ms"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{params[0].Init}
	bands := map[string][2]float64{}
	for _, tc := range []struct {
		name   string
		misfit []float64
	}{{"none", nil}, {"misfit", []float64{0.5, 2}}} {
		path, err := calibrate.WriteCalibrated(filepath.Join(dir, tc.name), runs, params, x, nil, nil, nil, tc.misfit)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runMain(t, "-compare", run, "-no-report", "-json", "-trials", "20", path)
		if code != ExitOK {
			t.Fatalf("%s: -compare: exit %d: %s", tc.name, code, errOut)
		}
		var s struct {
			Comparison measure.Comparison `json:"comparison"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		bands[tc.name] = s.Comparison.PredictedBand
		if fmt.Sprint(s.Comparison.Misfit) != fmt.Sprint(tc.misfit) {
			t.Errorf("%s: comparison.misfit %v, want %v", tc.name, s.Comparison.Misfit, tc.misfit)
		}
		code, text, _ := runMain(t, "-compare", run, "-no-report", "-trials", "20", path)
		if said := strings.Contains(text, "the band is widened by how far the calibration missed its own runs"); code != ExitOK || said != (tc.misfit != nil) {
			t.Errorf("%s: exit %d, the widening said: %v, want %v:\n%s", tc.name, code, said, tc.misfit != nil, text)
		}
	}
	b, w := bands["none"], bands["misfit"]
	if !(b[1] > 0) || math.Abs(w[0]-b[0]*0.5) > 1e-9 || math.Abs(w[1]-b[1]*2) > 1e-9 {
		t.Errorf("band with misfit [0.5, 2] is %v, want %v's ends times 0.5 and 2", w, b)
	}
}
