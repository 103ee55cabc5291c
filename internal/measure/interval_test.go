package measure

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestTrialInterval checks the spread of per-trial maxima behind the
// headline's "in 95% of trials at most ..." and the trial-p95 gate against
// values computed by hand. Quantiles are nearest-rank: the ceil(p*n)-th
// smallest. The mean's interval is mean ± 1.96 * sqrt(sample variance / n).
func TestTrialInterval(t *testing.T) {
	tests := []struct {
		name   string
		limit  int64
		trials []map[int64]int64 // each trial's histogram: allowed count -> key-windows
		maxes  []float64         // each trial's max ratio, in trial order
		want   Interval
	}{
		{
			name: "one trial", limit: 5,
			trials: []map[int64]int64{{5: 2, 10: 1}},
			maxes:  []float64{2},
			// n = 1: no spread, the mean's interval is the mean itself.
			want: Interval{Mean: 2, MeanLo: 2, MeanHi: 2, Lo: 2, Hi: 2, P95: 2},
		},
		{
			name: "four trials out of order", limit: 5,
			trials: []map[int64]int64{{5: 3, 10: 1}, {20: 1, 5: 7}, {15: 2}, {5: 1}},
			maxes:  []float64{2, 4, 3, 1},
			// sorted 1 2 3 4; mean 2.5; squares of deviations 2.25+0.25+0.25+2.25 = 5,
			// so the half-width is 1.96*sqrt(5/3/4) = 1.96*0.6454972 = 1.2651745;
			// Lo is the ceil(0.1) = 1st value, Hi the ceil(3.9) = 4th, P95 the ceil(3.8) = 4th.
			want: Interval{Mean: 2.5, MeanLo: 2.5 - 1.2651745, MeanHi: 2.5 + 1.2651745, Lo: 1, Hi: 4, P95: 4},
		},
		{
			name: "twenty trials", limit: 1,
			trials: twentyTrials(),
			maxes:  []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
			// mean 10.5; sum of squared deviations n(n^2-1)/12 = 665, so the
			// half-width is 1.96*sqrt(665/19/20) = 1.96*1.3228757 = 2.5928363;
			// Lo the ceil(0.5) = 1st value, Hi the ceil(19.5) = 20th, P95 the
			// ceil(19) = 19th: one trial in twenty went past it.
			want: Interval{Mean: 10.5, MeanLo: 10.5 - 2.5928363, MeanHi: 10.5 + 2.5928363, Lo: 1, Hi: 20, P95: 19},
		},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var trials []Trial
			for _, h := range tt.trials {
				trials = append(trials, Trial{Hist: h})
			}
			s := Summarize(Summary{Limiter: LimiterRef{Limit: tt.limit}}, tt.limit, trials)
			got := s.Overshoot.PerTrial
			if !slices.Equal(got.MaxRatios, tt.maxes) {
				t.Errorf("per-trial maxima %v, want %v", got.MaxRatios, tt.maxes)
			}
			g, w := got.MaxRatio, tt.want
			if !near(g.Mean, w.Mean) || !near(g.MeanLo, w.MeanLo) || !near(g.MeanHi, w.MeanHi) ||
				!near(g.Lo, w.Lo) || !near(g.Hi, w.Hi) || !near(g.P95, w.P95) {
				t.Errorf("interval %+v, want %+v", g, w)
			}
			// The gate on trial-p95 holds at the P95 and breaks just under it.
			if broken := (Threshold{Max: w.P95, At: "trial-p95"}).Check(&s); len(broken) != 0 {
				t.Errorf("-max-ratio %v -at trial-p95: broken %q, want it to hold", w.P95, broken)
			}
			if broken := (Threshold{Max: w.P95 - 0.01, At: "trial-p95"}).Check(&s); len(broken) != 1 {
				t.Errorf("-max-ratio %v -at trial-p95: broken %q, want one failure", w.P95-0.01, broken)
			}
		})
	}
}

// twentyTrials returns twenty trials, the i-th with one key-window that
// allowed i (and one that allowed 1).
func twentyTrials() []map[int64]int64 {
	var out []map[int64]int64
	for i := int64(1); i <= 20; i++ {
		out = append(out, map[int64]int64{1: 1, i: 1})
	}
	return out
}

// TestTrialHeadline checks the terminal summary's "in 95% of trials" line
// for the twenty trials above: at most 19 (the 19th of 20 maxima), mean
// 10.50 with its interval, and the central 95% of trials from 1 to 20.
func TestTrialHeadline(t *testing.T) {
	var trials []Trial
	for _, h := range twentyTrials() {
		trials = append(trials, Trial{Hist: h, Totals: Totals{Requests: 1}})
	}
	s := Summarize(Summary{Mode: "simulate", Limiter: LimiterRef{Limit: 1, Window: "60s"}}, 1, trials)
	var b strings.Builder
	if err := WriteText(&b, &s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"in 95% of trials at most 19 (19.00x); a trial's max ratio averages 10.50x (95% CI 7.91x..13.09x)",
		"95% of trials fall between 1.00x and 20.00x",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary does not say %q:\n%s", want, b.String())
		}
	}
}
