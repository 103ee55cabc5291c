package measure

import (
	"slices"
	"testing"
)

// enumMedianBand is MedianBand by brute force: every n-tuple of draws from
// values, each as likely, its median (for even n the mean of the middle
// two), and the nearest-rank 2.5% and 97.5% quantiles of those medians.
func enumMedianBand(values []float64, n int) [2]float64 {
	var meds []float64
	idx := make([]int, n)
	for {
		d := make([]float64, n)
		for i, j := range idx {
			d[i] = values[j]
		}
		slices.Sort(d)
		if n%2 == 1 {
			meds = append(meds, d[n/2])
		} else {
			meds = append(meds, (d[n/2-1]+d[n/2])/2)
		}
		i := 0
		for ; i < n; i++ {
			if idx[i]++; idx[i] < len(values) {
				break
			}
			idx[i] = 0
		}
		if i == n {
			break
		}
	}
	slices.Sort(meds)
	return [2]float64{Quantile(meds, 0.025), Quantile(meds, 0.975)}
}

func TestMedianBand(t *testing.T) {
	ramp := make([]float64, 40)
	for i := range ramp {
		ramp[i] = float64(i + 1)
	}
	skew := []float64{2, 2, 2, 9, 10, 10, 10.4, 11, 12, 12.8, 13, 14.4}
	for _, tc := range []struct {
		name   string
		values []float64
		n      int
	}{
		{"ramp, one run", ramp, 1},
		{"ramp, median of 3", ramp, 3},
		{"skewed, median of 3", skew, 3},
		{"skewed, median of 5", skew, 5},
		{"two values, median of 3", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1.2}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := MedianBand(tc.values, tc.n), enumMedianBand(tc.values, tc.n)
			if got != want {
				t.Errorf("MedianBand(%v, %d) = %v, enumeration gives %v", tc.values, tc.n, got, want)
			}
		})
	}
	// One run: the trials' own central 95%, as Interval has it.
	in := Interval{}
	s := slices.Clone(skew)
	in.Lo, in.Hi = Quantile(s, 0.025), Quantile(s, 0.975)
	if got := MedianBand(skew, 1); got != [2]float64{in.Lo, in.Hi} {
		t.Errorf("MedianBand(skew, 1) = %v, want the trials' 2.5%% and 97.5%% quantiles %v", got, [2]float64{in.Lo, in.Hi})
	}
	// The median of 3 spreads less than one run, and never more.
	if one, three := MedianBand(ramp, 1), MedianBand(ramp, 3); three[0] <= one[0] || three[1] >= one[1] {
		t.Errorf("the band of the median of 3, %v, is not inside the one-run band %v", three, one)
	}
	if got := MedianBand(nil, 3); got != [2]float64{} {
		t.Errorf("MedianBand(nil, 3) = %v, want [0 0]", got)
	}
}

// An even number of runs: the band holds the median of the two middle
// draws (the enumeration's), taken wide.
func TestMedianBandEven(t *testing.T) {
	skew := []float64{2, 2, 2, 9, 10, 10, 10.4, 11, 12, 12.8, 13, 14.4}
	got, want := MedianBand(skew, 4), enumMedianBand(skew, 4)
	if got[0] > want[0] || got[1] < want[1] {
		t.Errorf("MedianBand(skew, 4) = %v does not hold the enumeration's %v", got, want)
	}
}
