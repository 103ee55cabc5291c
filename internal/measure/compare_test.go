package measure

import (
	"math"
	"strings"
	"testing"
)

// TestCompareKeyWindows checks which live runs a comparison holds against
// the prediction: runs that saw as many key-windows as a trial of the
// model (or did not record how many) count; runs that saw another number
// (a window boundary fell in them) are kept out of the median and said.
// The largest read group's median is taken over the same runs (each run's
// is ten times its max ratio here).
func TestCompareKeyWindows(t *testing.T) {
	// A prediction of 10 trials, one key-window each, max ratios 2..3.8.
	pred := &Summary{Trials: 10, Overshoot: Overshoot{KeyWindows: 10, PerTrial: PerTrial{
		MaxRatio: Interval{Lo: 2, Hi: 3.8}, MaxRatios: []float64{2, 2.2, 2.4, 2.6, 2.8, 3, 3.2, 3.4, 3.6, 3.8}}}}
	run := func(ratio float64, kw int64) RepeatRun {
		return RepeatRun{MaxRatio: ratio, KeyWindows: kw, ReadGroup: int64(math.Round(10 * ratio))}
	}
	tests := []struct {
		name     string
		runs     []RepeatRun
		single   int64 // key-windows of a run without repeats
		measured float64
		excluded int
		note     string
	}{
		{name: "all like for like", runs: []RepeatRun{run(3, 1), run(2.6, 1), run(3.4, 1)}, measured: 3},
		{name: "one crossed a boundary", runs: []RepeatRun{run(3, 1), run(9, 2), run(3.4, 1)}, measured: 3.2, excluded: 1, note: "1 of 3 live runs kept out"},
		{name: "all crossed", runs: []RepeatRun{run(3, 2), run(9, 2), run(3.4, 2)}, measured: 3.4, note: "none is like for like, so all are kept"},
		{name: "older summary without key_windows", runs: []RepeatRun{run(3, 0), run(9, 0), run(3.4, 0)}, measured: 3.4},
		{name: "one run, like for like", single: 1, measured: 3},
		{name: "one run across a boundary", single: 2, measured: 3, note: "the live run saw 2 key-windows, a trial of the model 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Summary{Overshoot: Overshoot{KeyWindows: tc.single, Ratio: Stats{Max: 3}}}
			if tc.runs != nil {
				m.Repeats = NewRepeats(tc.runs)
			}
			c := Compare(pred, m)
			if c.MeasuredMaxRatio != tc.measured || c.Excluded != tc.excluded {
				t.Errorf("measured %v, excluded %d; want %v, %d", c.MeasuredMaxRatio, c.Excluded, tc.measured, tc.excluded)
			}
			if want := math.Round(10 * tc.measured); tc.runs != nil && c.MeasuredReadGroup != want {
				t.Errorf("measured read group %v, want %v (over the runs the max ratio is taken over)", c.MeasuredReadGroup, want)
			}
			if tc.note == "" && c.Note != "" || !strings.Contains(c.Note, tc.note) {
				t.Errorf("note %q, want one saying %q", c.Note, tc.note)
			}
		})
	}
}
