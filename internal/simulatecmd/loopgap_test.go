package simulatecmd

import (
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// loopGapYAML is a bot loop with no think time and a second one thinking
// 1 ms, 4 s live.
const loopGapYAML = `name: gap
limiter: {limit: 5, window: 10s}
store: {kind: kv}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 0s}
  - name: two
    clients: 2
    closed_loop: {concurrency: 2, think: 1ms}
live: {duration: 4s}
`

// TestLoopGap: -compare predicts closed loops with the live run's time
// beyond its store's latencies added to their constant think times, taken
// from the loops' cycles over the run's sending time, and says so. Here the
// run sent 500 + 1,000 requests over 1 + 4 slots in 4 s with the store's
// 4 ms a request: (5 x 4 s - 1,000 x 1 ms) / 1,500 - 4 ms = 8.667 ms. A
// run that overran its 4 s is taken over 4 s, one stopped at 2 s over 2 s
// ((10 s - 1 s) / 1,500 - 4 ms = 2 ms), and three repeated runs as one;
// a think time that is not constant, or that the user set, is kept with a
// note, and a run that did not state its store's time changes nothing.
func TestLoopGap(t *testing.T) {
	base, err := scenario.Parse("gap.yaml", []byte(loopGapYAML))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := base.With("traffic.two.closed_loop.think={dist: exponential, mean: 1s}")
	if err != nil {
		t.Fatal(err)
	}
	live := func(secs, store float64) *measure.Summary {
		s := &measure.Summary{Live: &measure.Live{DurationSecs: secs}, Populations: []measure.Population{{Name: "bot", Requests: 500}, {Name: "two", Requests: 1000}}}
		if store > 0 {
			s.Live.StoreMs = &measure.Stats{N: 1500, Mean: store}
		}
		return s
	}
	// repeated is s as attack -repeat n pools n runs like it: durations
	// and requests summed.
	repeated := func(n int, s *measure.Summary) *measure.Summary {
		s.Repeats = &measure.Repeats{Runs: make([]measure.RepeatRun, n)}
		for i := range s.Populations {
			s.Populations[i].Requests *= int64(n)
		}
		return s
	}
	tests := []struct {
		name     string
		sc       *scenario.Scenario
		measured *measure.Summary
		user     map[string]bool
		bot, two time.Duration // the think times predicted (two: when constant)
		note     string
	}{
		{"the store's time stated", base, live(4, 4), nil, 8667 * time.Microsecond, 9667 * time.Microsecond, "the model's closed loops think 8.667ms longer"},
		{"a run that overran", base, live(5.5, 4), nil, 8667 * time.Microsecond, 9667 * time.Microsecond, "in 4s"},
		{"a run stopped early", base, live(2, 4), nil, 2 * time.Millisecond, 3 * time.Millisecond, "in 2s"},
		{"three repeated runs", base, repeated(3, live(12, 4)), nil, 8667 * time.Microsecond, 9667 * time.Microsecond, "in 4s"},
		{"a think time set by the user", base, live(4, 4), map[string]bool{"traffic.two.closed_loop.think": true}, 0, time.Millisecond, "the think time of [two] is kept"},
		{"a think time not constant", exp, live(4, 4), nil, 0, 0, "the think time of [two] is kept"},
		{"no store time stated", base, live(4, 0), nil, 0, time.Millisecond, ""},
		{"no time beyond the store's", base, live(4, 20), nil, 0, time.Millisecond, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, notes, err := loopGap(tc.sc, tc.measured, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Traffic[0].ClosedLoop.Think.Value.D(); got != tc.bot {
				t.Errorf("bot's think %v, want %v", got, tc.bot)
			}
			if th := out.Traffic[1].ClosedLoop.Think; th.Dist != scenario.DistExponential && th.Value.D() != tc.two {
				t.Errorf("two's think %v, want %v", th, tc.two)
			}
			if (tc.note == "") != (len(notes) == 0) || (tc.note != "" && !strings.Contains(notes[0], tc.note)) {
				t.Errorf("notes %q, want one saying %q", notes, tc.note)
			}
		})
	}
	if base.Traffic[0].ClosedLoop.Think.Value != 0 {
		t.Errorf("the scenario given was changed: think %v", base.Traffic[0].ClosedLoop.Think)
	}
}
