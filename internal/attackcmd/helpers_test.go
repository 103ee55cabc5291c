package attackcmd

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack/attacktest"
)

// The scenarios and target helpers the runner's tests use too.
const (
	sequentialYAML = attacktest.SequentialYAML
	raceYAML       = attacktest.RaceYAML
)

var (
	parse    = attacktest.Parse
	livePlan = attacktest.LivePlan
	serve    = attacktest.Serve
)

// within fails the test when d is longer than max: a guard against a run
// that ignores its bounds (not a timing assertion on speed).
func within(t testing.TB, what string, d, max time.Duration) {
	t.Helper()
	if d > max {
		t.Errorf("%s took %v, want at most %v: bounds ignored?", what, d, max)
	}
}
