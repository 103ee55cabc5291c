package report

import (
	"fmt"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestPlaceLabels: labels of markers close together are placed so that no
// two overlap and none covers a marker, where there is room.
func TestPlaceLabels(t *testing.T) {
	var marks []labelMark
	for i := range 8 {
		marks = append(marks, labelMark{x: 0.3 + 0.02*float64(i), y: 0.1, r: 5, text: fmt.Sprintf("%d, %d", 2*i+1, 2*i+2)})
	}
	out := placeLabels(marks)
	type box struct{ x0, y0, x1, y1 float64 }
	var boxes []box
	for _, m := range out {
		w, h := 0.55*labelPt*float64(len(m.text)), float64(labelPt)
		px, py := m.x*areaW+m.dx, m.y*areaH+m.dy
		boxes = append(boxes, box{px, py, px + w, py + h})
	}
	for i, a := range boxes {
		for j, b := range boxes {
			if i < j && a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
				t.Errorf("labels %q and %q overlap: %+v %+v", out[i].text, out[j].text, a, b)
			}
		}
		for _, m := range out {
			cx, cy := m.x*areaW, m.y*areaH
			if a.x0 < cx+m.r && cx-m.r < a.x1 && a.y0 < cy+m.r && cy-m.r < a.y1 {
				t.Errorf("label %q covers the marker of %q", out[i].text, m.text)
			}
		}
	}
}

// TestParetoAxes: the y axis starts at 0 (an all-zero one shows 0 to
// 1%), the x axis is logarithmic when the values span more than 20 times,
// and the budget's bound is in the legend.
func TestParetoAxes(t *testing.T) {
	ratio, _ := measure.LookupMetric("ratio.max")
	for _, tc := range []struct {
		xs   []float64
		deny float64
		log  bool
		yMax float64
	}{{[]float64{1, 1.2, 9}, 0, false, 1}, {[]float64{1, 4, 90}, 0.005, true, 0.65}} {
		var pts []AdvicePoint
		for i, x := range tc.xs {
			pts = append(pts, AdvicePoint{Rank: i + 1, Allowed: x, Denied: tc.deny, Cost: 1, Meets: i == 0})
		}
		f := ParetoFigure(pts, ratio, 1.5)
		p := f.Plot
		_, isLog := p.X.Tick.Marker.(log10Ticks)
		if p.Y.Min != 0 || p.Y.Max < tc.yMax-1e-9 || p.Y.Max > tc.yMax+1e-9 || isLog != tc.log {
			t.Errorf("%v: y %v..%v, log x %v; want 0..%v, log %v", tc.xs, p.Y.Min, p.Y.Max, isLog, tc.yMax, tc.log)
		}
		if _, _, err := render(f); err != nil {
			t.Errorf("%v: %v", tc.xs, err)
		}
	}
}
