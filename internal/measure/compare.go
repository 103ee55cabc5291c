package measure

import (
	"fmt"
	"math"
	"slices"
)

// Comparison is a prediction held against a live measurement (simulate
// -compare): is what was measured inside the band the model's trials say a
// single live run falls in, and how far is it from their median.
type Comparison struct {
	// InsideBand is whether MeasuredMaxRatio lies in PredictedBand.
	InsideBand bool `json:"inside_band"`
	// MeasuredMaxRatio is the live run's max ratio (allowed / limit in its
	// worst key-window); with repeats, the median over them.
	MeasuredMaxRatio float64 `json:"measured_max_ratio"`
	// Repeats is how many live runs MeasuredMaxRatio is the median of.
	Repeats int `json:"repeats"`
	// PredictedBand is [lo, hi]: the central 95% of the trials' max ratios.
	PredictedBand [2]float64 `json:"predicted_band"`
	// PredictedMedian is the median of the trials' max ratios.
	PredictedMedian float64 `json:"predicted_median"`
	// RelativeError is |measured - predicted median| / measured (0 when
	// nothing was measured).
	RelativeError float64 `json:"relative_error"`
	// KeyWindows is how many key-windows the live run observed.
	KeyWindows int64 `json:"key_windows"`
	// Excluded is how many repeated runs were kept out of
	// MeasuredMaxRatio because they observed another number of
	// key-windows than a trial of the model (a run that crossed a window
	// boundary saw its key's windows for part of their length).
	Excluded int `json:"excluded,omitempty"`
	// Note says what was not like for like, when something was not.
	Note string `json:"note,omitempty"`
	// MeasuredReadGroup and PredictedReadGroup are the most allowed
	// requests of one key-window that read the same count: live (the
	// median over repeats) and the median over the trials. They show
	// whether the model races the way the target does; 0 when unknown.
	MeasuredReadGroup  float64 `json:"measured_read_group,omitempty"`
	PredictedReadGroup float64 `json:"predicted_read_group,omitempty"`
}

// Compare holds predicted (a simulate summary) against measured (an attack
// summary, possibly with repeats).
func Compare(predicted, measured *Summary) Comparison {
	c := Comparison{MeasuredMaxRatio: measured.Overshoot.Ratio.Max, Repeats: 1, KeyWindows: measured.Overshoot.KeyWindows,
		MeasuredReadGroup: float64(measured.Overshoot.LargestReadGroup)}
	// The key-windows a trial of the model saw, when every trial saw as
	// many: a live run that saw another number is not like for like.
	perTrial := int64(-1)
	if predicted.Trials > 0 && predicted.Overshoot.KeyWindows%int64(predicted.Trials) == 0 {
		perTrial = predicted.Overshoot.KeyWindows / int64(predicted.Trials)
	}
	if r := measured.Repeats; r != nil && len(r.Runs) > 0 {
		c.MeasuredMaxRatio, c.Repeats = r.MaxRatio.Median, len(r.Runs)
		var kept, groups, keptGroups []float64
		for _, run := range r.Runs {
			groups = append(groups, float64(run.ReadGroup))
			if perTrial < 0 || run.KeyWindows == 0 || run.KeyWindows == perTrial {
				kept = append(kept, run.MaxRatio)
				keptGroups = append(keptGroups, float64(run.ReadGroup))
			}
		}
		c.MeasuredReadGroup = Median(groups)
		switch c.Excluded = len(r.Runs) - len(kept); {
		case c.Excluded == len(r.Runs):
			c.Excluded = 0
			c.Note = fmt.Sprintf("every live run saw another number of key-windows than a trial of the model (%d): none is like for like, so all are kept; a run that crosses a window boundary sees its key's windows for part of their length", perTrial)
		case c.Excluded > 0:
			c.MeasuredMaxRatio, c.Repeats = Median(kept), len(kept)
			c.MeasuredReadGroup = Median(keptGroups)
			c.Note = fmt.Sprintf("%d of %d live runs kept out: they saw another number of key-windows than a trial of the model (%d), so saw some for part of their length (a window boundary fell in the run)", c.Excluded, len(r.Runs), perTrial)
		}
	} else if perTrial >= 0 && measured.Overshoot.KeyWindows != perTrial {
		c.Note = fmt.Sprintf("the live run saw %d key-windows, a trial of the model %d: some were seen for part of their length (a window boundary fell in the run), so this is not like for like; repeat the run (attack -repeat) so that such runs can be kept out", measured.Overshoot.KeyWindows, perTrial)
	}
	pt := predicted.Overshoot.PerTrial
	c.PredictedBand = [2]float64{pt.MaxRatio.Lo, pt.MaxRatio.Hi}
	c.PredictedMedian = Median(pt.MaxRatios)
	if len(pt.MaxRatios) == 0 {
		c.PredictedMedian = pt.MaxRatio.Mean
	}
	if len(pt.ReadGroups) > 0 {
		g := make([]float64, len(pt.ReadGroups))
		for i, n := range pt.ReadGroups {
			g[i] = float64(n)
		}
		c.PredictedReadGroup = Median(g)
	}
	c.InsideBand = c.MeasuredMaxRatio >= c.PredictedBand[0] && c.MeasuredMaxRatio <= c.PredictedBand[1]
	if c.MeasuredMaxRatio > 0 {
		c.RelativeError = math.Abs(c.MeasuredMaxRatio-c.PredictedMedian) / c.MeasuredMaxRatio
	}
	return c
}

// Median returns the median of xs (the mean of the middle two for an even
// count), or 0 for none. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Repeats is what attack -repeat N measured: each run's numbers, and over
// the runs the median and spread of each, so that a prediction is held
// against a distribution rather than one noisy sample.
type Repeats struct {
	// Runs are the runs in the order they ran.
	Runs []RepeatRun `json:"runs"`
	// MaxRatio, Allowed, LatencyP50Ms and LatencyP99Ms summarise the runs'
	// values of the same name.
	MaxRatio     Spread `json:"max_ratio"`
	Allowed      Spread `json:"allowed"`
	LatencyP50Ms Spread `json:"latency_p50_ms"`
	LatencyP99Ms Spread `json:"latency_p99_ms"`
}

// RepeatRun is one run of a repeated attack.
type RepeatRun struct {
	RunID      string  `json:"run_id"`
	MaxRatio   float64 `json:"max_ratio"`
	Allowed    int64   `json:"allowed"`
	MaxAllowed int64   `json:"max_allowed"`
	KeyWindows int64   `json:"key_windows"`
	// ReadGroup is the run's largest read group
	// (Overshoot.LargestReadGroup); 0 when unknown.
	ReadGroup    int64   `json:"largest_read_group,omitempty"`
	LatencyP50Ms float64 `json:"latency_p50_ms"`
	LatencyP99Ms float64 `json:"latency_p99_ms"`
	Complete     bool    `json:"complete"`
}

// Spread is a value's median, least and most over repeated runs.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// SpreadOf returns the median, least and most of xs.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	return Spread{Median: Median(xs), Min: slices.Min(xs), Max: slices.Max(xs)}
}

// NewRepeats summarises runs.
func NewRepeats(runs []RepeatRun) *Repeats {
	r := &Repeats{Runs: runs}
	var mr, al, p50, p99 []float64
	for _, x := range runs {
		mr, al = append(mr, x.MaxRatio), append(al, float64(x.Allowed))
		p50, p99 = append(p50, x.LatencyP50Ms), append(p99, x.LatencyP99Ms)
	}
	r.MaxRatio, r.Allowed, r.LatencyP50Ms, r.LatencyP99Ms = SpreadOf(mr), SpreadOf(al), SpreadOf(p50), SpreadOf(p99)
	return r
}
