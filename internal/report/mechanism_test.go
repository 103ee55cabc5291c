package report

import (
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestMechanismTableAtStore: a latency taken of the target's store shows
// the target's service time beside it; a latency at the client shows none.
func TestMechanismTableAtStore(t *testing.T) {
	c := &measure.Comparison{Checks: []measure.MechanismCheck{
		{Name: measure.CheckLatencyP50, Observed: true, AtTarget: true, AtStore: true, Measured: 2.05, Service: 2.56},
		{Name: measure.CheckLatencyP99, Observed: true, Measured: 120},
	}}
	rows := mechanismTable(c).Rows
	if got := rows[0][2]; got != "2.05 ms (service time 2.56 ms)" {
		t.Errorf("at the store: %q, want the service time beside", got)
	}
	if got := rows[1][2]; got != "120 ms" {
		t.Errorf("at the client: %q, want the value alone", got)
	}
}

// TestComparisonTableMisfit: a band widened by the calibration's misfit
// says so, with the factors, where the table names the band; an unwidened
// one is named as the trials' central 95% alone.
func TestComparisonTableMisfit(t *testing.T) {
	for _, tc := range []struct {
		misfit []float64
		want   string
	}{
		{nil, "Predicted band (central 95% of the trials' max ratios)"},
		{[]float64{0.84, 1}, "Predicted band (central 95% of the trials' max ratios, widened by how far the calibration missed its own runs: low end x0.84, high end x1)"},
	} {
		c := &measure.Comparison{MeasuredMaxRatio: 3, Repeats: 1, PredictedBand: [2]float64{2.5, 4}, PredictedMedian: 3.2, KeyWindows: 1, Misfit: tc.misfit}
		tbl := comparisonTable(c)
		if got := tbl.Rows[1][0]; got != tc.want {
			t.Errorf("misfit %v: the band's row is named %q, want %q", tc.misfit, got, tc.want)
		}
	}
}
