package simulatecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/calibrate"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
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

// syntheticRun writes a summary as attack would have for the scenario at
// scPath with sets, whose max ratio is the model's own median at truth (a
// -set): a live run the model can explain exactly.
func syntheticRun(t *testing.T, dir, scPath string, truth string, sets ...string) string {
	t.Helper()
	sc, err := scenario.LoadWithOverrides(scPath, sets)
	if err != nil {
		t.Fatal(err)
	}
	tsc, err := sc.With(truth)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.CompileLive(tsc)
	if err != nil {
		t.Fatal(err)
	}
	trials, err := model.RunTrials(pl, model.Options{Seed: 7, Trials: 9})
	if err != nil {
		t.Fatal(err)
	}
	s := measure.Summarize(model.Base(pl, 7), 5, trials)
	m := measure.Summary{Schema: measure.SchemaVersion, Mode: "attack", Complete: true, Trials: 1,
		Totals:    measure.Totals{Requests: 10, Allowed: 10},
		Scenario:  measure.ScenarioRef{Name: sc.Name, File: scPath, Hash: sc.Hash(), BaseHash: sc.BaseHash(), Params: sc.Overrides()},
		Limiter:   measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, Store: "memory", ErrorPolicy: "fail-open"},
		Overshoot: measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{N: 1, Max: measure.Median(s.Overshoot.PerTrial.MaxRatios)}},
		Live:      &measure.Live{DurationSecs: 1}}
	b, _ := json.Marshal(m)
	out := filepath.Join(dir, fmt.Sprintf("run-%x.json", sc.Hash()))
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCalibrate fits server.rtt to two synthetic runs (C = 2 and 8, made
// by the model at rtt = 20ms) from a start of 1 ms. It checks what a fit
// must do whatever the search's path: the same output twice (seeded,
// deterministic), a loss below the start's, a
// calibrated.yaml that loads and holds the printed value, and a
// leave-one-out section.
func TestCalibrate(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(calibrateScenario), 0o644)
	a := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	b := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=8")
	args := []string{"-calibrate", a + "," + b, "-fit", "server.rtt=1ms", "-trials", "9", "-seed", "7", "-out", filepath.Join(dir, "out")}
	code, first, stderr := runMain(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, second, _ := runMain(t, args...)
	if code != ExitOK || second != first {
		t.Errorf("second run differs (exit %d):\n%s\n---\n%s", code, first, second)
	}
	for _, want := range []string{"server.rtt", "fit per run", "leave-one-out", "calibrated.yaml"} {
		if !strings.Contains(first, want) {
			t.Errorf("output does not say %q:\n%s", want, first)
		}
	}
	sc, err := scenario.Load(filepath.Join(dir, "out", CalibratedFile))
	if err != nil {
		t.Fatalf("calibrated.yaml does not load: %v", err)
	}
	// The scenario has no question: the file's is a short one of its own,
	// not the fit's header comment.
	if want := "cal, with 1 value fitted to 2 live runs by simulate calibrate"; sc.Question != want {
		t.Errorf("calibrated.yaml's question is %q, want %q", sc.Question, want)
	}
	got := sc.Server.RTT.String()
	if !strings.Contains(first, "server.rtt     mean "+got+" ") {
		t.Errorf("calibrated.yaml holds rtt %s, not the printed value:\n%s", got, first)
	}
	// It is the file with the fitted values, not the first run as it ran:
	// a run that sets nothing is predicted with the file's concurrency (1),
	// not run a's (2).
	if c := sc.Traffic[0].ClosedLoop.Concurrency; c != 1 {
		t.Errorf("calibrated.yaml has concurrency %d, the first run's -set; want the file's 1", c)
	}

	// -compare accepts a run of the scenario calibrated.yaml came from, by
	// name and base hash, and says so (TestCompareCalibrated refuses runs
	// of others).
	code, out, errOut := runMain(t, "-compare", b, "-no-report", "-trials", "9", filepath.Join(dir, "out", CalibratedFile))
	if code != ExitOK || !strings.Contains(errOut, "checked by name and base hash") || !strings.Contains(out, "verdict") ||
		!strings.Contains(out, "error: each run predicted from the others missed by") {
		t.Errorf("-compare with calibrated.yaml: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}

	// The loss at the fit is no higher than at the start.
	runs, params, err := calibrateInputs(&config{calibrate: []string{a, b}, fit: "server.rtt=1ms"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	f := &calibrate.Fitter{Runs: runs, Params: params, Trials: 9, Seed: 7}
	x, lossFit, err := f.Fit(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lossStart, err := f.Loss([]float64{params[0].Init}, nil) // 1 ms
	if err != nil {
		t.Fatal(err)
	}
	if !(lossFit < lossStart) {
		t.Errorf("loss at the fit (%v, rtt %v) is not below the start's (%v)", lossFit, params[0].Mean(x[0]), lossStart)
	}
	t.Logf("rtt fitted %v (truth 20ms), loss %v from %v", params[0].Mean(x[0]), lossFit, lossStart)
}

// TestCalibrateFitPaths checks which -fit paths resolve to which latencies,
// and that a path that names none says what can be fitted.
func TestCalibrateFitPaths(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(calibrateScenario), 0o644)
	a := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	tests := []struct {
		fit    string
		leaves []string
		err    string
	}{
		{fit: "server.cpu", leaves: []string{"server.cpu.before_read", "server.cpu.between", "server.cpu.after_write"}},
		{fit: "server.rtt=2ms", leaves: []string{"server.rtt"}},
		{fit: "store.kv", leaves: []string{"store.kv.hot_read", "store.kv.cold_read", "store.kv.write"}},
		{fit: "server.cpu.before_read+server.cpu.after_write", leaves: []string{"server.cpu.before_read", "server.cpu.after_write"}},
		{fit: "server.rtt+limiter.limit", err: "not a latency -calibrate can fit"},
		{fit: "server.proxy", err: "has no server.proxy: give it one"},
		{fit: "spread:store.kv", leaves: []string{"store.kv.hot_read", "store.kv.write"}}, // cold_read is empirical
		{fit: "spread:server", err: "not a latency -calibrate can fit"},                   // the default server's are constants
		{fit: "spread:store.kv=2", err: "give no start value"},
		{fit: "limiter.limit", err: "not a latency -calibrate can fit: use one of server.cpu.before_read"},
		{fit: "server.rtt=-1ms", err: "is not a duration above 0"},
	}
	for _, tc := range tests {
		_, params, err := calibrateInputs(&config{calibrate: []string{a}, fit: tc.fit}, &strings.Builder{})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("-fit %s: error %v, want one saying %q", tc.fit, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("-fit %s: %v", tc.fit, err)
			continue
		}
		if got := strings.Join(params[0].Leaves, ","); got != strings.Join(tc.leaves, ",") {
			t.Errorf("-fit %s scales %s, want %s", tc.fit, got, strings.Join(tc.leaves, ","))
		}
	}
}

// TestCalibratedAlternatives checks that a calibrated scenario's trials
// are spread over its fitted values and its alternatives: as many trials
// as asked for, the band covering what each set alone predicts, a -set of
// a fitted latency kept in every trial, and a sharded run refused rather
// than run without the alternatives.
func TestCalibratedAlternatives(t *testing.T) {
	dir := t.TempDir()
	base := calibrateScenario + "trials: 12\n"
	one := filepath.Join(dir, "one.yaml")
	os.WriteFile(one, []byte(strings.Replace(base, "server: {mode: single-thread}", "server: {mode: single-thread, rtt: 20ms}", 1)), 0o644)
	both := filepath.Join(dir, "both.yaml")
	os.WriteFile(both, []byte(base+"calibrated: {runs: [a.json], fitted: [server.rtt], alternatives: [[server.rtt=20ms]]}\n"), 0o644)
	ratios := func(path string, sets ...string) []float64 {
		t.Helper()
		args := []string{"-json", "-no-report", "-set", "traffic.bot.closed_loop.concurrency=8"}
		for _, s := range sets {
			args = append(args, "-set", s)
		}
		code, out, errOut := runMain(t, append(args, path)...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", path, code, errOut)
		}
		var s measure.Summary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		return s.Overshoot.PerTrial.MaxRatios
	}
	alone, spread := ratios(one), ratios(both)
	if len(spread) != 12 {
		t.Fatalf("%d trials, want the 12 asked for", len(spread))
	}
	// Half the trials ran at rtt 20ms: their max ratios are the first six
	// of the 20ms run's (same seed).
	if got, want := fmt.Sprint(spread[6:]), fmt.Sprint(alone[:6]); got != want {
		t.Errorf("the alternative's trials = %s, want the 20ms run's first six %s", got, want)
	}
	if fmt.Sprint(spread[:6]) == fmt.Sprint(alone[:6]) {
		t.Errorf("the fitted values' trials equal the alternative's (%v): the test cannot tell them apart", spread[:6])
	}
	// A -set of a fitted latency holds in every trial: the alternatives
	// do not put their own value back.
	other := filepath.Join(dir, "other.yaml")
	os.WriteFile(other, []byte(base+"calibrated: {runs: [a.json], fitted: [server.rtt], alternatives: [[server.rtt=2ms]]}\n"), 0o644)
	if got, want := fmt.Sprint(ratios(other, "server.rtt=20ms")), fmt.Sprint(append(alone[:6:6], alone[:6]...)); got != want {
		t.Errorf("-set server.rtt=20ms over an alternative of 2ms: trials %s, want the 20ms run's first six twice %s", got, want)
	}
	code, _, errOut := runMain(t, "-shard", "1/2", "-no-report", "-out", dir, both)
	if code == ExitOK || !strings.Contains(errOut, "cannot be sharded yet") {
		t.Errorf("-shard on a scenario with alternatives: exit %d, %q; want a refusal", code, errOut)
	}
}

// TestCalibrateDefaultFit checks that the default fit starts from what
// the scenario has: without a server: section it adds the whole serving
// side at its starting values; with a server that lacks a proxy, a
// wake-up, stalls and lognormals, it adds those; with all of them,
// nothing. Each time it takes every parameter of the default fit and says what it added in one line, and
// never that a parameter was left out of the fit.
func TestCalibrateDefaultFit(t *testing.T) {
	full := `server:
  mode: single-thread
  cpu: {before_read: {dist: lognormal, median: 1ms, p99: 2ms}, between: 1ms, after_write: 1ms}
  wake: 50us
  proxy: {cpu_in: 1ms, cpu_out: 1ms}
  stall: {every: 300ms, lasts: 30ms}`
	tests := []struct {
		name, server string
		note         string // what the one line says; "" for no line
	}{
		{"no server", "", "it has no server: section, so -calibrate starts from the serving side of wrangler dev"},
		{"constants and no proxy or wake-up", "server: {mode: single-thread}", "its server: section lacks a proxy (server.proxy), a wake-up (server.wake), stalls (server.stall), a spread (server.cpu.before_read, server.cpu.between, server.cpu.after_write lognormal"},
		{"all of it", full, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			scPath := filepath.Join(dir, "cal.yaml")
			os.WriteFile(scPath, []byte(strings.Replace(calibrateScenario, "server: {mode: single-thread}", tc.server, 1)), 0o644)
			a := syntheticRun(t, dir, scPath, "traffic.bot.closed_loop.concurrency=2")
			var notes strings.Builder
			runs, params, err := calibrateInputs(&config{calibrate: []string{a}}, &notes)
			if err != nil {
				t.Fatal(err)
			}
			if len(params) != len(DefaultFit) || strings.Contains(notes.String(), "left out") {
				t.Errorf("%d parameters, notes %q; want all %d and none left out", len(params), notes.String(), len(DefaultFit))
			}
			if got := strings.Count(notes.String(), "\n"); tc.note == "" && got != 0 || tc.note != "" && (got != 1 || !strings.Contains(runs[0].Start, tc.note)) {
				t.Errorf("notes %q, start %q; want one line saying %q", notes.String(), runs[0].Start, tc.note)
			}
			sv := runs[0].Scenario.Server
			if sv.Proxy == nil || sv.Wake.IsZero() || !slices.ContainsFunc(sv.Latencies(), func(l scenario.NamedLatency) bool { return l.Latency.Dist == scenario.DistLognormal }) {
				t.Errorf("the scenario fitted has proxy %v, wake %v: want both, and lognormals", sv.Proxy, sv.Wake)
			}
		})
	}
}

// TestCompareCalibrated checks which live runs -compare accepts against a
// calibrated.yaml, whose fitted values changed its hash: runs of the
// scenario file it was calibrated from (its base hash), whatever their -set
// values; not a run of another file that has the same name (another
// concurrency), unless -force; a summary from before base hashes were
// recorded by the base hash of the file it names, and by name only, with a
// note saying why, when that file is not found; and by name only a
// calibrated.yaml from before them.
func TestCompareCalibrated(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(calibrateScenario), 0o644)
	otherPath := filepath.Join(dir, "other", "cal.yaml")
	os.MkdirAll(filepath.Dir(otherPath), 0o755)
	os.WriteFile(otherPath, []byte(strings.Replace(calibrateScenario, "concurrency: 1", "concurrency: 4", 1)), 0o644)

	fitted := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	runs, params, err := calibrateInputs(&config{calibrate: []string{fitted}, fit: "server.rtt=1ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	calPath, err := calibrate.WriteCalibrated(filepath.Join(dir, "out"), runs, params, []float64{params[0].Init}, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := scenario.Load(calPath)
	if err != nil {
		t.Fatalf("calibrated.yaml does not load: %v", err)
	}
	base := runs[0].Scenario.BaseHash()
	if cal.Calibrated.BaseHash != base {
		t.Fatalf("calibrated.base_hash %q, want the run's scenario's %q", cal.Calibrated.BaseHash, base)
	}
	// A calibrated.yaml from before calibrated.base_hash.
	data, _ := os.ReadFile(calPath)
	line := "  base_hash: " + base + "\n"
	if !strings.Contains(string(data), line) {
		t.Fatalf("calibrated.yaml has no line %q:\n%s", line, data)
	}
	oldCal := filepath.Join(dir, "old", CalibratedFile)
	os.MkdirAll(filepath.Dir(oldCal), 0o755)
	os.WriteFile(oldCal, []byte(strings.Replace(string(data), line, "", 1)), 0o644)

	heldOut := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=8")
	other := syntheticRun(t, dir, otherPath, "server.rtt=20ms")
	oldOther := editSummary(t, other, "old.json", func(m *measure.Summary) { m.Scenario.BaseHash = "" })
	itself := syntheticRun(t, dir, calPath, "server.rtt=20ms")
	// Calibrating on runs of two files says which one -compare will accept.
	var notes strings.Builder
	if _, _, err := calibrateInputs(&config{calibrate: []string{fitted, other}, fit: "server.rtt=1ms"}, &notes); err != nil {
		t.Fatal(err)
	}
	if want := "-compare will accept live runs of that one only"; !strings.Contains(notes.String(), want) || !strings.Contains(notes.String(), otherPath) {
		t.Errorf("calibrating on two files: notes %q do not name %s and say %q", notes.String(), otherPath, want)
	}
	renamed := editSummary(t, other, "renamed.json", func(m *measure.Summary) { m.Scenario.Name = "another" })
	// Summaries from before scenario.base_hash: of the file calibrated on,
	// of one whose file is gone, of one whose file changed since the run
	// (another duration), and of one without a hash either.
	noBase := func(m *measure.Summary) { m.Scenario.BaseHash = "" }
	oldHeldOut := editSummary(t, heldOut, "old-held-out.json", noBase)
	oldGone := editSummary(t, heldOut, "old-gone.json", func(m *measure.Summary) { noBase(m); m.Scenario.File = "gone/cal.yaml" })
	changedPath := filepath.Join(dir, "changed", "cal.yaml")
	os.MkdirAll(filepath.Dir(changedPath), 0o755)
	os.WriteFile(changedPath, []byte(strings.Replace(calibrateScenario, "duration: 1s", "duration: 2s", 1)), 0o644)
	oldChanged := editSummary(t, heldOut, "old-changed.json", func(m *measure.Summary) { noBase(m); m.Scenario.File = changedPath })
	oldNoHash := editSummary(t, heldOut, "old-no-hash.json", func(m *measure.Summary) { noBase(m); m.Scenario.Hash = "" })

	tests := []struct {
		name      string
		run       string
		args      []string
		scenario  string // default calPath
		code      int
		stderr    []string // each must appear
		notStderr []string // none may appear
	}{
		{name: "fitted run", run: fitted, code: ExitOK, stderr: []string{"checked by name and base hash (" + base}},
		{name: "held-out -set", run: heldOut, code: ExitOK, stderr: []string{"checked by name and base hash"}},
		{name: "another file of the same name", run: other, code: ExitBadInput,
			stderr: []string{`ran scenario "cal" from ` + otherPath, "base hash " + base, calPath, "another file of the same name", "add -force"}},
		{name: "another file forced", run: other, args: []string{"-force"}, code: ExitOK, notStderr: []string{"checked by"}},
		{name: "another name", run: renamed, code: ExitBadInput, stderr: []string{`ran scenario "another"`, "-force"}},
		{name: "old summary of the file calibrated on", run: oldHeldOut, code: ExitOK,
			stderr: []string{"checked by name and base hash (" + base, "before -set; derived from " + scPath, "it has the run's hash"}},
		{name: "old summary of another file", run: oldOther, code: ExitBadInput,
			stderr: []string{`ran scenario "cal" from ` + otherPath, "before -set; derived from " + otherPath, "another file of the same name", "add -force"}},
		{name: "old summary, its file gone", run: oldGone, code: ExitOK,
			stderr: []string{"records no scenario.base_hash", "its scenario file gone/cal.yaml is not found at gone/cal.yaml or " + filepath.Join(dir, "gone", "cal.yaml"),
				"checked by name only", "put the run's scenario file there, or measure again"}},
		{name: "old summary, its file changed since", run: oldChanged, code: ExitBadInput,
			stderr: []string{"records no scenario.base_hash", changedPath, "not the run's", "the file changed since the run", "put back the file the run used, or add -force"}},
		{name: "old summary without a hash either", run: oldNoHash, code: ExitOK,
			stderr: []string{"checked by name and base hash (" + base, "derived from " + scPath + " as it is now", "unconfirmed"}},
		{name: "old calibration", run: other, scenario: oldCal, code: ExitOK,
			stderr: []string{"records no calibrated.base_hash", "checked by name only", "calibrate again"}},
		{name: "a run of calibrated.yaml itself", run: itself, code: ExitOK, notStderr: []string{"checked by"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.scenario
			if sc == "" {
				sc = calPath
			}
			args := append(append([]string{"-no-report", "-trials", "4", "-compare", tc.run}, tc.args...), sc)
			code, stdout, stderr := runMain(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
			checkStderr(t, stderr, tc.stderr, tc.notStderr)
			if code == ExitBadInput && stdout != "" {
				t.Errorf("bad input printed a summary: %s", stdout)
			}
		})
	}
}

// editSummary writes the summary at path, changed by edit, beside it as
// name, and returns the new path.
func editSummary(t *testing.T, path, name string, edit func(*measure.Summary)) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m measure.Summary
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	b, _ := json.Marshal(m)
	out := filepath.Join(filepath.Dir(path), name)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// ofURLTarget writes the summary at path as a run against the endpoint
// http://127.0.0.1:8788 would have written it, beside it as url.json, and
// returns the new path: a target that ran with none of the scenario's
// latencies.
func ofURLTarget(t *testing.T, path string) string {
	t.Helper()
	return editSummary(t, path, "url.json", func(m *measure.Summary) {
		m.Limiter.Store, m.Live.URL = "url", "http://127.0.0.1:8788"
	})
}

// TestCompareCalibratedRunSet checks what -compare predicts with when a
// live run's own -set names a latency calibrated.yaml fitted: the fitted
// value where the target did not run with the run's (the serving side; any
// latency of a target at a URL), the run's where it did (the built-in
// target's store), the user's own -set over both, and each time a note
// naming the latency and both values.
func TestCompareCalibratedRunSet(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(calibrateScenario), 0o644)
	first := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	runs, params, err := calibrateInputs(&config{calibrate: []string{first}, fit: "server.rtt=3ms,store.latency=2ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	calPath, err := calibrate.WriteCalibrated(filepath.Join(dir, "out"), runs, params, []float64{params[0].Init, params[1].Init}, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := scenario.Load(calPath)
	if err != nil {
		t.Fatal(err)
	}
	fittedRTT, fittedStore := cal.Server.RTT.String(), cal.Store.Latency.String()
	rtt := syntheticRun(t, dir, scPath, "server.rtt=20ms", "server.rtt=30ms")
	store := syntheticRun(t, dir, scPath, "server.rtt=20ms", "store.latency=7ms")
	storeURL := ofURLTarget(t, store)
	section := syntheticRun(t, dir, scPath, "server.rtt=20ms", "server={mode: single-thread, rtt: 35ms}")
	plain := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=8")

	tests := []struct {
		name       string
		run        string
		sets       []string
		rtt, store string   // what the prediction uses
		notes      []string // each must appear in the notes
		notNotes   []string // none may
	}{
		{name: "server latency: the fitted value", run: rtt, rtt: fittedRTT, store: fittedStore,
			notes: []string{"set -set server.rtt=30ms (server.rtt=30ms)", "the built-in target on its memory store did not run with it",
				"the prediction uses the fitted " + fittedRTT, "add -set server.rtt=30ms to predict with the run's value"}},
		{name: "server section: the fitted value", run: section, rtt: fittedRTT, store: fittedStore,
			notes: []string{"-set server={mode: single-thread, rtt: 35ms} (server.rtt=35ms)", "the prediction uses the fitted " + fittedRTT}},
		{name: "built-in store latency: the run's value", run: store, rtt: fittedRTT, store: "7ms",
			notes: []string{"set -set store.latency=7ms, and the built-in target on its memory store ran with it",
				"uses the run's store.latency=7ms, not the " + fittedStore, "does not test the calibration's store.latency"}},
		{name: "store latency of a URL target: the fitted value", run: storeURL, rtt: fittedRTT, store: fittedStore,
			notes: []string{"the endpoint http://127.0.0.1:8788 did not run with it", "the prediction uses the fitted " + fittedStore}},
		{name: "the user's -set over both", run: rtt, sets: []string{"server.rtt=40ms"}, rtt: "40ms", store: fittedStore,
			notNotes: []string{"the live run set"}},
		{name: "nothing fitted set", run: plain, rtt: fittedRTT, store: fittedStore, notNotes: []string{"the live run set"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := readSummary(tc.run)
			if err != nil {
				t.Fatal(err)
			}
			sc, notes, err := load(&config{file: calPath, compare: tc.run, sets: tc.sets}, m)
			if err != nil {
				t.Fatal(err)
			}
			if got := sc.Server.RTT.String(); got != tc.rtt {
				t.Errorf("server.rtt %s, want %s", got, tc.rtt)
			}
			if got := sc.Store.Latency.String(); got != tc.store {
				t.Errorf("store.latency %s, want %s", got, tc.store)
			}
			checkStderr(t, strings.Join(notes, "\n"), tc.notes, tc.notNotes)
		})
	}
}

// TestCalibratedKeepsFileLength checks that a first run stopped early
// (interrupted, max_requests) is fitted as long as it ran, with the
// populations that had started, while calibrated.yaml keeps the file's
// duration and populations: a simulation of it predicts the file's
// traffic, not the short run.
func TestCalibratedKeepsFileLength(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	late := "  - name: late\n    start: 600ms\n    closed_loop: {concurrency: 1}\nlive:"
	os.WriteFile(scPath, []byte(strings.Replace(calibrateScenario, "live:", late, 1)), 0o644)
	run := syntheticRun(t, dir, scPath, "server.rtt=20ms")
	tests := []struct {
		name        string
		secs        float64 // how long the run lasted
		fitDuration string  // the scenario it is fitted with
		fitTraffic  int
	}{
		{name: "full run", secs: 1, fitDuration: "1s", fitTraffic: 2},
		{name: "stopped after both started", secs: 0.8, fitDuration: "800ms", fitTraffic: 2},
		{name: "stopped before the second started", secs: 0.5, fitDuration: "500ms", fitTraffic: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := editSummary(t, run, "run.json", func(m *measure.Summary) { m.Live.DurationSecs = tc.secs })
			runs, params, err := calibrateInputs(&config{calibrate: []string{path}, fit: "server.rtt=1ms"}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if got := runs[0].Scenario.Live.Duration.String(); got != tc.fitDuration || len(runs[0].Scenario.Traffic) != tc.fitTraffic {
				t.Errorf("fitted with live.duration %s and %d populations, want %s and %d, as the run ran", got, len(runs[0].Scenario.Traffic), tc.fitDuration, tc.fitTraffic)
			}
			out := filepath.Join(dir, tc.name)
			if _, err := calibrate.WriteCalibrated(out, runs, params, []float64{params[0].Init}, nil, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			cal, err := scenario.Load(filepath.Join(out, CalibratedFile))
			if err != nil {
				t.Fatal(err)
			}
			if got := cal.Live.Duration.String(); got != "1s" || len(cal.Traffic) != 2 {
				t.Errorf("calibrated.yaml has live.duration %s and %d populations, want the file's 1s and 2", got, len(cal.Traffic))
			}
		})
	}
}

// TestCalibrateKeepsRunValues checks what -calibrate fits when a run's own
// -set names a fitted latency: where the target ran with the run's value
// (the built-in target's store) the fit keeps it for that run, with a note,
// and scales the value of the runs that did not set it (the first of them
// its base, even when the first run set it); where the target did not run
// with it (the serving side, a target at a URL), or the user's -set names
// it, it is fitted as before; and when every run set it, an error says to
// leave it out of -fit.
func TestCalibrateKeepsRunValues(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(strings.Replace(calibrateScenario, "{kind: memory}", "{kind: memory, latency: 1ms}", 1)), 0o644)
	kvPath := filepath.Join(dir, "kv", "cal.yaml")
	os.MkdirAll(filepath.Dir(kvPath), 0o755)
	os.WriteFile(kvPath, []byte(strings.Replace(strings.Replace(calibrateScenario, "{kind: memory}", "{kind: kv}", 1), "server: {mode: single-thread}\n", "", 1)), 0o644)
	plain := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	store := syntheticRun(t, dir, scPath, "server.rtt=20ms", "store.latency=7ms")
	storeURL := ofURLTarget(t, store)
	rtt := syntheticRun(t, dir, scPath, "server.rtt=20ms", "server.rtt=30ms")
	kv := syntheticRun(t, dir, kvPath, "store.kv.hot_read=5ms", "store.kv.write=50ms")
	kvEventual := editSummary(t, kv, "eventual.json", func(m *measure.Summary) { m.Limiter.Store = "eventual" })
	tests := []struct {
		name     string
		runs     []string
		fit      string
		sets     []string
		x        float64           // ln of the scale the runs are predicted at
		want     map[string]string // run -> the fitted latency its prediction uses
		notes    []string          // each must appear
		notNotes []string          // none may
		err      []string          // each must appear in the error
	}{
		{name: "the store's latency a run set: kept for it", runs: []string{plain, store}, fit: "store.latency=2ms", x: math.Log(2),
			want:  map[string]string{plain: "4ms", store: "7ms"},
			notes: []string{store + " set -set store.latency=7ms and the built-in target on its memory store ran with it", "keeps that run's store.latency at 7ms", "-fit store.latency"}},
		{name: "the first run set it: the others' value is scaled", runs: []string{store, plain}, fit: "store.latency",
			want:  map[string]string{plain: "1ms", store: "7ms"},
			notes: []string{"keeps that run's store.latency at 7ms"}},
		{name: "a target at a URL did not run with it: fitted", runs: []string{plain, storeURL}, fit: "store.latency=2ms", x: math.Log(2),
			want: map[string]string{plain: "4ms", storeURL: "4ms"}, notNotes: []string{"keeps"}},
		{name: "the serving side is fitted", runs: []string{plain, rtt}, fit: "server.rtt=10ms", x: math.Log(2),
			notNotes: []string{"keeps"}},
		{name: "the user's -set: fitted from it", runs: []string{plain, store}, fit: "store.latency", sets: []string{"store.latency=3ms"}, x: math.Log(2),
			want: map[string]string{plain: "6ms", store: "6ms"}, notNotes: []string{"keeps"}},
		{name: "every run set it", runs: []string{store}, fit: "store.latency",
			err: []string{"-fit store.latency: every run set store.latency and its target ran with that value", store + " (-set store.latency=7ms, on the built-in target on its memory store)", "leave it out of -fit"}, notNotes: []string{"keeps"}},
		{name: "every run set one of a section's", runs: []string{kvEventual}, fit: "store.kv",
			err: []string{"every run set store.kv.write", "fit the others as -fit store.kv.hot_read+store.kv.cold_read"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var notes strings.Builder
			runs, params, err := calibrateInputs(&config{calibrate: tc.runs, fit: tc.fit, sets: tc.sets}, &notes)
			if tc.err != nil {
				if err == nil {
					t.Fatalf("no error; want one saying %q", tc.err)
				}
				checkStderr(t, err.Error(), tc.err, nil)
				checkStderr(t, notes.String(), nil, tc.notNotes)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkStderr(t, notes.String(), tc.notes, tc.notNotes)
			f := &calibrate.Fitter{Runs: runs, Params: params}
			for _, r := range runs {
				want, ok := tc.want[r.Path]
				if !ok {
					continue
				}
				sc, err := f.With(r.Scenario, []float64{params[0].Init + tc.x}, r.Keep)
				if err != nil {
					t.Fatal(err)
				}
				if got := sc.Store.Latency.String(); got != want {
					t.Errorf("%s is predicted with store.latency %s, want %s", r.Path, got, want)
				}
			}
		})
	}
}

// TestCalibrateHoldsUnconstrained runs a calibration of store.latency on
// two runs, one of which set it on the built-in memory store and keeps it:
// the other run's leave-one-out has no run to fit it to, holds it at the
// full fit's value, and says so; the keeping run's has one, and does not.
func TestCalibrateHoldsUnconstrained(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(strings.Replace(calibrateScenario, "{kind: memory}", "{kind: memory, latency: 1ms}", 1)), 0o644)
	plain := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	store := syntheticRun(t, dir, scPath, "server.rtt=20ms", "store.latency=7ms")
	code, out, stderr := runMain(t, "-calibrate", plain+","+store, "-fit", "store.latency=2ms", "-trials", "9", "-seed", "7", "-out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, loo, ok := strings.Cut(out, "leave-one-out:")
	if !ok {
		t.Fatalf("no leave-one-out in:\n%s", out)
	}
	lines := strings.Split(loo, "\n")
	var held []int
	for i, l := range lines {
		if strings.Contains(l, "store.latency held at the full fit's value") {
			held = append(held, i)
		}
	}
	if len(held) != 1 || held[0] == 0 || !strings.Contains(lines[held[0]-1], plain) {
		t.Errorf("want one held line, after %s's leave-one-out line; got lines %v of:\n%s", plain, held, loo)
	}
}

// TestCalibratePlainBandNotPoint: calibrated from a plain scenario (no
// server: section) on hand-made runs at C = 1 and 8 whose repeats differ,
// no predicted band is a point, in the fit per run nor for a run held out
// (C = 4, repeats 1.6x to 2.8x; TestCalibrateBandsSpread checks a fitted
// one). A fit that leaves the spread out
// (-fit server.rtt on a server of constant steps) is shown to collapse its
// band, and the calibration says so: the check can fail.
func TestCalibratePlainBandNotPoint(t *testing.T) {
	t.Parallel() // CPU-bound: beside the others, so that both cores work when the package runs alone
	constServer := "server: {mode: single-thread, cpu: {before_read: 500us, between: 600us, after_write: 300us}}\n"
	tests := []struct {
		name   string
		server string // appended to the plain scenario
		fit    []string
		point  bool // the band is expected to collapse
	}{
		{name: "plain scenario and the default fit"},
		{name: "constant steps and no spread fitted", server: constServer, fit: []string{"-fit", "server.rtt"}, point: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			scPath := filepath.Join(dir, "plain.yaml")
			os.WriteFile(scPath, []byte(plainScenario+tc.server), 0o644)
			c1 := handRun(t, dir, scPath, []float64{1, 1, 1}, 2, 12, 5)
			c8 := handRun(t, dir, scPath, []float64{2.2, 3.2, 4.8}, 9, 50, 14, "traffic.bot.closed_loop.concurrency=8")
			c4 := handRun(t, dir, scPath, []float64{1.6, 2.4, 2.8}, 5, 30, 9, "traffic.bot.closed_loop.concurrency=4")
			args := append([]string{"-calibrate", c1 + "," + c8, "-trials", "12", "-seed", "3", "-out", filepath.Join(dir, "out")}, tc.fit...)
			code, out, stderr := runMain(t, args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if said := strings.Contains(out, "the band is a point while the live repeats spread"); said != tc.point {
				t.Errorf("the calibration says the band is a point: %v, want %v:\n%s", said, tc.point, out)
			}
			code, js, stderr := runMain(t, "-compare", c4, "-no-report", "-json", "-trials", "24", filepath.Join(dir, "out", CalibratedFile))
			if code != ExitOK && code != ExitThreshold {
				t.Fatalf("-compare: exit %d: %s", code, stderr)
			}
			var s struct{ Comparison measure.Comparison }
			if err := json.Unmarshal([]byte(js), &s); err != nil {
				t.Fatal(err)
			}
			// The trials' own band, before the calibration's misfit (how far
			// it missed its own runs) widened it.
			band := s.Comparison.PredictedBand
			if m := s.Comparison.Misfit; len(m) == 2 {
				band = [2]float64{band[0] / m[0], band[1] / m[1]}
			}
			if point := math.Abs(band[0]-band[1]) < 1e-9; point != tc.point {
				t.Errorf("the held-out run's trials' band is %v (a point: %v, want %v) while its repeats run from 1.6 to 2.8", band, point, tc.point)
			}
			t.Logf("band %v, widened by the misfit %v to %v", band, s.Comparison.Misfit, s.Comparison.PredictedBand)
		})
	}
}
