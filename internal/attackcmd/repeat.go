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
// target a new store and server, once the run before it has stopped its
// own: the URL to attack, the store's counters and how to stop it, which
// runRepeats does as soon as the run ends. nil for a URL, whose store
// attack cannot reset (the runs' run ids keep their keys apart instead).
type freshTarget func(i int) (url string, kv func(*measure.KVCounters), stop func(), err error)

// runRepeats runs o n times, one after another, each with its own run id
// (so that no two runs share a key) and seed o.Seed+i, and returns one
// summary: the runs' accounting pooled (measure.PoolRepeats: as the trials
// of a simulation, with repeats listing each run and the median and spread
// over them). n <= 1 is one
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
		ids    []string
		sums   []measure.Summary
		runErr error
	)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		stop := func() {}
		if i > 0 && fresh != nil {
			url, kv, st, err := fresh(i)
			if err != nil {
				runErr = fmt.Errorf("run %d of %d: %w", i+1, n, err)
				break
			}
			o.URL, o.KV, stop = url, kv, st
		}
		if progress != nil {
			progress(i+1, n)
		}
		var tr measure.Trial
		o.Trial, o.RunID, o.Seed = &tr, fmt.Sprintf("%s-r%d", base, i+1), seed+uint64(i)
		s, err := attack.Run(ctx, o)
		stop() // its servers (-redis-harness) end with it, not with the series
		trials, sums, ids = append(trials, tr), append(sums, s), append(ids, o.RunID)
		if err != nil {
			runErr = fmt.Errorf("run %d of %d: %w", i+1, n, err)
			break
		}
	}
	if len(sums) == 0 {
		return measure.Summary{}, runErr
	}
	return measure.PoolRepeats(sums, trials, ids, seed, o.Limit, len(sums) == n && ctx.Err() == nil), runErr
}
