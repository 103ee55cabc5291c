package simulatecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// compareScenario is a small live scenario for -compare tests.
const compareScenario = `name: cmp
limiter: {limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 4, think: 10ms}
live: {duration: 4s}
`

// writeMeasured writes a summary.json for a live run of the scenario at
// scPath (the name and hash as attack would record them, then edit applied)
// under dir/reports/cmp/run/ and returns its path.
func writeMeasured(t *testing.T, dir, scPath string, edit func(*measure.Summary)) string {
	t.Helper()
	sc, err := scenario.Load(scPath)
	if err != nil {
		t.Fatal(err)
	}
	m := measure.Summary{Schema: measure.SchemaVersion, Mode: "attack", Complete: true, Trials: 1,
		Totals:    measure.Totals{Requests: 10, Allowed: 10},
		Scenario:  measure.ScenarioRef{Name: sc.Name, File: scPath, Hash: sc.Hash(), BaseHash: sc.BaseHash()},
		Limiter:   measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, Store: "memory", ErrorPolicy: "fail-open"},
		Overshoot: measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{N: 1, Max: 2, P50: 2}},
		Live:      &measure.Live{DurationSecs: 4}}
	if edit != nil {
		edit(&m)
	}
	b, _ := json.Marshal(m)
	out := filepath.Join(dir, "reports", "cmp", "run", "summary.json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompareHonest checks what -compare refuses (exit 2, naming both
// sides), what -force lets through, and that an explicit -set is kept.
func TestCompareHonest(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(compareScenario), 0o644)
	other := filepath.Join(dir, "other.yaml")
	os.WriteFile(other, []byte(strings.Replace(compareScenario, "name: cmp", "name: other", 1)), 0o644)
	changed := filepath.Join(dir, "changed.yaml")
	os.WriteFile(changed, []byte(strings.Replace(compareScenario, "think: 10ms", "think: 20ms", 1)), 0o644)

	tests := []struct {
		name   string
		edit   func(*measure.Summary)
		args   []string
		code   int
		stderr []string // each must appear
	}{
		{name: "mode simulate", edit: func(m *measure.Summary) { m.Mode = "simulate" }, code: ExitBadInput,
			stderr: []string{`its mode is "simulate", not attack`, "-force"}},
		{name: "mode simulate forced", edit: func(m *measure.Summary) { m.Mode = "simulate" }, args: []string{"-force"}, code: ExitOK},
		{name: "other name", args: []string{other}, code: ExitBadInput,
			stderr: []string{`ran scenario "cmp"`, `scenario predicted is "other"`, "-force"}},
		{name: "other hash", args: []string{changed}, code: ExitBadInput,
			stderr: []string{`ran scenario "cmp" with hash`, "has hash", "changed.yaml"}},
		{name: "other hash forced", args: []string{"-force", changed}, code: ExitOK},
		{name: "no hash recorded", edit: func(m *measure.Summary) { m.Scenario.Hash = "" }, code: ExitOK,
			stderr: []string{"records no scenario hash"}},
		{name: "relative to the summary", edit: func(m *measure.Summary) { m.Scenario.File = "cmp.yaml" }, code: ExitOK},
		{name: "not found", edit: func(m *measure.Summary) { m.Scenario.File = "nowhere.yaml" }, code: ExitBadInput,
			stderr: []string{"nowhere.yaml is not found", "give the scenario file as the argument"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeMeasured(t, dir, scPath, tc.edit)
			args := append([]string{"-json", "-no-report", "-trials", "4", "-compare", path}, tc.args...)
			code, stdout, stderr := runMain(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
			checkStderr(t, stderr, tc.stderr, nil)
			if code == ExitOK && slices.Contains(tc.args, "-force") && tc.name != "mode simulate forced" {
				var s measure.Summary
				if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Comparison == nil || s.Comparison.Verdict != measure.VerdictCannotJudge ||
					!strings.Contains(s.Comparison.Why, "-force") {
					t.Errorf("forced comparison of another scenario: %+v (%v); want cannot judge, saying -force", s.Comparison, err)
				}
			}
			if code == ExitBadInput && stdout != "" {
				t.Errorf("bad input printed a summary: %s", stdout)
			}
		})
	}
}

// TestCompareKeepsExplicitSet: -set of a value the live run reports (its
// duration, its store) is kept, with a note, not replaced by the run's.
func TestCompareKeepsExplicitSet(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(compareScenario), 0o644)
	path := writeMeasured(t, dir, scPath, func(m *measure.Summary) { m.Live.DurationSecs = 2 })
	code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "2", "-compare", path, "-set", "live.duration=3s", "-set", "limiter.limit=7")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Totals.SimulatedSeconds != 3 || s.Limiter.Limit != 7 {
		t.Errorf("predicted %v s at limit %d, want the -set 3 s and 7", s.Totals.SimulatedSeconds, s.Limiter.Limit)
	}
	if !strings.Contains(stderr, "-set limiter.limit kept: the live run had limiter.limit=5") {
		t.Errorf("stderr does not note the kept -set: %q", stderr)
	}
}

// TestCompareVerdict checks the comparison object and the terminal's
// verdict: a measured value far above every trial is outside the band,
// with its relative error.
func TestCompareVerdict(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(compareScenario), 0o644)
	for _, tc := range []struct {
		name     string
		measured float64
		repeats  []float64
		want     float64 // measured_max_ratio
		inside   bool
	}{
		// Four clients' worth at most: 4 in flight, limit 5. 100 cannot be in the band.
		{name: "far above", measured: 100, want: 100, inside: false},
		{name: "median of repeats", measured: 100, repeats: []float64{100, 50, 0}, want: 50, inside: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeMeasured(t, dir, scPath, func(m *measure.Summary) {
				m.Overshoot.Ratio.Max = tc.measured
				if tc.repeats != nil {
					var runs []measure.RepeatRun
					for _, r := range tc.repeats {
						runs = append(runs, measure.RepeatRun{MaxRatio: r})
					}
					m.Repeats = measure.NewRepeats(runs)
				}
			})
			code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "4", "-compare", path)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var s struct {
				Comparison *struct {
					InsideBand       *bool      `json:"inside_band"`
					MeasuredMaxRatio float64    `json:"measured_max_ratio"`
					PredictedBand    [2]float64 `json:"predicted_band"`
					PredictedMedian  *float64   `json:"predicted_median"`
					RelativeError    float64    `json:"relative_error"`
					KeyWindows       *int64     `json:"key_windows"`
				} `json:"comparison"`
			}
			if err := json.Unmarshal([]byte(stdout), &s); err != nil {
				t.Fatal(err)
			}
			c := s.Comparison
			if c == nil || c.InsideBand == nil || c.PredictedMedian == nil || c.KeyWindows == nil {
				t.Fatalf("comparison missing or incomplete: %s", stdout)
			}
			if c.MeasuredMaxRatio != tc.want || *c.InsideBand != tc.inside {
				t.Errorf("measured %v inside %v, want %v, %v", c.MeasuredMaxRatio, *c.InsideBand, tc.want, tc.inside)
			}
			if want := (tc.want - *c.PredictedMedian) / tc.want; c.RelativeError != want {
				t.Errorf("relative error %v, want %v", c.RelativeError, want)
			}
			if c.PredictedBand[0] > *c.PredictedMedian || *c.PredictedMedian > c.PredictedBand[1] {
				t.Errorf("median %v outside its band %v", *c.PredictedMedian, c.PredictedBand)
			}
		})
	}
	path := writeMeasured(t, dir, scPath, func(m *measure.Summary) { m.Overshoot.Ratio.Max = 100 })
	code, stdout, stderr := runMain(t, "-no-report", "-trials", "4", "-compare", path)
	if code != ExitOK || !strings.Contains(stdout, "OUTSIDE the band; relative error") || !strings.Contains(stdout, "measured max ratio 100") ||
		!strings.Contains(stdout, "verdict:  DOES NOT HOLD: outside their bands are the headline") {
		t.Errorf("exit %d, stdout %q, stderr %q; want the verdict OUTSIDE", code, stdout, stderr)
	}
}

// kvScenario is a live scenario on KV, whose write limit (1 per second
// per key) refuses most of a closed loop's writes with 429.
const kvScenario = `name: cmp
limiter: {limit: 5, window: 10s}
store: {kind: kv}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 0s}
live: {duration: 4s}
`

// compareJSON runs simulate -compare -json on the live summary at path and
// returns its comparison.
func compareJSON(t *testing.T, path string) *measure.Comparison {
	t.Helper()
	code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "20", "-compare", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Comparison == nil {
		t.Fatalf("no comparison (%v): %s", err, stdout)
	}
	return s.Comparison
}

// TestCompareMechanismMismatch: a live run whose headline is the model's
// own median but whose store had another write limit (no 429s where the
// model refuses most writes) does not hold, and -compare says why, in the
// terminal and in comparison.outside; with the model's 429 rate it holds.
func TestCompareMechanismMismatch(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(kvScenario), 0o644)
	// First learn the model's medians from a comparison with any run.
	first := compareJSON(t, writeMeasured(t, dir, scPath, func(m *measure.Summary) { m.Limiter.Store = "eventual" }))
	median := map[string]float64{}
	for _, k := range first.Checks {
		median[k.Name] = k.PredictedMedian
	}
	if median[measure.CheckRateLimited] < 0.3 {
		t.Fatalf("the model refuses %v of the writes with 429; the test needs most", median[measure.CheckRateLimited])
	}
	live := func(rateLimited float64) func(*measure.Summary) {
		return func(m *measure.Summary) {
			const n = 1_000_000
			m.Limiter.Store, m.Live.Target = "eventual", "eventual"
			m.Overshoot.Ratio.Max = first.PredictedMedian
			m.Totals = measure.Totals{Requests: n, FailOpen: int64(median[measure.CheckFailOpen] * n)}
			w := int64(rateLimited * n)
			m.KV = measure.KVWork{Observed: true, Writes: n, WriteErrors: w, WriteRateLimited: w,
				LostUpdates: int64(median[measure.CheckLostUpdates] * float64(n-w)),
				StaleReads:  int64(median[measure.CheckStaleReads] * n), Visibility: []measure.VisibilityPoint{{Reads: n}}}
			m.LatencyMs = &measure.Stats{N: n, P50: median[measure.CheckLatencyP50], P99: median[measure.CheckLatencyP99]}
		}
	}
	other := writeMeasured(t, dir, scPath, live(0))
	c := compareJSON(t, other)
	if c.Verdict != measure.VerdictFails || !slices.Equal(c.Outside, []string{measure.CheckRateLimited}) || !strings.Contains(c.Why, "the mechanism behind it is not the model's") {
		t.Errorf("another write limit: verdict %q, outside %v, why %q; want does not hold, for the 429 rate alone", c.Verdict, c.Outside, c.Why)
	}
	code, stdout, _ := runMain(t, "-no-report", "-trials", "20", "-compare", other)
	if code != ExitOK || !strings.Contains(stdout, "verdict:  DOES NOT HOLD: the headline is inside its band, but the mechanism behind it is not the model's") ||
		!regexp.MustCompile(`write_429.rate +0%, predicted .*OUTSIDE`).MatchString(stdout) {
		t.Errorf("exit %d; the terminal does not name the 429 rate outside its band:\n%s", code, stdout)
	}
	if c := compareJSON(t, writeMeasured(t, dir, scPath, live(median[measure.CheckRateLimited]))); c.Verdict != measure.VerdictHolds {
		t.Errorf("the model's own figures: verdict %q (%s), want holds", c.Verdict, c.Why)
	}
}

// TestCompareNoKeyWindows: a live run that saw no key-window cannot be
// judged, and no error figure is given: none in comparison, none in the
// terminal.
func TestCompareNoKeyWindows(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(compareScenario), 0o644)
	path := writeMeasured(t, dir, scPath, func(m *measure.Summary) { m.Overshoot = measure.Overshoot{} })
	code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "4", "-compare", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "relative_error") || !strings.Contains(stdout, `"verdict": "cannot judge"`) {
		t.Errorf("comparison with no key-window: %s", stdout)
	}
	code, stdout, _ = runMain(t, "-no-report", "-trials", "4", "-compare", path)
	if code != ExitOK || strings.Contains(stdout, "relative error") || !strings.Contains(stdout, "verdict:  CANNOT JUDGE: the live run saw no key-window") {
		t.Errorf("exit %d, terminal with no key-window:\n%s", code, stdout)
	}
}

// TestCompareStoreWithoutModel: a live run on a store the model has no
// store for cannot be judged against the scenario's own store, and the
// comparison says why; a run on real Redis is predicted with the model's
// redis store.
func TestCompareStoreWithoutModel(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(compareScenario), 0o644)
	path := writeMeasured(t, dir, scPath, func(m *measure.Summary) { m.Limiter.Store = "dynamodb" })
	code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "4", "-compare", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"verdict": "cannot judge"`) || !strings.Contains(stdout, "the live run was on dynamodb, which the model has no store for") {
		t.Errorf("comparison of a dynamodb run: %s", stdout)
	}
	path = writeMeasured(t, dir, scPath, func(m *measure.Summary) { m.Limiter.Store = "redis" })
	code, stdout, stderr = runMain(t, "-json", "-no-report", "-trials", "4", "-compare", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "which the model has no store for") || !strings.Contains(stdout, `"store": "redis"`) {
		t.Errorf("comparison of a redis run: %s", stdout)
	}
}
