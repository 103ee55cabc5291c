package calibrate

import (
	"math"
	"slices"
)

// spreadFloor is the relative spread below which two spreads of max
// ratios are not told apart (spreadErr): 5% of the median, a step of one
// request at a limit of 20.
const spreadFloor = 0.05

// relSpread is a range of max ratios relative to their median (0 when the
// median is not above 0).
func relSpread(rng, median float64) float64 {
	if median <= 0 || rng <= 0 {
		return 0
	}
	return rng / median
}

// spreadErr is the squared log error of a predicted relative spread
// against a measured one, each raised by spreadFloor, so that two spreads
// of 0 agree and a point predicted against repeats that spread is far off.
func spreadErr(predicted, measured float64) float64 {
	d := math.Log(predicted+spreadFloor) - math.Log(measured+spreadFloor)
	return d * d
}

// expectedRange is the expected range (largest minus smallest) of n draws
// with replacement from values: the spread that n repeats of the run are
// expected to show if the model's trials are what the repeats draw from.
// Over the sorted values v_1..v_T, the largest of n draws is v_k with
// probability (k/T)^n - ((k-1)/T)^n, and the smallest is v_k with
// probability ((T-k+1)/T)^n - ((T-k)/T)^n.
func expectedRange(values []float64, n int) float64 {
	t := len(values)
	if t == 0 || n < 2 {
		return 0
	}
	v := slices.Clone(values)
	slices.Sort(v)
	p := func(k int) float64 { return math.Pow(float64(k)/float64(t), float64(n)) }
	var hi, lo float64
	for k := 1; k <= t; k++ {
		hi += v[k-1] * (p(k) - p(k-1))
		lo += v[k-1] * (p(t-k+1) - p(t-k))
	}
	return max(hi-lo, 0)
}

// identifyStep is how far (in ln of the scale) identifiability probes
// move a parameter from its fit each way: a factor 2, what an unpinned
// parameter could plausibly be off by.
var identifyStep = math.Ln2

// identifyTol is the rise of the loss below which a probe does not tell a
// parameter's value apart from its fit: (ln 1.15)^2, one target 15% off,
// the relative error the validation bar allows.
var identifyTol = math.Pow(math.Log(1.15), 2)

// probe is a parameter that the runs given do not identify: the loss rises
// by less than identifyTol when it is moved identifyStep either way.
type probe struct {
	param     int
	rise      [2]float64 // the loss's rise at the lower and the upper point
	low, high []float64  // the fit with the parameter moved down and up
}

// unidentified probes each parameter at x (whose loss is at) a factor 2
// down and up, the others held, and returns those the loss cannot tell
// apart from the fit at either point, and the others (told). Their points
// widen the band: simulate spreads a calibrated scenario's trials over
// them too.
func unidentified(loss func([]float64) (float64, error), x []float64, at float64) (out, told []probe, err error) {
	for i := range x {
		pr := probe{param: i}
		for j, d := range []float64{-identifyStep, identifyStep} {
			xp := slices.Clone(x)
			xp[i] += d
			v, err := loss(xp)
			if err != nil {
				return nil, nil, err
			}
			pr.rise[j] = v - at
			if j == 0 {
				pr.low = xp
			} else {
				pr.high = xp
			}
		}
		if pr.rise[0] < identifyTol && pr.rise[1] < identifyTol {
			out = append(out, pr)
		} else {
			told = append(told, pr)
		}
	}
	return out, told, nil
}
