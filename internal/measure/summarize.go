package measure

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// Free-plan quotas (docs/facts.md, kv/platform/limits);
// the prices are in prices.go.
const (
	freeWritesPerDay = 1000
	freeReadsPerDay  = 100000
	secondsPerDay    = 86400
)

// Summarize pools trials, in order, into the summary s (whose identifying
// fields the caller has filled: mode, scenario, seed, limiter). Pooling in
// trial order makes the result independent of how trials were scheduled.
func Summarize(s Summary, limit int64, trials []Trial) Summary {
	s.Schema = SchemaVersion
	s.Trials = len(trials)
	s.Populations = nil
	hist := map[int64]int64{}
	var kvc KVCounters
	kvc.init()
	var lat LogHist
	var byDecision [NumDecisions]LogHist
	var perMax, perP99, perExcess []float64
	var perGroup, perMaxAllowed []int64
	var worst []KeyTimeline
	var ref TrialReference
	var popHists []map[int64]int64
	for i, t := range trials {
		ref.add(t.Reference)
		popHists = addHists(popHists, t.PopulationHists)
		addTotals(&s, t)
		for a, n := range t.Hist {
			hist[a] += n
		}
		s.Overshoot.OverLimit += t.OverLimit
		s.Overshoot.Excess += t.Excess
		s.Overshoot.MaxInInterval = max(s.Overshoot.MaxInInterval, t.MaxIn)
		s.Overshoot.LargestReadGroup = max(s.Overshoot.LargestReadGroup, t.ReadGroup)
		perGroup = append(perGroup, t.ReadGroup)
		kvc.Add(t.KV)
		lat.Merge(t.Latency)
		for d := range byDecision {
			byDecision[d].Merge(t.LatencyByDecision[d])
		}
		tc := countStats(t.Hist)
		perMaxAllowed = append(perMaxAllowed, tc.Max)
		ts := tc.Ratio(limit)
		perMax = append(perMax, ts.Max)
		perP99 = append(perP99, ts.P99)
		perExcess = append(perExcess, float64(t.Excess))
		for _, w := range t.Worst {
			w.Trial = i
			worst = append(worst, w)
		}
	}
	o := &s.Overshoot
	o.Allowed = countStats(hist)
	o.Ratio = o.Allowed.Ratio(limit)
	o.KeyWindows = o.Allowed.N
	if o.KeyWindows > 0 {
		o.OverLimitShare = float64(o.OverLimit) / float64(o.KeyWindows)
	}
	o.MaxAllowed = o.Allowed.Max
	o.Reference = reference(ref)
	for j, h := range popHists {
		if j < len(s.Populations) && len(h) > 0 {
			s.Populations[j].Overshoot = populationOvershoot(h, limit)
		}
	}
	o.MaxInIntervalRatio = float64(o.MaxInInterval) / float64(limit)
	o.Histogram = bins(hist)
	o.PerTrial = PerTrial{MaxRatio: interval(perMax), P99Ratio: interval(perP99), Excess: interval(perExcess), MaxRatios: perMax,
		MaxAllowed: perMaxAllowed, MaxAllowedP95: P95Count(perMaxAllowed)}
	if o.LargestReadGroup > 0 {
		o.PerTrial.ReadGroups = perGroup
	}
	sort.SliceStable(worst, func(i, j int) bool { return worst[i].Allowed > worst[j].Allowed })
	s.WorstKeys = worst[:min(len(worst), worstKept)]
	s.Answer = AnswerOf(&s)
	s.KV = kvWork(kvc)
	s.Cost = cost(kvc, s.Totals, len(trials), o.KeyWindows, s.Limiter.WindowSecs, s.Limiter.Store)
	s.Warnings = s.Health()
	if lat.N > 0 {
		st := lat.Stats()
		s.LatencyMs = &st
	}
	s.LatencyByDecision = latencyByDecision(&byDecision)
	s.Mechanism = mechanism(trials)
	return s
}

// addTotals adds trial t's totals and populations' counts to s.
func addTotals(s *Summary, t Trial) {
	s.Totals.Requests += t.Totals.Requests
	s.Totals.Allowed += t.Totals.Allowed
	s.Totals.Denied += t.Totals.Denied
	s.Totals.Errors += t.Totals.Errors
	s.Totals.FailOpen += t.Totals.FailOpen
	s.Totals.FailClosed += t.Totals.FailClosed
	s.Totals.SimulatedSeconds = max(s.Totals.SimulatedSeconds, t.Totals.SimulatedSeconds)
	for j, p := range t.Populations {
		if j >= len(s.Populations) {
			s.Populations = append(s.Populations, Population{Name: p.Name, Legitimate: p.Legitimate})
		}
		q := &s.Populations[j]
		q.Requests += p.Requests
		q.Allowed += p.Allowed
		q.Denied += p.Denied
		q.Errors += p.Errors
		q.FalseDenials += p.FalseDenials
		q.FalselyDeniedClients += p.FalselyDeniedClients
	}
}

// addHists adds each histogram of hs to the one of pooled at its index,
// and returns pooled.
func addHists(pooled, hs []map[int64]int64) []map[int64]int64 {
	for j, h := range hs {
		if j >= len(pooled) {
			pooled = append(pooled, map[int64]int64{})
		}
		for a, n := range h {
			pooled[j][a] += n
		}
	}
	return pooled
}

// countStats is the distribution of a histogram of allowed counts.
// Quantiles are nearest-rank, so they are always counts some window had.
func countStats(hist map[int64]int64) CountStats {
	var s CountStats
	counts := make([]int64, 0, len(hist))
	var sum float64
	for a, n := range hist {
		counts = append(counts, a)
		s.N += n
		sum += float64(a) * float64(n)
	}
	if s.N == 0 {
		return s
	}
	slices.Sort(counts)
	s.Mean = sum / float64(s.N)
	s.Max = counts[len(counts)-1]
	q := func(p float64) int64 {
		rank := nearestRank(p, s.N)
		var seen int64
		for _, a := range counts {
			seen += hist[a]
			if seen >= rank {
				return a
			}
		}
		return s.Max
	}
	s.P50, s.P95, s.P99 = q(0.50), q(0.95), q(0.99)
	return s
}

// populationOvershoot is the overshoot of one population's key-windows.
func populationOvershoot(hist map[int64]int64, limit int64) *PopulationOvershoot {
	o := &PopulationOvershoot{Allowed: countStats(hist), Histogram: bins(hist)}
	o.Ratio = o.Allowed.Ratio(limit)
	o.KeyWindows = o.Allowed.N
	for a, n := range hist {
		if a > limit {
			o.OverLimit += n
		}
	}
	return o
}

// bins lists a histogram in ascending order of allowed count.
func bins(hist map[int64]int64) []Bin {
	out := make([]Bin, 0, len(hist))
	for a, n := range hist {
		out = append(out, Bin{Allowed: a, KeyWindows: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Allowed < out[j].Allowed })
	return out
}

// interval is the mean and central 95% (nearest rank) of per-trial values.
func interval(v []float64) Interval {
	if len(v) == 0 {
		return Interval{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	n := float64(len(s))
	in := Interval{Mean: sum / n, Lo: Quantile(s, 0.025), Hi: Quantile(s, 0.975), P95: Quantile(s, 0.95)}
	in.MeanLo, in.MeanHi = in.Mean, in.Mean
	if len(s) > 1 {
		var ss float64
		for _, x := range s {
			ss += (x - in.Mean) * (x - in.Mean)
		}
		half := 1.96 * math.Sqrt(ss/(n-1)/n)
		in.MeanLo, in.MeanHi = in.Mean-half, in.Mean+half
	}
	return in
}

// Quantile is the nearest-rank p-quantile of sorted values (the zero
// value for none): the one quantile of the accounting, over ratios,
// counts and, through nearestRank, histograms.
func Quantile[T cmp.Ordered](sorted []T, p float64) T {
	if len(sorted) == 0 {
		var zero T
		return zero
	}
	return sorted[nearestRank(p, int64(len(sorted)))-1]
}

// nearestRank is the 1-based rank of the p-quantile of n values, nearest
// rank: ceil(p n), at least 1 and at most n.
func nearestRank(p float64, n int64) int64 {
	return min(max(int64(math.Ceil(p*float64(n))), 1), n)
}

// kvWork turns pooled counters into the summary's KV section.
func kvWork(c KVCounters) KVWork {
	w := KVWork{Observed: true, Reads: c.Reads, Writes: c.Writes, ReadErrors: c.ReadErrors, WriteErrors: c.WriteErrors,
		WriteRateLimited: c.WriteRateLimited, QuotaErrors: c.QuotaErrors, LostUpdates: c.LostUpdates,
		StaleReads: c.StaleReads, StalenessMs: c.Staleness.Stats()}
	for i, n := range c.VisReads {
		if n == 0 {
			continue
		}
		p := VisibilityPoint{SinceMs: visibilityEdgesMs[i], Reads: n, Fresh: c.VisFresh[i], P: float64(c.VisFresh[i]) / float64(n)}
		if i+1 < len(visibilityEdgesMs) {
			p.UntilMs = visibilityEdgesMs[i+1]
		}
		w.Visibility = append(w.Visibility, p)
	}
	return w
}

// cost prices the store's work and the Workers requests per million
// requests (see price) and finds when the free plan's daily quotas would
// run out on a steady day (see steadyDay).
func cost(c KVCounters, t Totals, trials int, keyWindows int64, windowSecs float64, store string) Cost {
	out := Cost{Store: store}
	if t.Requests == 0 {
		return out
	}
	// Billed are the operations the store accepted; a rejected write (429,
	// quota) or a failed read does no work. The free plan's quotas count
	// what was accepted plus what the quota itself refused (the demand on
	// it): a 429 or an outage uses no quota, as the model has it.
	perM := 1e6 / float64(t.Requests)
	out.ReadsPerMillionRequests = float64(c.Reads-c.ReadErrors) * perM
	out.WritesPerMillionRequests = float64(c.Writes-c.WriteErrors) * perM
	if store == "redis" {
		// Real Redis (attack -store redis) has no per-operation price.
		out.NotPriced = "Redis is billed by its host (instance hours and memory), not per operation: the work is counted, not priced"
		return out
	}
	price(&out, store)
	secs := t.SimulatedSeconds * float64(trials)
	switch {
	case secs <= 0:
	case store == "durable-object":
		out.FreeReadsExhaustedAfterSecs = exhaustedAfter(float64(t.Requests)/secs*secondsPerDay, freeObjectRequestsPerDay)
	case store == "per-location":
		out.FreeReadsExhaustedAfterSecs = exhaustedAfter(float64(t.Requests)/secs*secondsPerDay, freeWorkerRequestsPerDay)
	default:
		writes := float64(c.Writes - c.WriteErrors + c.WriteQuotaErrors)
		reads := float64(c.Reads - c.ReadErrors + c.QuotaErrors - c.WriteQuotaErrors)
		readsPerDay, writesPerDay := steadyDay(reads, writes, secs, t.SimulatedSeconds, trials, keyWindows, windowSecs)
		out.FreeWritesExhaustedAfterSecs = exhaustedAfter(writesPerDay, freeWritesPerDay)
		out.FreeReadsExhaustedAfterSecs = exhaustedAfter(readsPerDay, freeReadsPerDay)
	}
	return out
}

// steadyDay projects a run's quota demand onto a steady day. Reads follow
// requests, so they keep the run's rate all day. Writes follow allowed
// requests, which a window-based limiter grants at the start of each key's
// window: a short run at a window boundary sees a day's writes in seconds,
// so writes are projected per key-window instead: the run's writes per
// key-window, for every key the run saw, once per window of the day (at
// least once). The keys are the key-windows of a trial over the windows
// the trial spans (at least one).
func steadyDay(reads, writes, secs, trialSecs float64, trials int, keyWindows int64, windowSecs float64) (readsPerDay, writesPerDay float64) {
	readsPerDay = reads / secs * secondsPerDay
	writesPerDay = writes / secs * secondsPerDay
	if keyWindows <= 0 || windowSecs <= 0 || trials <= 0 {
		return readsPerDay, writesPerDay
	}
	keys := float64(keyWindows) / float64(trials) / max(1, math.Round(trialSecs/windowSecs))
	windowsPerDay := max(1, secondsPerDay/windowSecs)
	writesPerDay = writes / float64(keyWindows) * keys * windowsPerDay
	return readsPerDay, writesPerDay
}

// exhaustedAfter is when quota runs out, from 00:00 UTC, at perDay
// operations a day spread evenly, or 0 when the day's quota lasts.
func exhaustedAfter(perDay, quota float64) float64 {
	if perDay <= quota {
		return 0
	}
	return quota / perDay * secondsPerDay
}

// FreePlanSentence says which of the free plan's daily quotas runs out
// first on a steady day at the run's rates, and when; the terminal and the
// report both print it, so that they agree.
func FreePlanSentence(c Cost) string {
	w, r := c.FreeWritesExhaustedAfterSecs, c.FreeReadsExhaustedAfterSecs
	switch c.Store {
	case "durable-object":
		if r <= 0 {
			return "on the free plan, the 100,000 Durable Object requests a day last the day"
		}
		return "on the free plan, the 100,000 Durable Object requests a day are gone at " + Clock(r)
	case "per-location":
		if r <= 0 {
			return "on the free plan, the 100,000 Worker requests a day last the day (the binding publishes no quota of its own)"
		}
		return "on the free plan, the 100,000 Worker requests a day are gone at " + Clock(r) + " (the binding publishes no quota of its own)"
	}
	switch {
	case w <= 0 && r <= 0:
		return "on the free plan, both the 100,000 reads and the 1,000 writes a day last the day"
	case w <= 0:
		return "on the free plan, reads run out first: the 100,000 a day are gone at " + Clock(r) + "; the 1,000 writes last the day"
	case r <= 0:
		return "on the free plan, writes run out first: the 1,000 a day are gone at " + Clock(w) + "; the 100,000 reads last the day"
	case r <= w:
		return "on the free plan, reads run out first: the 100,000 a day are gone at " + Clock(r) + ", the 1,000 writes at " + Clock(w)
	}
	return "on the free plan, writes run out first: the 1,000 a day are gone at " + Clock(w) + ", the 100,000 reads at " + Clock(r)
}

// Clock is a time of day from seconds after 00:00 UTC: "03:20 UTC", and
// within the day's first hour with its seconds and how long after
// midnight that is ("00:00:08 UTC, 8 s into the day"), so that a quota
// gone in seconds does not read as gone at midnight.
func Clock(secs float64) string {
	if s := int(secs); s < 3600 {
		return ClockOfDay(secs) + ", " + (time.Duration(s) * time.Second).String() + " into the day"
	}
	return ClockOfDay(secs)
}

// ClockOfDay is Clock's time of day alone: "03:20 UTC", with seconds
// within the day's first hour ("00:00:08 UTC"), for a figure's label.
func ClockOfDay(secs float64) string {
	s := int(secs)
	if s < 3600 {
		return fmt.Sprintf("%02d:%02d:%02d UTC", s/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%02d:%02d UTC", s/3600, s%3600/60)
}
