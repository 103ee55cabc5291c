package attackcmd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// MaxRepeat is the most runs -repeat may ask for.
const MaxRepeat = 100

// freshTarget gives run i (from 1) of a repeated attack on the built-in
// target a new store and server: the URL to attack, the store's counters
// and how to stop it. nil for a URL, whose store attack cannot reset (the
// runs' run ids keep their keys apart instead).
type freshTarget func(i int) (url string, kv func(*measure.KVCounters), stop func(), err error)

// runRepeats runs o n times, one after another, each with its own run id
// (so that no two runs share a key) and seed o.Seed+i, and returns one
// summary: the runs' accounting pooled (as the trials of a simulation:
// trials is n and overshoot.per_trial spreads over the runs) with repeats
// listing each run and the median and spread over them. n <= 1 is one
// plain run. An interrupted or failed run ends the series there; the
// summary then holds the runs so far, marked incomplete.
func runRepeats(ctx context.Context, n int, o attack.Options, fresh freshTarget, progress func(i, n int)) (measure.Summary, error) {
	if n <= 1 {
		return attack.Run(ctx, o)
	}
	base := o.RunID
	if base == "" {
		base = strconv.FormatInt(time.Now().UnixMilli(), 36)
	}
	seed := o.Seed
	var (
		trials []measure.Trial
		runs   []measure.RepeatRun
		sums   []measure.Summary
		runErr error
	)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		if i > 0 && fresh != nil {
			url, kv, stop, err := fresh(i)
			if err != nil {
				runErr = fmt.Errorf("run %d of %d: %w", i+1, n, err)
				break
			}
			defer stop()
			o.URL, o.KV = url, kv
		}
		if progress != nil {
			progress(i+1, n)
		}
		var tr measure.Trial
		o.Trial, o.RunID, o.Seed = &tr, fmt.Sprintf("%s-r%d", base, i+1), seed+uint64(i)
		s, err := attack.Run(ctx, o)
		trials, sums = append(trials, tr), append(sums, s)
		runs = append(runs, repeatRun(o.RunID, &s))
		if err != nil {
			runErr = fmt.Errorf("run %d of %d: %w", i+1, n, err)
			break
		}
	}
	if len(sums) == 0 {
		return measure.Summary{}, runErr
	}
	first := sums[0]
	ref := measure.Summary{Mode: first.Mode, Scenario: first.Scenario, Seed: seed, Limiter: first.Limiter,
		Complete: len(sums) == n && ctx.Err() == nil}
	for _, s := range sums {
		ref.Complete = ref.Complete && s.Complete
	}
	out := measure.Summarize(ref, o.Limit, trials)
	out.KV.Observed = first.KV.Observed
	out.Live = pooledLive(sums)
	out.Repeats = measure.NewRepeats(runs)
	return out, runErr
}

// repeatRun is one run's line in repeats.
func repeatRun(id string, s *measure.Summary) measure.RepeatRun {
	r := measure.RepeatRun{RunID: id, MaxRatio: s.Overshoot.Ratio.Max, Allowed: s.Totals.Allowed,
		MaxAllowed: s.Overshoot.MaxAllowed, KeyWindows: s.Overshoot.KeyWindows, ReadGroup: s.Overshoot.LargestReadGroup,
		Complete: s.Complete}
	if s.Live != nil {
		r.LatencyP50Ms, r.LatencyP99Ms = s.Live.LatencyMs.P50, s.Live.LatencyMs.P99
	}
	return r
}

// pooledLive is the live section of repeated runs: statuses and ambiguous
// responses summed, rates over the runs' total time, and latency the
// median of each run's percentile (max the most, n the sum); each run's
// own are in repeats.
func pooledLive(sums []measure.Summary) *measure.Live {
	out := &measure.Live{Status: map[string]int64{}}
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
		}
		out.DurationSecs += l.DurationSecs
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
		out.StoreMs = &measure.Stats{N: storeN, Mean: measure.Median(storeMean)}
	}
	if out.DurationSecs > 0 {
		out.OfferedRate, out.AchievedRate = offered/out.DurationSecs, achieved/out.DurationSecs
	}
	out.LatencyMs.Mean, out.LatencyMs.P50 = measure.Median(mean), measure.Median(p50)
	out.LatencyMs.P95, out.LatencyMs.P99 = measure.Median(p95), measure.Median(p99)
	if len(sums) > 1 {
		out.LatencyNote += fmt.Sprintf(" Over %d repeated runs: mean and percentiles are the median of the runs' own (each run's are in repeats).", len(sums))
	}
	return out
}
