package attack

import (
	"context"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// parse decodes a scenario written in the test.
func parse(t testing.TB, yaml string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return sc
}

// livePlan compiles sc for a live run, as the attack command does.
func livePlan(t testing.TB, sc *scenario.Scenario) *plan.Plan {
	t.Helper()
	pl, err := plan.CompileLive(sc)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return pl
}

// serve starts the built-in target for sc's live limiter over store and
// returns its URL and limiter config.
func serve(t testing.TB, sc *scenario.Scenario, store kv.Store) (string, limiter.Config) {
	t.Helper()
	l, err := limiter.New(livePlan(t, sc).Limiter)
	if err != nil {
		t.Fatal(err)
	}
	h, err := target.New(target.Config{Limiter: l, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := target.Start("127.0.0.1:0", h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL(), l.Config()
}

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
