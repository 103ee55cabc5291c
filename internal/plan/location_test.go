package plan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestLocationScans: Location's walk from where u would fall under equal
// weights picks what a scan of the cumulative weights from the start picks,
// for equal, uneven and zero weights, at every bound, next to each and at
// random u.
func TestLocationScans(t *testing.T) {
	scan := func(p *Population, u float64) int {
		for i, x := range p.cum {
			if u < x {
				return p.locs[i]
			}
		}
		return p.locs[len(p.locs)-1]
	}
	weights := [][]float64{
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, // equal shares of 10
		{0, 0, 0},
		{3, 1, 2},
		{1, 0, 0, 5, 0},
		{0.1, 0.2, 0.3, 100, 1e-9, 7},
		{1, 1e6},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, w := range weights {
		locs := make([]scenario.Location, len(w))
		for i := range locs {
			locs[i].Weight = w[i]
		}
		var p Population
		p.compileArrive(scenario.Arrive{Mode: "spread"}, locs)
		us := []float64{0, math.Nextafter(1, 0)}
		for _, c := range p.cum {
			us = append(us, c, math.Nextafter(c, 0), math.Nextafter(c, 2))
		}
		for j := 0; j < len(w); j++ {
			x := float64(j) / float64(len(w))
			us = append(us, x, math.Nextafter(x, 0), math.Nextafter(x, 2))
		}
		for range 10000 {
			us = append(us, r.Float64())
		}
		for _, u := range us {
			if u < 0 || u >= 1 {
				continue
			}
			if got, want := p.LocationAt(u), scan(&p, u); got != want {
				t.Errorf("weights %v: LocationAt(%v) = %d, want %d", w, u, got, want)
			}
		}
	}
}
