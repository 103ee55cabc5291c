package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// The latency distributions a scenario may name in Latency.Dist.
const (
	DistConstant    = "constant"
	DistUniform     = "uniform"
	DistExponential = "exponential"
	DistLognormal   = "lognormal"
	DistEmpirical   = "empirical"
)

// Dists lists every latency distribution, for error messages and docs.
var Dists = []string{DistConstant, DistUniform, DistExponential, DistLognormal, DistEmpirical}

// z99 is the standard normal quantile at 0.99: a lognormal given by its
// median and p99 has sigma = ln(p99/median) / z99.
const z99 = 2.3263478740408408

// Constant returns the latency that is always d.
func Constant(d time.Duration) Latency {
	return Latency{Dist: DistConstant, Value: Duration(d)}
}

// Lognormal returns the lognormal latency with the given median and 99th
// percentile.
func Lognormal(median, p99 time.Duration) Latency {
	return Latency{Dist: DistLognormal, Median: Duration(median), P99: Duration(p99)}
}

// IsZero reports whether l is unset (no distribution and no parameters), so
// that defaults fill it.
func (l Latency) IsZero() bool {
	return l.Dist == "" && l.Value == 0 && l.Min == 0 && l.Max == 0 && l.Mean == 0 &&
		l.Median == 0 && l.P99 == 0 && len(l.Points) == 0
}

// LognormalParams returns mu and sigma of the underlying normal of a
// lognormal latency in seconds: ln of a draw in seconds is Normal(mu, sigma).
// It is meaningful only when Dist is lognormal.
func (l Latency) LognormalParams() (mu, sigma float64) {
	m := l.Median.D().Seconds()
	p := l.P99.D().Seconds()
	if m <= 0 {
		return math.Inf(-1), 0
	}
	return math.Log(m), math.Log(p/m) / z99
}

// MeanDuration returns the mean of the distribution, for reports and docs
// (e.g. the round trip a closed loop pays on average). (The name Mean is
// the exponential distribution's parameter field.) Empirical quantiles are
// read as Quantile describes. Zero for an unset latency.
func (l Latency) MeanDuration() time.Duration {
	switch l.Dist {
	case DistConstant:
		return l.Value.D()
	case DistUniform:
		return (l.Min.D() + l.Max.D()) / 2
	case DistExponential:
		return l.Mean.D()
	case DistLognormal:
		_, sigma := l.LognormalParams()
		return time.Duration(math.Round(float64(l.Median) * math.Exp(sigma*sigma/2)))
	case DistEmpirical:
		if len(l.Points) == 0 {
			return 0
		}
		// Integrate the quantile function over [0, 1]: flat below the
		// first point and above the last, linear in between.
		first, last := l.Points[0], l.Points[len(l.Points)-1]
		sum := first.P * float64(first.Value)
		for i := 1; i < len(l.Points); i++ {
			a, b := l.Points[i-1], l.Points[i]
			sum += (b.P - a.P) * (float64(a.Value) + float64(b.Value)) / 2
		}
		sum += (1 - last.P) * float64(last.Value)
		return time.Duration(math.Round(sum))
	}
	return 0
}

// Quantile returns the latency at or below which a share p (0..1) of draws
// fall: the inverse of the distribution's CDF. For empirical quantiles the
// quantile function is linear between the given points, flat at the first
// value below the first point and flat at the last value above the last
// point. It is meant for reports and docs (e.g. "p99 12ms") and as the
// definition the model's sampling must agree with.
func (l Latency) Quantile(p float64) time.Duration {
	p = min(max(p, 0), 1)
	switch l.Dist {
	case DistConstant:
		return l.Value.D()
	case DistUniform:
		return l.Min.D() + time.Duration(math.Round(p*float64(l.Max-l.Min)))
	case DistExponential:
		if p >= 1 {
			return time.Duration(math.MaxInt64)
		}
		return time.Duration(math.Round(-float64(l.Mean) * math.Log(1-p)))
	case DistLognormal:
		if p <= 0 {
			return 0
		}
		if p >= 1 {
			return time.Duration(math.MaxInt64)
		}
		_, sigma := l.LognormalParams()
		z := math.Sqrt2 * math.Erfinv(2*p-1)
		v := float64(l.Median) * math.Exp(sigma*z)
		if v >= math.MaxInt64 {
			return time.Duration(math.MaxInt64)
		}
		return time.Duration(math.Round(v))
	case DistEmpirical:
		pts := l.Points
		if len(pts) == 0 {
			return 0
		}
		if p <= pts[0].P {
			return pts[0].Value.D()
		}
		for i := 1; i < len(pts); i++ {
			if p <= pts[i].P {
				a, b := pts[i-1], pts[i]
				f := (p - a.P) / (b.P - a.P)
				return a.Value.D() + time.Duration(math.Round(f*float64(b.Value-a.Value)))
			}
		}
		return pts[len(pts)-1].Value.D()
	}
	return 0
}

// String describes l in the scenario's own notation: "20ms" for a constant,
// otherwise "lognormal(median 2ms, p99 12ms)" and the like.
func (l Latency) String() string {
	switch l.Dist {
	case "":
		if l.IsZero() {
			return "unset"
		}
	case DistConstant:
		return l.Value.String()
	case DistUniform:
		return fmt.Sprintf("uniform(%v..%v)", l.Min, l.Max)
	case DistExponential:
		return fmt.Sprintf("exponential(mean %v)", l.Mean)
	case DistLognormal:
		return fmt.Sprintf("lognormal(median %v, p99 %v)", l.Median, l.P99)
	case DistEmpirical:
		parts := make([]string, len(l.Points))
		for i, q := range l.Points {
			parts[i] = fmt.Sprintf("p%g %v", q.P*100, q.Value)
		}
		return "empirical(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%s(?)", l.Dist)
}

// Validate reports a latency whose parameters do not fit its distribution.
// The error names the parameter as it is written in YAML, relative to the
// latency (e.g. "p99"), so that the caller can prefix the field path.
func (l Latency) Validate() error {
	switch l.Dist {
	case DistConstant:
		if l.Min != 0 || l.Max != 0 || l.Mean != 0 || l.Median != 0 || l.P99 != 0 || len(l.Points) != 0 {
			return fmt.Errorf("a constant latency takes only value")
		}
	case DistUniform:
		if l.Value != 0 || l.Mean != 0 || l.Median != 0 || l.P99 != 0 || len(l.Points) != 0 {
			return fmt.Errorf("a uniform latency takes only min and max")
		}
		if l.Min > l.Max {
			return fmt.Errorf("uniform min %v is above max %v: min must be <= max", l.Min, l.Max)
		}
	case DistExponential:
		if l.Value != 0 || l.Min != 0 || l.Max != 0 || l.Median != 0 || l.P99 != 0 || len(l.Points) != 0 {
			return fmt.Errorf("an exponential latency takes only mean")
		}
	case DistLognormal:
		if l.Value != 0 || l.Min != 0 || l.Max != 0 || l.Mean != 0 || len(l.Points) != 0 {
			return fmt.Errorf("a lognormal latency takes only median and p99")
		}
		if l.Median <= 0 {
			return fmt.Errorf("lognormal median must be above 0, e.g. median: 2ms")
		}
		if l.P99 == 0 {
			return fmt.Errorf("a lognormal latency needs both median and p99, e.g. {dist: lognormal, median: 2ms, p99: 12ms}")
		}
		if l.P99 < l.Median {
			return fmt.Errorf("lognormal p99 %v is below median %v: p99 must be >= median", l.P99, l.Median)
		}
	case DistEmpirical:
		if l.Value != 0 || l.Min != 0 || l.Max != 0 || l.Mean != 0 || l.Median != 0 || l.P99 != 0 {
			return fmt.Errorf("an empirical latency takes only quantiles")
		}
		if len(l.Points) == 0 {
			return fmt.Errorf("an empirical latency needs quantiles, e.g. [{p: 0.5, value: 20ms}, {p: 1, value: 200ms}]")
		}
		for i, q := range l.Points {
			if !(q.P > 0 && q.P <= 1) {
				return fmt.Errorf("quantiles[%d].p %v is out of range: must be in (0, 1]", i, q.P)
			}
			if i > 0 && q.P <= l.Points[i-1].P {
				return fmt.Errorf("quantiles[%d].p %v is not above quantiles[%d].p %v: p must increase", i, q.P, i-1, l.Points[i-1].P)
			}
			if i > 0 && q.Value < l.Points[i-1].Value {
				return fmt.Errorf("quantiles[%d].value %v is below quantiles[%d].value %v: values must not decrease", i, q.Value, i-1, l.Points[i-1].Value)
			}
		}
	case "":
		return fmt.Errorf("latency has no dist: give dist (one of %s) or a bare duration such as \"20ms\"", strings.Join(Dists, ", "))
	default:
		return fmt.Errorf("latency dist %q is unknown: use one of %s", l.Dist, strings.Join(Dists, ", "))
	}
	return nil
}

// latencyFields is Latency without its methods, so that the mapping form
// decodes with the library's strict struct decoding.
type latencyFields Latency

// UnmarshalYAML reads a latency: a bare duration ("20ms", a constant) or a
// mapping {dist: ..., parameters}. When dist is left out of a mapping it is
// inferred from the parameters given (value: constant, min/max: uniform,
// mean: exponential, median/p99: lognormal, quantiles: empirical).
func (l *Latency) UnmarshalYAML(node ast.Node) error {
	n := unwrap(node)
	if _, ok := n.(*ast.MappingNode); !ok {
		if _, ok := n.(*ast.MappingValueNode); !ok {
			d, err := durationFromNode(node)
			if err != nil {
				return err
			}
			*l = Latency{Dist: DistConstant, Value: d}
			return nil
		}
	}
	var f latencyFields
	if err := yaml.NodeToValue(node, &f, yaml.DisallowUnknownField()); err != nil {
		return err
	}
	v := Latency(f)
	if v.Dist == "" {
		switch {
		case v.Value != 0:
			v.Dist = DistConstant
		case v.Min != 0 || v.Max != 0:
			v.Dist = DistUniform
		case v.Mean != 0:
			v.Dist = DistExponential
		case v.Median != 0 || v.P99 != 0:
			v.Dist = DistLognormal
		case len(v.Points) != 0:
			v.Dist = DistEmpirical
		}
	}
	*l = v
	return nil
}

// MarshalYAML writes a constant latency as a bare duration and any other as
// a mapping.
func (l Latency) MarshalYAML() (any, error) {
	if l.Dist == DistConstant {
		return l.Value.String(), nil
	}
	return latencyFields(l), nil
}

// MarshalJSON writes a constant latency as a duration string and any other
// as an object, as in YAML.
func (l Latency) MarshalJSON() ([]byte, error) {
	if l.Dist == DistConstant {
		return json.Marshal(l.Value.String())
	}
	return json.Marshal(latencyFields(l))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (l *Latency) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		d, err := ParseDuration(s)
		if err != nil {
			return err
		}
		*l = Constant(d.D())
		return nil
	}
	var f latencyFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*l = Latency(f)
	return nil
}

// maxScaled bounds a scaled duration (about 36 years), far enough below
// the largest that the sums a mean takes do not overflow.
const maxScaled = float64(1 << 60)

// Scaled returns l with every duration multiplied by f: the same shape,
// its mean and every quantile f times as long (rounded to the
// microsecond). -calibrate fits latencies this way, trying any f: a
// positive duration stays at least a microsecond (rounded to 0, a
// lognormal's median would not validate) and at most maxScaled.
func (l Latency) Scaled(f float64) Latency {
	sc := func(d Duration) Duration {
		if d <= 0 {
			return d
		}
		v := float64(d) * f
		switch {
		case !(v < maxScaled): // NaN too
			v = maxScaled
		case v < float64(time.Microsecond):
			v = float64(time.Microsecond)
		}
		return Duration(time.Duration(v).Round(time.Microsecond))
	}
	out := l
	out.Value, out.Min, out.Max, out.Mean, out.Median, out.P99 = sc(l.Value), sc(l.Min), sc(l.Max), sc(l.Mean), sc(l.Median), sc(l.P99)
	if l.Points != nil {
		out.Points = make([]Quantile, len(l.Points))
		for i, q := range l.Points {
			out.Points[i] = Quantile{P: q.P, Value: sc(q.Value)}
		}
	}
	return out
}

// Spread returns l with a lognormal's sigma multiplied by f: the same
// median, its p99 at median x (p99/median)^f (rounded to the microsecond).
// Other distributions are returned as they are. -calibrate fits the spread
// of latencies this way.
func (l Latency) Spread(f float64) Latency {
	if l.Dist != DistLognormal || l.Median <= 0 || l.P99 < l.Median {
		return l
	}
	ratio := float64(l.P99) / float64(l.Median)
	l.P99 = Duration(time.Duration(float64(l.Median) * math.Pow(ratio, f)).Round(time.Microsecond))
	return l
}
