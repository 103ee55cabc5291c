package calibrate

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// modelRun is a live run the model explains exactly: the summary of the
// scenario at concurrency c with server.rtt at rtt, as attack would have
// written it, with the scenario that predicts it (rtt unset).
func modelRun(t *testing.T, sc *scenario.Scenario, c, rtt string) Run {
	t.Helper()
	return concurrencyRun(t, sc, c, "memory", "server.rtt="+rtt)
}

// concurrencyRun is the summary, as attack would have written it over
// store, of scenario sc at concurrency c with the truth's own values set
// (none: sc's), with the scenario that predicts it (truth unset).
func concurrencyRun(t *testing.T, sc *scenario.Scenario, c, store string, truth ...string) Run {
	t.Helper()
	run, err := sc.With("traffic.bot.closed_loop.concurrency=" + c)
	if err != nil {
		t.Fatal(err)
	}
	made, err := run.With(truth...)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.CompileLive(made)
	if err != nil {
		t.Fatal(err)
	}
	trials, err := model.RunTrials(pl, model.Options{Seed: 7, Trials: 4})
	if err != nil {
		t.Fatal(err)
	}
	s := measure.Summarize(model.Base(pl, 7), 5, trials)
	m := &measure.Summary{Mode: "attack", Complete: true, Trials: 1, Totals: measure.Totals{Requests: 10, Allowed: 10},
		Limiter:   measure.LimiterRef{Store: store, Limit: 5},
		Overshoot: measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{N: 1, Max: measure.Median(s.Overshoot.PerTrial.MaxRatios)}}}
	return Run{Path: "c" + c + ".json", Measured: m, Scenario: run, File: sc, Notes: []string{"loaded c" + c}}
}

// TestFitReportWrite drives the package as simulate -calibrate does,
// without the command: Inputs prints the runs' notes and makes the
// parameters, Fit lowers the loss from its start, Report names every
// section, and Write puts calibrated.yaml (holding the fitted value) and
// the report under out.
func TestFitReportWrite(t *testing.T) {
	sc, err := scenario.Parse("cal.yaml", []byte(calibrateScenario))
	if err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	runs, params, err := Inputs([]Run{modelRun(t, sc, "2", "20ms"), modelRun(t, sc, "8", "20ms")},
		Options{Fit: []string{"server.rtt=1ms"}, Notes: &notes})
	if err != nil {
		t.Fatal(err)
	}
	if got := notes.String(); got != "simulate: note: loaded c2\nsimulate: note: loaded c8\n" {
		t.Errorf("notes %q, want each run's loading notes in order", got)
	}
	var stages []string
	res, err := Fit(runs, params, Settings{Trials: 4, Seed: 7, Stage: func(s string) { stages = append(stages, s) }})
	if err != nil {
		t.Fatal(err)
	}
	f := &Fitter{Runs: runs, Params: params, Trials: 4, Seed: 7}
	start, err := f.Loss([]float64{params[0].Init}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.Loss < start) || len(res.Loo) != 2 || strings.Join(stages, ";") != "fit;identifiability;holding the unidentified at their start;leave-one-out 1 of 2;leave-one-out 2 of 2" {
		t.Errorf("loss %v from %v, %d leave-one-out, stages %v", res.Loss, start, len(res.Loo), stages)
	}
	text, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"calibrated on 2 live run(s), 4 trials per evaluation, seed 7", "server.rtt", "fit per run", "leave-one-out", "c8.json"} {
		if !strings.Contains(text, want) {
			t.Errorf("report does not say %q:\n%s", want, text)
		}
	}
	out := t.TempDir()
	cal, rep, err := res.Write(out, text)
	if err != nil {
		t.Fatal(err)
	}
	got, err := scenario.Load(cal)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "server.rtt     mean "+got.Server.RTT.String()+" ") {
		t.Errorf("calibrated.yaml holds rtt %s, the report says:\n%s", got.Server.RTT, text)
	}
	if b, err := os.ReadFile(rep); err != nil || !strings.Contains(string(b), text) || filepath.Dir(rep) != out {
		t.Errorf("report file %s: %v, holds %q", rep, err, b)
	}
}

// TestFitHoldsTheUnidentified: a fitted parameter the runs cannot tell
// (a replication lag, fitted to runs that read only the primary) is
// written at its start, held as a probe, not where the search's walk
// left it, and the report says so.
func TestFitHoldsTheUnidentified(t *testing.T) {
	sc, err := scenario.Parse("redis.yaml", []byte(`name: redis
limiter: {limit: 5, window: 10s}
store: {kind: redis, redis: {service: {dist: constant, value: 50us}}}
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
live: {duration: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := []Run{concurrencyRun(t, sc, "2", "redis"), concurrencyRun(t, sc, "8", "redis")}
	runs, params, err := Inputs(runs, Options{Fit: []string{"store.redis.replication_lag=3ms"}, Notes: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(runs, params, Settings{Trials: 4, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Probes) != 1 || res.X[0] != params[0].Init {
		t.Errorf("replication_lag at ln scale %v with %d unidentified, want held at its start %v and still probed", res.X[0], len(res.Probes), params[0].Init)
	}
	text, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"its start, held there: these runs cannot identify it", "x0.5 and x2 of its start, where it is held"} {
		if !strings.Contains(text, want) {
			t.Errorf("report does not say %q:\n%s", want, text)
		}
	}
}
