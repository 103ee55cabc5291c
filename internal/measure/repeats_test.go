package measure

import (
	"strings"
	"testing"
)

// liveRun is a repeat's summary as attack writes it: its live section
// and, from its trial, its totals and overshoot.
func liveRun(complete bool, secs, offered, achieved float64, status map[string]int64, lat Stats, tr Trial) Summary {
	s := Summarize(Summary{Mode: "attack", Complete: complete, Limiter: LimiterRef{Limit: 5}}, 5, []Trial{tr})
	s.Live = &Live{URL: "http://127.0.0.1:1", Target: "memory", DurationSecs: secs, OfferedRate: offered, AchievedRate: achieved,
		Status: status, LatencyMs: lat, LatencyNote: "note.", Ambiguous: 1}
	return s
}

// TestPooledLive checks the live section of repeated runs: statuses and
// ambiguous responses summed, rates weighted by each run's time, latency
// the median of the runs' percentiles (max the most, n the sum), and the
// note saying so; the first run's URL and target; the warm-up requests
// summed, the soak each run's.
func TestPooledLive(t *testing.T) {
	sums := []Summary{
		liveRun(true, 1, 10, 8, map[string]int64{"200": 5, "429": 3}, Stats{N: 8, Mean: 2, P50: 2, P95: 4, P99: 5, Max: 6}, Trial{}),
		liveRun(true, 3, 20, 12, map[string]int64{"200": 5, "429": 9}, Stats{N: 14, Mean: 4, P50: 3, P95: 6, P99: 9, Max: 10}, Trial{}),
		liveRun(true, 0, 0, 0, map[string]int64{"503": 1}, Stats{N: 1, Mean: 9, P50: 9, P95: 9, P99: 9, Max: 9}, Trial{}),
	}
	for i := range sums {
		sums[i].Live.WarmupRequests, sums[i].Live.SoakSeconds = int64(100*(i+1)), 1
	}
	l := PooledLive(sums)
	if l.WarmupRequests != 600 || l.SoakSeconds != 1 {
		t.Errorf("warm-up requests %d, soak %gs: want their sum 600 and each run's 1 s", l.WarmupRequests, l.SoakSeconds)
	}
	if l.Status["200"] != 10 || l.Status["429"] != 12 || l.Status["503"] != 1 || l.Ambiguous != 3 {
		t.Errorf("statuses %v, ambiguous %d: want the sums 10, 12, 1 and 3", l.Status, l.Ambiguous)
	}
	if l.DurationSecs != 4 || l.OfferedRate != 17.5 || l.AchievedRate != 11 {
		t.Errorf("duration %v, offered %v, achieved %v: want 4, (10+60)/4 = 17.5 and (8+36)/4 = 11", l.DurationSecs, l.OfferedRate, l.AchievedRate)
	}
	if want := (Stats{N: 23, Mean: 4, P50: 3, P95: 6, P99: 9, Max: 10}); l.LatencyMs != want {
		t.Errorf("latency %+v, want %+v", l.LatencyMs, want)
	}
	if l.URL != "http://127.0.0.1:1" || l.Target != "memory" || !strings.HasPrefix(l.LatencyNote, "note. Over 3 repeated runs") {
		t.Errorf("url %q, target %q, note %q", l.URL, l.Target, l.LatencyNote)
	}
	if one := PooledLive(sums[:1]); one.LatencyNote != "note." {
		t.Errorf("one run's note %q, want its own", one.LatencyNote)
	}
}

// TestPoolRepeats checks the one summary of repeated runs: their trials
// pooled (trials is the runs' count, per_trial one entry each, totals
// summed), repeats listing each run under its id with the spread over
// them, and complete only when every planned run ran and completed.
func TestPoolRepeats(t *testing.T) {
	lat := Stats{N: 2, P50: 2, P99: 4}
	a := Trial{Totals: Totals{Requests: 8, Allowed: 5, Denied: 3}, Hist: map[int64]int64{5: 1}}
	b := Trial{Totals: Totals{Requests: 9, Allowed: 7, Denied: 2}, Hist: map[int64]int64{7: 1}}
	sums := []Summary{liveRun(true, 1, 8, 8, nil, lat, a), liveRun(true, 1, 9, 9, nil, lat, b)}
	sums[0].KV.Observed = true
	tests := []struct {
		name     string
		sums     []Summary
		complete bool
		want     bool
	}{
		{"all ran", sums, true, true},
		{"series cut short", sums, false, false},
		{"a run interrupted", []Summary{sums[0], liveRun(false, 1, 9, 9, nil, lat, b)}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := PoolRepeats(tc.sums, []Trial{a, b}, []string{"x-r1", "x-r2"}, 7, 5, tc.complete)
			if s.Complete != tc.want {
				t.Errorf("complete %v, want %v", s.Complete, tc.want)
			}
			if s.Trials != 2 || s.Totals.Allowed != 12 || s.Seed != 7 || s.Mode != "attack" || !s.KV.Observed || len(s.Overshoot.PerTrial.MaxRatios) != 2 {
				t.Errorf("trials %d, allowed %d, seed %d, mode %q, kv observed %v, per-trial %v", s.Trials, s.Totals.Allowed, s.Seed, s.Mode, s.KV.Observed, s.Overshoot.PerTrial.MaxRatios)
			}
			r := s.Repeats
			if r == nil || len(r.Runs) != 2 || r.Runs[0].RunID != "x-r1" || r.Runs[1].Allowed != 7 || r.Runs[1].MaxRatio != 1.4 ||
				r.MaxRatio != (Spread{Median: 1.2, Min: 1, Max: 1.4}) || r.Runs[0].LatencyP99Ms != 4 {
				t.Errorf("repeats %+v", r)
			}
			if s.Live == nil || s.Live.DurationSecs != 2 {
				t.Errorf("live %+v, want the runs' pooled", s.Live)
			}
		})
	}
}
