package report

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

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
	// Meets says whether the design meets the budget.
	Meets bool
}

// ParetoFigure draws every design's overshoot against the legitimate
// requests it denies, cost as the marker's size, the designs that meet the
// budget in colour and the others in grey, each marker labelled with the
// ranks in the table of the designs it stands for (designs with the same
// numbers share one). The designs nearest the origin are worth shipping.
func ParetoFigure(points []AdvicePoint, overshoot measure.Metric) *Figure {
	p := newPlot("What each design lets through, and whom it locks out",
		capitalize(overshoot.Label)+" ("+overshoot.Name+")", "legitimate requests denied (%)")
	var maxCost float64
	for _, pt := range points {
		maxCost = max(maxCost, pt.Cost)
	}
	type group struct {
		x, y, cost float64
		meets      bool
		ranks      []int
	}
	// Markers closer than this would overlap: they share one.
	var xMax float64
	for _, pt := range points {
		xMax = max(xMax, pt.Allowed)
	}
	dx, dy := 0.02*xMax, 1.0
	var groups []*group
	for _, pt := range points {
		x, y := pt.Allowed, 100*pt.Denied
		var g *group
		for _, h := range groups {
			if h.meets == pt.Meets && math.Abs(h.x-x) <= dx && math.Abs(h.y-y) <= dy {
				g = h
			}
		}
		if g == nil {
			g = &group{x: x, y: y, meets: pt.Meets}
			groups = append(groups, g)
		}
		g.ranks = append(g.ranks, pt.Rank)
		g.cost = max(g.cost, pt.Cost)
	}
	for _, meets := range []bool{true, false} {
		var xys plotter.XYs
		var labels []string
		var sizes []vg.Length
		for _, g := range groups {
			if g.meets != meets {
				continue
			}
			xys = append(xys, plotter.XY{X: g.x, Y: g.y})
			labels = append(labels, rankLabel(g.ranks))
			r := vg.Length(4)
			if maxCost > 0 {
				r = 3 + vg.Length(4*g.cost/maxCost)
			}
			sizes = append(sizes, r)
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			continue
		}
		c := colorAt(2)
		name := "meets the budget"
		if !meets {
			c, name = grayColor, "does not meet it"
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: 4, Shape: draw.CircleGlyph{}}
		sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			return draw.GlyphStyle{Color: c, Radius: sizes[i], Shape: draw.CircleGlyph{}}
		}
		p.Add(sc)
		p.Legend.Add(name, sc)
		// Neighbours' labels alternate above and below their markers, so
		// that markers side by side keep readable labels.
		order := make([]int, len(xys))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return xys[order[a]].X < xys[order[b]].X })
		for half, dy := range []vg.Length{6, -14} {
			var hx plotter.XYs
			var hl []string
			for k, i := range order {
				if k%2 == half {
					hx, hl = append(hx, xys[i]), append(hl, labels[i])
				}
			}
			if len(hx) == 0 {
				continue
			}
			if l, err := plotter.NewLabels(plotter.XYLabels{XYs: hx, Labels: hl}); err == nil {
				for i := range l.TextStyle {
					l.TextStyle[i].Font = font.From(Sans, 8)
				}
				l.Offset = vg.Point{X: 4, Y: dy}
				p.Add(l)
			}
		}
	}
	p.X.Min, p.Y.Min = 0, 0
	padTop(p, 0.12)
	padRight(p, 0.15)
	return &Figure{Name: "pareto", Title: p.Title.Text, Plot: p,
		Caption: "Each design at the largest limit meeting the budget (or the scenario's limit when none does), labelled with its rank in the table (designs with about the same numbers share a marker); a larger marker costs more per million requests (Workers KV's prices; other stores are not priced and drawn smallest)."}
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
