package measure

import (
	"math"
	"slices"
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

// mechPrediction is a prediction of 10 trials, one key-window each (max
// ratios 2..3.8), each trial with 100 writes of which 76-85 got a 429, 6-15
// fail-opens in 1,000 requests, no lost updates or stale reads in 50 reads
// of a written key, and latency p50 2-2.9 ms, p99 80-89 ms.
func mechPrediction() *Summary {
	p := &Summary{Mode: "simulate", Trials: 10, Limiter: LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, ErrorPolicy: "fail-open"},
		Totals: Totals{Requests: 10000}, Overshoot: Overshoot{KeyWindows: 10, PerTrial: PerTrial{
			MaxRatio: Interval{Lo: 2, Hi: 3.8}, MaxRatios: []float64{2, 2.2, 2.4, 2.6, 2.8, 3, 3.2, 3.4, 3.6, 3.8}}}}
	p.Mechanism = &Mechanism{}
	for i := range 10 {
		p.Mechanism.Trials = append(p.Mechanism.Trials, MechanismTrial{Requests: 1000, FailOpen: int64(6 + i), Writes: 100, RateLimited: int64(76 + i),
			Committed: int64(24 - i), ReadsOfWritten: 50, LatencyP50Ms: 2 + float64(i)/10, LatencyP99Ms: 80 + float64(i)})
	}
	return p
}

// mechMeasured is a live run on the built-in eventual store that agrees
// with mechPrediction, edited by edit.
func mechMeasured(edit func(*Summary)) *Summary {
	m := &Summary{Mode: "attack", Trials: 1, Limiter: LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, ErrorPolicy: "fail-open"},
		Totals:    Totals{Requests: 1000, FailOpen: 10},
		Overshoot: Overshoot{KeyWindows: 1, Ratio: Stats{N: 1, Max: 3}},
		KV:        KVWork{Observed: true, Writes: 100, WriteErrors: 80, WriteRateLimited: 80, Visibility: []VisibilityPoint{{Reads: 50, Fresh: 50}}},
		LatencyMs: &Stats{N: 1000, P50: 2.5, P99: 85},
		Live:      &Live{Target: "eventual"}}
	if edit != nil {
		edit(m)
	}
	return m
}

// TestCompareMechanism checks the verdict: it holds only like for like
// with the headline and every observed figure of the mechanism inside
// their bands; a live store with another write limit (its 429 rate far
// from the model's) does not hold although the headline agrees; runs that
// are not like for like cannot be judged, and with no key-window there is
// no error figure.
func TestCompareMechanism(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Summary)
		pred    func(*Summary) // edits the prediction, when set
		verdict string
		outside []string
		why     []string // each must appear in Why
		noError bool
	}{
		{name: "agrees", verdict: VerdictHolds},
		{name: "another write limit", edit: func(m *Summary) { m.KV.WriteRateLimited, m.KV.WriteErrors = 0, 0 },
			verdict: VerdictFails, outside: []string{CheckRateLimited}, why: []string{"the mechanism behind it is not the model's", "write_429.rate 0%"}},
		{name: "more fail-opens and slower", edit: func(m *Summary) { m.Totals.FailOpen = 200; m.LatencyMs.P99 = 250 },
			verdict: VerdictFails, outside: []string{CheckFailOpen, CheckLatencyP99}},
		{name: "headline outside", edit: func(m *Summary) { m.Overshoot.Ratio.Max = 9 },
			verdict: VerdictFails, outside: []string{"ratio.max"}},
		{name: "lost updates live", edit: func(m *Summary) { m.KV.LostUpdates = 15 },
			verdict: VerdictFails, outside: []string{CheckLostUpdates}},
		{name: "memory store sees no lost updates", edit: func(m *Summary) { m.KV.LostUpdates = 15; m.Live.Target = "memory" },
			verdict: VerdictHolds, why: []string{"not observed live", "lost_update.rate", "stale_read.rate"}},
		// Redis counts both for a counting limiter (redis.Ledger): a run
		// reading stale counts from lagging replicas is judged on them.
		{name: "redis replica reads under lag", edit: func(m *Summary) { m.Live.Target = "redis"; m.KV.StaleReads = 30 },
			verdict: VerdictFails, outside: []string{CheckStaleReads}, why: []string{"stale_read.rate 60%"}},
		{name: "redis lost updates", edit: func(m *Summary) { m.Live.Target = "redis"; m.KV.LostUpdates = 15 },
			verdict: VerdictFails, outside: []string{CheckLostUpdates}},
		{name: "a URL hides its store", edit: func(m *Summary) { m.KV = KVWork{}; m.Live.Target = "url" },
			verdict: VerdictHolds, why: []string{"write_429.rate"}},
		{name: "no key-window", edit: func(m *Summary) { m.Overshoot = Overshoot{} },
			verdict: VerdictCannotJudge, why: []string{"no key-window"}, noError: true},
		{name: "across a window boundary", edit: func(m *Summary) { m.Overshoot.KeyWindows = 2 },
			verdict: VerdictCannotJudge, why: []string{"saw 2 key-windows"}},
		{name: "another limit", edit: func(m *Summary) { m.Limiter.Limit = 7 },
			verdict: VerdictCannotJudge, why: []string{"the limiters differ"}},
		// An atomic update races nothing the read-then-write races: the
		// same algorithm and limit are not the same limiter.
		{name: "an atomic update against read-then-write", edit: func(m *Summary) { m.Limiter.Update = "atomic" },
			verdict: VerdictCannotJudge, why: []string{"the limiters differ", "atomic fixed-window"}},
		{name: "another gcra burst", edit: func(m *Summary) { m.Limiter.Burst = 3 },
			verdict: VerdictCannotJudge, why: []string{"the limiters differ", "(burst 3)"}},
		// The attacker's latency holds the HTTP hop; the target's own time
		// is what the model predicts, and is held against it when stated.
		{name: "the hop, without the target's time", edit: func(m *Summary) { m.LatencyMs.P50 = 9 },
			verdict: VerdictFails, outside: []string{CheckLatencyP50}},
		{name: "the hop, with the target's time", edit: func(m *Summary) {
			m.LatencyMs.P50 = 9
			st := *m.LatencyMs
			m.Live.ServiceMs = &st
			m.Live.ServiceMs.P50 = 2.5
		}, verdict: VerdictHolds},
		{name: "slow at the target", edit: func(m *Summary) {
			st := *m.LatencyMs
			m.Live.ServiceMs = &st
			m.Live.ServiceMs.P50 = 9
		}, verdict: VerdictFails, outside: []string{CheckLatencyP50}, why: []string{"at the target"}},
		// Over the eventual store the target also states what its store's
		// modeled latencies stood for: that, without the target's own time,
		// is what the model's latency is made of, and is held against it.
		{name: "the target's own time, its store's unstated", edit: func(m *Summary) {
			m.Live.ServiceMs = &Stats{N: 1000, P50: 4, P99: 85}
		}, verdict: VerdictFails, outside: []string{CheckLatencyP50}},
		{name: "the target's own time, its store's stated", edit: func(m *Summary) {
			m.Live.ServiceMs = &Stats{N: 1000, P50: 4, P99: 85}
			m.Live.StoreMs = &Stats{N: 1000, P50: 2.5, P99: 84}
		}, verdict: VerdictHolds},
		{name: "a slower store, stated", edit: func(m *Summary) {
			m.Live.ServiceMs = &Stats{N: 1000, P50: 4, P99: 201}
			m.Live.StoreMs = &Stats{N: 1000, P50: 2.5, P99: 200}
		}, verdict: VerdictFails, outside: []string{CheckLatencyP99}, why: []string{"latency.p99_ms 200 ms of the target's store against 80 ms to 89 ms"}},
		// A model that holds each request's own time at its host
		// (store.redis.request_service) predicts the attacker's clock, as
		// calibrate fits it: that is held against it, not the target's.
		{name: "the request's own time modeled, the target's faster", pred: clockClient, edit: func(m *Summary) {
			m.Live.ServiceMs = &Stats{N: 1000, P50: 0.5, P99: 20}
		}, verdict: VerdictHolds},
		{name: "the request's own time modeled, the attacker's slower", pred: clockClient, edit: func(m *Summary) {
			m.LatencyMs.P50 = 9
			st := *m.LatencyMs
			m.Live.ServiceMs = &st
			m.Live.ServiceMs.P50 = 2.5
		}, verdict: VerdictFails, outside: []string{CheckLatencyP50}, why: []string{"latency.p50_ms 9 ms against"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pred := mechPrediction()
			if tc.pred != nil {
				tc.pred(pred)
			}
			c := Compare(pred, mechMeasured(tc.edit))
			if c.Verdict != tc.verdict || !slices.Equal(c.Outside, tc.outside) {
				t.Errorf("verdict %q, outside %v; want %q, %v (why: %s)", c.Verdict, c.Outside, tc.verdict, tc.outside, c.Why)
			}
			if c.LikeForLike != (tc.verdict != VerdictCannotJudge) {
				t.Errorf("like for like %v with verdict %q", c.LikeForLike, c.Verdict)
			}
			for _, w := range tc.why {
				if !strings.Contains(c.Why, w) {
					t.Errorf("why %q does not say %q", c.Why, w)
				}
			}
			if (c.Verdict == VerdictHolds) != (c.Do == "") {
				t.Errorf("verdict %q with what to do %q", c.Verdict, c.Do)
			}
			if _, ok := c.RelErr(); ok == tc.noError {
				t.Errorf("relative error given: %v, want %v", ok, !tc.noError)
			}
			if len(c.Checks) != len(mechanismFigures) {
				t.Errorf("%d checks, want %d", len(c.Checks), len(mechanismFigures))
			}
		})
	}
}

// clockClient makes a prediction's latency the attacker's clock.
func clockClient(s *Summary) { s.LatencyClock = ClockClient }

// TestCompareMechanismRepeats: with repeats, each figure is the median
// over the runs kept (a run that crossed a window boundary is left out of
// it as out of the headline), and each run's latency is its own.
func TestCompareMechanismRepeats(t *testing.T) {
	m := mechMeasured(nil)
	m.Repeats = NewRepeats([]RepeatRun{{MaxRatio: 3, KeyWindows: 1, LatencyP50Ms: 2.5, LatencyP99Ms: 85},
		{MaxRatio: 9, KeyWindows: 2, LatencyP50Ms: 20, LatencyP99Ms: 900}, {MaxRatio: 3.2, KeyWindows: 1, LatencyP50Ms: 2.6, LatencyP99Ms: 86}})
	m.Mechanism = &Mechanism{Trials: []MechanismTrial{
		{Requests: 1000, FailOpen: 10, Writes: 100, RateLimited: 80, Committed: 20, ReadsOfWritten: 50},
		{Requests: 1000, FailOpen: 900, Writes: 100, Committed: 100, ReadsOfWritten: 50},
		{Requests: 1000, FailOpen: 12, Writes: 100, RateLimited: 82, Committed: 18, ReadsOfWritten: 50}}}
	c := Compare(mechPrediction(), m)
	if c.Verdict != VerdictHolds || c.Excluded != 1 {
		t.Fatalf("verdict %q with %d runs kept out (why: %s); want holds over the two runs like for like", c.Verdict, c.Excluded, c.Why)
	}
	want := map[string]float64{CheckRateLimited: 0.81, CheckFailOpen: 0.011, CheckLatencyP50: 2.55, CheckLatencyP99: 85.5}
	for _, k := range c.Checks {
		if w, ok := want[k.Name]; ok && math.Abs(k.Measured-w) > 1e-9 {
			t.Errorf("%s measured %v, want %v (the median of the runs kept)", k.Name, k.Measured, w)
		}
	}
}

// TestSummarizeMechanism: Summarize keeps each trial's mechanism counts in
// trial order.
func TestSummarizeMechanism(t *testing.T) {
	var trials []Trial
	for i := range 3 {
		tr := Trial{Totals: Totals{Requests: int64(100 * (i + 1)), FailOpen: int64(i)}}
		tr.KV.init()
		tr.KV.Writes, tr.KV.WriteErrors, tr.KV.WriteRateLimited, tr.KV.LostUpdates = 10, 4, 3, int64(i)
		tr.KV.VisReads[0], tr.KV.StaleReads = 7, 2
		tr.Latency.Add(5)
		trials = append(trials, tr)
	}
	s := Summarize(Summary{}, 5, trials)
	if s.Mechanism == nil || len(s.Mechanism.Trials) != 3 {
		t.Fatalf("mechanism %+v, want 3 trials", s.Mechanism)
	}
	for i, m := range s.Mechanism.Trials {
		if m.Requests != int64(100*(i+1)) || m.FailOpen != int64(i) || m.Writes != 10 || m.RateLimited != 3 || m.Committed != 6 ||
			m.LostUpdates != int64(i) || m.ReadsOfWritten != 7 || m.StaleReads != 2 || m.LatencyP50Ms < 4.9 || m.LatencyP50Ms > 5.1 {
			t.Errorf("trial %d: %+v", i, m)
		}
	}
}

// TestCompareBandOfMedian: the live value of a repeated run is the median
// of its repeats, so it is held against the band of the median of as many
// trials (MedianBand), narrower than one trial's; a single run against the
// trials' own central 95%.
func TestCompareBandOfMedian(t *testing.T) {
	ratios := []float64{1.2, 2, 6, 8, 9, 9.4, 9.8, 10, 10.2, 10.4, 10.6, 10.8, 11, 11.4, 12, 12.4, 12.8, 13.2, 13.6, 14.4}
	s := slices.Clone(ratios)
	pred := &Summary{Trials: 20, Overshoot: Overshoot{KeyWindows: 20, PerTrial: PerTrial{
		MaxRatio: Interval{Lo: Quantile(s, 0.025), Hi: Quantile(s, 0.975)}, MaxRatios: ratios}}}
	rep := func(rs ...float64) *Repeats {
		var runs []RepeatRun
		for _, r := range rs {
			runs = append(runs, RepeatRun{MaxRatio: r, KeyWindows: 1})
		}
		return NewRepeats(runs)
	}
	tests := []struct {
		name    string
		repeats *Repeats
		band    [2]float64
		inside  bool
	}{
		{name: "one run: the trials' 95%", band: [2]float64{1.2, 14.4}, inside: true},
		{name: "median of 3: narrower", repeats: rep(1.2, 1.4, 14), band: MedianBand(ratios, 3), inside: false},
		{name: "median of 3 inside", repeats: rep(9, 11, 14), band: MedianBand(ratios, 3), inside: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Summary{Overshoot: Overshoot{KeyWindows: 1, Ratio: Stats{Max: 2}}, Repeats: tc.repeats}
			c := Compare(pred, m)
			if c.PredictedBand != tc.band || c.InsideBand != tc.inside {
				t.Errorf("band %v, inside %v; want %v, %v", c.PredictedBand, c.InsideBand, tc.band, tc.inside)
			}
		})
	}
	if b := MedianBand(ratios, 3); b[0] <= 1.2 || b[1] >= 14.4 {
		t.Errorf("the median of 3's band %v is not narrower than one trial's [1.2, 14.4]", b)
	}
}

// TestMechanismCheckFormat: a check says what was measured, where, the
// model's prediction and band; a latency of the target's store shows the
// target's service time beside it.
func TestMechanismCheckFormat(t *testing.T) {
	tests := []struct {
		k    MechanismCheck
		want string
	}{
		{MechanismCheck{Name: CheckFailOpen, Observed: true, Measured: 0.02, PredictedMedian: 0.018, PredictedBand: [2]float64{0.011, 0.0235}, InsideBand: true},
			"2%, predicted 1.8% (trials 1.1% to 2.35%): inside"},
		{MechanismCheck{Name: CheckLatencyP50, Observed: true, AtTarget: true, AtStore: true, Service: 2.56, Measured: 2.05, PredictedMedian: 2.06, PredictedBand: [2]float64{1.94, 2.14}, InsideBand: true},
			"2.05 ms of the target's store (its service time 2.56 ms: the rest is its own), predicted 2.06 ms (trials 1.94 ms to 2.14 ms): inside"},
		{MechanismCheck{Name: CheckLatencyP99, Observed: true, AtTarget: true, Measured: 200, PredictedMedian: 84, PredictedBand: [2]float64{66, 119}},
			"200 ms at the target, predicted 84 ms (trials 66 ms to 119 ms): OUTSIDE"},
		// Outside by less than three digits tell: as many more as do.
		{MechanismCheck{Name: CheckLostUpdates, Observed: true, Measured: 0.99895, PredictedMedian: 0.99925, PredictedBand: [2]float64{0.99912, 0.9994}},
			"99.89%, predicted 99.92% (trials 99.91% to 99.94%): OUTSIDE"},
		{MechanismCheck{Name: CheckLostUpdates, Observed: true, Measured: 0.99895, PredictedMedian: 0.99925, PredictedBand: [2]float64{0.99812, 0.9994}, InsideBand: true},
			"99.9%, predicted 99.9% (trials 99.8% to 99.9%): inside"},
		{MechanismCheck{Name: ThroughputName, Observed: true, Measured: 15025.3, PredictedMedian: 12612, PredictedBand: [2]float64{12400.2, 12800.9}},
			"15025/s, predicted 12612/s (trials 12400/s to 12801/s): OUTSIDE"},
	}
	for _, tc := range tests {
		if got := tc.k.Format(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.k.Name, got, tc.want)
		}
	}
}

// TestObservesRedis checks which live stores -compare judges on lost
// updates and stale reads: the eventual store, and Redis for a limiter
// that stores counts (not a token bucket's or GCRA's timestamps); not the
// memory store, a real namespace or a URL; every figure in a simulation.
func TestObservesRedis(t *testing.T) {
	tests := []struct {
		mode, target, alg string
		want              bool
	}{
		{"attack", "redis", "fixed-window", true},
		{"attack", "redis", "sliding-window", true},
		{"attack", "redis", "token-bucket", false},
		{"attack", "redis", "gcra", false},
		{"attack", "eventual", "gcra", true},
		{"attack", "memory", "fixed-window", false},
		{"attack", "cloudflare", "fixed-window", false},
		{"attack", "url", "fixed-window", false},
		{"simulate", "", "gcra", true},
	}
	for _, tc := range tests {
		for _, name := range []string{CheckLostUpdates, CheckStaleReads} {
			m := &Summary{Mode: tc.mode, Limiter: LimiterRef{Algorithm: tc.alg}, KV: KVWork{Observed: tc.target != "url"}}
			if tc.mode == "attack" {
				m.Live = &Live{Target: tc.target}
			}
			if got := observes(m, name, nil); got != tc.want {
				t.Errorf("%s on %s with %s: observes %s %v, want %v", tc.mode, tc.target, tc.alg, name, got, tc.want)
			}
		}
	}
}

// TestCompareMisfit: a calibrated prediction's misfit (how far the fit
// missed its own runs) widens the band of the max ratio, its low end by the
// first factor and its high end by the second, and the live run is judged
// against the widened band; a malformed misfit widens nothing.
func TestCompareMisfit(t *testing.T) {
	ratios := []float64{10, 10.4, 10.8, 11.2, 11.6, 12, 12.4, 12.8}
	s := slices.Clone(ratios)
	base := PerTrial{MaxRatio: Interval{Lo: Quantile(s, 0.025), Hi: Quantile(s, 0.975)}, MaxRatios: ratios}
	tests := []struct {
		name     string
		ratios   []float64 // the trials' max ratios, when not ratios
		misfit   []float64
		measured float64
		band     [2]float64
		inside   bool
	}{
		{name: "none", measured: 9, band: [2]float64{base.MaxRatio.Lo, base.MaxRatio.Hi}, inside: false},
		{name: "low end widened", misfit: []float64{0.8, 1}, measured: 9, band: [2]float64{base.MaxRatio.Lo * 0.8, base.MaxRatio.Hi}, inside: true},
		{name: "high end widened", misfit: []float64{1, 1.25}, measured: 15, band: [2]float64{base.MaxRatio.Lo, base.MaxRatio.Hi * 1.25}, inside: true},
		{name: "both, still outside", misfit: []float64{0.95, 1.05}, measured: 8, band: [2]float64{base.MaxRatio.Lo * 0.95, base.MaxRatio.Hi * 1.05}, inside: false},
		{name: "malformed: narrows nothing", misfit: []float64{1.5, 0.5}, measured: 12, band: [2]float64{base.MaxRatio.Lo, base.MaxRatio.Hi}, inside: true},
		{name: "one number: ignored", misfit: []float64{0.5}, measured: 9, band: [2]float64{base.MaxRatio.Lo, base.MaxRatio.Hi}, inside: false},
		{name: "not below 1", ratios: []float64{1.05, 1.1, 1.2, 1.3}, misfit: []float64{0.8, 1}, measured: 1, band: [2]float64{1, 1.3}, inside: true},
		{name: "under 1 where the trials are", ratios: []float64{0.8, 0.9, 1, 1}, misfit: []float64{0.5, 1}, measured: 0.5, band: [2]float64{0.4, 1}, inside: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pt := base
			if tc.ratios != nil {
				pt.MaxRatios = tc.ratios
				pt.MaxRatio = Interval{Lo: tc.ratios[0], Hi: tc.ratios[len(tc.ratios)-1]}
			}
			pt.Misfit = tc.misfit
			pred := &Summary{Trials: len(pt.MaxRatios), Overshoot: Overshoot{KeyWindows: int64(len(pt.MaxRatios)), PerTrial: pt}}
			m := &Summary{Overshoot: Overshoot{KeyWindows: 1, Ratio: Stats{Max: tc.measured}}}
			c := Compare(pred, m)
			if c.PredictedBand != tc.band || c.InsideBand != tc.inside {
				t.Errorf("band %v, inside %v; want %v, %v", c.PredictedBand, c.InsideBand, tc.band, tc.inside)
			}
			if widened := c.Misfit != nil; tc.ratios == nil && widened != (c.PredictedBand != [2]float64{base.MaxRatio.Lo, base.MaxRatio.Hi}) {
				t.Errorf("Comparison.Misfit %v does not say whether the band %v was widened", c.Misfit, c.PredictedBand)
			}
		})
	}
}
