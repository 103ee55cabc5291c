package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// sweepAxis is one swept parameter: its values in first-seen order and,
// when every value is a number (possibly with a unit), those numbers.
type sweepAxis struct {
	path    string
	values  []string
	numeric bool
	nums    map[string]float64
	unit    string
}

// label is the axis label: the path and its unit.
func (a sweepAxis) label() string {
	switch {
	case a.numeric && a.unit != "":
		return a.path + " (" + a.unit + ")"
	case a.numeric:
		return a.path + " (value)"
	}
	return a.path + " (as written)"
}

// short is the last element of the path, for legends.
func (a sweepAxis) short() string {
	if i := strings.LastIndexByte(a.path, '.'); i >= 0 && i+1 < len(a.path) {
		return a.path[i+1:]
	}
	return a.path
}

// pos is where value v sits on this axis: its number, or its index.
func (a sweepAxis) pos(v string) float64 {
	if a.numeric {
		return a.nums[v]
	}
	return float64(slices.Index(a.values, v))
}

// sweepPaths lists the swept paths in first-seen order.
func sweepPaths(points []measure.Point) []string {
	var paths []string
	for _, p := range points {
		for _, q := range p.Params {
			if !slices.Contains(paths, q.Path) {
				paths = append(paths, q.Path)
			}
		}
	}
	return paths
}

// sweepAxes describes every swept path that takes more than one value.
func sweepAxes(points []measure.Point) []sweepAxis {
	var axes []sweepAxis
	for _, path := range sweepPaths(points) {
		a := sweepAxis{path: path, nums: map[string]float64{}, numeric: true}
		for _, p := range points {
			if v, ok := paramValue(p.Params, path); ok && !slices.Contains(a.values, v) {
				a.values = append(a.values, v)
			}
		}
		if len(a.values) < 2 {
			continue
		}
		for i, v := range a.values {
			n, unit, ok := paramNumber(v)
			if !ok || !finite(n) || (i > 0 && unit != a.unit) {
				a.numeric = false
				break
			}
			a.unit = unit
			a.nums[v] = n
		}
		axes = append(axes, a)
	}
	return axes
}

func paramValue(ps []measure.Param, path string) (string, bool) {
	for _, p := range ps {
		if p.Path == path {
			return p.Value, true
		}
	}
	return "", false
}

// paramNumber reads a swept value as a number: a plain number, a duration
// ("250ms", "60s", "1d", in seconds) or a rate ("10/s", "600/m", "5/d", in
// requests per second).
func paramNumber(v string) (float64, string, bool) {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, "", true
	}
	if n, per, ok := strings.Cut(v, "/"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil {
			return 0, "", false
		}
		secs := map[string]float64{"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}[strings.TrimSpace(per)]
		if secs == 0 {
			return 0, "", false
		}
		return f / secs, "requests/s", true
	}
	if d, ok := strings.CutSuffix(v, "d"); ok {
		if f, err := strconv.ParseFloat(d, 64); err == nil {
			return f * 86400, "s", true
		}
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), "s", true
	}
	return 0, "", false
}

// sweepStat is one point's statistics on a sweep figure.
type sweepStat struct {
	x, p50, p99, max, lo, hi float64
}

// SweepFigures draws a sweep against the first numeric swept parameter
// (else the first swept one), one colour per combination of the other
// swept parameters, leading with the scenario's headline metric: for an
// overshoot metric (ratio.*, allowed.*, trial_max.p95), p50, p99 and max
// ratio with the 95% band of trials' max ("sweep"); for any other metric,
// that metric ("sweep") and then the ratios ("sweep-ratio"). When exactly
// two numeric parameters are swept, the headline metric over the grid as a
// heat map follows; last, each point's per-trial max ratios (SweepTrials).
// Nil for a run without sweep points.
func SweepFigures(s *measure.Summary) []*Figure {
	axes := sweepAxes(s.Points)
	if len(axes) == 0 {
		return nil
	}
	xi := slices.IndexFunc(axes, func(a sweepAxis) bool { return a.numeric })
	if xi < 0 {
		xi = 0
	}
	xa := axes[xi]
	others := slices.Delete(slices.Clone(axes), xi, xi+1)
	m := s.Scenario.HeadlineMetric()
	var figs []*Figure
	if overshootMetric(m) {
		figs = append(figs, sweepRatioFigure(s, xa, others, "sweep"))
	} else {
		figs = append(figs, sweepMetricFigure(s, m, xa, others), sweepRatioFigure(s, xa, others, "sweep-ratio"))
	}
	if len(axes) == 2 && axes[0].numeric && axes[1].numeric {
		figs = append(figs, sweepHeatmap(s, m, axes[0], axes[1]))
	}
	figs = append(figs, SweepTrials(s))
	return slices.DeleteFunc(figs, func(f *Figure) bool { return f == nil })
}

// overshootMetric reports whether m is drawn by the ratio figure.
func overshootMetric(m measure.Metric) bool {
	return strings.HasPrefix(m.Name, "ratio.") || strings.HasPrefix(m.Name, "allowed.") || m.Name == "trial_max.p95"
}

// seriesName is the legend name of a point's series: the values of the
// swept parameters other than the x axis's.
func seriesName(pt measure.Point, others []sweepAxis) string {
	var parts []string
	for _, o := range others {
		v, _ := paramValue(pt.Params, o.path)
		parts = append(parts, o.short()+"="+v)
	}
	return strings.Join(parts, ", ")
}

// logAxis reports whether values (those > 0) span more than 20x, which a
// linear axis would squash against its floor.
func logAxis(vals []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v > 0 && finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return finite(lo) && hi/lo > 20
}

// scaleX sets up the x axis of a sweep figure: numeric values on a log
// axis when they span 20x or more (a multiplicative sweep such as
// concurrency 1..256), named positions for categories. It returns the
// transform from an axis value to the plotted one (ok false: not drawable).
func scaleX(p *plot.Plot, xa sweepAxis) (logX bool, tx func(float64) (float64, bool)) {
	tx = func(x float64) (float64, bool) { return x, finite(x) }
	if xa.numeric {
		var vals []float64
		lo := math.Inf(1)
		for _, v := range xa.nums {
			vals = append(vals, v)
			lo = math.Min(lo, v)
		}
		if lo > 0 && logAxis(vals) {
			p.X.Tick.Marker = log10Ticks{}
			p.X.Label.Text = strings.TrimSuffix(p.X.Label.Text, ")") + ", log scale)"
			return true, logValue
		}
		return false, tx
	}
	var ticks []plot.Tick
	for i, v := range xa.values {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: v})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return false, tx
}

// logValue is log10(v) for a log axis; values <= 0 cannot be drawn there.
func logValue(v float64) (float64, bool) {
	if !(v > 0) || !finite(v) {
		return 0, false
	}
	return math.Log10(v), true
}

// sweepRatioFigure draws p50, p99 and max ratio allowed/limit at each point
// with the central 95% of trials' max. Log-log over a multiplicative x
// axis (so linear growth reads as a straight line of slope 1, not as an
// exponential), log y whenever the ratios span more than 20x.
func sweepRatioFigure(s *measure.Summary, xa sweepAxis, others []sweepAxis, name string) *Figure {
	ss, all := ratioSeries(s, xa, others)
	if len(ss.names) == 0 {
		return nil
	}
	title := "How does the overshoot change with " + xa.short() + "?"
	p := newPlot(title, xa.label(), "allowed / limit (ratio)")
	logX, tx := scaleX(p, xa)
	logY := logX || logAxis(all)
	ty := func(y float64) (float64, bool) { return y, finite(y) }
	if logY {
		ty = logValue
		p.Y.Tick.Marker = log10Ticks{}
		p.Y.Label.Text = "allowed / limit (ratio, log scale)"
	}
	multi := len(ss.names) > 1
	lines, ext := ratioPlotLines(ss, tx, ty)
	if !finite(ext.xmin) {
		return nil
	}
	one, _ := ty(1)
	p50Hidden, p99Hidden := hideAtLimit(ss.names, lines, one)
	hiddenBy := hiddenLines(ss.names, lines)
	for i, n := range ss.names {
		legend := ratioLegendNames(lines[n], n, ss.names, hiddenBy, multi)
		drawRatioSeries(p, xa, ss.by[n], lines[n], i, len(ss.names), tx, ty, legend)
	}
	ratioStyleLegend(p, xa, multi, ext.xmin, p50Hidden, p99Hidden)
	addLine(p, "the limit (ratio 1)", hline(one, ext.xmin, ext.xmax, limitColor, 4, 2))
	if logX {
		p.X.Min, p.X.Max = ext.xmin-0.08, ext.xmax+0.08
	} else if !xa.numeric {
		p.X.Min, p.X.Max = -0.3, float64(len(xa.values))-0.7
	}
	if logY {
		p.Y.Min = math.Min(ext.ymin, 0) - 0.1
	} else {
		p.Y.Min = 0
	}
	padTop(p, 0.02+0.065*float64(legendLen(p))) // room for the legend
	p.Legend.Left = true
	caption := ratioCaption(xa, others, multi, logX, logY, p50Hidden, p99Hidden, ext.dropped)
	return &Figure{Name: name, Title: title, Caption: caption, Plot: p}
}

// namedSeries is a figure's series in the order their names were first
// seen, one per combination of the other swept parameters.
type namedSeries[T any] struct {
	names []string
	by    map[string][]T
}

// add appends v to the series named n, creating it if it is new.
func (ns *namedSeries[T]) add(n string, v T) {
	if ns.by == nil {
		ns.by = map[string][]T{}
	}
	if _, seen := ns.by[n]; !seen {
		ns.names = append(ns.names, n)
	}
	ns.by[n] = append(ns.by[n], v)
}

// ratioSeries gathers each drawable sweep point's ratio statistics into
// series named for the other swept parameters, and returns every max, p99
// and p50 drawn so the caller can choose the y scale.
func ratioSeries(s *measure.Summary, xa sweepAxis, others []sweepAxis) (namedSeries[sweepStat], []float64) {
	var ss namedSeries[sweepStat]
	var all []float64
	for _, pt := range s.Points {
		ps := pt.Summary
		if ps == nil || ps.Totals.Requests <= 0 || ps.Overshoot.KeyWindows <= 0 {
			continue
		}
		xv, ok := paramValue(pt.Params, xa.path)
		if !ok {
			continue
		}
		r := ps.Overshoot.Ratio
		m := ps.Overshoot.PerTrial.MaxRatio
		st := sweepStat{x: xa.pos(xv), p50: r.P50, p99: r.P99, max: r.Max, lo: m.Lo, hi: m.Hi}
		if !finite(st.x) || !finite(st.max) {
			continue
		}
		ss.add(seriesName(pt, others), st)
		all = append(all, st.max, st.p99, st.p50)
	}
	return ss, all
}

// ratioLines is one series' max, p99 and p50 lines in plot coordinates.
type ratioLines struct{ pMax, p99, p50 plotter.XYs }

// ratioExtent is the span of the points drawn on a ratio figure and the
// number of values a log axis could not draw.
type ratioExtent struct {
	xmin, xmax, ymin float64
	dropped          int
}

// ratioPlotLines sorts each series by x and maps its statistics through
// the axes' transforms, counting the values they could not draw.
func ratioPlotLines(ss namedSeries[sweepStat], tx, ty func(float64) (float64, bool)) (map[string]ratioLines, ratioExtent) {
	ext := ratioExtent{xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1)}
	lines := map[string]ratioLines{}
	for _, n := range ss.names {
		sts := ss.by[n]
		sort.Slice(sts, func(a, b int) bool { return sts[a].x < sts[b].x })
		var d ratioLines
		for _, st := range sts {
			x, ok := tx(st.x)
			if !ok {
				ext.dropped++
				continue
			}
			add := func(q *plotter.XYs, v float64) {
				if y, ok := ty(v); ok {
					*q = append(*q, plotter.XY{X: x, Y: y})
					ext.ymin = math.Min(ext.ymin, y)
				} else if finite(v) {
					ext.dropped++
				}
			}
			add(&d.pMax, st.max)
			add(&d.p99, st.p99)
			add(&d.p50, st.p50)
			ext.xmin, ext.xmax = math.Min(ext.xmin, x), math.Max(ext.xmax, x)
		}
		lines[n] = d
	}
	return lines, ext
}

// hideAtLimit removes the p50 and the p99 lines of every series when that
// statistic is at the limit (y = one) at every point: it would lie under
// the limit line, and the caption says where it is instead.
func hideAtLimit(names []string, lines map[string]ratioLines, one float64) (p50Hidden, p99Hidden bool) {
	atLimit := func(stat func(ratioLines) plotter.XYs) bool {
		for _, n := range names {
			for _, q := range stat(lines[n]) {
				if math.Abs(q.Y-one) > 1e-9 {
					return false
				}
			}
		}
		return true
	}
	p50Hidden = atLimit(func(d ratioLines) plotter.XYs { return d.p50 })
	p99Hidden = atLimit(func(d ratioLines) plotter.XYs { return d.p99 })
	for _, n := range names {
		d := lines[n]
		if p50Hidden {
			d.p50 = nil
		}
		if p99Hidden {
			d.p99 = nil
		}
		lines[n] = d
	}
	return p50Hidden, p99Hidden
}

// hiddenLines maps each series whose max line lies exactly on an earlier
// visible series' max line to that series: it gets no legend entry of its
// own, its name joins the visible one's.
func hiddenLines(names []string, lines map[string]ratioLines) map[string]string {
	hiddenBy := map[string]string{}
	for i, n := range names {
		for _, o := range names[:i] {
			if _, h := hiddenBy[o]; !h && sameXYs(lines[n].pMax, lines[o].pMax) {
				hiddenBy[n] = o
				break
			}
		}
	}
	return hiddenBy
}

// ratioLegend is the legend entries of one series' band, max, p99 and
// p50 lines; "" is no entry.
type ratioLegend struct{ band, max, p99, p50 string }

// ratioLegendNames is the legend entries of series n: one entry for lines
// that coincide, and with several series only the series' name on its max
// line.
func ratioLegendNames(d ratioLines, n string, names []string, hiddenBy map[string]string, multi bool) ratioLegend {
	maxName, p99Name, p50Name, bandName := "max", "p99", "p50", "95% of trials' max"
	switch {
	case sameXYs(d.p99, d.pMax) && sameXYs(d.p50, d.pMax):
		maxName, p99Name, p50Name = "max = p99 = p50", "", ""
	case sameXYs(d.p99, d.pMax):
		maxName, p99Name = "max = p99", ""
	case sameXYs(d.p50, d.p99):
		p99Name, p50Name = "p99 = p50", ""
	}
	if multi {
		bandName, maxName, p99Name, p50Name = "", n, "", ""
		if _, hidden := hiddenBy[n]; hidden {
			maxName = ""
		}
		for _, o := range names {
			if hiddenBy[o] == n {
				maxName += " = " + o
			}
		}
	}
	return ratioLegend{band: bandName, max: maxName, p99: p99Name, p50: p50Name}
}

// drawRatioSeries draws series i of count: its band of trials' max, and
// its max, p99 and p50 as lines over numbers or as dodged marks over
// categories, with the legend entries given.
func drawRatioSeries(p *plot.Plot, xa sweepAxis, sts []sweepStat, d ratioLines, i, count int, tx, ty func(float64) (float64, bool), legend ratioLegend) {
	bandName, maxName, p99Name, p50Name := legend.band, legend.max, legend.p99, legend.p50
	c := colorAt(i)
	var xs, los, his []float64
	for _, st := range sts {
		x, okx := tx(st.x)
		lo, ok1 := ty(st.lo)
		hi, ok2 := ty(st.hi)
		if okx && ok1 && ok2 && hi >= lo {
			xs, los, his = append(xs, x), append(los, lo), append(his, hi)
		}
	}
	if !xa.numeric {
		// Categories have no order between them: points, dodged per
		// series, and no connecting lines.
		dodge := 0.0
		if count > 1 {
			dodge = (float64(i) - float64(count-1)/2) * 0.12
		}
		for k := range xs {
			xs[k] += dodge
		}
		for _, q := range []plotter.XYs{d.pMax, d.p99, d.p50} {
			for k := range q {
				q[k].X += dodge
			}
		}
		for k := range xs {
			addLine(p, nameOnce(bandName, k), errBar(xs[k], los[k], his[k], c))
		}
		addLine(p, maxName, marks(d.pMax, c, draw.CircleGlyph{}, 3.5))
		addLine(p, p99Name, marks(d.p99, c, draw.TriangleGlyph{}, 3))
		addLine(p, p50Name, marks(d.p50, c, draw.SquareGlyph{}, 2.5))
		return
	}
	if len(xs) > 1 {
		addLine(p, bandName, band(xs, los, his, translucent(c, 0x30)))
	} else if len(xs) == 1 {
		addLine(p, bandName, errBar(xs[0], los[0], his[0], c))
	}
	addLine(p, maxName, withPoints(p, line(d.pMax, c, 2)))
	addLine(p, p99Name, line(d.p99, c, 1.4, 5, 3))
	addLine(p, p50Name, line(d.p50, c, 1.4, 1, 2))
}

// ratioStyleLegend adds, when several series share the figure, gray
// legend keys saying which mark or dash is the max, the p99 and the p50.
func ratioStyleLegend(p *plot.Plot, xa sweepAxis, multi bool, xmin float64, p50Hidden, p99Hidden bool) {
	if multi && !xa.numeric {
		p.Legend.Add("max (circle)", glyphKey{draw.GlyphStyle{Color: grayColor, Shape: draw.CircleGlyph{}, Radius: 3.5}})
		p.Legend.Add("p99 (triangle)", glyphKey{draw.GlyphStyle{Color: grayColor, Shape: draw.TriangleGlyph{}, Radius: 3}})
		p.Legend.Add("p50 (square)", glyphKey{draw.GlyphStyle{Color: grayColor, Shape: draw.SquareGlyph{}, Radius: 2.5}})
	}
	if multi && xa.numeric {
		addLine(p, "max (solid)", line(plotter.XYs{{X: xmin, Y: 0}}, grayColor, 2))
		if !p99Hidden {
			addLine(p, "p99 (dashed)", line(plotter.XYs{{X: xmin, Y: 0}}, grayColor, 1.4, 5, 3))
		}
		if !p50Hidden {
			addLine(p, "p50 (dotted)", line(plotter.XYs{{X: xmin, Y: 0}}, grayColor, 1.4, 1, 2))
		}
	}
}

// ratioCaption is the ratio figure's caption: what is drawn, its scales,
// the statistics hidden under the limit line and the values left out.
func ratioCaption(xa sweepAxis, others []sweepAxis, multi, logX, logY, p50Hidden, p99Hidden bool, dropped int) string {
	styles := "max (solid), p99 (dashed) and p50 (dotted)"
	if !xa.numeric {
		styles = "max (circle), p99 (triangle) and p50 (square)"
	}
	caption := fmt.Sprintf("Ratio allowed/limit across key-windows at each sweep point against %s: %s", xa.path, styles)
	if multi {
		caption += fmt.Sprintf(", one colour per value of %s", otherPaths(others))
	}
	caption += "; the shaded band (or bar) is the central 95% of trials' max ratio. The red dashed line is the limit."
	switch {
	case logX:
		caption += " Both axes are logarithmic: growth in proportion to " + xa.short() + " is a straight line rising one decade per decade."
	case logY:
		caption += " The ratio axis is logarithmic, so that ratios near the limit stay apart from ratios far above it."
	}
	switch {
	case p50Hidden && p99Hidden:
		caption += " The p50 and p99 are at the limit (1x) at every point, under the limit line, so they are not drawn."
	case p50Hidden:
		caption += " The p50 is at the limit (1x) at every point, under the limit line, so it is not drawn."
	case p99Hidden:
		caption += " The p99 is at the limit (1x) at every point, under the limit line, so it is not drawn."
	}
	if dropped > 0 {
		caption += fmt.Sprintf(" %d values of 0 or less cannot be drawn on a log axis and were left out.", dropped)
	}
	return caption
}

// sameXYs reports whether two lines have the same points, so that one
// would hide the other.
func sameXYs(a, b plotter.XYs) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if math.Abs(a[i].X-b[i].X) > 1e-9 || math.Abs(a[i].Y-b[i].Y) > 1e-9*math.Max(1, math.Abs(a[i].Y)) {
			return false
		}
	}
	return true
}

// sweepMetricFigure draws the headline metric at each point: bars with
// their values for categories, a line with its values for numbers. When no
// point measured anything above 0 it says so in words.
func sweepMetricFigure(s *measure.Summary, m measure.Metric, xa sweepAxis, others []sweepAxis) *Figure {
	title := fmt.Sprintf("How does the %s change with %s?", metricNoun(m), xa.short())
	ss, all := metricSeries(s, m, xa, others)
	if len(all) == 0 || slices.Max(all) <= 0 {
		words := fmt.Sprintf("%s (%s) was 0 at every sweep point, so there is nothing to draw.", capitalize(m.Label), m.Name)
		if len(all) == 0 {
			words = fmt.Sprintf("No sweep point measured %s (%s), so there is nothing to draw.", m.Label, m.Name)
		}
		return &Figure{Name: "sweep", Title: title, Empty: words}
	}
	p := newPlot(title, xa.label(), axisWords(m))
	logX, tx := scaleX(p, xa)
	logY := (logX || logAxis(all)) && slices.Min(all) > 0
	ty := func(y float64) (float64, bool) { return y, finite(y) }
	floor := 0.0
	if logY {
		ty = logValue
		lo, _ := logValue(slices.Min(all))
		floor = math.Floor(lo) - 0.3
		p.Y.Tick.Marker = log10Ticks{}
		p.Y.Label.Text = strings.TrimSuffix(p.Y.Label.Text, ")") + ", log scale)"
	}
	lxys, labels, top := drawMetricSeries(p, m, xa, ss, tx, ty, floor)
	addValueLabels(p, plotter.XYLabels{XYs: lxys, Labels: labels}, 0.03*(top-floor))
	if m.Unit == "ratio" {
		metricLimitLine(p, xa, lxys, ty)
	}
	if !xa.numeric {
		p.X.Min, p.X.Max = -0.5, float64(len(xa.values))-0.5
	}
	p.Y.Min = floor
	p.Y.Max = top
	padTop(p, 0.12+0.065*float64(legendLen(p)))
	p.Legend.Left = true
	caption := fmt.Sprintf("%s (%s), the metric this scenario's question is about, at each sweep point against %s, its value written at each %s",
		capitalize(m.Label), m.Name, xa.path, map[bool]string{true: "point", false: "bar"}[xa.numeric])
	if len(ss.names) > 1 {
		caption += fmt.Sprintf("; one colour per value of %s", otherPaths(others))
	}
	caption += "."
	if logY {
		caption += " The value axis is logarithmic: the values span more than 20x."
	}
	return &Figure{Name: "sweep", Title: title, Caption: caption, Plot: p}
}

// metricVal is one sweep point's metric value v at axis position x.
type metricVal struct{ x, v float64 }

// metricSeries gathers each sweep point's finite value of m into series
// named for the other swept parameters, and returns every value gathered.
func metricSeries(s *measure.Summary, m measure.Metric, xa sweepAxis, others []sweepAxis) (namedSeries[metricVal], []float64) {
	var ss namedSeries[metricVal]
	var all []float64
	for _, pt := range s.Points {
		v, ok := m.Value(pt.Summary)
		xv, okx := paramValue(pt.Params, xa.path)
		if !ok || !okx || !finite(v) {
			continue
		}
		ss.add(seriesName(pt, others), metricVal{xa.pos(xv), v})
		all = append(all, v)
	}
	return ss, all
}

// drawMetricSeries draws each series as dodged bars over categories or a
// line over numbers, values the axis cannot draw at floor. It returns the
// points drawn with their value labels, and the highest y drawn.
func drawMetricSeries(p *plot.Plot, m measure.Metric, xa sweepAxis, ss namedSeries[metricVal], tx, ty func(float64) (float64, bool), floor float64) (lxys plotter.XYs, labels []string, top float64) {
	multi := len(ss.names) > 1
	width := 0.6 / float64(len(ss.names))
	top = floor
	for i, n := range ss.names {
		c := colorAt(i)
		vs := ss.by[n]
		sort.Slice(vs, func(a, b int) bool { return vs[a].x < vs[b].x })
		var pts plotter.XYs
		for _, v := range vs {
			x, okx := tx(v.x)
			y, oky := ty(v.v)
			if !okx {
				continue
			}
			if !oky {
				y = floor
			}
			if !xa.numeric && multi {
				x += (float64(i) - float64(len(ss.names)-1)/2) * width
			}
			pts = append(pts, plotter.XY{X: x, Y: y})
			top = math.Max(top, y)
			lxys = append(lxys, plotter.XY{X: x, Y: y})
			labels = append(labels, metricText(m, v.v))
		}
		legend := ""
		if multi {
			legend = n
		}
		if !xa.numeric {
			b := &bars{width: width * 0.9, floor: floor, color: c}
			for _, q := range pts {
				b.xs, b.ys = append(b.xs, q.X), append(b.ys, q.Y)
			}
			addLine(p, legend, b)
			continue
		}
		addLine(p, legend, withPoints(p, line(pts, c, 2)))
	}
	return lxys, labels, top
}

// metricLimitLine draws the limit (ratio 1) across the categories, or
// across the points drawn over numbers.
func metricLimitLine(p *plot.Plot, xa sweepAxis, lxys plotter.XYs, ty func(float64) (float64, bool)) {
	one, _ := ty(1)
	xlo, xhi := -0.5, float64(len(xa.values))-0.5
	if xa.numeric {
		xlo, xhi = math.Inf(1), math.Inf(-1)
		for _, q := range lxys {
			xlo, xhi = math.Min(xlo, q.X), math.Max(xhi, q.X)
		}
	}
	addLine(p, "the limit (ratio 1)", hline(one, xlo, xhi, limitColor, 4, 2))
}

// metricNoun is a metric's label made a noun phrase for a title.
func metricNoun(m measure.Metric) string {
	switch m.Name {
	case "false_denials.rate":
		return "false-denial rate"
	case "fail_open.rate":
		return "fail-open rate"
	case "errors.rate":
		return "no-decision rate"
	case "interval.max":
		return "most in a window-long interval"
	case "cost.usd_per_million":
		return "KV cost"
	}
	return m.Label
}

// axisWords is a short value-axis label for a metric, with its unit.
func axisWords(m measure.Metric) string {
	switch m.Name {
	case "false_denials.rate":
		return "falsely denied (share, 0 to 1)"
	case "fail_open.rate":
		return "allowed by fail-open (share, 0 to 1)"
	case "errors.rate":
		return "no decision (share, 0 to 1)"
	case "cost.usd_per_million":
		return "cost (US$ per million requests)"
	}
	switch m.Unit {
	case "ratio":
		return "allowed / limit (ratio)"
	case "count":
		return "allowed (requests)"
	case "ms":
		return "latency (ms)"
	}
	return m.Name + " (" + m.Unit + ")"
}

func otherPaths(as []sweepAxis) string {
	var ps []string
	for _, a := range as {
		ps = append(ps, a.path)
	}
	return strings.Join(ps, " and ")
}

// withPoints keeps a line as is; points are drawn by the line's joints.
func withPoints(p *plot.Plot, l *plotter.Line) *plotter.Line {
	if l == nil {
		return nil
	}
	sc, err := plotter.NewScatter(l.XYs)
	if err == nil {
		sc.Color = l.Color
		sc.Radius = 2.5
		p.Add(sc)
	}
	return l
}

// nameOnce is name for the first of several plotters, then "" so that the
// legend lists it once.
func nameOnce(name string, i int) string {
	if i == 0 {
		return name
	}
	return ""
}

// marks draws points only.
func marks(xys plotter.XYs, c color.Color, shape draw.GlyphDrawer, r vg.Length) *plotter.Scatter {
	if len(xys) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: c, Shape: shape, Radius: r}
	return sc
}

// glyphKey is a legend entry that is only a glyph: it explains a marker
// shape without adding data.
type glyphKey struct{ draw.GlyphStyle }

// Thumbnail implements plot.Thumbnailer.
func (g glyphKey) Thumbnail(c *draw.Canvas) { c.DrawGlyph(g.GlyphStyle, c.Center()) }

// errBar is a vertical bar from lo to hi at x, for a band of one point.
func errBar(x, lo, hi float64, c color.Color) *plotter.Line {
	return line(plotter.XYs{{X: x, Y: lo}, {X: x, Y: hi}}, translucent(c, 0x80), 6)
}

// grid is a sweep grid for plotter.HeatMap: cells at integer positions so
// that every cell is the same size whatever the spacing of the values.
type grid struct {
	z [][]float64 // [column][row]
}

func (g grid) Dims() (c, r int)   { return len(g.z), len(g.z[0]) }
func (g grid) Z(c, r int) float64 { return g.z[c][r] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// sweepHeatmap draws the headline metric over a two-parameter numeric grid.
func sweepHeatmap(s *measure.Summary, m measure.Metric, xa, ya sweepAxis) *Figure {
	xs, ys := slices.Clone(xa.values), slices.Clone(ya.values)
	sort.SliceStable(xs, func(i, j int) bool { return xa.nums[xs[i]] < xa.nums[xs[j]] })
	sort.SliceStable(ys, func(i, j int) bool { return ya.nums[ys[i]] < ya.nums[ys[j]] })
	g := grid{z: make([][]float64, len(xs))}
	for i := range g.z {
		g.z[i] = make([]float64, len(ys))
		for j := range g.z[i] {
			g.z[i][j] = math.NaN()
		}
	}
	zmin, zmax := math.Inf(1), math.Inf(-1)
	for _, pt := range s.Points {
		if pt.Summary == nil || pt.Summary.Totals.Requests <= 0 || pt.Summary.Overshoot.KeyWindows <= 0 {
			continue
		}
		xv, ok1 := paramValue(pt.Params, xa.path)
		yv, ok2 := paramValue(pt.Params, ya.path)
		z, ok3 := m.Value(pt.Summary)
		if !ok1 || !ok2 || !ok3 || !finite(z) {
			continue
		}
		i, j := slices.Index(xs, xv), slices.Index(ys, yv)
		g.z[i][j] = z
		zmin, zmax = math.Min(zmin, z), math.Max(zmax, z)
	}
	if !finite(zmin) {
		return nil
	}
	cm := moreland.SmoothBlueRed()
	lo, hi := zmin, zmax
	if hi <= lo {
		lo, hi = lo-0.5, hi+0.5
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	title := "Where in the grid is the overshoot worst?"
	p := newPlot(title, xa.label(), ya.label())
	h := plotter.NewHeatMap(g, cm.Palette(64))
	h.Min, h.Max = lo, hi
	h.NaN = color.Gray{0xF0}
	p.Add(h)
	var xys plotter.XYs
	var labels []string
	for i := range xs {
		for j := range ys {
			if z := g.z[i][j]; finite(z) {
				xys = append(xys, plotter.XY{X: float64(i), Y: float64(j)})
				labels = append(labels, metricText(m, z))
			}
		}
	}
	if lb := addLabels(p, plotter.XYLabels{XYs: xys, Labels: labels}); lb != nil {
		for k := range lb.TextStyle {
			lb.TextStyle[k].XAlign = -0.5
			c, _ := cm.At(g.z[int(xys[k].X)][int(xys[k].Y)])
			if c != nil && luminance(c) < 0.45 {
				lb.TextStyle[k].Color = color.White
			}
		}
	}
	var xt, yt []plot.Tick
	for i, v := range xs {
		xt = append(xt, plot.Tick{Value: float64(i), Label: v})
	}
	for j, v := range ys {
		yt = append(yt, plot.Tick{Value: float64(j), Label: v})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(ys))-0.5
	caption := fmt.Sprintf("%s (%s) at each point of the grid %s by %s, written in each cell; colour runs from blue (%s) to red (%s). Grey cells measured nothing.",
		capitalize(m.Label), m.Name, xa.path, ya.path, metricText(m, lo), metricText(m, hi))
	return &Figure{Name: "sweep-heatmap", Title: title, Caption: caption, Plot: p, Width: figWidth, Height: 12 * vg.Centimeter}
}

// luminance is a colour's relative brightness, 0 to 1.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}
