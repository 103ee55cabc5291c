package scenario

import (
	"testing"
	"time"
)

// TestLatencySpread checks Spread: a lognormal keeps its median and moves
// its p99 to median x (p99/median)^f; other distributions are unchanged.
func TestLatencySpread(t *testing.T) {
	ln := Lognormal(2*time.Millisecond, 8*time.Millisecond)
	for _, tc := range []struct {
		f    float64
		want time.Duration
	}{{1, 8 * time.Millisecond}, {0.5, 4 * time.Millisecond}, {2, 32 * time.Millisecond}} {
		got := ln.Spread(tc.f)
		if got.Median != ln.Median || got.P99.D() != tc.want {
			t.Errorf("Spread(%v) = median %v, p99 %v; want median %v, p99 %v", tc.f, got.Median, got.P99, ln.Median, tc.want)
		}
	}
	if c := Constant(time.Millisecond); c.Spread(3).String() != c.String() {
		t.Errorf("Spread changed a constant: %v", c.Spread(3))
	}
}

// TestLatencyScaledStaysValid: a scale a fit may try, however small or
// large, gives a latency that still validates: a positive duration stays
// at least a microsecond (rounding made a lognormal's median 0, which
// -calibrate then wrote and the scenario refused) and never overflows.
func TestLatencyScaledStaysValid(t *testing.T) {
	for _, l := range []Latency{Lognormal(10*time.Microsecond, 50*time.Microsecond), Constant(3 * time.Microsecond),
		{Dist: DistUniform, Min: Duration(time.Microsecond), Max: Duration(5 * time.Microsecond)}} {
		for _, f := range []float64{1e-9, 0.01, 1, 1e3, 1e30} {
			s := l.Scaled(f)
			if err := s.Validate(); err != nil {
				t.Errorf("%v scaled by %g = %v: %v", l, f, s, err)
			}
			if s.MeanDuration() <= 0 {
				t.Errorf("%v scaled by %g has mean %v, want it above 0", l, f, s.MeanDuration())
			}
		}
	}
	if got := Lognormal(2*time.Millisecond, 8*time.Millisecond).Scaled(0.5); got.Median.D() != time.Millisecond || got.P99.D() != 4*time.Millisecond {
		t.Errorf("Scaled(0.5) = %v, want median 1ms, p99 4ms", got)
	}
}
