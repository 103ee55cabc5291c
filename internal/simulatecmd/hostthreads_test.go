package simulatecmd

import (
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// hostThreadsYAML is a redis scenario as a newcomer writes it: no
// store.redis section at all.
const hostThreadsYAML = `name: threads
limiter: {limit: 20, window: 10s}
store: {kind: redis}
traffic:
  - name: caller
    closed_loop: {concurrency: 8, think: 0s}
live: {duration: 3s}
`

// TestHostThreads: a live run whose Redis servers shared attack's host
// (live.store_host_cores) is predicted with that many store.redis.threads
// when the scenario leaves them out, with a note saying so; a scenario
// that sets them, a -set of them, a run that does not say, and a store
// that is not redis keep the scenario's.
func TestHostThreads(t *testing.T) {
	base, err := scenario.Parse("threads.yaml", []byte(hostThreadsYAML))
	if err != nil {
		t.Fatal(err)
	}
	with := func(sets ...string) *scenario.Scenario {
		sc, err := base.With(sets...)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	run := func(cores int) *measure.Summary {
		return &measure.Summary{Limiter: measure.LimiterRef{Store: "redis"}, Live: &measure.Live{Target: "redis", StoreHostCores: cores}}
	}
	tests := []struct {
		name     string
		sc       *scenario.Scenario
		measured *measure.Summary
		user     map[string]bool
		want     int // store.redis.threads predicted with (0: unset)
		note     bool
	}{
		{"unset, the host's 2 cores", base, run(2), nil, 2, true},
		{"unset, a section without threads", with("store.redis.down_after=1s"), run(4), nil, 4, true},
		{"set in the scenario", with("store.redis.threads=1"), run(2), nil, 1, false},
		{"set by -set", base, run(2), map[string]bool{"store.redis.threads": true}, 0, false},
		{"the run does not say", base, run(0), nil, 0, false},
		{"no live section", base, &measure.Summary{Limiter: measure.LimiterRef{Store: "redis"}}, nil, 0, false},
		{"more cores than the bound", base, run(scenario.MaxRedisThreads + 5), nil, scenario.MaxRedisThreads, true},
		{"not on redis", with("store.kind=memory"), &measure.Summary{Live: &measure.Live{StoreHostCores: 2}}, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, notes, err := targetProfile(tt.sc, tt.measured, tt.user)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			if r := out.Store.Redis; r != nil {
				got = r.Threads
			}
			if got != tt.want {
				t.Errorf("store.redis.threads %d, want %d", got, tt.want)
			}
			said := strings.Contains(strings.Join(notes, "\n"), "does not set store.redis.threads")
			if said != tt.note {
				t.Errorf("notes %q: want a note on the threads %v", notes, tt.note)
			}
		})
	}
}
