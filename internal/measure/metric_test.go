package measure

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMetricValue(t *testing.T) {
	s := &Summary{
		Limiter: LimiterRef{Limit: 5},
		Totals:  Totals{Requests: 1000, FailOpen: 50, Errors: 10},
		Overshoot: Overshoot{KeyWindows: 10, Ratio: Stats{P50: 1, P95: 1.4, P99: 2, Max: 3, Mean: 1.2},
			Reference:          Reference{Allowed: 40, Excess: 12, MaxExcess: 6, LetThroughShare: 0.5},
			MaxInIntervalRatio: 4, PerTrial: PerTrial{MaxRatio: Interval{P95: 2.5}}},
		Populations: []Population{{Name: "bot", Requests: 600, FalseDenials: 7},
			{Name: "users", Legitimate: true, Requests: 400, Denied: 120, FalseDenials: 100}},
		KV:   KVWork{Observed: true},
		Cost: Cost{USDPerMillionRequests: 0.75},
		Live: &Live{LatencyMs: Stats{N: 3, P50: 2, P95: 9, P99: 12}},
	}
	tests := []struct {
		name string
		want float64
	}{
		{"ratio.p50", 1}, {"ratio.p95", 1.4}, {"ratio.p99", 2}, {"ratio.max", 3}, {"ratio.mean", 1.2},
		{"allowed.p50", 5}, {"allowed.p95", 7}, {"allowed.p99", 10}, {"allowed.max", 15},
		{"trial_max.p95", 2.5}, {"interval.max", 4},
		{"reference.excess", 12}, {"worst_key.excess", 6}, {"let_through.share", 0.5},
		{"false_denials.rate", 0.25}, {"legit_denied.rate", 0.3}, {"fail_open.rate", 0.05}, {"errors.rate", 0.01},
		{"latency.p50", 2}, {"latency.p95", 9}, {"latency.p99", 12},
		{"cost.usd_per_million", 0.75},
	}
	if len(tests) != len(Metrics) {
		t.Errorf("%d metrics tested, %d defined", len(tests), len(Metrics))
	}
	for _, tt := range tests {
		got, ok, err := MetricValue(s, tt.name)
		if err != nil || !ok || got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("MetricValue(%s) = %v, %v, %v; want %v", tt.name, got, ok, err, tt.want)
		}
	}
	// Nothing measured: no metric is ok.
	for _, m := range Metrics {
		if v, ok := m.Value(&Summary{}); ok {
			t.Errorf("%s of an empty summary = %v, ok; want not measured", m.Name, v)
		}
	}
	if _, _, err := MetricValue(s, "ratio.p90"); err == nil || !strings.Contains(err.Error(), "interval.max") {
		t.Errorf("unknown metric: err %v, want one listing the names", err)
	}
}

func TestHeadlineMetric(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "ratio.max"}, {"interval.max", "interval.max"}, {"no.such", "ratio.max"},
	} {
		if got := (ScenarioRef{Headline: tt.in}).HeadlineMetric().Name; got != tt.want {
			t.Errorf("HeadlineMetric(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSweepJSON(t *testing.T) {
	point := func(v string, fd int64, maxRatio float64) Point {
		return Point{Params: []Param{{"limiter.error_policy", v}}, Summary: &Summary{
			Limiter:     LimiterRef{Limit: 5},
			Totals:      Totals{Requests: 100},
			Overshoot:   Overshoot{KeyWindows: 3, Ratio: Stats{Max: maxRatio}},
			Populations: []Population{{Name: "users", Legitimate: true, Requests: 50, FalseDenials: fd}},
		}}
	}
	s := &Summary{Scenario: ScenarioRef{Headline: "false_denials.rate"},
		Points: []Point{point("fail-open", 0, 40), point("fail-closed", 10, 1)}}
	SetWorst(s)
	w := s.Worst
	if w == nil || w.Metric != "false_denials.rate" || w.Value != 0.2 || w.Params[0].Value != "fail-closed" {
		t.Fatalf("worst = %+v", w)
	}
	if w.Values["ratio.max"] != 1 || w.Highest["ratio.max"] != 40 {
		t.Errorf("values %v, highest %v", w.Values, w.Highest)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"totals", "overshoot", "populations", "kv", "cost"} {
		if _, ok := top[gone]; ok {
			t.Errorf("a sweep's summary.json has a top-level %q", gone)
		}
	}
	for _, kept := range []string{"worst", "points", "scenario", "limiter"} {
		if _, ok := top[kept]; !ok {
			t.Errorf("a sweep's summary.json has no top-level %q", kept)
		}
	}
	// A single run keeps every field, and reads back the same.
	one, _ := json.Marshal(point("x", 1, 2).Summary)
	if !strings.Contains(string(one), `"totals"`) || strings.Contains(string(one), `"worst"`) {
		t.Errorf("a single run's summary.json: %s", one)
	}
}

func TestFreePlan(t *testing.T) {
	tests := []struct {
		name                   string
		reads, writes          float64 // quota demand over the run, all trials
		trialSecs              float64
		trials                 int
		keyWindows             int64
		windowSecs             float64
		wantReadsDay, wantWDay float64
	}{
		// A 2-minute run across a daily boundary: one key, two key-windows
		// a trial, 4 writes each; 350 reads/s. A steady day has one window:
		// 4 writes per key-window x 2 keys (the run cannot tell one key in
		// two windows from two keys), not 4 x 720.
		{"short run at a boundary", 350 * 120 * 10, 8 * 10, 120, 10, 20, 86400, 350 * 86400, 8},
		// A whole day: the run's own rates.
		{"a day", 1000, 4000, 86400, 1, 1000, 86400, 1000, 4000},
		// Short windows: every window of the day counts.
		{"minute windows", 180, 12, 180, 1, 3, 60, 86400, 4 * 1440},
		// No key-window: rates.
		{"no key-window", 100, 10, 100, 1, 0, 60, 86400, 8640},
	}
	for _, tt := range tests {
		r, w := steadyDay(tt.reads, tt.writes, tt.trialSecs*float64(tt.trials), tt.trialSecs, tt.trials, tt.keyWindows, tt.windowSecs)
		if r < tt.wantReadsDay-1e-6 || r > tt.wantReadsDay+1e-6 || w < tt.wantWDay-1e-6 || w > tt.wantWDay+1e-6 {
			t.Errorf("%s: steadyDay = %v reads, %v writes; want %v, %v", tt.name, r, w, tt.wantReadsDay, tt.wantWDay)
		}
	}
	for _, tt := range []struct {
		c    Cost
		want string
	}{
		{Cost{}, "on the free plan, both the 100,000 reads and the 1,000 writes a day last the day"},
		{Cost{FreeReadsExhaustedAfterSecs: 285}, "on the free plan, reads run out first: the 100,000 a day are gone at 00:04 UTC; the 1,000 writes last the day"},
		{Cost{FreeWritesExhaustedAfterSecs: 12000, FreeReadsExhaustedAfterSecs: 40000}, "on the free plan, writes run out first: the 1,000 a day are gone at 03:20 UTC, the 100,000 reads at 11:06 UTC"},
	} {
		if got := FreePlanSentence(tt.c); got != tt.want {
			t.Errorf("FreePlanSentence(%+v) =\n %q\nwant %q", tt.c, got, tt.want)
		}
	}
}
