package measure

import (
	"fmt"
	"math"
	"strconv"
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

// Condition returns the threshold in the grammar of -threshold:
// -max-ratio X -at p99 is ratio.p99<=X, -at trial-p95 is trial_max.p95<=X.
func (t Threshold) Condition() Condition {
	name := "ratio." + t.At
	if t.At == "trial-p95" {
		name = "trial_max.p95"
	}
	m, _ := LookupMetric(name)
	x := strconv.FormatFloat(t.Max, 'g', -1, 64)
	return Condition{Text: name + "<=" + x, Metric: m, Op: "<=", Value: t.Max}
}

// Check returns a line for each place s breaks the threshold: the summary
// itself, or any of its sweep points (its Condition, checked as every
// -threshold is). None means it holds; a run that measured nothing breaks
// it.
func (t Threshold) Check(s *Summary) []string {
	if t.Max == 0 {
		return nil
	}
	var broken []string
	for _, v := range Check(s, []Condition{t.Condition()}) {
		if !v.Pass {
			broken = append(broken, v.String())
		}
	}
	return broken
}
