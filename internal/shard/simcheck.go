package shard

import (
	"fmt"
	"math"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// A simulate shard file is input: before a merge sizes anything by it or
// adds its counts, every field is checked against its range and against
// the others.

// maxShardCount bounds any one count of a trial in a shard file (requests,
// reads, key-windows...): far above what a simulated trial counts, and low
// enough that MaxTrials of them add up without overflowing an int64.
const maxShardCount = 1 << 40

// maxReadGroups bounds a worst key-window's read groups: a recorder
// tallies at most 4,096 counts.
const maxReadGroups = 4096

// maxShardPoints bounds the points of a shard file.
const maxShardPoints = 100000

// check checks f's own fields (its header's are Header.check's): the
// trials of each point and every count in them, and, from schema 2, that
// the points hold the trials and checksum the file records.
func (f *SimulateFile) check() error {
	switch {
	case f.TrialsPerPoint < 1 || f.TrialsPerPoint > scenario.MaxTrials:
		return fmt.Errorf("trials_per_point %d is out of range: must be 1 to %d", f.TrialsPerPoint, scenario.MaxTrials)
	case len(f.Points) == 0:
		return fmt.Errorf("points is empty: a shard holds every point of its run, with or without trials")
	case len(f.Points) > maxShardPoints:
		return fmt.Errorf("points holds %d points, over %d", len(f.Points), maxShardPoints)
	}
	for p := range f.Points {
		pt := &f.Points[p]
		if pt.Limit <= 0 {
			return fmt.Errorf("points[%d].limit %d is out of range: must be above 0", p, pt.Limit)
		}
		if len(pt.Trials) > f.TrialsPerPoint {
			return fmt.Errorf("points[%d] holds %d trials, more than trials_per_point %d", p, len(pt.Trials), f.TrialsPerPoint)
		}
		for i := range pt.Trials {
			tr := &pt.Trials[i]
			where := fmt.Sprintf("points[%d].trials[%d]", p, i)
			if tr.Index < 0 || tr.Index >= f.TrialsPerPoint {
				return fmt.Errorf("%s.index %d is not one of 0..%d", where, tr.Index, f.TrialsPerPoint-1)
			}
			if err := checkTrial(&tr.Trial); err != nil {
				return fmt.Errorf("%s.trial.%v", where, err)
			}
		}
	}
	return f.checkSum()
}

// count checks that one count lies in 0..maxShardCount.
func count(field string, n int64) error {
	if n < 0 || n > maxShardCount {
		return fmt.Errorf("%s %d is out of range: must be 0 to %d", field, n, int64(maxShardCount))
	}
	return nil
}

// atMost checks that the count a (field fa) is at most b (field fb).
func atMost(fa string, a int64, fb string, b int64) error {
	if a > b {
		return fmt.Errorf("%s %d is more than %s %d", fa, a, fb, b)
	}
	return nil
}

// finite checks that a float field is finite and not negative.
func finite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%s %v is out of range: must be a finite number >= 0", field, v)
	}
	return nil
}

// firstErr returns the first error that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkTrial checks one trial's counts: each in range, and together as a
// recorder makes them (every request allowed, denied or errored; the
// populations adding up to the totals; nothing allowed beyond the allowed).
func checkTrial(t *measure.Trial) error {
	tt := t.Totals
	err := firstErr(count("Totals.requests", tt.Requests), count("Totals.allowed", tt.Allowed), count("Totals.denied", tt.Denied),
		count("Totals.errors", tt.Errors), count("Totals.fail_open", tt.FailOpen), count("Totals.fail_closed", tt.FailClosed),
		finite("Totals.seconds", tt.SimulatedSeconds),
		count("OverLimit", t.OverLimit), count("Excess", t.Excess), count("MaxIn", t.MaxIn), count("ReadGroup", t.ReadGroup))
	if err != nil {
		return err
	}
	if sum := tt.Allowed + tt.Denied + tt.Errors; sum != tt.Requests {
		return fmt.Errorf("Totals: allowed %d + denied %d + errors %d is %d, not requests %d", tt.Allowed, tt.Denied, tt.Errors, sum, tt.Requests)
	}
	if err := firstErr(atMost("Totals.fail_open", tt.FailOpen, "Totals.requests", tt.Requests),
		atMost("Totals.fail_closed", tt.FailClosed, "Totals.requests", tt.Requests),
		atMost("Excess", t.Excess, "Totals.allowed", tt.Allowed), atMost("MaxIn", t.MaxIn, "Totals.allowed", tt.Allowed),
		atMost("ReadGroup", t.ReadGroup, "Totals.allowed", tt.Allowed)); err != nil {
		return err
	}
	if err := checkPopulations(t.Populations, tt); err != nil {
		return err
	}
	var keyWindows int64
	for allowed, n := range t.Hist {
		if err := firstErr(count(fmt.Sprintf("Hist[%d] key", allowed), allowed), count(fmt.Sprintf("Hist[%d]", allowed), n),
			atMost(fmt.Sprintf("Hist[%d] key (a key-window's allowed)", allowed), allowed, "Totals.allowed", tt.Allowed)); err != nil {
			return err
		}
		if keyWindows += n; keyWindows > tt.Requests {
			return fmt.Errorf("Hist counts more key-windows than Totals.requests %d", tt.Requests)
		}
	}
	if err := atMost("OverLimit", t.OverLimit, "Hist's key-windows", keyWindows); err != nil {
		return err
	}
	for i, w := range t.Worst {
		if err := count(fmt.Sprintf("Worst[%d].allowed", i), w.Allowed); err != nil {
			return err
		}
		if len(w.AllowedAtSecs) > measure.MaxTimelinePoints {
			return fmt.Errorf("Worst[%d].allowed_at_seconds holds %d times, over %d", i, len(w.AllowedAtSecs), measure.MaxTimelinePoints)
		}
		if len(w.ReadGroups) > maxReadGroups {
			return fmt.Errorf("Worst[%d].read_groups holds %d counts, over %d", i, len(w.ReadGroups), maxReadGroups)
		}
	}
	if err := checkKV(&t.KV); err != nil {
		return fmt.Errorf("KV.%v", err)
	}
	if err := checkHist("Latency", &t.Latency); err != nil {
		return err
	}
	for d := range t.LatencyByDecision {
		if err := checkHist(fmt.Sprintf("LatencyByDecision[%d]", d), &t.LatencyByDecision[d]); err != nil {
			return err
		}
	}
	return nil
}

// checkPopulations checks each population's counts and that they add up
// to the totals.
func checkPopulations(pops []measure.Population, tt measure.Totals) error {
	var sum measure.Totals
	for i, p := range pops {
		f := fmt.Sprintf("Populations[%d]", i)
		if err := firstErr(count(f+".requests", p.Requests), count(f+".allowed", p.Allowed), count(f+".denied", p.Denied),
			count(f+".errors", p.Errors), count(f+".false_denials", p.FalseDenials)); err != nil {
			return err
		}
		if p.Allowed+p.Denied+p.Errors != p.Requests {
			return fmt.Errorf("%s: allowed %d + denied %d + errors %d is not requests %d", f, p.Allowed, p.Denied, p.Errors, p.Requests)
		}
		if err := atMost(f+".false_denials", p.FalseDenials, f+".denied", p.Denied); err != nil {
			return err
		}
		sum.Requests += p.Requests
		sum.Allowed += p.Allowed
		sum.Denied += p.Denied
		if sum.Requests > tt.Requests {
			return fmt.Errorf("Populations add up to more than Totals.requests %d", tt.Requests)
		}
	}
	if len(pops) > 0 && (sum.Requests != tt.Requests || sum.Allowed != tt.Allowed || sum.Denied != tt.Denied) {
		return fmt.Errorf("Populations add up to %d requests, %d allowed, %d denied; Totals say %d, %d, %d",
			sum.Requests, sum.Allowed, sum.Denied, tt.Requests, tt.Allowed, tt.Denied)
	}
	return nil
}

// checkKV checks the store's counters.
func checkKV(k *measure.KVCounters) error {
	if err := firstErr(count("Reads", k.Reads), count("Writes", k.Writes), count("ReadErrors", k.ReadErrors),
		count("WriteErrors", k.WriteErrors), count("WriteRateLimited", k.WriteRateLimited), count("QuotaErrors", k.QuotaErrors),
		count("LostUpdates", k.LostUpdates), count("WriteQuotaErrors", k.WriteQuotaErrors), count("StaleReads", k.StaleReads)); err != nil {
		return err
	}
	if err := firstErr(atMost("ReadErrors", k.ReadErrors, "Reads", k.Reads), atMost("WriteErrors", k.WriteErrors, "Writes", k.Writes),
		atMost("WriteRateLimited", k.WriteRateLimited, "WriteErrors", k.WriteErrors), atMost("StaleReads", k.StaleReads, "Reads", k.Reads),
		atMost("LostUpdates", k.LostUpdates, "Writes", k.Writes)); err != nil {
		return err
	}
	if n := len(measure.NewKVCounters().VisReads); len(k.VisReads) != len(k.VisFresh) || len(k.VisReads) > n {
		return fmt.Errorf("VisReads and VisFresh hold %d and %d buckets: want %d each", len(k.VisReads), len(k.VisFresh), n)
	}
	for i := range k.VisReads {
		if err := firstErr(count(fmt.Sprintf("VisReads[%d]", i), k.VisReads[i]), count(fmt.Sprintf("VisFresh[%d]", i), k.VisFresh[i]),
			atMost(fmt.Sprintf("VisFresh[%d]", i), k.VisFresh[i], fmt.Sprintf("VisReads[%d]", i), k.VisReads[i])); err != nil {
			return err
		}
	}
	return checkHist("Staleness", &k.Staleness)
}

// checkHist checks a latency histogram: counts in range, adding up to N.
func checkHist(field string, h *measure.LogHist) error {
	if err := firstErr(count(field+".N", h.N), finite(field+".Sum", h.Sum), finite(field+".MaxV", h.MaxV)); err != nil {
		return err
	}
	var n int64
	for b, c := range h.Counts {
		if err := count(fmt.Sprintf("%s.Counts[%d]", field, b), c); err != nil {
			return err
		}
		if n += c; n > h.N {
			return fmt.Errorf("%s: its counts add up to more than N %d", field, h.N)
		}
	}
	if n != h.N {
		return fmt.Errorf("%s: its counts add up to %d, not N %d", field, n, h.N)
	}
	return nil
}
