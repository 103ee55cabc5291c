package report

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// sensitivityTable lists the headline with each assumption of the model at
// each of its alternatives, beside the headline as predicted.
func sensitivityTable(s *measure.Summary) (table, bool) {
	if len(s.Sensitivity) == 0 {
		return table{}, false
	}
	m := s.Scenario.HeadlineMetric()
	t := table{Title: "How sure is this? The headline under the model's assumptions",
		Header: []string{"Assumption (the default)", "Alternative", m.Name}}
	for _, x := range s.Sensitivity {
		v := "not measured"
		if x.Measured {
			v = metricText(m, x.Headline) + measure.SensitivityNoteWords(x.Note)
		}
		alt := x.Path + " = " + x.Value
		if x.Path == "" {
			alt = "none (the reference)"
		}
		t.Rows = append(t.Rows, []string{x.What, alt, v})
	}
	t.Note = fmt.Sprintf("Each alternative is a plausible value of an unpublished parameter, simulated with %s, as is the reference row (the defaults; the headline above rests on more trials, and a maximum grows with the trials taken). Where a row moves the answer far from the reference, the answer rests on that assumption.",
		trials(s.Sensitivity[0].Trials))
	return t, true
}

// SensitivityFigure is a tornado: for each assumption, the headline at its
// alternatives as points joined by a bar from the predicted value, so the
// assumptions the answer rests on most stand out as the longest bars.
func SensitivityFigure(s *measure.Summary) *Figure {
	if len(s.Sensitivity) == 0 {
		return nil
	}
	m := s.Scenario.HeadlineMetric()
	ref := s.Sensitivity[0]
	if ref.Path != "" || !ref.Measured {
		return nil
	}
	base := ref.Headline
	var paths []string
	rows := map[string][]measure.Sensitivity{}
	for _, x := range s.Sensitivity[1:] {
		if _, seen := rows[x.Path]; !seen {
			paths = append(paths, x.Path)
		}
		rows[x.Path] = append(rows[x.Path], x)
	}
	p := newPlot("How far the answer moves when an assumption is wrong", metricAxis(m), "")
	lo, hi := base, base
	for i, path := range paths {
		y := float64(len(paths) - 1 - i)
		labels := map[float64][]string{} // alternatives that land on one value share a label
		var at []float64
		for _, x := range rows[path] {
			if !x.Measured {
				continue
			}
			if _, seen := labels[x.Headline]; !seen {
				at = append(at, x.Headline)
			}
			labels[x.Headline] = append(labels[x.Headline], x.Value)
			lo, hi = math.Min(lo, x.Headline), math.Max(hi, x.Headline)
			seg := line(plotter.XYs{{X: base, Y: y}, {X: x.Headline, Y: y}}, colorAt(0), 6)
			if seg != nil {
				p.Add(seg)
			}
			pt, err := plotter.NewScatter(plotter.XYs{{X: x.Headline, Y: y}})
			if err == nil {
				pt.GlyphStyle = draw.GlyphStyle{Color: colorAt(1), Radius: 3, Shape: draw.CircleGlyph{}}
				p.Add(pt)
			}
		}
		for _, v := range at {
			if l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: v, Y: y}}, Labels: []string{strings.Join(labels[v], ", ")}}); err == nil {
				l.Offset = vg.Point{X: 5, Y: 4}
				for i := range l.TextStyle {
					l.TextStyle[i].Font = font.From(Sans, 8)
				}
				p.Add(l)
			}
		}
	}
	p.Add(vline(base, -0.5, float64(len(paths))-0.5, limitColor, vg.Points(3)))
	ticks := make([]plot.Tick, len(paths))
	for i, path := range paths {
		ticks[i] = plot.Tick{Value: float64(len(paths) - 1 - i), Label: path}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.6, float64(len(paths))-0.4
	span := hi - lo
	if span == 0 {
		span = math.Max(math.Abs(base), 1)
	}
	p.X.Min, p.X.Max = math.Max(0, lo-0.1*span), hi+0.25*span
	return &Figure{Name: "sensitivity", Title: p.Title.Text, Plot: p, Height: vg.Length(len(paths)+2) * 0.9 * vg.Centimeter,
		Caption: fmt.Sprintf("The dashed line is the prediction with every default (%s, with %s); each bar runs from it to the headline with one assumption at an alternative value (labelled), with as many trials.",
			metricText(m, base), trials(ref.Trials)) + stuckCaption(s.Sensitivity)}
}

// stuckCaption says how many of the sensitivity's entries are capped by
// the offered load or saturated (the limiter denied nothing), whose bars
// do not move for that reason, not because the answer is robust; "" when
// none is.
func stuckCaption(xs []measure.Sensitivity) string {
	var capped, saturated int
	for _, x := range xs {
		switch x.Note {
		case "capped":
			capped++
		case "saturated":
			saturated++
		}
	}
	if capped+saturated == 0 {
		return ""
	}
	return fmt.Sprintf(" Of the %d entries, %d saturated (the limiter denied nothing) and %d capped (the worst key-window got all it sent): their value is the offered load's, so a short bar there does not mean the answer is robust.",
		len(xs), saturated, capped)
}

// metricAxis labels an axis that carries metric m.
func metricAxis(m measure.Metric) string {
	switch m.Unit {
	case "ratio":
		return m.Name + " (allowed / limit)"
	case "share":
		return m.Name + " (share)"
	}
	return m.Name
}
