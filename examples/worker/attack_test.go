package worker_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attackcmd"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/simulatecmd"
)

// The scenarios the end-to-end tests run, beside this file.
const (
	sequentialScenario = "sequential.yaml"
	burstScenario      = "scenario.yaml"
	burstSize          = 50 // scenario.yaml's traffic.caller.burst.size
)

// policy asks the Worker, as a fresh caller, for its limit and window (its
// RateLimit-Policy), so the tests follow WORKER_VARS.
func policy(t *testing.T, base string) (limit int64, window time.Duration) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	a := ask(t, client, base, fmt.Sprintf("e2e-policy-%d", time.Now().UnixNano()))
	if a.limit <= 0 || a.windowSec <= 0 {
		t.Fatalf("the Worker states limit %d per %d s: want both positive", a.limit, a.windowSec)
	}
	return int64(a.limit), time.Duration(a.windowSec) * time.Second
}

// awaitRoom waits until at least need remains in the Worker's current window
// (windows are floor(unix seconds / window), on this machine's clock, which
// the Worker under wrangler dev shares), so that a run of at most need falls
// in one window. It returns false when the window is too short for that; the
// run is then still counted exactly, by the Worker's X-Overshoot-Window.
func awaitRoom(t *testing.T, window, need time.Duration) bool {
	t.Helper()
	if window < 2*need {
		t.Logf("window %v is short for a run of up to %v: not waiting for a window start", window, need)
		return false
	}
	now := time.Now()
	left := window - time.Duration(now.UnixNano()%int64(window))
	if left >= need {
		return true
	}
	wait := left + 100*time.Millisecond
	t.Logf("%v left in the current %v window: waiting %v for the next one", left.Round(time.Millisecond), window, wait.Round(time.Millisecond))
	time.Sleep(wait)
	return true
}

// reportsDir is where the runs write: OVERSHOOT_E2E_REPORTS when set (a
// relative folder is taken from the repository root, e.g. "reports"), else a
// temporary folder.
func reportsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("OVERSHOOT_E2E_REPORTS")
	if dir == "" {
		return t.TempDir()
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", "..", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// runAttack runs `attack -url base -json` on the scenario file with the
// Worker's limit and window, and returns the summary and its path.
func runAttack(t *testing.T, base, scenarioFile, out string, limit int64, window time.Duration) (measure.Summary, string) {
	t.Helper()
	file, err := filepath.Abs(scenarioFile)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-url", base, "-json", "-out", out,
		"-set", "limiter.limit=" + strconv.FormatInt(limit, 10),
		"-set", "limiter.window=" + strconv.FormatInt(int64(window/time.Second), 10) + "s",
		file}
	code := attackcmd.Main(args, attackcmd.Env{Stdout: &stdout, Stderr: &stderr,
		Exit: func(c int) { t.Errorf("attack called Exit(%d)", c) }})
	if code != cli.ExitOK {
		t.Fatalf("attack %v: exit %d\nstderr: %s", args, code, stderr.String())
	}
	var s measure.Summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("attack -json printed no summary: %v\nstdout: %s", err, stdout.String())
	}
	if s.Live == nil || s.Live.ResultsFile == "" {
		t.Fatalf("attack's summary names no results file: %+v", s.Live)
	}
	path := filepath.Join(filepath.Dir(s.Live.ResultsFile), "summary.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("attack wrote no summary.json beside its results: %v", err)
	}
	return s, path
}

// TestAttackSequentialExactLimit: `attack -url` with one caller sending one
// request at a time. No two requests are in flight, so there is no race and
// the window allows exactly the limit.
func TestAttackSequentialExactLimit(t *testing.T) {
	base := workerURL(t)
	limit, window := policy(t, base)
	oneWindow := awaitRoom(t, window, 5*time.Second) // the run lasts at most 2 s
	s, path := runAttack(t, base, sequentialScenario, reportsDir(t), limit, window)
	o, tot := s.Overshoot, s.Totals
	t.Logf("sequential caller: %d requests, %d allowed, %d denied in %d key-window(s); most allowed in one window %d (limit %d); summary %s",
		tot.Requests, tot.Allowed, tot.Denied, o.KeyWindows, o.MaxAllowed, limit, path)
	if tot.Errors != 0 || tot.FailOpen != 0 || s.Live.Ambiguous != 0 {
		t.Errorf("totals %+v, ambiguous %d: want no errors, no fail-open, every request attributed", tot, s.Live.Ambiguous)
	}
	if tot.Requests <= limit || tot.Denied == 0 {
		t.Fatalf("%d requests, %d denied: the run never went past the limit %d, so it shows nothing", tot.Requests, tot.Denied, limit)
	}
	if o.MaxAllowed != limit || o.OverLimit != 0 {
		t.Errorf("most allowed in a window %d, windows over the limit %d: want exactly %d and none over", o.MaxAllowed, o.OverLimit, limit)
	}
	if oneWindow && (o.KeyWindows != 1 || tot.Allowed != limit) {
		t.Errorf("%d key-windows, %d allowed: the run fit in one window, so want 1 and exactly %d", o.KeyWindows, tot.Allowed, limit)
	}
}

// TestAttackBurstAgainstPrediction: 50 requests of one fresh caller at once
// (scenario.yaml), measured with `attack -url`, then predicted by
// `simulate -compare` for the same scenario: the memory store (local KV
// under wrangler dev is one linearizable store with no cache, no lag and no
// write limit, docs/attack.md) behind the
// serving side closed-loop.yaml models, its starting values. Both are logged
// and written to one comparison report.
//
// What is left under wrangler dev is the race between a request's read and
// its write, and which requests race is the serving side's doing: the
// Worker's thread takes the requests that reached it while it was busy as one
// batch, and one batch's writes land before the next batch reads. On an idle
// machine all 50 usually get through; on a loaded one fewer (19 in a CI run
// with the suite loading both cores; 31 to 50 in 12 runs here, 2026-12-01,
// at load average 3-5; 30 and 36 in two CI runs of 2026-12-02).
//
// Asserted: more than the limit and at most the 50 sent (the race), and not
// more than the most the predicted trials let through (their central 95%'s
// high end, widened by one request for the band's own sampling). Fewer than
// the trials' low end is logged, not failed: since the model's start of a
// run (proxy batches, the client's send spacing, docs/serving-side.md
// section 11) its trials put the 50 in at most five batches, so all get
// through in every trial, while live the 50 open new connections, whose
// set-up on wrangler dev's threads, slower on a loaded machine, spreads them
// over more batches; the model has no part for that set-up. The latencies
// are logged, not compared, for the same reason: the live ones are several
// times the predicted.
func TestAttackBurstAgainstPrediction(t *testing.T) {
	base := workerURL(t)
	limit, window := policy(t, base)
	if limit >= burstSize {
		t.Skipf("the Worker's limit %d is not under the burst of %d: a race could not show", limit, burstSize)
	}
	out := reportsDir(t)
	awaitRoom(t, window, 2*time.Second) // the 50 answer within a second (live.duration only bounds a stuck run)
	s, path := runAttack(t, base, burstScenario, out, limit, window)
	o, tot, lat := s.Overshoot, s.Totals, s.Live.LatencyMs
	if tot.Requests != burstSize || tot.Errors != 0 || s.Live.Ambiguous != 0 {
		t.Fatalf("totals %+v, ambiguous %d: want %d requests answered 200 or 429, all attributed", tot, s.Live.Ambiguous, burstSize)
	}
	if o.MaxAllowed <= limit || o.MaxAllowed > burstSize {
		t.Errorf("%d of %d concurrent requests allowed in one window (limit %d): want more than the limit (the race) and at most the %d sent (see the comment above)",
			o.MaxAllowed, burstSize, limit, burstSize)
	}

	// The prediction for the same scenario and overrides.
	var stdout, stderr bytes.Buffer
	args := []string{"-compare", path, "-json", "-out", out, "-trials", "200"}
	if code := simulatecmd.Main(args, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("simulate %v: exit %d\nstderr: %s", args, code, stderr.String())
	}
	var p measure.Summary
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatalf("simulate -json printed no summary: %v", err)
	}
	r := p.Overshoot.Ratio
	lim := float64(p.Limiter.Limit)
	t.Logf("50 concurrent requests of one caller, limit %d per %v:", limit, window)
	t.Logf("  measured:  %d allowed, %d denied; request latency p50 %.1f ms, p95 %.1f ms, max %.1f ms",
		tot.Allowed, tot.Denied, lat.P50, lat.P95, lat.Max)
	band := p.Overshoot.PerTrial.MaxRatio
	lo, hi := int64(math.Floor(band.Lo*lim))-1, int64(math.Ceil(band.Hi*lim))+1
	if p.LatencyMs == nil {
		t.Fatalf("the prediction has no request latencies")
	}
	t.Logf("  predicted: allowed p50 %.0f, p95 %.0f, max %.0f, the central 95%% of trials %.0f to %.0f, over %d trials; request latency p50 %.1f ms, max %.1f ms",
		r.P50*lim, r.P95*lim, r.Max*lim, band.Lo*lim, band.Hi*lim, p.Trials, p.LatencyMs.P50, p.LatencyMs.Max)
	switch {
	case o.MaxAllowed > hi:
		t.Errorf("%d allowed, more than the prediction's central 95%% of trials lets through, widened by one: %d", o.MaxAllowed, hi)
	case o.MaxAllowed < lo:
		t.Logf("  %d allowed, under the prediction's central 95%% of trials widened by one (%d to %d): the live burst's connection set-up spread it over more batches than the model has (see the comment above)", o.MaxAllowed, lo, hi)
	}
	dir := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), "report:"))
	t.Logf("  measured summary %s", path)
	t.Logf("  comparison report %s", filepath.Join(dir, "report.html"))
	for _, f := range []string{"report.html", "summary.json", "compare-summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the comparison report has no %s: %v (simulate's stderr: %q)", f, err, stderr.String())
		}
	}
	if p.Mode != "simulate" || p.Limiter.Store != "memory" || p.Limiter.Limit != limit || p.Totals.Requests != int64(burstSize*p.Trials) {
		t.Errorf("prediction limiter %+v, %d requests over %d trials: want the memory store, limit %d, %d requests a trial",
			p.Limiter, p.Totals.Requests, p.Trials, limit, burstSize)
	}
}

// TestScenariosMatchWorker runs everywhere (no Worker needed): the scenario
// files load, and their limiter is the one wrangler.jsonc configures, so that
// the end-to-end tests and the prediction describe the Worker as it runs,
// and the burst has the closed loop's serving side.
func TestScenariosMatchWorker(t *testing.T) {
	raw, err := os.ReadFile("wrangler.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	// JSON with comments: this file has only whole-line // comments.
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	var cfg struct {
		Vars struct{ LIMIT_NAME, LIMIT, WINDOW_SECONDS string }
	}
	if err := json.Unmarshal([]byte(strings.Join(lines, "\n")), &cfg); err != nil {
		t.Fatalf("wrangler.jsonc: %v", err)
	}
	for _, file := range []string{sequentialScenario, burstScenario} {
		sc, err := scenario.Load(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		l := sc.Limiter
		got := fmt.Sprintf("name %s, limit %d, window %gs, %s, token %s %s, store %s",
			l.Name, l.Limit, l.Window.D().Seconds(), l.Algorithm, l.Token.From, l.Token.Name, sc.Store.Kind)
		want := fmt.Sprintf("name %s, limit %s, window %ss, fixed-window, token header X-Anon-Token, store memory",
			cfg.Vars.LIMIT_NAME, cfg.Vars.LIMIT, cfg.Vars.WINDOW_SECONDS)
		if got != want {
			t.Errorf("%s: limiter %s; the Worker (wrangler.jsonc) is %s", file, got, want)
		}
		if sc.Question == "" {
			t.Errorf("%s: no question in its opening comment", file)
		}
	}
	// The burst predicts with the closed loop's model of wrangler dev's
	// serving side: one model of one server.
	burst, err := scenario.Load(burstScenario)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := scenario.Load("closed-loop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(burst.Server, loop.Server) {
		t.Errorf("%s's server section %+v differs from closed-loop.yaml's %+v: keep the two alike", burstScenario, burst.Server, loop.Server)
	}
}
