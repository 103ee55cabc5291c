package model

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Options control a run.
type Options struct {
	// Seed is the run's seed, printed in the summary; trial i draws from
	// TrialRand(Seed, i). The caller resolves it (cmd/simulate passes the
	// plan's seed unless -seed is given): Run uses it as is, 0 included.
	Seed uint64
	// Trials, when above 0, overrides the scenario's trials; when both are
	// 0 one trial runs.
	Trials int
	// Workers is how many trials run at once; 0 means GOMAXPROCS. The
	// results do not depend on it.
	Workers int
	// Progress, when set, is called after each trial finishes with the
	// number done and the total, from one goroutine at a time.
	Progress func(done, total int)
	// Context stops the run early when cancelled; nil means never.
	Context context.Context
	// Only, when set, picks the trials to run by index (a shard's share);
	// the others are skipped and not returned. nil runs them all.
	Only func(trial int) bool
}

// RunTrials runs the plan's trials and returns their results in trial
// order: the same for any Workers and any GOMAXPROCS. When the context is
// cancelled it returns the trials that finished, in trial order, and the
// context's error.
func RunTrials(pl *plan.Plan, opts Options) ([]measure.Trial, error) {
	trials, _, err := runTrials(pl, opts)
	return trials, err
}

// Run runs the plan and pools its trials into a summary whose mode,
// scenario reference, seed, trial count and limiter are filled. When the
// context is cancelled the summary holds the trials that finished, with
// Complete false, and the error is the context's.
func Run(pl *plan.Plan, opts Options) (measure.Summary, error) {
	trials, c, err := runTrials(pl, opts)
	if c == nil {
		return measure.Summary{}, err
	}
	s := Base(pl, opts.Seed)
	s.Complete = err == nil
	return measure.Summarize(s, pl.Limiter.Limit, trials), err
}

// Base is the summary of a run of pl with seed before its trials are
// pooled into it (measure.Summarize): mode, scenario name and question,
// seed and limiter. Shards of a run carry it, so that their trials can be
// pooled later exactly as Run pools them.
func Base(pl *plan.Plan, seed uint64) measure.Summary {
	return measure.Summary{
		Mode:         "simulate",
		Scenario:     measure.ScenarioRef{Name: pl.Scenario().Name, Question: pl.Scenario().Question},
		Seed:         seed,
		Complete:     true,
		Limiter:      pl.LimiterRef(pl.Store.Kind.String()),
		LatencyClock: latencyClock(pl),
	}
}

// latencyClock is the model's Summary.LatencyClock: the attacker's clock
// when a redis store's requests take their own time at the host
// (store.redis.request_service), the store's parts alone otherwise.
func latencyClock(pl *plan.Plan) string {
	if pl.Store.Kind == plan.Redis && pl.Store.Redis.PerRequest {
		return measure.ClockClient
	}
	return ""
}

// trialCount resolves the number of trials.
func trialCount(pl *plan.Plan, opts Options) (int, error) {
	n := pl.Trials
	if opts.Trials > 0 {
		n = opts.Trials
	}
	if n < 0 {
		return 0, fmt.Errorf("trials %d is negative: give 1 or more", n)
	}
	return max(n, 1), nil
}

// runTrials compiles pl and runs its trials (those opts.Only picks) on
// opts.Workers goroutines, returning the finished trials in trial order.
// A cancelled run returns the trials that finished with ctx's error.
func runTrials(pl *plan.Plan, opts Options) ([]measure.Trial, *compiled, error) {
	c, err := compile(pl)
	if err != nil {
		return nil, nil, err
	}
	n, err := trialCount(pl, opts)
	if err != nil {
		return nil, nil, err
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	picked := pickTrials(n, opts.Only)
	if len(picked) == 0 {
		return nil, c, nil
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(picked))
	results := startTrials(ctx, c, opts.Seed, picked, workers)
	finished, err := collectTrials(ctx, results, n, len(picked), opts.Progress)
	return finished, c, err
}

// pickTrials is the indexes of the n trials that only picks (all of them
// when only is nil), in order.
func pickTrials(n int, only func(int) bool) []int {
	var picked []int
	for i := 0; i < n; i++ {
		if only == nil || only(i) {
			picked = append(picked, i)
		}
	}
	return picked
}

// trialResult is trial i's outcome.
type trialResult struct {
	i   int
	t   measure.Trial
	err error
}

// startTrials runs the picked trials on workers goroutines, handing them
// out until ctx is cancelled. The channel it returns carries each trial's
// result and is closed when every worker has ended.
func startTrials(ctx context.Context, c *compiled, seed uint64, picked []int, workers int) <-chan trialResult {
	jobs := make(chan int)
	results := make(chan trialResult)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				t, err := safeTrial(ctx, c, seed, i)
				results <- trialResult{i, t, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, i := range picked {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	return results
}

// collectTrials gathers the results of picked of n trials into trial
// order, reporting progress as each finishes. An error other than ctx's
// wins over ctx's and returns no trials; on cancellation it returns the
// trials that finished with ctx's error.
func collectTrials(ctx context.Context, results <-chan trialResult, n, picked int, progress func(done, total int)) ([]measure.Trial, error) {
	out := make([]measure.Trial, n)
	ok := make([]bool, n)
	done := 0
	var firstErr error
	for r := range results {
		if r.err != nil {
			if firstErr == nil || (firstErr == ctx.Err() && r.err != ctx.Err()) {
				firstErr = r.err
			}
			continue
		}
		out[r.i], ok[r.i] = r.t, true
		done++
		if progress != nil {
			progress(done, picked)
		}
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil && firstErr != ctx.Err() {
		return nil, firstErr
	}
	finished := out[:0]
	for i := range out {
		if ok[i] {
			finished = append(finished, out[i])
		}
	}
	return finished, firstErr
}

// safeTrial runs one trial, turning a panic (a bug) into an error that
// carries its stack, so one bad trial cannot take a whole sweep down.
func safeTrial(ctx context.Context, c *compiled, seed uint64, i int) (t measure.Trial, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("trial %d failed: %v (a bug in internal/model; please report it)\n%s", i, p, debug.Stack())
		}
	}()
	t, _, err = c.runTrial(ctx, seed, i)
	return t, err
}
