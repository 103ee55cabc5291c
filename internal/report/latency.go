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

// decisionColor is each decision's colour in every latency figure:
// allowed blue, denied vermillion, fail-open orange, fail-closed reddish
// purple, error black.
func decisionColor(d measure.Decision) color.Color {
	switch d {
	case measure.DecidedAllowed:
		return colorAt(0)
	case measure.DecidedDenied:
		return colorAt(1)
	case measure.DecidedFailOpen:
		return colorAt(3)
	case measure.DecidedFailClosed:
		return colorAt(4)
	}
	return colorAt(6)
}

// latencyColumn is one column of the latency-by-decision figure.
type latencyColumn struct {
	name string
	st   measure.Stats
	c    color.Color
}

// LatencyByDecision draws a run's latency split by what each request got (summary latency_by_decision_ms), beside all requests: p50,
// p95, p99 and max as marks on a line from p50 to max, the p50 and p99
// written beside them. A limiter that answers 429 without waiting for its
// store shows two populations here that the pooled percentiles blur. Nil
// when the summary has no split.
func LatencyByDecision(s *measure.Summary) *Figure {
	by := s.LatencyByDecision
	if by == nil {
		return nil
	}
	cols := latencyColumns(s, by)
	lo, hi := latencyRange(cols)
	if hi == 0 || len(cols) == 0 {
		return nil
	}
	title := "How long did each decision take?"
	p := newPlot(title, "", "latency (ms)")
	logY, y := valueScale(p, lo, hi, "latency (ms)")
	drawLatencyColumns(p, cols, y)
	p.X.Min, p.X.Max = -0.5, float64(len(cols))-0.2
	if logY {
		lo, hi = math.Log10(lo), math.Log10(hi)
		span := math.Max(hi-lo, 0.3)
		p.Y.Min, p.Y.Max = lo-0.08*span, hi+0.3*span
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.3
	}
	caption, name := latencyDecisionCaption(s, cols)
	return &Figure{Name: name, Title: title, Plot: p, Caption: caption}
}

// latencyColumns is the figure's columns: all requests (when the summary
// has their latency), then each decision some request got.
func latencyColumns(s *measure.Summary, by *measure.LatencyByDecision) []latencyColumn {
	var cols []latencyColumn
	if s.LatencyMs != nil && s.LatencyMs.N > 0 {
		cols = append(cols, latencyColumn{"all requests", *s.LatencyMs, grayColor})
	}
	for d := range measure.NumDecisions {
		if st := by.Of(d); st != nil && st.N > 0 {
			cols = append(cols, latencyColumn{d.String(), *st, decisionColor(d)})
		}
	}
	return cols
}

// latencyRange is the least and the greatest finite latency above 0 the
// columns' p50, p95, p99 and max hold; hi is 0 when there is none.
func latencyRange(cols []latencyColumn) (lo, hi float64) {
	lo, hi = math.Inf(1), 0.0
	for _, c := range cols {
		for _, v := range []float64{c.st.P50, c.st.P95, c.st.P99, c.st.Max} {
			if finite(v) && v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return lo, hi
}

// latencyQuantile is one statistic drawn in every latency column, with
// its mark.
type latencyQuantile struct {
	name  string
	v     func(measure.Stats) float64
	shape draw.GlyphDrawer
}

// latencyQuantiles are the p50, p95, p99 and max of a latency column.
var latencyQuantiles = []latencyQuantile{
	{"p50", func(s measure.Stats) float64 { return s.P50 }, draw.CircleGlyph{}},
	{"p95", func(s measure.Stats) float64 { return s.P95 }, draw.TriangleGlyph{}},
	{"p99", func(s measure.Stats) float64 { return s.P99 }, draw.BoxGlyph{}},
	{"max", func(s measure.Stats) float64 { return s.Max }, draw.CrossGlyph{}},
}

// drawLatencyColumns draws each column at its own x, named with its
// count: a line from p50 to max, a mark per quantile, the p50 and p99
// written beside them, and the marks' legend. y places a latency on the
// axis.
func drawLatencyColumns(p *plot.Plot, cols []latencyColumn, y func(float64) (float64, bool)) {
	qs := latencyQuantiles
	names := make([]string, len(cols))
	var labels plotter.XYLabels
	for i, c := range cols {
		x := float64(i)
		names[i] = c.name + "\n" + count(c.st.N)
		y0, ok0 := y(c.st.P50)
		y1, ok1 := y(c.st.Max)
		if ok0 && ok1 {
			addLine(p, "", line(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}}, translucent(c.c, 0x90), 2))
		}
		for _, q := range qs {
			if v, ok := y(q.v(c.st)); ok {
				addLine(p, "", marks(plotter.XYs{{X: x, Y: v}}, c.c, q.shape, 4))
			}
		}
		for _, q := range []latencyQuantile{qs[0], qs[2]} {
			if v, ok := y(q.v(c.st)); ok {
				labels.XYs = append(labels.XYs, plotter.XY{X: x + 0.08, Y: v})
				labels.Labels = append(labels.Labels, q.name+" "+num(q.v(c.st))+" ms")
			}
		}
	}
	addLabels(p, labels)
	for _, q := range qs {
		p.Legend.Add(q.name, glyphKey{draw.GlyphStyle{Color: grayColor, Shape: q.shape, Radius: 4}})
	}
	p.NominalX(names...)
}

// latencyDecisionCaption is the figure's caption, each decision's numbers
// in words, and its name: live-latency-decision for a live run, else
// latency-decision.
func latencyDecisionCaption(s *measure.Summary, cols []latencyColumn) (caption, name string) {
	var parts []string
	for _, c := range cols[1:] {
		parts = append(parts, fmt.Sprintf("%s: %s responses, p50 %s ms, p99 %s ms", c.name, count(c.st.N), num(c.st.P50), num(c.st.P99)))
	}
	whose, name := "the live run's responses", "live-latency-decision"
	if s.Live == nil {
		whose, name = "the simulated requests (from sent to answered, in virtual time)", "latency-decision"
	}
	caption = "Latency of " + whose + ", in milliseconds, by what each got: allowed or denied by the count, " +
		"fail-open or fail-closed when the store failed and the error policy decided, error when no decision came back " +
		"(the count under each name is its responses). " + strings.Join(parts, "; ") + "."
	if s.Repeats != nil {
		caption += " All repeated runs pooled."
	}
	if s.Live != nil && s.Live.LatencyNote != "" {
		caption += " " + s.Live.LatencyNote
	}
	return caption, name
}

// LatencyOverTime draws a sample of the live run's responses: latency
// against the time since the attack's start, one dot per response,
// coloured by decision, as `vegeta plot` shows a results file. Nil without
// samples.
func LatencyOverTime(samples []measure.LatencySample, s *measure.Summary) *Figure {
	by, lo, hi := samplesByDecision(samples)
	if hi == 0 {
		return nil
	}
	title := "How long did each answer take, and when?"
	p := newPlot(title, "time from the attack's start (s)", "latency (ms)")
	logY := hi/lo > 20
	dropped := 0
	if logY {
		p.Y.Tick.Marker = log10Ticks{}
		p.Y.Label.Text = "latency (ms, log scale)"
		dropped = logLatencies(&by)
	}
	legend := addLatencyDots(p, &by, s)
	if logY {
		span := math.Max(math.Log10(hi)-math.Log10(lo), 0.3)
		p.Y.Min, p.Y.Max = math.Log10(lo)-0.05*span, math.Log10(hi)+0.1*span*float64(len(legend)+1)
	} else {
		p.Y.Min = 0
		padTop(p, 0.08*float64(len(legend)+1))
	}
	p.X.Min = 0
	p.Legend.Top, p.Legend.Left = true, false
	caption := fmt.Sprintf("Each dot is one response of the live run: when it was sent and how long it took, coloured by what it got (a uniform sample of at most %s responses of each decision; the legend counts them all).", count(2000))
	if dropped > 0 {
		what := "responses that took no measurable time are"
		if dropped == 1 {
			what = "response that took no measurable time is"
		}
		caption += fmt.Sprintf(" %s %s left off the log scale.", count(int64(dropped)), what)
	}
	if s.Repeats != nil {
		caption += " The last of the repeated runs."
	}
	return &Figure{Name: "live-latency-time", Title: title, Plot: p, Caption: caption}
}

// samplesByDecision sorts the drawable samples by decision, as (time,
// latency) points, with the least and greatest latency above 0 (hi 0
// when there is none).
func samplesByDecision(samples []measure.LatencySample) (by [measure.NumDecisions]plotter.XYs, lo, hi float64) {
	lo, hi = math.Inf(1), 0.0
	for _, x := range samples {
		if x.Decision >= measure.NumDecisions || !finite(x.AtSecs) || !finite(x.Ms) || x.Ms < 0 {
			continue
		}
		by[x.Decision] = append(by[x.Decision], plotter.XY{X: x.AtSecs, Y: x.Ms})
		if x.Ms > 0 {
			lo, hi = math.Min(lo, x.Ms), math.Max(hi, x.Ms)
		}
	}
	return by, lo, hi
}

// logLatencies puts every latency in by on a log scale, leaving out and
// counting those a log axis cannot draw.
func logLatencies(by *[measure.NumDecisions]plotter.XYs) (dropped int) {
	for d := range by {
		kept := by[d][:0]
		for _, xy := range by[d] {
			if v, ok := logValue(xy.Y); ok {
				kept = append(kept, plotter.XY{X: xy.X, Y: v})
			} else {
				dropped++
			}
		}
		by[d] = kept
	}
	return dropped
}

// addLatencyDots draws each decision's dots, the most numerous first so
// that a rare one is drawn on top, with a legend entry counting all its
// responses, and returns the entries.
func addLatencyDots(p *plot.Plot, by *[measure.NumDecisions]plotter.XYs, s *measure.Summary) []string {
	order := make([]measure.Decision, 0, measure.NumDecisions)
	for d := range measure.NumDecisions {
		if len(by[d]) > 0 {
			order = append(order, d)
		}
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && len(by[order[j]]) > len(by[order[j-1]]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	var legend []string
	for _, d := range order {
		sc := marks(by[d], translucent(decisionColor(d), 0xA0), draw.CircleGlyph{}, 1.6)
		if sc == nil {
			continue
		}
		p.Add(sc)
		name := d.String()
		if st := s.LatencyByDecision.Of(d); st != nil {
			name = fmt.Sprintf("%s (%s)", name, count(st.N))
		}
		legend = append(legend, name)
		p.Legend.Add(name, glyphKey{draw.GlyphStyle{Color: decisionColor(d), Shape: draw.CircleGlyph{}, Radius: 3}})
	}
	return legend
}
