package plan

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestZigguratSameAsRand holds the PCG's draws to rand.Rand's: two
// sources seeded alike, one drawn through a Rand and one straight, give
// bit for bit the same values in the same order over millions of draws of
// each kind, mixed (so that each keeps the other's place in the stream),
// the ziggurats' rare slow paths included.
func TestZigguratSameAsRand(t *testing.T) {
	n := 3_000_000
	if testing.Short() {
		n = 300_000
	}
	for seed := uint64(1); seed <= 2; seed++ {
		r := rand.New(rand.NewPCG(seed, seed*7))
		src := rand.NewPCG(seed, seed*7)
		for i := 0; i < n; i++ {
			var a, b float64
			switch i % 3 {
			case 0:
				a, b = r.NormFloat64(), normal(src)
			case 1:
				a, b = r.ExpFloat64(), exponential(src)
			default:
				a, b = r.Float64(), uniform(src)
			}
			if math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("seed %d, draw %d: Rand gave %v, the PCG %v", seed, i, a, b)
			}
		}
	}
}

// TestDrawSameAsSample holds Dist.Draw to Dist.Sample for every kind of
// distribution.
func TestDrawSameAsSample(t *testing.T) {
	msd := func(n float64) scenario.Duration { return scenario.Duration(n * float64(time.Millisecond)) }
	for _, l := range []scenario.Latency{
		scenario.Constant(7 * time.Millisecond),
		{Dist: scenario.DistUniform, Min: msd(10), Max: msd(30)},
		{Dist: scenario.DistExponential, Mean: msd(20)},
		scenario.Lognormal(2*time.Millisecond, 12*time.Millisecond),
		{Dist: scenario.DistEmpirical, Points: []scenario.Quantile{{P: 0.5, Value: msd(20)}, {P: 1, Value: msd(1000)}}},
	} {
		d, err := NewDist(l)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		src := rand.NewPCG(3, 4)
		for i := 0; i < 100000; i++ {
			if a, b := d.Sample(r), d.Draw(src); a != b {
				t.Fatalf("%v, draw %d: Sample %v, Draw %v", l.Dist, i, a, b)
			}
		}
	}
}
