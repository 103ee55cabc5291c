package measure

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The verdicts of a comparison.
const (
	// VerdictHolds: like for like, and the headline and every figure of
	// the mechanism the live run observed are inside the model's bands.
	VerdictHolds = "holds"
	// VerdictFails: like for like, and the headline or some figure of the
	// mechanism is outside its band.
	VerdictFails = "does not hold"
	// VerdictCannotJudge: the runs are not like for like (Why says how).
	VerdictCannotJudge = "cannot judge"
)

// Comparison is a prediction held against a live measurement (simulate
// -compare): is what was measured inside the band the model's trials say a
// single live run falls in, for the headline (the central 95% of the
// trials) and for each figure of the mechanism behind it (the range of the
// trials), and how far is it from their median.
type Comparison struct {
	// Verdict is VerdictHolds, VerdictFails or VerdictCannotJudge; Why
	// says in words why, and Do, unless it holds, what to do about it.
	Verdict string `json:"verdict"`
	Why     string `json:"why"`
	Do      string `json:"do,omitempty"`
	// LikeForLike is false when the runs are not alike enough to judge:
	// no key-window on a side, another number of key-windows than a trial
	// of the model, another limiter.
	LikeForLike bool `json:"like_for_like"`
	// InsideBand is whether MeasuredMaxRatio lies in PredictedBand.
	InsideBand bool `json:"inside_band"`
	// MeasuredMaxRatio is the live run's max ratio (allowed / limit in its
	// worst key-window); with repeats, the median over them.
	MeasuredMaxRatio float64 `json:"measured_max_ratio"`
	// Repeats is how many live runs MeasuredMaxRatio is the median of.
	Repeats int `json:"repeats"`
	// PredictedBand is [lo, hi]: the central 95% of the trials' max
	// ratios or, when MeasuredMaxRatio is the median of Repeats > 1 runs,
	// of the median of as many trials (MedianBand), which the live median
	// is held against.
	PredictedBand [2]float64 `json:"predicted_band"`
	// PredictedMedian is the median of the trials' max ratios.
	PredictedMedian float64 `json:"predicted_median"`
	// Misfit is the calibration's misfit on its own runs that widened
	// PredictedBand (PerTrial.Misfit), when it did.
	Misfit []float64 `json:"misfit,omitempty"`
	// RelativeError is |measured - predicted median| / measured; absent
	// when the live run saw no key-window (there is no error to give).
	RelativeError *float64 `json:"relative_error,omitempty"`
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
	// Checks are the figures of the mechanism (429, lost-update,
	// stale-read and fail-open rates, latency quantiles), each against the
	// band of the model's trials.
	Checks []MechanismCheck `json:"checks,omitempty"`
	// Outside names what is outside its band: "ratio.max" for the
	// headline, then each check's name.
	Outside []string `json:"outside,omitempty"`
	// Rate is the requests a second the live runs served (the median over
	// the runs kept) against the model's trials' range (ThroughputName),
	// when both sides say. It is not one of Checks and does not change the
	// verdict: a closed loop's rate is the host's speed (RateNote).
	Rate *MechanismCheck `json:"rate,omitempty"`
}

// MechanismCheck is one figure of the mechanism, measured against the model's band.
type MechanismCheck struct {
	// Name is the figure (CheckRateLimited, ...), What it in words.
	Name string `json:"name"`
	What string `json:"what"`
	// Observed is false when the live run could not see the figure (a
	// target at a URL hides its store; only the built-in eventual store
	// counts lost updates and stale reads): it is then not judged.
	Observed bool `json:"observed"`
	// Measured is the live run's value (the median over the runs kept).
	Measured float64 `json:"measured"`
	// PredictedBand is the least and the most of the trials' values,
	// PredictedMedian their median.
	PredictedBand   [2]float64 `json:"predicted_band"`
	PredictedMedian float64    `json:"predicted_median"`
	// InsideBand is whether Measured lies in PredictedBand (false when
	// not observed).
	InsideBand bool `json:"inside_band"`
	// AtTarget says a latency was measured at the target (its own service
	// time, without the HTTP hop the model has no part for), not by the
	// attacker.
	AtTarget bool `json:"at_target,omitempty"`
	// AtStore says a latency at the target was taken from what its
	// store's modeled latencies stood for (X-Overshoot-Store-Us), the
	// model's latency's parts alone; Service is then the same quantile of
	// the target's service time, which also holds the target's own time.
	AtStore bool    `json:"at_store,omitempty"`
	Service float64 `json:"service_ms,omitempty"`
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
	kept := keptRuns(&c, measured, perTrial)
	pt := predicted.Overshoot.PerTrial
	c.PredictedBand = [2]float64{pt.MaxRatio.Lo, pt.MaxRatio.Hi}
	c.PredictedMedian = Median(pt.MaxRatios)
	if len(pt.MaxRatios) == 0 {
		c.PredictedMedian = pt.MaxRatio.Mean
	} else if c.Repeats > 1 {
		// The live value is the median of c.Repeats runs: the band is
		// that of the median of as many trials.
		c.PredictedBand = MedianBand(pt.MaxRatios, c.Repeats)
	}
	if m := pt.Misfit; ValidMisfit(m) {
		c.PredictedBand = WidenedBand(c.PredictedBand, m)
		c.Misfit = m
	}
	if len(pt.ReadGroups) > 0 {
		g := make([]float64, len(pt.ReadGroups))
		for i, n := range pt.ReadGroups {
			g[i] = float64(n)
		}
		c.PredictedReadGroup = Median(g)
	}
	c.InsideBand = c.MeasuredMaxRatio >= c.PredictedBand[0] && c.MeasuredMaxRatio <= c.PredictedBand[1]
	if c.KeyWindows > 0 && c.MeasuredMaxRatio > 0 {
		e := math.Abs(c.MeasuredMaxRatio-c.PredictedMedian) / c.MeasuredMaxRatio
		c.RelativeError = &e
	}
	c.Checks = checks(predicted, measured, kept)
	c.Rate = throughput(predicted, measured, kept)
	judge(&c, predicted, measured, perTrial)
	return c
}

// WidenedBand is band widened by a calibration's misfit m (ValidMisfit):
// its low end times m[0], its high end times m[1], where a live value is
// expected once the model's own miss on the fitted runs is counted. The
// low end stays at 1 or more where the trials' did: a max ratio under 1
// is traffic too thin to reach the limit, which the trials tell.
func WidenedBand(band [2]float64, m []float64) [2]float64 {
	if !ValidMisfit(m) {
		return band
	}
	if lo := band[0] * m[0]; band[0] < 1 {
		band[0] = lo
	} else {
		band[0] = max(lo, 1)
	}
	band[1] *= m[1]
	return band
}

// ValidMisfit reports whether m is a calibration's misfit as -calibrate
// writes it (calibrated.misfit, PerTrial.Misfit): two numbers, the first
// above 0 and at most 1, the second at least 1 and finite. Anything else
// could narrow a band or make it empty or endless.
func ValidMisfit(m []float64) bool {
	return len(m) == 2 && m[0] > 0 && m[0] <= 1 && m[1] >= 1 && !math.IsInf(m[1], 1)
}

// keptRuns sets c's measured max ratio, read group, exclusions and note
// from measured's repeats (the runs that saw as many key-windows as a
// trial of the model, perTrial, when it is known) and returns the indexes
// of the runs kept; nil for a run without repeats.
func keptRuns(c *Comparison, measured *Summary, perTrial int64) []int {
	r := measured.Repeats
	if r == nil || len(r.Runs) == 0 {
		if kw := measured.Overshoot.KeyWindows; perTrial >= 0 && kw != perTrial && kw > 0 {
			why := "some were seen for part of their length (a window boundary fell in the run)"
			if kw < perTrial {
				why = "the live traffic reached fewer keys or windows than the model's"
			}
			c.Note = fmt.Sprintf("the live run saw %d key-windows, a trial of the model %d: %s, so this is not like for like", kw, perTrial, why)
		}
		return nil
	}
	c.MeasuredMaxRatio, c.Repeats = r.MaxRatio.Median, len(r.Runs)
	var all, kept []int
	var ratios, groups, keptGroups []float64
	for i, run := range r.Runs {
		all = append(all, i)
		groups = append(groups, float64(run.ReadGroup))
		if perTrial < 0 || run.KeyWindows == 0 || run.KeyWindows == perTrial {
			kept = append(kept, i)
			ratios = append(ratios, run.MaxRatio)
			keptGroups = append(keptGroups, float64(run.ReadGroup))
		}
	}
	c.MeasuredReadGroup = Median(groups)
	switch c.Excluded = len(r.Runs) - len(kept); {
	case c.Excluded == len(r.Runs):
		c.Excluded = 0
		c.Note = fmt.Sprintf("every live run saw another number of key-windows than a trial of the model (%d): none is like for like, so all are kept; a run that crosses a window boundary sees its key's windows for part of their length", perTrial)
		return all
	case c.Excluded > 0:
		c.MeasuredMaxRatio, c.Repeats = Median(ratios), len(kept)
		c.MeasuredReadGroup = Median(keptGroups)
		c.Note = fmt.Sprintf("%d of %d live runs kept out: they saw another number of key-windows than a trial of the model (%d), so saw some for part of their length (a window boundary fell in the run)", c.Excluded, len(r.Runs), perTrial)
	}
	return kept
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

// judge sets c's like-for-like, outside list and verdict, with why and
// what to do.
func judge(c *Comparison, predicted, measured *Summary, perTrial int64) {
	var not []string
	do := ""
	switch {
	case c.KeyWindows <= 0:
		not = append(not, "the live run saw no key-window (no request reached the limiter), so there is nothing to compare")
		do = "check that the target answered (the live summary's status counts) and run the attack again"
	case predicted.Overshoot.KeyWindows <= 0:
		not = append(not, "the model's trials saw no key-window, so there is nothing to compare")
		do = "check the scenario's traffic and the run's duration"
	case perTrial >= 0 && c.Excluded == 0 && c.Note != "":
		not = append(not, c.Note)
		do = "start the live run so that it sees whole key-windows (a live.window longer than live.duration, so that attack can wait for a window the run fits in), or repeat it (attack -repeat 3) so that runs that crossed a boundary are kept out"
		if c.KeyWindows < perTrial {
			do = "predict the live run's own traffic (its scenario file and -set values), or find which keys it did not reach"
		}
	}
	if p, m := predicted.Limiter, measured.Limiter; m.Limit > 0 && (p.Limit != m.Limit || p.WindowSecs != m.WindowSecs ||
		(m.Algorithm != "" && (p.Algorithm != m.Algorithm || p.Update != m.Update || p.Burst != m.Burst)) ||
		(m.ErrorPolicy != "" && p.ErrorPolicy != m.ErrorPolicy)) {
		not = append(not, fmt.Sprintf("the limiters differ: %s, %d per %s, %s predicted; %s, %d per %s, %s measured",
			p.AlgorithmText(), p.Limit, p.Window, p.ErrorPolicy, m.AlgorithmText(), m.Limit, m.Window, m.ErrorPolicy))
		if do == "" {
			do = "predict with the live run's limiter (leave out the -set that changed it)"
		}
	}
	if c.LikeForLike = len(not) == 0; !c.LikeForLike {
		c.Verdict, c.Why, c.Do = VerdictCannotJudge, strings.Join(not, "; "), do
		return
	}
	var outside, unseen []string
	if !c.InsideBand {
		c.Outside = append(c.Outside, "ratio.max")
		outside = append(outside, fmt.Sprintf("the headline (max ratio %.3g against %.3g to %.3g)", c.MeasuredMaxRatio, c.PredictedBand[0], c.PredictedBand[1]))
	}
	for _, k := range c.Checks {
		switch {
		case !k.Observed:
			unseen = append(unseen, k.Name)
		case !k.InsideBand:
			c.Outside = append(c.Outside, k.Name)
			at := ""
			switch {
			case k.AtStore:
				at = " of the target's store"
			case k.AtTarget:
				at = " at the target"
			}
			outside = append(outside, fmt.Sprintf("%s %s%s against %s to %s", k.Name, k.Value(k.Measured), at, k.Value(k.PredictedBand[0]), k.Value(k.PredictedBand[1])))
		}
	}
	switch {
	case len(outside) == 0:
		c.Verdict, c.Why = VerdictHolds, "like for like, the headline and every figure of the mechanism the live run observed are inside the model's bands"
		if len(unseen) > 0 {
			c.Why += " (not observed live, so not checked: " + strings.Join(unseen, ", ") + ")"
		}
	case c.InsideBand:
		c.Verdict = VerdictFails
		c.Why = "the headline is inside its band, but the mechanism behind it is not the model's: outside their bands are " + strings.Join(outside, "; ")
		c.Do = "find what differs between the live store and the model before trusting the prediction: " + remedies(c.Outside)
	default:
		c.Verdict, c.Why = VerdictFails, "outside their bands are "+strings.Join(outside, "; ")
		c.Do = remedies(c.Outside)
	}
	if n := c.RateNote(); n != "" && c.Verdict == VerdictFails {
		c.Do = "first, " + n + "; then " + c.Do
	}
}

// remedy is, per figure outside its band, where to look.
var remedy = map[string]string{
	"ratio.max":      "the model's latencies and propagation against the live store's (simulate -calibrate fits them)",
	CheckRateLimited: "the live store's write limit per key (store.kv.write_limit) against the model's",
	CheckLostUpdates: "how the live store serves reads and writes (its caches, lag and consistency) against the model's",
	CheckStaleReads:  "how the live store serves reads and writes (its caches, lag and consistency) against the model's",
	CheckFailOpen:    "which store errors the live run met (429s, outages, error rates) against the model's",
	CheckLatencyP50:  "the live latencies against the model's: by the attacker's clock they hold the HTTP hop and at the target its own time, which the model has no part for; of the target's store, which the model's are made of, the store's latencies or the mix of requests (a closed loop slowed by the hop sends fewer, so more of them write) (simulate -calibrate fits the model's to live runs)",
	CheckLatencyP99:  "the live latencies against the model's: by the attacker's clock they hold the HTTP hop and at the target its own time, which the model has no part for; of the target's store, which the model's are made of, the store's latencies or the mix of requests (a closed loop slowed by the hop sends fewer, so more of them write) (simulate -calibrate fits the model's to live runs)",
}

// remedies says where to look for the figures outside their bands, each
// place once.
func remedies(outside []string) string {
	var out []string
	for _, name := range outside {
		if r := remedy[name]; r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return strings.Join(out, "; ")
}

// Value writes v as the check's figure: a share as a percentage, a
// latency in milliseconds, a rate in requests a second. It gives three
// significant digits, or as many more as tell a measured value outside
// its band from the band's nearer end (99.93% against 99.91% to 99.92%,
// not 99.9% against 99.9% to 99.9%).
func (k MechanismCheck) Value(v float64) string { return k.valueTo(v, k.digits()) }

// digits is how many significant digits Value gives: 3, or up to 7 until
// an outside measured value reads apart from the band's nearer end.
func (k MechanismCheck) digits() int {
	if k.InsideBand || !k.Observed {
		return 3
	}
	near := k.PredictedBand[0]
	if k.Measured > k.PredictedBand[1] {
		near = k.PredictedBand[1]
	}
	d := 3
	for d < 7 && k.valueTo(k.Measured, d) == k.valueTo(near, d) {
		d++
	}
	return d
}

// valueTo is Value to d significant digits.
func (k MechanismCheck) valueTo(v float64, d int) string {
	switch {
	case strings.HasSuffix(k.Name, "_ms"):
		return fmt.Sprintf("%.*g ms", d, v)
	case k.Name == ThroughputName && v >= 100:
		return fmt.Sprintf("%.0f/s", v)
	case k.Name == ThroughputName:
		return fmt.Sprintf("%.*g/s", d, v)
	}
	return fmt.Sprintf("%.*g%%", d, 100*v)
}

// Format writes the check's measured value and band for people.
func (k MechanismCheck) Format() string {
	if !k.Observed {
		return fmt.Sprintf("not observed live; predicted %s (%s to %s)", k.Value(k.PredictedMedian), k.Value(k.PredictedBand[0]), k.Value(k.PredictedBand[1]))
	}
	in := "inside"
	if !k.InsideBand {
		in = "OUTSIDE"
	}
	at := ""
	switch {
	case k.AtStore:
		at = fmt.Sprintf(" of the target's store (its service time %s: the rest is its own)", k.Value(k.Service))
	case k.AtTarget:
		at = " at the target"
	}
	return fmt.Sprintf("%s%s, predicted %s (trials %s to %s): %s", k.Value(k.Measured), at, k.Value(k.PredictedMedian), k.Value(k.PredictedBand[0]), k.Value(k.PredictedBand[1]), in)
}

// NotLikeForLike marks c not like for like for a reason Compare cannot see
// (the prediction is of another scenario than the run's): the verdict is
// then VerdictCannotJudge, why first among its reasons, with what to do.
func (c *Comparison) NotLikeForLike(why, do string) {
	if c.LikeForLike {
		c.Why, c.Do = why, do
	} else {
		c.Why = why + "; " + c.Why
		if c.Do == "" {
			c.Do = do
		}
	}
	c.LikeForLike, c.Verdict, c.Outside = false, VerdictCannotJudge, nil
}

// RelErr is the relative error and whether there is one (the live run saw
// a key-window).
func (c *Comparison) RelErr() (float64, bool) {
	if c.RelativeError == nil {
		return 0, false
	}
	return *c.RelativeError, true
}
