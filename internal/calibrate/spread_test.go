package calibrate

import (
	"math"
	"testing"
)

// TestExpectedRange checks the expected range of n draws against values
// worked out by hand.
func TestExpectedRange(t *testing.T) {
	tests := []struct {
		values []float64
		n      int
		want   float64
	}{
		{[]float64{3, 3, 3}, 3, 0},
		{[]float64{1, 2}, 1, 0},
		// Two draws of {1, 2}: the largest is 2 unless both are 1 (1/4),
		// the smallest 1 unless both are 2: 1.75 - 1.25.
		{[]float64{2, 1}, 2, 0.5},
		// Three draws of {1, 2}: 1 + 7/8 - (1 + 1/8).
		{[]float64{1, 2}, 3, 0.75},
		{nil, 3, 0},
	}
	for _, tc := range tests {
		if got := expectedRange(tc.values, tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("expectedRange(%v, %d) = %v, want %v", tc.values, tc.n, got, tc.want)
		}
	}
}

// TestSpreadErr checks that spreads of 0 agree and that a point predicted
// against repeats that spread costs more than a spread predicted a little
// off.
func TestSpreadErr(t *testing.T) {
	if e := spreadErr(0, 0); e != 0 {
		t.Errorf("spreadErr(0, 0) = %v, want 0", e)
	}
	point, near := spreadErr(0, 0.3), spreadErr(0.25, 0.3)
	if !(point > near && near > 0) {
		t.Errorf("a point against a spread of 0.3 costs %v, a spread of 0.25 %v: want the point to cost more", point, near)
	}
}

// TestUnidentified probes a loss that the first parameter moves and the
// second barely does: only the second is unidentified, with its points a
// factor 2 down and up from the fit, the first held.
func TestUnidentified(t *testing.T) {
	loss := func(x []float64) (float64, error) {
		return x[0]*x[0] + 0.001*x[1]*x[1], nil
	}
	x := []float64{0, 0.5}
	at, _ := loss(x)
	got, told, err := unidentified(loss, x, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(told) != 1 || told[0].param != 0 {
		t.Errorf("told %+v, want parameter 0 only", told)
	}
	if len(got) != 1 || got[0].param != 1 {
		t.Fatalf("unidentified %+v, want parameter 1 only", got)
	}
	low, high := got[0].low, got[0].high
	if low[0] != 0 || high[0] != 0 || math.Abs(low[1]-(0.5-math.Ln2)) > 1e-12 || math.Abs(high[1]-(0.5+math.Ln2)) > 1e-12 {
		t.Errorf("probe points %v and %v, want parameter 1 at 0.5 -/+ ln 2 and parameter 0 held at 0", low, high)
	}
}
