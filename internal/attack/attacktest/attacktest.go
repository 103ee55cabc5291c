// Package attacktest holds what the live runner's tests and the attack
// command's tests share: scenarios written for them, and a built-in target
// started on loopback for the length of a test.
package attacktest

import (
	"testing"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// SequentialYAML is one client sending one request at a time: on a
// linearizable store every window allows exactly the limit. A live run of
// 1.6 s covers three 500 ms windows at least in full; its request bound
// is far above what one client sends in that time (about 30k on an idle
// 2-core machine), so the duration ends it.
const SequentialYAML = `
name: seq
limiter: {name: t, limit: 5, window: 500ms}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
live: {duration: 1600ms, max_requests: 1000000}
`

// RaceYAML is 32 clients behind one identity: with latency between a read
// and its write they all read before anyone writes.
const RaceYAML = `
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

// Parse decodes a scenario written in a test.
func Parse(t testing.TB, yaml string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return sc
}

// LivePlan compiles sc for a live run, as the attack command does.
func LivePlan(t testing.TB, sc *scenario.Scenario) *plan.Plan {
	t.Helper()
	pl, err := plan.CompileLive(sc)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return pl
}

// Serve starts the built-in target for sc's live limiter over store on
// loopback until the test ends, and returns its URL and limiter config.
func Serve(t testing.TB, sc *scenario.Scenario, store kv.Store) (string, limiter.Config) {
	t.Helper()
	l, err := limiter.New(LivePlan(t, sc).Limiter)
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
