package attackcmd

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// sequentialYAML is one client sending one request at a time: on a
// linearizable store every window allows exactly the limit.
const sequentialYAML = `
name: seq
limiter: {name: t, limit: 5, window: 500ms}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
live: {duration: 1600ms, max_requests: 20000}
`

// raceYAML is 32 clients behind one identity: with latency between a read
// and its write they all read before anyone writes.
const raceYAML = `
name: race
limiter: {name: t, limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bots
    clients: 32
    identity: {token: shared, ip: none}
    closed_loop: {concurrency: 1}
live: {duration: 600ms}
`

// parse decodes a scenario written in the test.
func parse(t testing.TB, yaml string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return sc
}

// livePlan compiles sc for a live run.
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

// within fails the test when d is longer than max: a guard against a run
// that ignores its bounds (not a timing assertion on speed).
func within(t testing.TB, what string, d, max time.Duration) {
	t.Helper()
	if d > max {
		t.Errorf("%s took %v, want at most %v: bounds ignored?", what, d, max)
	}
}
