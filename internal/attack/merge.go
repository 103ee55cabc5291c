package attack

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// MergeOptions say how to account for the results of a sharded run as one
// run: every shard's results file (written by Run with Options.Shard,
// which keeps the runner's internal headers) is read again, the results
// are put in time order, and the same accountant Run uses counts them, so
// that counts are summed per key-window before any statistic and latency
// comes from every response, not from the shards' percentiles.
type MergeOptions struct {
	// Plan, Limit, Window and Skew are the run's, as each shard had them.
	Plan   *plan.Plan
	Limit  int64
	Window time.Duration
	Skew   time.Duration
	// DenyStatus is the statuses that are denials, as each shard had them
	// (none: 429 alone).
	DenyStatus []int
	// Start is the shards' agreed start, and Elapsed the common interval:
	// from Start until the last shard ended.
	Start   time.Time
	Elapsed time.Duration
	// Offered is the requests the shards' schedules called for, summed.
	Offered float64
	// Results are the shards' results files, in shard order.
	Results []io.Reader
	// Out receives the merged results file, in time order, without the
	// internal headers (vegeta report reads it); ResultsFile is its name.
	Out         io.Writer
	ResultsFile string
	// URL is the target; Summary holds the identifying fields (scenario,
	// seed, limiter, target, Complete).
	URL     string
	Summary measure.Summary
}

// MergeSlack is how far before a run's start or after its end a shard's
// result may have been sent: beyond it the result is not of the run (a
// shard file's start or elapsed time was edited), and a merge refuses it
// rather than account for every interval in between.
const MergeSlack = time.Second

// maxMergedResults bounds the results a merge holds in memory.
const maxMergedResults = 20_000_000

// Merge accounts for the shards' results as one run and returns its
// summary. An unreadable results file is an error naming its shard.
func Merge(o MergeOptions) (measure.Summary, error) {
	if o.Plan == nil || o.Limit <= 0 || o.Window <= 0 {
		return measure.Summary{}, fmt.Errorf("attack: merge needs the plan, limit and window")
	}
	if err := checkDenyStatus(o.DenyStatus); err != nil {
		return measure.Summary{}, err
	}
	if o.Skew <= 0 {
		o.Skew = DefaultSkew
	}
	type shardResult struct {
		r     vegeta.Result
		shard int
	}
	var all []shardResult
	for i, f := range o.Results {
		dec := vegeta.NewDecoder(bufio.NewReaderSize(f, 256<<10))
		for {
			var r vegeta.Result
			err := dec.Decode(&r)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return measure.Summary{}, fmt.Errorf("shard %d's results: %v (after %d results)", i, err, len(all))
			}
			if lo, hi := o.Start.Add(-MergeSlack), o.Start.Add(o.Elapsed+MergeSlack); r.Timestamp.Before(lo) || r.Timestamp.After(hi) {
				return measure.Summary{}, fmt.Errorf("shard %d's results: result %d was sent at %s, outside the run (%s for %v): a shard's start or elapsed time is wrong",
					i, len(all), r.Timestamp.Format(time.RFC3339Nano), o.Start.Format(time.RFC3339Nano), o.Elapsed)
			}
			if len(all) >= maxMergedResults {
				return measure.Summary{}, fmt.Errorf("the shards hold over %d results: merge fewer at once", maxMergedResults)
			}
			all = append(all, shardResult{r, i})
		}
	}
	// Time order; a tie keeps shard order, so that a merge is repeatable.
	slices.SortStableFunc(all, func(a, b shardResult) int { return a.r.Timestamp.Compare(b.r.Timestamp) })

	pl := o.Plan
	names := attackNames(pl)
	pops := make(map[string]int, len(names))
	for i, n := range names {
		pops[n] = i
	}
	rec := measure.NewRecorder(measure.Config{Limit: o.Limit, Window: o.Window, Algorithm: string(pl.Limiter.Algorithm), Start: o.Start, Populations: pl.MeasurePopulations()})
	acct := newAccountant(rec, pops, len(names), o.Window, o.Skew, o.Start, o.DenyStatus)
	acct.step = seriesStep(o.Elapsed)
	for i, p := range pl.Populations {
		acct.closed[i] = p.Send == plan.Closed
	}
	var bw *bufio.Writer
	var enc vegeta.Encoder
	if o.Out != nil {
		bw = bufio.NewWriterSize(o.Out, 256<<10)
		enc = vegeta.NewEncoder(bw)
	}
	for i := range all {
		r := &all[i].r
		sentKey, client := internalHeaders(r, false)
		acct.add(r, sentKey, client)
		if enc != nil {
			if err := enc.Encode(r); err != nil {
				return measure.Summary{}, fmt.Errorf("writing results to %s: %w", o.ResultsFile, err)
			}
		}
	}
	if bw != nil {
		if err := bw.Flush(); err != nil {
			return measure.Summary{}, fmt.Errorf("writing results to %s: %w", o.ResultsFile, err)
		}
	}
	ref := o.Summary
	ref.Mode = "attack"
	s := acct.summarize(ref, o.Limit, o.Elapsed, o.Offered, o.URL, o.ResultsFile, nil)
	s.KV.Observed = false // the shards attack a target whose store they do not see
	return s, nil
}

// Digest is what a shard file records of its results file, so that a
// merge can refuse one that was truncated, zero-filled or replaced (what a
// crashed pod or a bad copy leaves): the number of results, the SHA-256 of
// the file, and the earliest and latest send times in it.
type Digest struct {
	Results     int64
	SHA256      string
	First, Last time.Time
}

// DigestResults reads a vegeta results file to its end and returns its
// digest; a file that does not decode to its end is an error.
func DigestResults(r io.Reader) (Digest, error) {
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 256<<10)
	dec := vegeta.NewDecoder(br)
	var d Digest
	for {
		var res vegeta.Result
		err := dec.Decode(&res)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Digest{}, fmt.Errorf("%v (after %d results)", err, d.Results)
		}
		if d.Results == 0 || res.Timestamp.Before(d.First) {
			d.First = res.Timestamp
		}
		if d.Results == 0 || res.Timestamp.After(d.Last) {
			d.Last = res.Timestamp
		}
		d.Results++
	}
	if _, err := br.ReadByte(); err == nil {
		// The decoder stopped before the end (zeros, say): what follows
		// is not results.
		return Digest{}, fmt.Errorf("bytes after its %d results that are not results", d.Results)
	}
	d.SHA256 = hex.EncodeToString(h.Sum(nil))
	return d, nil
}
