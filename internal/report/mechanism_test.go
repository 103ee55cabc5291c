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
