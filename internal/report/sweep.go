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

// SweepFigures draws a sweep: p50, p99 and max ratio against the first
// numeric swept parameter (else the first swept one) with the 95% band of
// trials' max ratio, one colour per combination of the other swept
// parameters; and, when exactly two numeric parameters are swept, the grid
// of max ratios as a heat map. Nil for a run without sweep points.
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

	var names []string
	series := map[string][]sweepStat{}
	for _, pt := range s.Points {
		ps := pt.Summary
		if ps == nil || ps.Totals.Requests <= 0 || ps.Overshoot.KeyWindows <= 0 {
			continue
		}
		xv, ok := paramValue(pt.Params, xa.path)
		if !ok {
			continue
		}
		var parts []string
		for _, o := range others {
			v, _ := paramValue(pt.Params, o.path)
			parts = append(parts, o.short()+"="+v)
		}
		name := strings.Join(parts, ", ")
		r := ps.Overshoot.Ratio
		m := ps.Overshoot.PerTrial.MaxRatio
		st := sweepStat{x: xa.pos(xv), p50: r.P50, p99: r.P99, max: r.Max, lo: m.Lo, hi: m.Hi}
		if !finite(st.x) || !finite(st.max) {
			continue
		}
		if _, seen := series[name]; !seen {
			names = append(names, name)
		}
		series[name] = append(series[name], st)
	}
	if len(names) == 0 {
		return nil
	}

	title := "How does the overshoot change with " + xa.short() + "?"
	p := newPlot(title, xa.label(), "allowed / limit (ratio)")
	logX := false
	if xa.numeric {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range xa.nums {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if lo > 0 && hi/lo >= 20 {
			logX = true
			p.X.Tick.Marker = log10Ticks{}
			p.X.Label.Text = strings.TrimSuffix(p.X.Label.Text, ")") + ", log scale)"
		}
	} else {
		var ticks []plot.Tick
		for i, v := range xa.values {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: v})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	multi := len(names) > 1
	for i, name := range names {
		sts := series[name]
		sort.Slice(sts, func(a, b int) bool { return sts[a].x < sts[b].x })
		c := colorAt(i)
		var xs, los, his []float64
		var pMax, p99, p50 plotter.XYs
		for _, st := range sts {
			if logX {
				if st.x <= 0 {
					continue
				}
				st.x = math.Log10(st.x)
			}
			xmin, xmax = math.Min(xmin, st.x), math.Max(xmax, st.x)
			pMax = append(pMax, plotter.XY{X: st.x, Y: st.max})
			if finite(st.p99) {
				p99 = append(p99, plotter.XY{X: st.x, Y: st.p99})
			}
			if finite(st.p50) {
				p50 = append(p50, plotter.XY{X: st.x, Y: st.p50})
			}
			if finite(st.lo) && finite(st.hi) && st.hi >= st.lo {
				xs, los, his = append(xs, st.x), append(los, st.lo), append(his, st.hi)
			}
		}
		bandName, maxName, p99Name, p50Name := "95% of trials' max", "max", "p99", "p50"
		if multi {
			bandName, maxName, p99Name, p50Name = "", name, "", ""
		}
		if !xa.numeric {
			// Categories have no order between them: points and bars,
			// dodged per series, and no connecting lines.
			dodge := 0.0
			if multi {
				dodge = (float64(i) - float64(len(names)-1)/2) * 0.12
			}
			for k := range xs {
				xs[k] += dodge
			}
			for _, q := range []plotter.XYs{pMax, p99, p50} {
				for k := range q {
					q[k].X += dodge
				}
			}
			for k := range xs {
				addLine(p, nameOnce(bandName, k), errBar(xs[k], los[k], his[k], c))
			}
			addLine(p, maxName, marks(pMax, c, draw.CircleGlyph{}, 3.5))
			addLine(p, p99Name, marks(p99, c, draw.TriangleGlyph{}, 3))
			addLine(p, p50Name, marks(p50, c, draw.SquareGlyph{}, 2.5))
			continue
		}
		if len(xs) > 1 {
			addLine(p, bandName, band(xs, los, his, translucent(c, 0x30)))
		} else if len(xs) == 1 {
			addLine(p, bandName, errBar(xs[0], los[0], his[0], c))
		}
		addLine(p, maxName, withPoints(p, line(pMax, c, 2)))
		addLine(p, p99Name, line(p99, c, 1.4, 5, 3))
		addLine(p, p50Name, line(p50, c, 1.4, 1, 2))
	}
	if multi && !xa.numeric {
		p.Legend.Add("max (circle)", glyphKey{draw.GlyphStyle{Color: grayColor, Shape: draw.CircleGlyph{}, Radius: 3.5}})
		p.Legend.Add("p99 (triangle)", glyphKey{draw.GlyphStyle{Color: grayColor, Shape: draw.TriangleGlyph{}, Radius: 3}})
		p.Legend.Add("p50 (square)", glyphKey{draw.GlyphStyle{Color: grayColor, Shape: draw.SquareGlyph{}, Radius: 2.5}})
	}
	if multi && xa.numeric {
		addLine(p, "max (solid)", line(plotter.XYs{{X: xmin, Y: 1}}, grayColor, 2))
		addLine(p, "p99 (dashed)", line(plotter.XYs{{X: xmin, Y: 1}}, grayColor, 1.4, 5, 3))
		addLine(p, "p50 (dotted)", line(plotter.XYs{{X: xmin, Y: 1}}, grayColor, 1.4, 1, 2))
	}
	if !finite(xmin) {
		return nil
	}
	addLine(p, "the limit (ratio 1)", hline(1, xmin, xmax, limitColor, 4, 2))
	if logX {
		p.X.Min, p.X.Max = xmin-0.08, xmax+0.08
	} else if !xa.numeric {
		p.X.Min, p.X.Max = -0.3, float64(len(xa.values))-0.7
	}
	p.Y.Min = 0
	padTop(p, 0.02+0.065*float64(legendLen(p))) // room for the legend
	p.Legend.Left = true
	styles := "max (solid), p99 (dashed) and p50 (dotted)"
	if !xa.numeric {
		styles = "max (circle), p99 (triangle) and p50 (square)"
	}
	caption := fmt.Sprintf("Ratio allowed/limit across key-windows at each sweep point against %s: %s", xa.path, styles)
	if multi {
		caption += fmt.Sprintf(", one colour per value of %s", otherPaths(others))
	}
	caption += "; the shaded band (or bar) is the central 95% of trials' max ratio. The red dashed line is the limit."
	figs := []*Figure{{Name: "sweep", Title: title, Caption: caption, Plot: p}}
	if len(axes) == 2 && axes[0].numeric && axes[1].numeric {
		figs = append(figs, sweepHeatmap(s, axes[0], axes[1]))
	}
	return figs
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

// sweepHeatmap draws max ratio over a two-parameter numeric grid.
func sweepHeatmap(s *measure.Summary, xa, ya sweepAxis) *Figure {
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
		z := pt.Summary.Overshoot.Ratio.Max
		if !ok1 || !ok2 || !finite(z) {
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
				labels = append(labels, ratio(z))
			}
		}
	}
	if lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels}); err == nil {
		for k := range lb.TextStyle {
			lb.TextStyle[k].Font.Typeface = Sans.Typeface
			lb.TextStyle[k].Font.Variant = Sans.Variant
			lb.TextStyle[k].XAlign = -0.5
			lb.TextStyle[k].YAlign = -0.5
			c, _ := cm.At(g.z[int(xys[k].X)][int(xys[k].Y)])
			if c != nil && luminance(c) < 0.45 {
				lb.TextStyle[k].Color = color.White
			}
		}
		p.Add(lb)
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
	caption := fmt.Sprintf("Max ratio allowed/limit at each point of the grid %s by %s, written in each cell; colour runs from blue (%s) to red (%s). Grey cells had no requests.",
		xa.path, ya.path, ratio(lo), ratio(hi))
	return &Figure{Name: "sweep-heatmap", Title: title, Caption: caption, Plot: p, Width: figWidth, Height: 12 * vg.Centimeter}
}

// luminance is a colour's relative brightness, 0 to 1.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}
