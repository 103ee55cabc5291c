package attack

import (
	"context"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack/attacktest"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// The scenarios and target helpers the command's tests use too.
var (
	parse    = attacktest.Parse
	livePlan = attacktest.LivePlan
	serve    = attacktest.Serve
)

// runBuiltin attacks the built-in target over store with sc and returns the
// summary.
func runBuiltin(t testing.TB, sc *scenario.Scenario, store kv.Store, o Options) measure.Summary {
	t.Helper()
	url, cfg := serve(t, sc, store)
	o.Plan, o.URL, o.Limit, o.Window = livePlan(t, sc), url, cfg.Limit, cfg.Window
	s, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// within fails the test when d is longer than max: a guard against a run
// that ignores its bounds (not a timing assertion on speed).
func within(t testing.TB, what string, d, max time.Duration) {
	t.Helper()
	if d > max {
		t.Errorf("%s took %v, want at most %v: bounds ignored?", what, d, max)
	}
}

// newTestRecorder is a recorder for one population, limit 5 per 10 s.
func newTestRecorder(start time.Time) *measure.Recorder {
	return measure.NewRecorder(measure.Config{Limit: 5, Window: 10 * time.Second, Start: start,
		Populations: []measure.Population{{Name: "bot"}}})
}
