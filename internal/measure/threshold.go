package measure

import (
	"fmt"
	"math"
	"strings"
)

// ThresholdStats lists the statistics a threshold can be set on.
var ThresholdStats = []string{"max", "p99", "p95", "p50", "mean", "trial-p95"}

// Threshold is a CI gate: the overshoot ratio, at the chosen statistic, must
// not exceed Max. Commands exit 3 when a summary breaks it.
type Threshold struct {
	// Max is the highest acceptable ratio (allowed / limit); 0 means no gate.
	Max float64
	// At is the statistic compared: max, p99, p95, p50, mean (over every
	// key-window of every trial) or trial-p95 (the max ratio 95% of trials
	// stay under).
	At string
}

// Validate reports a threshold that cannot be applied.
func (t Threshold) Validate() error {
	if t.Max < 0 || math.IsNaN(t.Max) || math.IsInf(t.Max, 0) {
		return fmt.Errorf("-max-ratio %v is out of range: give a ratio above 0, e.g. 1.5", t.Max)
	}
	for _, s := range ThresholdStats {
		if t.At == s {
			return nil
		}
	}
	return fmt.Errorf("-at %q is unknown: use one of %s", t.At, strings.Join(ThresholdStats, ", "))
}

// stat returns the statistic the threshold compares, from one summary.
func (t Threshold) stat(s *Summary) float64 {
	r := s.Overshoot.Ratio
	switch t.At {
	case "p99":
		return r.P99
	case "p95":
		return r.P95
	case "p50":
		return r.P50
	case "mean":
		return r.Mean
	case "trial-p95":
		return s.Overshoot.PerTrial.MaxRatio.P95
	}
	return r.Max
}

// Check returns a message for each place s breaks the threshold: the
// summary itself, or any of its sweep points. None means it holds.
func (t Threshold) Check(s *Summary) []string {
	if t.Max == 0 {
		return nil
	}
	var broken []string
	check := func(where string, s *Summary) {
		if s.Overshoot.KeyWindows == 0 {
			broken = append(broken, where+"no key-window was measured (no request got a decision), so the overshoot cannot be checked")
			return
		}
		if got := t.stat(s); got > t.Max {
			broken = append(broken, fmt.Sprintf("%sovershoot ratio %s = %.3g exceeds -max-ratio %.3g", where, t.At, got, t.Max))
		}
	}
	if len(s.Points) == 0 {
		check("", s)
	}
	for _, p := range s.Points {
		var where []string
		for _, q := range p.Params {
			where = append(where, q.Path+"="+q.Value)
		}
		check("at "+strings.Join(where, ", ")+": ", p.Summary)
	}
	return broken
}
