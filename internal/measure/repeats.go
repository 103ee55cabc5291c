package measure

import "fmt"

// PoolRepeats is the one summary of a repeated live run (attack -repeat):
// sums are the runs' own summaries and trials their accounting (one trial
// each), ids their run ids, in the order they ran. Their accounting is
// pooled as the trials of a simulation are (trials is the runs' count and
// overshoot.per_trial spreads over them), the live section as PooledLive
// says, and repeats lists each run with the median and spread over them.
// seed is the series' seed, limit the limiter's; the summary is complete
// when complete (every planned run ran) and every run is.
func PoolRepeats(sums []Summary, trials []Trial, ids []string, seed uint64, limit int64, complete bool) Summary {
	first := sums[0]
	ref := Summary{Mode: first.Mode, Scenario: first.Scenario, Seed: seed, Limiter: first.Limiter, Complete: complete}
	runs := make([]RepeatRun, len(sums))
	for i := range sums {
		ref.Complete = ref.Complete && sums[i].Complete
		runs[i] = RepeatRunOf(ids[i], &sums[i])
	}
	out := Summarize(ref, limit, trials)
	out.KV.Observed = first.KV.Observed
	out.Live = PooledLive(sums)
	out.Repeats = NewRepeats(runs)
	return out
}

// RepeatRunOf is run id's line in repeats, from its summary s.
func RepeatRunOf(id string, s *Summary) RepeatRun {
	r := RepeatRun{RunID: id, MaxRatio: s.Overshoot.Ratio.Max, Allowed: s.Totals.Allowed,
		MaxAllowed: s.Overshoot.MaxAllowed, KeyWindows: s.Overshoot.KeyWindows, ReadGroup: s.Overshoot.LargestReadGroup,
		Complete: s.Complete}
	if s.Live != nil {
		r.LatencyP50Ms, r.LatencyP99Ms = s.Live.LatencyMs.P50, s.Live.LatencyMs.P99
	}
	return r
}

// PooledLive is the live section of repeated runs: statuses and ambiguous
// responses summed, rates over the runs' total time, and latency the
// median of each run's percentile (max the most, n the sum); each run's
// own are in repeats.
func PooledLive(sums []Summary) *Live {
	out := &Live{Status: map[string]int64{}}
	var offered, achieved float64
	var mean, p50, p95, p99, storeMean []float64
	var storeN int64
	for i, s := range sums {
		l := s.Live
		if l == nil {
			continue
		}
		if i == 0 {
			out.URL, out.Target, out.LatencyNote, out.ResultsFile = l.URL, l.Target, l.LatencyNote, l.ResultsFile
			out.StoreHostCores, out.SoakSeconds = l.StoreHostCores, l.SoakSeconds
		}
		out.DurationSecs += l.DurationSecs
		out.WarmupRequests += l.WarmupRequests
		offered += l.OfferedRate * l.DurationSecs
		achieved += l.AchievedRate * l.DurationSecs
		for k, v := range l.Status {
			out.Status[k] += v
		}
		out.Ambiguous += l.Ambiguous
		out.LatencyMs.N += l.LatencyMs.N
		out.LatencyMs.Max = max(out.LatencyMs.Max, l.LatencyMs.Max)
		mean, p50 = append(mean, l.LatencyMs.Mean), append(p50, l.LatencyMs.P50)
		p95, p99 = append(p95, l.LatencyMs.P95), append(p99, l.LatencyMs.P99)
		if l.StoreMs != nil {
			storeMean, storeN = append(storeMean, l.StoreMs.Mean), storeN+l.StoreMs.N
		}
	}
	if len(storeMean) == len(sums) && storeN > 0 {
		// Each run's store time is in its mechanism; the mean is kept for
		// -compare's closed loops (loopGap), the median of the runs'.
		out.StoreMs = &Stats{N: storeN, Mean: Median(storeMean)}
	}
	if out.DurationSecs > 0 {
		out.OfferedRate, out.AchievedRate = offered/out.DurationSecs, achieved/out.DurationSecs
	}
	out.LatencyMs.Mean, out.LatencyMs.P50 = Median(mean), Median(p50)
	out.LatencyMs.P95, out.LatencyMs.P99 = Median(p95), Median(p99)
	if len(sums) > 1 {
		out.LatencyNote += fmt.Sprintf(" Over %d repeated runs: mean and percentiles are the median of the runs' own (each run's are in repeats).", len(sums))
	}
	return out
}
