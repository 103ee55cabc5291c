package report

import (
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"gonum.org/v1/plot/vg"
)

// TestParetoNotPriced: a design not priced per request (Redis) is not
// drawn as the cheapest: its marker has a fixed size whatever the others
// cost, and the caption says what a square is; without one the caption
// does not mention squares.
func TestParetoNotPriced(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cost, maxCost float64
		notPriced     bool
		want          vg.Length
	}{
		{"cheapest", 0, 2, false, 3},
		{"costliest", 2, 2, false, 7},
		{"not priced", 0, 2, true, 4},
		{"none priced", 0, 0, false, 4},
	} {
		if got := markerRadius(tc.cost, tc.maxCost, tc.notPriced); got != tc.want {
			t.Errorf("%s: radius %v, want %v", tc.name, got, tc.want)
		}
	}
	ratio, _ := measure.LookupMetric("ratio.max")
	pts := []AdvicePoint{{Rank: 1, Allowed: 1, Cost: 0.5, Meets: true}, {Rank: 2, Allowed: 1, NotPriced: true, Meets: true}}
	f := ParetoFigure(pts, ratio, 1.5)
	if !strings.Contains(f.Caption, "A square is a design not priced per request") {
		t.Errorf("caption does not say what a square is: %s", f.Caption)
	}
	if _, _, err := render(f); err != nil {
		t.Error(err)
	}
	if f := ParetoFigure(pts[:1], ratio, 1.5); strings.Contains(f.Caption, "square") {
		t.Errorf("caption names squares without one: %s", f.Caption)
	}
}
