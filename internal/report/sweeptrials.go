package report

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// SweepTrials draws, for each sweep point, every trial's max ratio
// allowed/limit as a dot (spread sideways so that equal values stay
// apart) with the point's median as a bar and its value written beside
// it: the per-point distribution behind the sweep table's one number, so
// that a reader sees whether two points differ or only their maxima do.
// Nil for a run without sweep points; words when no point has a trial.
func SweepTrials(s *measure.Summary) *Figure {
	if len(s.Points) == 0 {
		return nil
	}
	title := "How much does one trial's worst key-window vary at each point?"
	names, lo, hi := sweepTrialsRange(s)
	if hi == 0 {
		return &Figure{Name: "sweep-trials", Title: title, Empty: "No sweep point has a trial that saw a key-window: there is no per-trial max ratio to draw."}
	}
	p := newPlot(title, "sweep point ("+sweepParamsWords(s)+")", "a trial's max of allowed / limit (ratio)")
	logY, y := valueScale(p, lo, hi, "a trial's max of allowed / limit (ratio)")
	dropped := addTrialStrips(p, s, y)
	p.Legend.Add("one trial's max ratio", glyphKey{draw.GlyphStyle{Color: colorAt(0), Shape: draw.CircleGlyph{}, Radius: 3}})
	if med := line(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}}, colorAt(1), 2.4); med != nil {
		p.Legend.Add("median over the trials", med)
	}
	p.NominalX(names...)
	if len(names) > 6 || longest(names) > 14 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
	}
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.05
	if logY {
		l, h := math.Log10(lo), math.Log10(hi)
		span := math.Max(h-l, 0.3)
		p.Y.Min, p.Y.Max = l-0.08*span, h+0.3*span
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.3
	}
	p.Legend.Left = true
	return &Figure{Name: "sweep-trials", Title: title, Plot: p, Caption: sweepTrialsCaption(s, dropped), Height: figHeight * 1.1}
}

// sweepTrialsRange is each sweep point's name and the least and greatest
// finite per-trial max ratio above 0 of all points (hi 0 when none).
func sweepTrialsRange(s *measure.Summary) (names []string, lo, hi float64) {
	names = make([]string, len(s.Points))
	var all []float64
	for i, pt := range s.Points {
		names[i] = pointName(pt.Params)
		if pt.Summary != nil {
			all = append(all, pt.Summary.Overshoot.PerTrial.MaxRatios...)
		}
	}
	lo, hi = math.Inf(1), 0.0
	for _, v := range all {
		if finite(v) && v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return names, lo, hi
}

// addTrialStrips draws each point's strip: its median's bar, then its
// trials' dots on top (so trials that all equal the median stay
// visible), the medians written beside them up to 12 points. It returns
// how many trials the axis could not draw.
func addTrialStrips(p *plot.Plot, s *measure.Summary, y func(float64) (float64, bool)) (dropped int) {
	var medLabels plotter.XYLabels
	for i, pt := range s.Points {
		if pt.Summary == nil {
			continue
		}
		rs := pt.Summary.Overshoot.PerTrial.MaxRatios
		var pts plotter.XYs
		for j, v := range rs {
			yv, ok := y(v)
			if !ok {
				dropped++
				continue
			}
			// A golden-ratio sequence spreads the trials evenly over
			// the strip, the same on every run.
			off := (math.Mod(float64(j)*0.6180339887, 1) - 0.5) * 0.5
			pts = append(pts, plotter.XY{X: float64(i) + off, Y: yv})
		}
		alpha := uint8(0xC0)
		if len(pts) > 200 {
			alpha = 0x50
		}
		if med := measure.Median(rs); len(rs) > 0 {
			if yv, ok := y(med); ok {
				addLine(p, "", line(plotter.XYs{{X: float64(i) - 0.32, Y: yv}, {X: float64(i) + 0.32, Y: yv}}, colorAt(1), 2.4))
				medLabels.XYs = append(medLabels.XYs, plotter.XY{X: float64(i) + 0.34, Y: yv})
				medLabels.Labels = append(medLabels.Labels, ratio(med))
			}
		}
		addLine(p, "", marks(pts, translucent(colorAt(0), alpha), draw.CircleGlyph{}, 2))
	}
	if len(s.Points) <= 12 {
		addLabels(p, medLabels)
	}
	return dropped
}

// sweepTrialsCaption says what the dots and bars are, that a headline
// other than the max ratio is kept once per point, and how many trials
// the log axis left off.
func sweepTrialsCaption(s *measure.Summary, dropped int) string {
	caption := fmt.Sprintf("Each dot is one trial's largest allowed/limit in any key-window, at each sweep point (%s), spread sideways only to keep equal values apart; the bar is the median over the point's trials, written beside it. The sweep table's \"Trials' max: central 95%%\" is the middle 95%% of these dots.", sweepParamsWords(s))
	if m := s.Scenario.HeadlineMetric(); m.Name != "ratio.max" && m.Name != "trial_max.p95" {
		caption += fmt.Sprintf(" The question's metric, %s, is kept once per point, not per trial: its value at each point is in the sweep table.", m.Name)
	}
	if dropped > 0 {
		caption += fmt.Sprintf(" %s trials with a max ratio of 0 are left off the log scale.", count(int64(dropped)))
	}
	return caption
}

// pointName is a sweep point's x label: its values, each with the last
// element of its path when several are swept.
func pointName(ps []measure.Param) string {
	if len(ps) == 1 {
		return ps[0].Value
	}
	parts := make([]string, len(ps))
	for i, q := range ps {
		a := sweepAxis{path: q.Path}
		parts[i] = a.short() + "=" + q.Value
	}
	return strings.Join(parts, ", ")
}

// sweepParamsWords names the swept parameters for a caption.
func sweepParamsWords(s *measure.Summary) string {
	return strings.Join(sweepPaths(s.Points), " and ")
}

// longest is the length of the longest name.
func longest(names []string) int {
	n := 0
	for _, s := range names {
		n = max(n, len([]rune(s)))
	}
	return n
}
