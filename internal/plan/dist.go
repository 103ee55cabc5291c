package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// maxDraw caps every latency draw (about 146 years), so that a heavy tail can
// never overflow the virtual clock.
const maxDraw = float64(1 << 62)

// The kinds of Dist, one per scenario latency distribution.
const (
	distConstant uint8 = iota
	distUniform
	distExponential
	distLognormal
	distEmpirical
)

// Dist is a latency distribution ready to sample: scenario.Latency compiled
// once, so a draw costs one or two random numbers and no allocation.
// The zero Dist is the constant 0.
type Dist struct {
	kind uint8
	// a and b hold the parameters in nanoseconds: constant a; uniform
	// a = min, b = max - min; exponential a = mean; lognormal a = median,
	// b = sigma (of the underlying normal, unitless).
	a, b float64
	// ps and vs are the empirical quantile points: P and value (ns).
	ps, vs []float64
}

// NewDist compiles l. An unset latency (scenario.Latency.IsZero) is the
// constant 0, so that an omitted think time means none. A lognormal takes
// sigma = ln(p99/median) / 2.326 (the standard normal's 99th percentile),
// as scenario.Latency.LognormalParams does; an empirical distribution is the
// piecewise-linear inverse CDF scenario.Latency.Quantile defines (flat at the
// first value below the first point, flat at the last above the last).
func NewDist(l scenario.Latency) (Dist, error) {
	if l.IsZero() {
		return Dist{}, nil
	}
	if err := l.Validate(); err != nil {
		return Dist{}, err
	}
	switch l.Dist {
	case scenario.DistConstant:
		return Dist{kind: distConstant, a: float64(l.Value)}, nil
	case scenario.DistUniform:
		return Dist{kind: distUniform, a: float64(l.Min), b: float64(l.Max - l.Min)}, nil
	case scenario.DistExponential:
		return Dist{kind: distExponential, a: float64(l.Mean)}, nil
	case scenario.DistLognormal:
		_, sigma := l.LognormalParams()
		return Dist{kind: distLognormal, a: float64(l.Median), b: sigma}, nil
	case scenario.DistEmpirical:
		d := Dist{kind: distEmpirical}
		for _, q := range l.Points {
			d.ps = append(d.ps, q.P)
			d.vs = append(d.vs, float64(q.Value))
		}
		return d, nil
	}
	return Dist{}, fmt.Errorf("latency dist %q is unknown", l.Dist)
}

// Sample draws one latency from d with r.
func (d *Dist) Sample(r *rand.Rand) time.Duration {
	var v float64
	switch d.kind {
	case distConstant:
		return time.Duration(d.a)
	case distUniform:
		v = d.a + r.Float64()*d.b
	case distExponential:
		v = r.ExpFloat64() * d.a
	case distLognormal:
		v = d.a * math.Exp(d.b*r.NormFloat64())
	case distEmpirical:
		v = d.quantile(r.Float64())
	}
	if !(v < maxDraw) { // also catches NaN
		v = maxDraw
	}
	return time.Duration(v)
}

// At returns the draw of d from 64 well-mixed bits x (a counter-based
// draw, Draws): an exponential by the ziggurat, the others by their
// inverse CDF at u = the top 53 bits over 2^53. It has d's distribution,
// as Sample has, but not Sample's values.
func (d *Dist) At(x uint64) time.Duration {
	var v float64
	u := float64(x>>11) / (1 << 53)
	switch d.kind {
	case distConstant:
		return time.Duration(d.a)
	case distUniform:
		v = d.a + u*d.b
	case distExponential:
		v = expFrom(x) * d.a
	case distLognormal:
		// The standard normal's inverse CDF is -sqrt(2) erfcinv(2u).
		v = d.a * math.Exp(-d.b*math.Sqrt2*math.Erfcinv(2*u))
	case distEmpirical:
		v = d.quantile(u)
	}
	if !(v < maxDraw) { // also catches NaN
		v = maxDraw
	}
	return time.Duration(v)
}

// quantile is the empirical inverse CDF at u.
func (d *Dist) quantile(u float64) float64 {
	ps, vs := d.ps, d.vs
	if u <= ps[0] {
		return vs[0]
	}
	for i := 1; i < len(ps); i++ {
		if u <= ps[i] {
			f := (u - ps[i-1]) / (ps[i] - ps[i-1])
			return vs[i-1] + f*(vs[i]-vs[i-1])
		}
	}
	return vs[len(vs)-1]
}

// DividedBy returns d with every draw divided by f (f > 0): the live
// attack runner's time scale, which plays simulated latencies faster than
// real. (scenario.Latency.Scaled multiplies: a fit's scale.)
func (d Dist) DividedBy(f float64) Dist {
	if f <= 0 || f == 1 {
		return d
	}
	switch d.kind {
	case distLognormal, distExponential, distConstant:
		d.a /= f
	case distUniform:
		d.a /= f
		d.b /= f
	case distEmpirical:
		vs := make([]float64, len(d.vs))
		for i, v := range d.vs {
			vs[i] = v / f
		}
		d.vs = vs
	}
	return d
}

// IsZero reports whether every draw of d is 0.
func (d *Dist) IsZero() bool { return d.kind == distConstant && d.a == 0 }
