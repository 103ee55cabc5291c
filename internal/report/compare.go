package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// compareRoles decides which of two summaries is the prediction and which
// the measurement: a simulate summary predicts, an attack summary
// measures. When the modes do not say (both the same), the report's own
// summary is "this run" and the other "compared run", in that order.
func compareRoles(s, c *measure.Summary) (pred, meas *measure.Summary, predLabel, measLabel string) {
	switch {
	case s.Mode == "attack" && c.Mode != "attack":
		return c, s, "predicted", "measured"
	case c.Mode == "attack" && s.Mode != "attack":
		return s, c, "predicted", "measured"
	}
	return c, s, "compared run", "this run"
}

// measuredMax is the measurement's max ratio to set against the
// prediction's per-trial max: for repeated live runs (attack -repeat) the
// median measure.Compare holds against pred (over the runs it keeps), else
// the run's max for one trial, else the mean of its trials' maxima.
func measuredMax(pred, m *measure.Summary) (float64, string) {
	if r := m.Repeats; r != nil && len(r.Runs) > 0 {
		// One run of a loaded system is one noisy sample, the median of
		// several is the measurement.
		c := measure.Compare(pred, m)
		if c.Excluded > 0 {
			return c.MeasuredMaxRatio, fmt.Sprintf("median max ratio over %d of its %d runs (a window boundary fell in the others)", c.Repeats, len(r.Runs))
		}
		return c.MeasuredMaxRatio, fmt.Sprintf("median max ratio over its %d runs", c.Repeats)
	}
	if m.Trials > 1 {
		return m.Overshoot.PerTrial.MaxRatio.Mean, "mean of its trials' max ratio"
	}
	return m.Overshoot.Ratio.Max, "max ratio"
}

// compareSentence says whether the measurement falls inside the predicted
// 95% band of per-trial max ratios, and gives the comparison's verdict
// (cmp, from measure.Compare): the prediction holds only when the runs
// are like for like and the mechanism agrees too.
func compareSentence(pred, meas *measure.Summary, pl, ml string, cmp *measure.Comparison) string {
	if pred.Totals.Requests <= 0 || meas.Totals.Requests <= 0 || pred.Overshoot.KeyWindows <= 0 || meas.Overshoot.KeyWindows <= 0 {
		s := fmt.Sprintf("Cannot judge: the %s run has %s key-windows and the %s run %s, so there is no comparison of ratios and no error to give.",
			pl, count(pred.Overshoot.KeyWindows), ml, count(meas.Overshoot.KeyWindows))
		if cmp.Do != "" {
			s += " What to do: " + cmp.Do + "."
		}
		return s
	}
	v, what := measuredMax(pred, meas)
	band := pred.Overshoot.PerTrial.MaxRatio
	if !finite(v) || !finite(band.Lo) || !finite(band.Hi) {
		return "Cannot judge: a needed value is not a number."
	}
	verdict := "inside"
	switch {
	case v < band.Lo:
		verdict = "below"
	case v > band.Hi:
		verdict = "above"
	}
	s := fmt.Sprintf("The %s %s, %s, is %s the %s 95%% band of per-trial max ratio (%s to %s over %s).",
		ml, what, ratio(v), verdict, pl, ratio(band.Lo), ratio(band.Hi), trials(pred.Trials))
	switch cmp.Verdict {
	case measure.VerdictHolds:
		s += " The prediction holds for this run: " + cmp.Why + "."
	case measure.VerdictCannotJudge:
		s += " Cannot judge whether the prediction holds: " + cmp.Why + ". What to do: " + cmp.Do + "."
	default:
		s += " The prediction does not hold for this run: " + cmp.Why + "."
		if v > band.Hi {
			s += " The model under-predicts."
		} else if v < band.Lo {
			s += " The model over-predicts for this run (a conservative prediction)."
		}
		if cmp.Do != "" {
			s += " What to do: " + cmp.Do + "."
		}
	}
	return s
}

// verdictClass is the style of the verdict box: green only when the
// prediction holds.
func verdictClass(cmp *measure.Comparison) string {
	switch cmp.Verdict {
	case measure.VerdictHolds:
		return "holds"
	case measure.VerdictCannotJudge:
		return "cannot-judge"
	}
	return "fails"
}

// compareTable is the quantile table: p50, p95, p99, max of the ratio
// across key-windows, for both runs, and the error (measured - predicted).
func compareTable(pred, meas *measure.Summary, pl, ml string) table {
	t := table{
		Title:  "Ratio allowed/limit across key-windows",
		Header: []string{"Quantile", capitalize(pl), capitalize(ml), "Error (" + ml + " - " + pl + ")", "Relative error"},
	}
	p, m := pred.Overshoot.Ratio, meas.Overshoot.Ratio
	rows := []struct {
		name string
		a, b float64
	}{{"p50", p.P50, m.P50}, {"p95", p.P95, m.P95}, {"p99", p.P99, m.P99}, {"max", p.Max, m.Max}}
	// With no key-window on a side there is no ratio there, so no error.
	none := pred.Overshoot.KeyWindows <= 0 || meas.Overshoot.KeyWindows <= 0
	for _, r := range rows {
		rel := "-"
		if r.a != 0 && finite(r.a) && finite(r.b) && !none {
			rel = fmt.Sprintf("%+.1f%%", 100*(r.b-r.a)/r.a)
		}
		diff := "n/a"
		if finite(r.a) && finite(r.b) && !none {
			diff = fmt.Sprintf("%+.2f", r.b-r.a)
		}
		t.Rows = append(t.Rows, []string{r.name, ratio(r.a), ratio(r.b), diff, rel})
	}
	t.Note = fmt.Sprintf("%s: %s key-windows from %s (%s); %s: %s key-windows from %s (%s). Quantiles are nearest-rank. The key-window distributions are alike only when both runs send the same populations: a live run of the bot alone has no ordinary users' key-windows to pull its p50 down.",
		capitalize(pl), count(p.N), trials(pred.Trials), orDash(pred.Mode), capitalize(ml), count(m.N), trials(meas.Trials), orDash(meas.Mode))
	return t
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// comparisonTable is summary.json's comparison (simulate -compare) as a
// table: the verdict and the numbers it rests on, as the terminal prints
// them.
func comparisonTable(c *measure.Comparison) table {
	verdict := "outside"
	if c.InsideBand {
		verdict = "inside"
	}
	what := "the live run's max ratio"
	if c.Repeats > 1 {
		what = fmt.Sprintf("the median of %d live runs' max ratios", c.Repeats)
	}
	rel := "none (no key-window measured)"
	if e, ok := c.RelErr(); ok && finite(e) {
		rel = fmt.Sprintf("%.1f%%", 100*e)
	}
	bandName := "Predicted band (central 95% of the " + c.BandText() + "' max ratios)"
	if m := c.Misfit; len(m) == 2 {
		bandName = fmt.Sprintf("Predicted band (central 95%% of the %s' max ratios, widened by how far the calibration missed its own runs: low end x%.3g, high end x%.3g)", c.BandText(), m[0], m[1])
	}
	rows := [][]string{
		{"Measured max ratio (" + what + ")", ratio(c.MeasuredMaxRatio)},
		{bandName, ratio(c.PredictedBand[0]) + " to " + ratio(c.PredictedBand[1])},
		{"Predicted median of the trials' max ratios", ratio(c.PredictedMedian)},
		{"Measured inside the predicted band?", verdict},
		{"Relative error |measured - predicted median| / measured", rel},
		{"Key-windows the live run observed", count(c.KeyWindows)},
	}
	if c.Excluded > 0 {
		rows = append(rows, []string{"Live runs kept out (a window boundary fell in them)", count(int64(c.Excluded))})
	}
	if c.MeasuredReadGroup > 0 && c.PredictedReadGroup > 0 {
		rows = append(rows, []string{"Most allowed requests that read one count: measured (median over runs) / predicted (median over trials)",
			fmt.Sprintf("%.3g / %.3g", c.MeasuredReadGroup, c.PredictedReadGroup)})
	}
	if k := c.Rate; k != nil && k.Observed {
		v := k.Format()
		if n := c.RateNote(); n != "" {
			v += "; " + n
		}
		rows = append(rows, []string{"Requests a second: measured (median over runs) against the trials' (not judged: a closed loop's rate is the host's speed)", v})
	}
	rows = append(rows, []string{"Verdict", c.Verdict + ": " + c.Why})
	if c.Note != "" && c.LikeForLike {
		rows = append(rows, []string{"Not like for like", c.Note})
	}
	if c.Do != "" {
		rows = append(rows, []string{"What to do", c.Do})
	}
	return table{
		Title:  "Verdict",
		Header: []string{"What", "Value"},
		Rows:   rows,
		Note:   "summary.json's comparison object. A maximum grows with the key-windows it is taken over: a live run that saw far fewer key-windows than a trial may fall below the band without the model being wrong.",
	}
}

// mechanismTable lists the comparison's checks: each figure of the
// mechanism, measured and predicted, and whether it is inside its band.
func mechanismTable(c *measure.Comparison) table {
	t := table{
		Title:  "Mechanism: what the store and the error policy did",
		Header: []string{"Figure", "What", "Measured", "Predicted median", "Predicted band (the trials' range)", "Inside?"},
	}
	for _, k := range c.Checks {
		meas, in := "not observed", "not checked"
		if k.Observed {
			meas, in = k.Value(k.Measured), yesNo(k.InsideBand)
			if k.AtStore {
				meas += " (service time " + k.Value(k.Service) + ")"
			}
		}
		t.Rows = append(t.Rows, []string{k.Name, k.What, meas, k.Value(k.PredictedMedian), k.Value(k.PredictedBand[0]) + " to " + k.Value(k.PredictedBand[1]), in})
	}
	t.Note = "A headline can agree for another reason (a live store with another write limit): the prediction holds only when each figure the live run observed is inside its band too, from the least to the most any trial of the model had. A live run on a URL does not see its store; only the built-in eventual store counts lost updates and stale reads."
	return t
}

// repeatsTable lists the runs of attack -repeat N, each one's numbers,
// and their median, least and most.
func repeatsTable(r *measure.Repeats) table {
	t := table{
		Title:  fmt.Sprintf("Repeated live runs (%d)", len(r.Runs)),
		Header: []string{"Run", "Max ratio", "Allowed", "Most allowed in a key-window", "Latency p50 (ms)", "Latency p99 (ms)", "Complete"},
	}
	for i, x := range r.Runs {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d (%s)", i+1, orDash(x.RunID)), ratio(x.MaxRatio), count(x.Allowed), count(x.MaxAllowed),
			num(x.LatencyP50Ms), num(x.LatencyP99Ms), yesNo(x.Complete)})
	}
	for _, row := range []struct {
		name string
		v    func(measure.Spread) float64
	}{{"median", func(s measure.Spread) float64 { return s.Median }}, {"least", func(s measure.Spread) float64 { return s.Min }}, {"most", func(s measure.Spread) float64 { return s.Max }}} {
		t.Rows = append(t.Rows, []string{row.name, ratio(row.v(r.MaxRatio)), num(row.v(r.Allowed)), "", num(row.v(r.LatencyP50Ms)), num(row.v(r.LatencyP99Ms)), ""})
	}
	t.Note = "Each run had its own run id (so its own keys) and, on the built-in target, a fresh store. The rest of the summary pools the runs; the median is what a prediction is held against."
	return t
}

// RepeatsFigure draws each repeated live run's max ratio (attack -repeat)
// with their median and, when pred is not nil, the prediction's band of
// trials' max ratios and its median: does one run, and the median, fall
// where the model said? Nil with fewer than two runs.
func RepeatsFigure(pred, meas *measure.Summary) *Figure {
	r := meas.Repeats
	if r == nil || len(r.Runs) < 2 {
		return nil
	}
	vals, band, predMedian, widened := repeatsValues(pred, meas)
	lo, hi := math.Inf(1), 0.0
	for _, v := range vals {
		if finite(v) && v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		return nil
	}
	title := "Did each live run fall where the model said?"
	if band == nil {
		title = "How much did the repeated live runs differ?"
	}
	p := newPlot(title, "live run", "max ratio allowed/limit")
	logY, y := valueScale(p, lo, hi, "max ratio allowed/limit")
	n := float64(len(r.Runs))
	x0, x1 := 0.5, n+0.5
	if band != nil {
		label := "predicted band (95% of trials)"
		if widened {
			label = "predicted band, widened by the misfit"
		}
		addPredictedBand(p, label, *band, predMedian, y, x0, x1)
	}
	if v, ok := y(r.MaxRatio.Median); ok {
		addLine(p, "median of the runs", hline(v, x0, x1, colorAt(1), 2, 2))
	}
	addRunMarks(p, r, y)
	p.X.Min, p.X.Max = x0, x1
	entries := legendLen(p)
	if logY {
		l, h := math.Log10(lo), math.Log10(hi)
		span := math.Max(h-l, 0.3)
		p.Y.Min, p.Y.Max = l-0.1*span, h+(0.1+0.09*float64(entries))*span
	} else {
		p.Y.Min, p.Y.Max = 0, hi*(1.15+0.09*float64(entries))
	}
	p.Legend.Left = true
	caption := fmt.Sprintf("The max ratio allowed/limit of each of the %d live runs (attack -repeat), in the order they ran, with their median (%s, from %s to %s).",
		len(r.Runs), ratio(r.MaxRatio.Median), ratio(r.MaxRatio.Min), ratio(r.MaxRatio.Max))
	if band != nil {
		caption += fmt.Sprintf(" The shaded band is where the prediction puts 95%% of trials' max ratio (%s to %s)", ratio(band.Lo), ratio(band.Hi))
		if widened {
			m := pred.Overshoot.PerTrial.Misfit
			caption += fmt.Sprintf(", widened by the calibration's miss on its own runs (x%.3g to x%.3g, calibrated.misfit)", m[0], m[1])
		}
		caption += fmt.Sprintf(", the dashed line its median (%s); simulate -compare holds the runs' median against the band of a median of as many trials.", ratio(predMedian))
	}
	return &Figure{Name: "repeats", Title: title, Plot: p, Caption: caption}
}

// repeatsValues is every value the repeats figure draws (each run's max
// ratio and, with a prediction that saw key-windows, its band and median),
// with that band (nil without one), its median, and whether the band is
// widened by the calibration's misfit.
func repeatsValues(pred, meas *measure.Summary) (vals []float64, band *measure.Interval, predMedian float64, widened bool) {
	for _, x := range meas.Repeats.Runs {
		vals = append(vals, x.MaxRatio)
	}
	if pred != nil && pred.Overshoot.KeyWindows > 0 {
		b := pred.Overshoot.PerTrial.MaxRatio
		if m := pred.Overshoot.PerTrial.Misfit; measure.ValidMisfit(m) {
			// Where one live run is expected: the trials' band widened by
			// the calibration's miss on its own runs, as simulate says.
			w := measure.WidenedBand([2]float64{b.Lo, b.Hi}, m)
			b.Lo, b.Hi, widened = w[0], w[1], true
		}
		band = &b
		predMedian = measure.Compare(pred, meas).PredictedMedian
		vals = append(vals, b.Lo, b.Hi, predMedian)
	}
	return vals, band, predMedian, widened
}

// addPredictedBand draws the prediction's band of trials' max ratios
// from x0 to x1 (a line when it is one value), named label in the legend,
// and its median.
func addPredictedBand(p *plot.Plot, label string, band measure.Interval, predMedian float64, y func(float64) (float64, bool), x0, x1 float64) {
	bl, ok1 := y(band.Lo)
	bh, ok2 := y(band.Hi)
	if ok1 && ok2 {
		if bh-bl < 1e-9 {
			addLine(p, label, hline(bl, x0, x1, translucent(colorAt(2), 0x80)))
		} else {
			poly := band2(x0, x1, bl, bh, translucent(colorAt(2), 0x40))
			addLine(p, label, poly)
		}
	}
	if v, ok := y(predMedian); ok {
		addLine(p, "predicted median", hline(v, x0, x1, colorAt(2), 5, 3))
	}
}

// addRunMarks draws each run's max ratio at its place in the order the
// runs ran, written beside it and numbered on the x axis up to 20 runs.
func addRunMarks(p *plot.Plot, r *measure.Repeats, y func(float64) (float64, bool)) {
	var pts plotter.XYs
	var labels plotter.XYLabels
	for i, x := range r.Runs {
		if v, ok := y(x.MaxRatio); ok {
			pts = append(pts, plotter.XY{X: float64(i + 1), Y: v})
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(i+1) + 0.08, Y: v})
			labels.Labels = append(labels.Labels, ratio(x.MaxRatio))
		}
	}
	addLine(p, "one run's max ratio", marks(pts, colorAt(0), draw.CircleGlyph{}, 4))
	if len(r.Runs) <= 20 {
		addLabels(p, labels)
	}
	var ticks []plot.Tick
	for i := range r.Runs {
		ticks = append(ticks, plot.Tick{Value: float64(i + 1), Label: fmt.Sprint(i + 1)})
	}
	if len(ticks) <= 20 { // else niceTicks
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
}

// band2 is a filled rectangle from x0 to x1 between y0 and y1.
func band2(x0, x1, y0, y1 float64, c color.Color) *plotter.Polygon {
	return band([]float64{x0, x1}, []float64{y0, y0}, []float64{y1, y1}, c)
}
