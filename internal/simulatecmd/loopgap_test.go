package simulatecmd

import (
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// loopGapYAML has a bot loop with no think time, a loop with an
// exponential one and an open loop.
const loopGapYAML = `name: gap
limiter: {limit: 5, window: 10s}
store: {kind: kv}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 0s}
  - name: slow
    closed_loop: {concurrency: 1, think: {dist: exponential, mean: 1s}}
  - name: open
    open_loop: {rate: 1/s}
live: {duration: 4s}
`

// TestLoopGap: -compare predicts a closed loop with the live run's time
// beyond its store's latencies (the attacker's mean latency less the
// store's mean time) added to a constant think time, and says so; an
// exponential think time, or one the user set, is kept with a note; a run
// that did not state its store's time (a URL, the memory store) changes
// nothing.
func TestLoopGap(t *testing.T) {
	sc, err := scenario.Parse("gap.yaml", []byte(loopGapYAML))
	if err != nil {
		t.Fatal(err)
	}
	live := func(latency, store float64) *measure.Summary {
		lv := &measure.Live{LatencyMs: measure.Stats{N: 100, Mean: latency}}
		if store > 0 {
			lv.StoreMs = &measure.Stats{N: 100, Mean: store}
		}
		return &measure.Summary{Live: lv}
	}
	tests := []struct {
		name     string
		measured *measure.Summary
		user     map[string]bool
		think    time.Duration // the bot's, predicted
		notes    []string
	}{
		{"the store's time stated", live(6.5, 4.75), nil, 1750 * time.Microsecond,
			[]string{"the model's closed loops think that much longer: the live run's requests took 1.75 ms", "think time of [slow] is kept"}},
		{"the bot's think set by the user", live(6.5, 4.75), map[string]bool{"traffic.bot.closed_loop.think": true}, 0,
			[]string{"think time of [bot slow] is kept"}},
		{"no store time stated", live(6.5, 0), nil, 0, nil},
		{"no time beyond the store's", live(4, 4.75), nil, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, notes, err := loopGap(sc, tc.measured, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Traffic[0].ClosedLoop.Think; got.Value.D() != tc.think || (got.Dist != "" && got.Dist != scenario.DistConstant) {
				t.Errorf("bot's think %v, want constant %v", got, tc.think)
			}
			if got := out.Traffic[1].ClosedLoop.Think; got.Dist != scenario.DistExponential || got.Mean.D() != time.Second {
				t.Errorf("slow's think %v, want exponential mean 1s, as written", got)
			}
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tc.notes))
			}
			for i, w := range tc.notes {
				if !strings.Contains(notes[i], w) {
					t.Errorf("note %q does not say %q", notes[i], w)
				}
			}
		})
	}
	if sc.Traffic[0].ClosedLoop.Think.Value != 0 {
		t.Errorf("the scenario given was changed: think %v", sc.Traffic[0].ClosedLoop.Think)
	}
}
