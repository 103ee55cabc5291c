package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// AdvicePoint is one design of simulate -advise on its Pareto figure.
type AdvicePoint struct {
	// Rank is the design's place in the ranked table, its label here.
	Rank int
	// Allowed is what the design lets through (the figure's overshoot
	// metric) and Denied the share of legitimate requests it denies, at
	// the limit the search found (or the scenario's).
	Allowed, Denied float64
	// Cost is dollars per million requests (0 when not priced).
	Cost float64
	// NotPriced says the design has no price per request (Redis, billed
	// by its host's hours): it is drawn as a square of a fixed size, not
	// as the cheapest.
	NotPriced bool
	// Meets says whether the design meets the budget; Unbound that its
	// limit never binds (drawn as a ring).
	Meets, Unbound bool
}

// ParetoFigure draws every design's overshoot (the metric x, e.g. the
// budget's ratio.max) against the legitimate requests it denies, cost as
// the marker's size, the designs that meet the budget in colour and the
// others in grey, each marker labelled with the ranks in the table of the
// designs it stands for (designs with about the same numbers share one).
// A bound above 0 is drawn as the budget's line on x. The x axis is
// logarithmic when the values span more than a factor of 20; the y axis
// runs from 0. Labels are placed where they overlap no other label or
// marker when such a place is near (placeLabels). The designs nearest the
// origin are worth shipping.
func ParetoFigure(points []AdvicePoint, x measure.Metric, bound float64) *Figure {
	sc := newParetoScale(points, bound)
	xLabel := capitalize(x.Label) + " (" + x.Name + ")"
	if sc.logX {
		xLabel += ", log scale"
	}
	p := newPlot("What each design lets through, and whom it locks out", xLabel, "legitimate requests denied (%)")
	if sc.logX {
		p.X.Tick.Marker = log10Ticks{}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = sc.xMin, sc.xMax, 0, sc.yMax
	groups := groupDesigns(points, sc)
	if bound > 0 {
		addBudgetLine(p, x, bound, sc)
	}
	marks, unpriced := addParetoMarkers(p, groups, sc)
	addParetoLabels(p, marks, sc)
	p.Legend.Top = true
	caption := "Each design at the product's limit (or, with -search-limit, at the largest limit meeting the budget), labelled with its rank in the table (designs with about the same numbers share a marker); a larger marker costs more per million requests at published prices (docs/facts.md: the store and the Workers request fee)."
	if unpriced {
		caption += " A square is a design not priced per request (Redis, billed by its host's instance hours), drawn at a fixed size: its size is no price."
	}
	return &Figure{Name: "pareto", Title: p.Title.Text, Plot: p, Caption: caption + " The dashed line is the budget's bound on the x axis."}
}

// paretoScale is the Pareto figure's axes: x from 0 (or, log, from below
// the least value lo), y from 0 with room above for labels, and the
// largest cost, which sizes the markers.
type paretoScale struct {
	logX                          bool
	lo, xMin, xMax, yMax, maxCost float64
}

// newParetoScale fits the axes to the points and the budget's bound; an
// all-zero y axis shows 0 to 1%.
func newParetoScale(points []AdvicePoint, bound float64) paretoScale {
	lo, hi, maxY, maxCost := math.Inf(1), 0.0, 0.0, 0.0
	for _, pt := range points {
		if pt.Allowed > 0 {
			lo = min(lo, pt.Allowed)
		}
		hi, maxY, maxCost = max(hi, pt.Allowed), max(maxY, 100*pt.Denied), max(maxCost, pt.Cost)
	}
	sc := paretoScale{lo: lo, maxCost: maxCost}
	sc.logX = hi > 0 && lo < hi && hi/lo > 20
	sc.xMin, sc.xMax = 0.0, max(hi, bound)*1.12
	if sc.logX {
		sc.xMin, sc.xMax = math.Log10(min(lo, bound)/1.5), math.Log10(max(hi, bound)*1.5)
		if bound <= 0 {
			sc.xMin = math.Log10(lo / 1.5)
		}
	}
	if !(sc.xMax > sc.xMin) {
		sc.xMax = sc.xMin + 1
	}
	sc.yMax = 1.0
	if maxY > 0 {
		sc.yMax = maxY * 1.3
	}
	return sc
}

// tx is v's place on the x axis.
func (sc paretoScale) tx(v float64) float64 {
	if sc.logX {
		return math.Log10(max(v, sc.lo))
	}
	return v
}

// paretoGroup is the designs one marker stands for.
type paretoGroup struct {
	x, y, cost float64
	kind       int // 0 meets, 1 misses, 2 the limit never binds
	notPriced  bool
	ranks      []int
}

// paretoKind is the kind of marker a design gets: 0 it meets the budget,
// 1 it misses it, 2 its limit never binds.
func paretoKind(pt AdvicePoint) int {
	switch {
	case pt.Meets:
		return 0
	case pt.Unbound:
		return 2
	}
	return 1
}

// groupDesigns puts designs of one kind, priced alike, within 1.5% of the
// axes of each other under one marker, which costs the most of theirs.
func groupDesigns(points []AdvicePoint, sc paretoScale) []*paretoGroup {
	dx, dy := 0.015*(sc.xMax-sc.xMin), 0.015*sc.yMax
	var groups []*paretoGroup
	for _, pt := range points {
		gx, gy := sc.tx(pt.Allowed), 100*pt.Denied
		var g *paretoGroup
		for _, h := range groups {
			if h.kind == paretoKind(pt) && h.notPriced == pt.NotPriced && math.Abs(h.x-gx) <= dx && math.Abs(h.y-gy) <= dy {
				g = h
			}
		}
		if g == nil {
			g = &paretoGroup{x: gx, y: gy, kind: paretoKind(pt), notPriced: pt.NotPriced}
			groups = append(groups, g)
		}
		g.ranks = append(g.ranks, pt.Rank)
		g.cost = max(g.cost, pt.Cost)
	}
	return groups
}

// addBudgetLine draws the budget's bound on metric x as a dashed line,
// with its legend entry.
func addBudgetLine(p *plot.Plot, x measure.Metric, bound float64, sc paretoScale) {
	if l, err := plotter.NewLine(plotter.XYs{{X: sc.tx(bound), Y: 0}, {X: sc.tx(bound), Y: sc.yMax}}); err == nil {
		l.LineStyle = draw.LineStyle{Color: colorAt(1), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(l)
		p.Legend.Add("budget: "+x.Name+" <= "+x.Format(bound), l)
	}
}

// addParetoMarkers draws the groups, one scatter and legend entry per
// kind, a marker's size growing with its cost (a not-priced design a
// square), and returns the labels to place, in axis fractions, and
// whether any design is not priced.
func addParetoMarkers(p *plot.Plot, groups []*paretoGroup, sc paretoScale) ([]labelMark, bool) {
	var marks []labelMark
	unpriced := false
	for kind := range 3 {
		var xys plotter.XYs
		var sizes []vg.Length
		var squares []bool
		for _, g := range groups {
			if g.kind != kind {
				continue
			}
			r := markerRadius(g.cost, sc.maxCost, g.notPriced)
			unpriced = unpriced || g.notPriced
			xys, sizes, squares = append(xys, plotter.XY{X: g.x, Y: g.y}), append(sizes, r), append(squares, g.notPriced)
			marks = append(marks, labelMark{x: (g.x - sc.xMin) / (sc.xMax - sc.xMin), y: g.y / sc.yMax, r: float64(r), text: rankLabel(g.ranks)})
		}
		if len(xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			continue
		}
		c, name, shape := colorAt(2), "meets the budget", draw.GlyphDrawer(draw.CircleGlyph{})
		switch kind {
		case 1:
			c, name = grayColor, "does not meet it"
		case 2:
			c, name, shape = grayColor, "limit never binds (store errors deny first)", draw.RingGlyph{}
		}
		s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: 4, Shape: shape}
		s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			if squares[i] && kind != 2 {
				return draw.GlyphStyle{Color: c, Radius: sizes[i], Shape: draw.BoxGlyph{}}
			}
			return draw.GlyphStyle{Color: c, Radius: sizes[i], Shape: shape}
		}
		p.Add(s)
		p.Legend.Add(name, s)
	}
	return marks, unpriced
}

// addParetoLabels places the markers' rank labels (placeLabels) and
// draws them.
func addParetoLabels(p *plot.Plot, marks []labelMark, sc paretoScale) {
	for _, m := range placeLabels(marks) {
		xy := plotter.XY{X: sc.xMin + m.x*(sc.xMax-sc.xMin), Y: m.y * sc.yMax}
		if l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{xy}, Labels: []string{m.text}}); err == nil {
			l.TextStyle[0].Font = font.From(Sans, labelPt)
			l.Offset = vg.Point{X: vg.Points(m.dx), Y: vg.Points(m.dy)}
			p.Add(l)
		}
	}
}

// markerRadius is a Pareto marker's radius: 3 to 7 points by cost, the
// costliest largest; 4 when no design is priced, or this one is not.
func markerRadius(cost, maxCost float64, notPriced bool) vg.Length {
	if notPriced || maxCost <= 0 {
		return 4
	}
	return 3 + vg.Length(4*cost/maxCost)
}

// labelPt is the size of the Pareto figure's labels, in points.
const labelPt = 8

// labelMark is a marker to label: its place in the plot area as a share
// of its width and height, its radius and its label, and (set by
// placeLabels) the label's offset from the marker in points.
type labelMark struct {
	x, y, r float64
	text    string
	dx, dy  float64
}

// The plot area's size in points, about (the figure less its axes), for
// placing labels.
const areaW, areaH = 380.0, 210.0

// placeLabels gives each mark's label an offset: the first of right,
// above, below, left, and the same further out, whose box overlaps no
// label placed before and no marker; the right when none is free. A box
// is estimated from the label's length (half a point size per character).
func placeLabels(marks []labelMark) []labelMark {
	type box struct{ x0, y0, x1, y1 float64 }
	overlaps := func(a, b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }
	var taken []box
	for _, m := range marks {
		px, py := m.x*areaW, m.y*areaH
		taken = append(taken, box{px - m.r, py - m.r, px + m.r, py + m.r})
	}
	order := make([]int, len(marks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return marks[order[a]].x < marks[order[b]].x })
	out := slices.Clone(marks)
	for _, i := range order {
		m := &out[i]
		w, h := 0.55*labelPt*float64(len(m.text)), float64(labelPt)
		px, py := m.x*areaW, m.y*areaH
		var cands [][2]float64 // the label's lower left corner, from the marker
		for _, k := range []float64{1, 2.2, 3.4} {
			g := m.r + 2 + (k-1)*h
			cands = append(cands, [2]float64{g, -h / 2}, [2]float64{-w / 2, g}, [2]float64{-w / 2, -g - h}, [2]float64{-g - w, -h / 2},
				[2]float64{g, g}, [2]float64{g, -g - h}, [2]float64{-g - w, g}, [2]float64{-g - w, -g - h})
		}
		best := cands[0]
		for _, c := range cands {
			b := box{px + c[0], py + c[1], px + c[0] + w, py + c[1] + h}
			if b.x0 < 0 || b.x1 > areaW+20 || b.y0 < -4 || b.y1 > areaH {
				continue
			}
			free := true
			for _, t := range taken {
				if overlaps(b, t) {
					free = false
					break
				}
			}
			if free {
				best = c
				break
			}
		}
		taken = append(taken, box{px + best[0], py + best[1], px + best[0] + w, py + best[1] + h})
		m.dx, m.dy = best[0], best[1]
	}
	return out
}

// rankLabel lists ranks as "1, 2, 5", at most three and then "+n".
func rankLabel(ranks []int) string {
	var parts []string
	for i, r := range ranks {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("+%d", len(ranks)-3))
			break
		}
		parts = append(parts, fmt.Sprint(r))
	}
	return strings.Join(parts, ", ")
}

// WriteFigure renders f as f.Name.png and f.Name.svg in dir.
func WriteFigure(dir string, f *Figure) error {
	png, svg, err := render(f)
	if err != nil {
		return fmt.Errorf("figure %s: %v", f.Name, err)
	}
	if err := WriteFile(dir, f.Name+".png", png); err != nil {
		return err
	}
	return WriteFile(dir, f.Name+".svg", svg)
}

// WriteFile writes data as dir/name the way every file of a report is
// written: atomically (a reader never sees half of it), and never over a
// file that is there already.
func WriteFile(dir, name string, data []byte) error {
	return writeAtomic(filepath.Join(dir, name), data)
}
