package measure

import (
	"fmt"
	"math"
	"slices"
)

// MedianBand is the central 95% band of the median of n live runs, were
// each a draw from values (the model's trials' max ratios): a repeated live
// run reports the median of its n repeats, which spreads less than one run
// does. For n = 1 it is the trials' own central 95% (the 2.5% and 97.5%
// nearest-rank quantiles, as Interval's Lo and Hi). For odd n the median is
// the ((n+1)/2)-th smallest of the n draws; for even n the mean of the two
// middle ones, whose band is taken from the lower one's 2.5% and the upper
// one's 97.5%, which holds it. [0, 0] for no values.
func MedianBand(values []float64, n int) [2]float64 {
	if len(values) == 0 {
		return [2]float64{}
	}
	s := slices.Clone(values)
	slices.Sort(s)
	n = max(n, 1)
	lo, hi := (n+1)/2, n/2+1 // the order statistics the band is taken from
	return [2]float64{Quantile(s, orderLevel(n, lo, 0.025)), Quantile(s, orderLevel(n, hi, 0.975))}
}

// orderLevel is the level p at which the k-th smallest of n draws from a
// distribution is at or under its p-quantile with probability q: the p that
// solves P(Binomial(n, p) >= k) = q, found by bisection (the probability
// rises with p).
func orderLevel(n, k int, q float64) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if atLeast(n, k, mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// atLeast is P(Binomial(n, p) >= k).
func atLeast(n, k int, p float64) float64 {
	var sum float64
	for j := k; j <= n; j++ {
		sum += binom(n, j) * math.Pow(p, float64(j)) * math.Pow(1-p, float64(n-j))
	}
	return sum
}

// binom is n choose k.
func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// BandText says what PredictedBand is the central 95% of: "trials", or
// for the median of several live runs "medians of 3 trials".
func (c *Comparison) BandText() string {
	if c.Repeats > 1 {
		return fmt.Sprintf("medians of %d trials", c.Repeats)
	}
	return "trials"
}
