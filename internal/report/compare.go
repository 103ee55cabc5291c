package report

import (
	"fmt"
	"strings"

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
// prediction's per-trial max: the run's max for one trial, else the mean
// of its trials' maxima.
func measuredMax(m *measure.Summary) (float64, string) {
	if m.Trials > 1 {
		return m.Overshoot.PerTrial.MaxRatio.Mean, "mean of its trials' max ratio"
	}
	return m.Overshoot.Ratio.Max, "max ratio"
}

// compareSentence says whether the measurement falls inside the predicted
// 95% band of per-trial max ratios.
func compareSentence(pred, meas *measure.Summary, pl, ml string) string {
	if pred.Totals.Requests <= 0 || meas.Totals.Requests <= 0 || pred.Overshoot.KeyWindows <= 0 || meas.Overshoot.KeyWindows <= 0 {
		return fmt.Sprintf("No comparison of ratios: the %s run has %s key-windows and the %s run %s.",
			pl, count(pred.Overshoot.KeyWindows), ml, count(meas.Overshoot.KeyWindows))
	}
	v, what := measuredMax(meas)
	band := pred.Overshoot.PerTrial.MaxRatio
	if !finite(v) || !finite(band.Lo) || !finite(band.Hi) {
		return "No comparison of ratios: a needed value is not a number."
	}
	inside := v >= band.Lo && v <= band.Hi
	verdict := "inside"
	switch {
	case v < band.Lo:
		verdict = "below"
	case v > band.Hi:
		verdict = "above"
	}
	s := fmt.Sprintf("The %s %s, %s, is %s the %s 95%% band of per-trial max ratio (%s to %s over %s).",
		ml, what, ratio(v), verdict, pl, ratio(band.Lo), ratio(band.Hi), trials(pred.Trials))
	if inside {
		s += " The prediction holds for this run."
	} else if v > band.Hi {
		s += " The model under-predicts: check its latencies and propagation against the live store."
	} else {
		s += " The model over-predicts for this run (a conservative prediction)."
	}
	if pred.Limiter.Limit != meas.Limiter.Limit || pred.Limiter.WindowSecs != meas.Limiter.WindowSecs {
		s += fmt.Sprintf(" Note: the limiters differ (%s %s predicted, %s %s measured); ratios are compared.",
			count(pred.Limiter.Limit), perWindow(pred.Limiter), count(meas.Limiter.Limit), perWindow(meas.Limiter))
	}
	return s
}

// compareTable is the quantile table: p50, p95, p99, max of the ratio
// across key-windows, for both runs, and the error (measured - predicted).
func compareTable(pred, meas *measure.Summary, pl, ml string) table {
	t := table{
		Title:  "Prediction against measurement: ratio allowed/limit across key-windows",
		Header: []string{"Quantile", capitalize(pl), capitalize(ml), "Error (" + ml + " - " + pl + ")", "Relative error"},
	}
	p, m := pred.Overshoot.Ratio, meas.Overshoot.Ratio
	rows := []struct {
		name string
		a, b float64
	}{{"p50", p.P50, m.P50}, {"p95", p.P95, m.P95}, {"p99", p.P99, m.P99}, {"max", p.Max, m.Max}}
	for _, r := range rows {
		rel := "-"
		if r.a != 0 && finite(r.a) && finite(r.b) {
			rel = fmt.Sprintf("%+.1f%%", 100*(r.b-r.a)/r.a)
		}
		diff := "n/a"
		if finite(r.a) && finite(r.b) {
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
