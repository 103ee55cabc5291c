package plan

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestDistQuantiles draws many latencies from a fixed seed and compares
// their empirical quantiles with the distribution's definition
// (scenario.Latency.Quantile, derived from its parameters, not from draws).
func TestDistQuantiles(t *testing.T) {
	msd := func(n float64) scenario.Duration { return scenario.Duration(n * float64(time.Millisecond)) }
	cases := []struct {
		name string
		l    scenario.Latency
	}{
		{"constant", scenario.Constant(7 * time.Millisecond)},
		{"uniform", scenario.Latency{Dist: scenario.DistUniform, Min: msd(10), Max: msd(30)}},
		{"exponential", scenario.Latency{Dist: scenario.DistExponential, Mean: msd(20)}},
		{"lognormal", scenario.Lognormal(2*time.Millisecond, 12*time.Millisecond)},
		{"lognormal-degenerate", scenario.Lognormal(5*time.Millisecond, 5*time.Millisecond)},
		{"empirical", scenario.Latency{Dist: scenario.DistEmpirical, Points: []scenario.Quantile{
			{P: 0.01, Value: msd(5)}, {P: 0.5, Value: msd(20)}, {P: 0.95, Value: msd(50)}, {P: 0.99, Value: msd(250)}, {P: 1, Value: msd(1000)}}}},
		{"empirical-one-point", scenario.Latency{Dist: scenario.DistEmpirical, Points: []scenario.Quantile{{P: 1, Value: msd(3)}}}},
	}
	const n = 100000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := NewDist(c.l)
			if err != nil {
				t.Fatal(err)
			}
			r := testRand(42, 0)
			draws := make([]float64, n)
			for i := range draws {
				draws[i] = float64(d.Sample(r))
			}
			slices.Sort(draws)
			for _, p := range []float64{0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99} {
				got := draws[int(p*n)]
				want := float64(c.l.Quantile(p))
				// The sampling error of these quantiles over 100k draws
				// is at most about 1% (p99 of the lognormal: sd =
				// sqrt(0.99 x 0.01 / n) / density); allow 3% plus 10 µs.
				if math.Abs(got-want) > 0.03*want+1e4 {
					t.Errorf("p%g = %v, want %v", p*100, time.Duration(got), time.Duration(want))
				}
			}
		})
	}
}

// TestDistLognormalSigma checks the lognormal's parameters by hand: median
// 2 ms, p99 12 ms gives sigma = ln(6)/2.326 = 0.7702, so the p90 is
// 2 ms x e^(1.2816 x 0.7702) = 5.37 ms.
func TestDistLognormalSigma(t *testing.T) {
	d, err := NewDist(scenario.Lognormal(2*time.Millisecond, 12*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d.b-0.7702) > 0.0005 {
		t.Errorf("sigma = %v, want 0.7702", d.b)
	}
	if q := scenario.Lognormal(2*time.Millisecond, 12*time.Millisecond).Quantile(0.9); math.Abs(float64(q)/1e6-5.37) > 0.01 {
		t.Errorf("p90 = %v, want 5.37ms", q)
	}
}

func TestDistZeroAndDividedBy(t *testing.T) {
	d, err := NewDist(scenario.Latency{})
	if err != nil || !d.IsZero() || d.Sample(testRand(1, 0)) != 0 {
		t.Errorf("unset latency: %v %v, want the constant 0", d, err)
	}
	u, _ := NewDist(scenario.Latency{Dist: scenario.DistUniform, Min: scenario.Duration(10 * time.Millisecond), Max: scenario.Duration(20 * time.Millisecond)})
	s := u.DividedBy(10)
	r := testRand(1, 0)
	for i := 0; i < 1000; i++ {
		if v := s.Sample(r); v < time.Millisecond || v > 2*time.Millisecond {
			t.Fatalf("uniform 10..20ms divided by 10 drew %v", v)
		}
	}
	if _, err := NewDist(scenario.Latency{Dist: "gamma"}); err == nil {
		t.Error("unknown dist accepted")
	}
	if _, err := NewDist(scenario.Latency{Dist: scenario.DistLognormal, Median: 0, P99: 5}); err == nil {
		t.Error("lognormal with median 0 accepted")
	}
}

// testRand returns a seeded source for draws in tests.
func testRand(seed uint64, i int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(i))) }

// TestDistAtMatchesSample: the counter-based draw (At, the ziggurat for an
// exponential and the inverse CDF for the rest) has the distribution
// Sample draws from a generator: a two-sample Kolmogorov-Smirnov distance
// under 0.008 over 200,000 draws each (the 0.1% critical value is 0.0062).
func TestDistAtMatchesSample(t *testing.T) {
	ms := scenario.Duration(time.Millisecond)
	lats := []scenario.Latency{
		{Dist: scenario.DistExponential, Mean: 30 * ms},
		{Dist: scenario.DistUniform, Min: ms, Max: 40 * ms},
		{Dist: scenario.DistLognormal, Median: 20 * ms, P99: 200 * ms},
		{Dist: scenario.DistEmpirical, Points: []scenario.Quantile{{P: 0.1, Value: ms}, {P: 0.9, Value: 50 * ms}, {P: 1, Value: 80 * ms}}},
	}
	const n = 200000
	for _, l := range lats {
		d, err := NewDist(l)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		a, b := make([]float64, n), make([]float64, n)
		for i := range n {
			a[i] = float64(d.At(mix64(uint64(i) * 0x9e3779b97f4a7c15)))
			b[i] = float64(d.Sample(r))
		}
		if ks := ksDistance(a, b); ks > 0.008 {
			t.Errorf("%s: KS distance %.4f between At and Sample, want < 0.008", l.Dist, ks)
		}
	}
}

// ksDistance returns the two-sample Kolmogorov-Smirnov distance.
func ksDistance(a, b []float64) float64 {
	slices.Sort(a)
	slices.Sort(b)
	var d float64
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] <= x {
			i++
		}
		for j < len(b) && b[j] <= x {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}
