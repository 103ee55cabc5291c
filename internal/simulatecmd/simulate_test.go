package simulatecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// checkStderr fails t when stderr does not say each of want, or says one
// of not.
func checkStderr(t *testing.T, stderr string, want, not []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr %q does not say %q", stderr, s)
		}
	}
	for _, s := range not {
		if strings.Contains(stderr, s) {
			t.Errorf("stderr %q says %q", stderr, s)
		}
	}
}

// runMain runs the command with args and returns its exit status, stdout
// and stderr.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// entries lists what is under dir, recursively, or nothing when it does not exist.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && p != dir {
			got = append(got, p)
		}
		return nil
	})
	return got
}

func TestBadInputExits2AndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nlimiter:\n  limt: 5\n"), 0o644)
	malformed := filepath.Join(dir, "malformed.yaml")
	os.WriteFile(malformed, []byte("name: [x\n"), 0o644)
	out := filepath.Join(dir, "reports")
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"missing file", []string{filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{"unknown field", []string{bad}, `bad.yaml:3:3`},
		{"unknown field suggestion", []string{bad}, `"limit"`},
		{"malformed yaml", []string{malformed}, "malformed.yaml:"},
		{"bad unit", []string{"-set", "limiter.window=5 parsecs"}, "limiter.window"},
		{"zero limit", []string{"-set", "limiter.limit=0"}, "limiter.limit"},
		{"unknown path", []string{"-set", "limiter.limitt=3"}, "limiter.limitt"},
		{"negative trials", []string{"-trials", "-1"}, "-trials"},
		{"zero trials given", []string{"-trials", "0"}, "-trials 0: give 1 or more"},
		{"a gate on no population", []string{"-threshold", "robots:ratio.max<=1.5"}, `the scenario has no population "robots"`},
		{"bad threshold stat", []string{"-max-ratio", "2", "-at", "p90"}, "-at"},
		{"unknown flag", []string{"-frobnicate"}, "frobnicate"},
		{"two files", []string{bad, bad}, "one scenario file"},
		{"scenario twice", []string{"-scenario", bad, malformed}, "scenario given twice"},
		{"compare missing", []string{"-compare", filepath.Join(dir, "none.json")}, "-compare"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, append([]string{"-out", out}, tt.args...)...)
			if code != ExitBadInput {
				t.Errorf("exit %d, want %d; stderr: %s", code, ExitBadInput, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout not empty on bad input: %q", stdout)
			}
			if got := entries(t, out); len(got) != 0 {
				t.Errorf("bad input wrote %v", got)
			}
		})
	}
}

func TestJSONIsTheSummaryOnly(t *testing.T) {
	code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "3", "-seed", "7")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("stdout is not one summary.json: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Errorf("stdout holds more than the summary")
	}
	if s.Mode != "simulate" || s.Seed != 7 || s.Trials != 3 || s.Scenario.Name != "default" || !s.Complete {
		t.Errorf("summary identity = mode %q seed %d trials %d scenario %q complete %v", s.Mode, s.Seed, s.Trials, s.Scenario.Name, s.Complete)
	}
	if s.Totals.Requests == 0 || s.Overshoot.KeyWindows == 0 {
		t.Errorf("summary measured nothing: %+v", s.Totals)
	}
}

func TestSameSeedSameSummary(t *testing.T) {
	_, a, _ := runMain(t, "-json", "-no-report", "-trials", "4", "-seed", "11", "-workers", "1")
	_, b, _ := runMain(t, "-json", "-no-report", "-trials", "4", "-seed", "11", "-workers", "2")
	if a != b {
		t.Errorf("the same seed gave different summaries with 1 and 2 workers")
	}
	_, c, _ := runMain(t, "-json", "-no-report", "-trials", "4", "-seed", "12")
	if a == c {
		t.Errorf("seeds 11 and 12 gave the same summary: the seed is not used")
	}
}

func TestThresholdExits3(t *testing.T) {
	// The default scenario's bot gets far past a limit of 5 (the 1 write/s
	// limit fails its writes open), so a gate at 1.5x breaks and one at
	// 1000x holds. The gates read the run's own figures, not the
	// sensitivity's (TestSensitivity), which would take most of the time.
	code, _, stderr := runMain(t, "-no-report", "-sensitivity=false", "-trials", "2", "-max-ratio", "1.5")
	if code != ExitThreshold || !strings.Contains(stderr, "simulate: threshold broken: ✗ ratio.max<=1.5: ") {
		t.Errorf("exit %d, stderr %q; want exit 3 naming the threshold", code, stderr)
	}
	code, _, stderr = runMain(t, "-no-report", "-sensitivity=false", "-trials", "2", "-max-ratio", "1000", "-at", "p99")
	if code != ExitOK || !strings.Contains(stderr, "simulate: threshold ✓ ratio.p99<=1000: ") {
		t.Errorf("exit %d, want 0 and the passing gate printed: %s", code, stderr)
	}
	// The gates a CI job of one's own would set: the interval and the
	// false denials, read back from the JUnit file.
	junit := filepath.Join(t.TempDir(), "gates.xml")
	code, _, stderr = runMain(t, "-no-report", "-sensitivity=false", "-trials", "2", "-threshold", "interval.max<=1000", "-threshold", "errors.rate<1%",
		"-threshold", "false_denials.rate<=0.1%", "-junit", junit)
	b, _ := os.ReadFile(junit)
	// The default scenario has no legitimate population: its false
	// denials are not measured, which fails that gate.
	if code != ExitThreshold || !strings.Contains(stderr, "✗ false_denials.rate<=0.1%: not measured") ||
		!strings.Contains(string(b), `tests="3" failures="1"`) {
		t.Errorf("exit %d, stderr %q, junit %s", code, stderr, b)
	}
}

func TestSweepAndReport(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runMain(t, "-out", out, "-trials", "2", "../../scenarios/window-boundary.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"limiter.algorithm=fixed-window", "limiter.algorithm=token-bucket", "report: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(out, "window-boundary", "*", "summary.json"))
	if len(matches) != 1 {
		t.Fatalf("want one summary.json under %s, got %v", out, matches)
	}
	b, _ := os.ReadFile(matches[0])
	var s measure.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 3 || s.Points[0].Params[0].Value != "fixed-window" {
		t.Errorf("sweep summary has %d points: %+v", len(s.Points), s.Points)
	}
	// A second run never overwrites the first report.
	if code, _, stderr := runMain(t, "-out", out, "-trials", "2", "../../scenarios/window-boundary.yaml"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if matches, _ := filepath.Glob(filepath.Join(out, "window-boundary", "*", "summary.json")); len(matches) != 2 {
		t.Errorf("want two report folders, got %v", matches)
	}
}

// TestCompareFollowsTheMeasuredRun: -compare predicts what the live run
// really did: the limit and window its target announced, how long it ran,
// and the store the built-in target used.
func TestCompareFollowsTheMeasuredRun(t *testing.T) {
	dir := t.TempDir()
	measured := measure.Summary{Schema: measure.SchemaVersion, Mode: "attack", Complete: true, Trials: 1,
		Totals:   measure.Totals{Requests: 10, Allowed: 10},
		Scenario: measure.ScenarioRef{Name: "default"},
		Limiter:  measure.LimiterRef{Algorithm: "fixed-window", Limit: 3, Window: "7s", WindowSecs: 7, Store: "memory", ErrorPolicy: "fail-open"},
		Live:     &measure.Live{DurationSecs: 4.2}}
	b, _ := json.Marshal(measured)
	path := filepath.Join(dir, "summary.json")
	os.WriteFile(path, b, 0o644)
	// compare predicts, and runs no sensitivity (it takes no -sensitivity).
	code, stdout, stderr := runMain(t, "-json", "-out", filepath.Join(dir, "out"), "-trials", "2", "-compare", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if l := s.Limiter; l.Limit != 3 || l.WindowSecs != 7 || l.Store != "memory" {
		t.Errorf("predicted limiter = %+v, want limit 3 per 7 s on memory", l)
	}
	if s.Totals.SimulatedSeconds != 4.2 {
		t.Errorf("predicted %v s, want the measured 4.2 s", s.Totals.SimulatedSeconds)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "out", "default", "*", "compare-summary.json")); len(m) != 1 {
		t.Errorf("want one comparison report, got %v", m)
	}

	// Three repeated runs of 1.5 s: live.duration_seconds is their sum,
	// 4.5 s; a trial of the model stands for one run, 1.5 s.
	measured.Live.DurationSecs, measured.Totals.SimulatedSeconds = 4.5, 1.5
	measured.Repeats = measure.NewRepeats([]measure.RepeatRun{{MaxRatio: 1}, {MaxRatio: 1}, {MaxRatio: 1}})
	b, _ = json.Marshal(measured)
	os.WriteFile(path, b, 0o644)
	code, stdout, stderr = runMain(t, "-json", "-no-report", "-trials", "2", "-compare", path)
	if code != ExitOK {
		t.Fatalf("repeats: exit %d: %s", code, stderr)
	}
	s = measure.Summary{}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Totals.SimulatedSeconds != 1.5 {
		t.Errorf("predicted %v s for three runs of 1.5 s, want 1.5 s (one run's)", s.Totals.SimulatedSeconds)
	}
}

// TestReportFailureKeepsTheSummary: when the report cannot be written
// after the run (Main checks -out before it, but a disk can fill up or a
// folder change meanwhile), the summary has been printed already and the
// exit status says it failed.
func TestReportFailureKeepsTheSummary(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	c, err := parseFlags([]string{"-trials", "2", "-out", filepath.Join(blocker, "reports")}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := loadRun(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	points, err := p.sc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	s, err := run(context.Background(), c, p, points, newProgress(io.Discard, len(points)))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := finish(c, p, s, &stdout, &stderr)
	if code != ExitFailure || !strings.Contains(stdout.String(), "let through up to") || !strings.Contains(stderr.String(), "report was not written") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 with the summary printed", code, stdout.String(), stderr.String())
	}
}

// TestCompareShortRun: a measured run that stopped before a population
// started is predicted without that population, not refused.
func TestCompareShortRun(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "late.yaml")
	os.WriteFile(sc, []byte(`name: late
limiter: {limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 100ms}
  - name: users
    start: 3s
    legitimate: true
    open_loop: {rate: 1/s}
live: {duration: 10s}
`), 0o644)
	measured := measure.Summary{Schema: measure.SchemaVersion, Mode: "attack", Complete: false, Trials: 1,
		Totals:   measure.Totals{Requests: 10, Allowed: 10},
		Scenario: measure.ScenarioRef{Name: "late", File: sc},
		Limiter:  measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, Store: "memory", ErrorPolicy: "fail-open"},
		Live:     &measure.Live{DurationSecs: 2}}
	b, _ := json.Marshal(measured)
	path := filepath.Join(dir, "summary.json")
	os.WriteFile(path, b, 0o644)
	code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "2", "-compare", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Populations) != 1 || s.Populations[0].Name != "bot" || s.Totals.SimulatedSeconds != 2 {
		t.Errorf("predicted populations %+v over %v s, want the bot alone over 2 s", s.Populations, s.Totals.SimulatedSeconds)
	}
	if !strings.Contains(stderr, "interrupted") {
		t.Errorf("stderr does not say the measured run was interrupted: %q", stderr)
	}
}

// TestStoreDownIsFlaggedNotFailed: a simulated store that is down for most
// of the run is a legitimate result (what failing open lets through), so
// simulate flags it in the headline and summary.json but exits 0; in a
// sweep, the warning names its point.
func TestStoreDownIsFlaggedNotFailed(t *testing.T) {
	sc := filepath.Join(t.TempDir(), "down.yaml")
	os.WriteFile(sc, []byte(`name: down
duration: 1m
limiter: {limit: 5, window: 1m}
store:
  kind: kv
  kv:
    outages: [{start: 0s, duration: 50s}]
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 100ms}
`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string // the warning's start
	}{
		{"single run", nil, "the store was down for most of the run"},
		{"sweep", []string{"-set", "sweep=[{path: limiter.error_policy, values: [fail-open, fail-closed]}]"}, "at limiter.error_policy=fail-open: the store was down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-no-report", "-trials", "2"}, tc.args...)
			code, stdout, stderr := runMain(t, append(args, sc)...)
			if code != ExitOK {
				t.Fatalf("exit %d, want %d (flag, do not fail): %s", code, ExitOK, stderr)
			}
			if !strings.Contains(stdout, "WARNING: "+tc.want) {
				t.Errorf("stdout does not lead with the warning %q:\n%s", tc.want, stdout)
			}
			code, stdout, _ = runMain(t, append([]string{"-json"}, append(args, sc)...)...)
			var s measure.Summary
			if err := json.Unmarshal([]byte(stdout), &s); err != nil || code != ExitOK {
				t.Fatalf("exit %d, %v", code, err)
			}
			if len(s.Warnings) == 0 || !strings.HasPrefix(s.Warnings[0], tc.want) {
				t.Errorf("summary warnings %q, want one starting %q", s.Warnings, tc.want)
			}
		})
	}
}

// TestHelpVersionAndScenarioFlag: -h and -version exit 0 and write
// nothing (-h: usage on stderr; -version: the version on stdout), and
// -scenario names the file as the argument does (as in attack).
func TestHelpVersionAndScenarioFlag(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("name: flagged\nlimiter: {limit: 5, window: 1m}\nduration: 10s\ntrials: 1\ntraffic: [{name: bot, closed_loop: {}}]\n"), 0o644)
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string // substrings; "" means empty
	}{
		{[]string{"-h"}, ExitOK, "", "usage: simulate"},
		{[]string{"-help"}, ExitOK, "", "usage: simulate"},
		{[]string{"-version"}, ExitOK, "simulate ", ""},
		{[]string{"-json", "-no-report", "-scenario", sc}, ExitOK, `"name": "flagged"`, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "reports")
			code, stdout, stderr := runMain(t, append([]string{"-out", out}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) || (tc.stdout == "") != (stdout == "") {
				t.Errorf("stdout %.200q, want it to hold %q", stdout, tc.stdout)
			}
			if !strings.Contains(stderr, tc.stderr) || (tc.stderr == "") != (stderr == "") {
				t.Errorf("stderr %.80q, want it to hold %q", stderr, tc.stderr)
			}
			if got := entries(t, out); len(got) != 0 {
				t.Errorf("wrote %v", got)
			}
		})
	}
}
