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
