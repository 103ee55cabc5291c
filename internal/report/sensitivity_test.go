package report

import (
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestSensitivitySaysStuck: rows whose value is the offered load's say
// "capped" or "saturated" in the table, and the tornado's caption counts
// them, so a row that does not move is not read as a robust answer.
func TestSensitivitySaysStuck(t *testing.T) {
	s := &measure.Summary{Scenario: measure.ScenarioRef{Name: "x"}, Sensitivity: []measure.Sensitivity{
		{What: "every default", Metric: "ratio.max", Headline: 1.2, Measured: true, Trials: 2, Note: "saturated"},
		{Path: "store.kv.write", Value: "20ms", What: "a write", Metric: "ratio.max", Headline: 1.2, Measured: true, Trials: 2, Note: "capped"},
		{Path: "store.kv.purge.lag", Value: "30s", What: "a purge", Metric: "ratio.max", Headline: 1.1, Measured: true, Trials: 2},
	}}
	tab, ok := sensitivityTable(s)
	if !ok || len(tab.Rows) != 3 {
		t.Fatalf("table %v, %v", tab, ok)
	}
	for i, want := range []string{"1.2x (saturated: the limiter denied nothing)", "1.2x (capped by the offered load)", "1.1x"} {
		if got := tab.Rows[i][2]; got != want {
			t.Errorf("row %d: %q, want %q", i, got, want)
		}
	}
	f := SensitivityFigure(s)
	if f == nil || !strings.Contains(f.Caption, "Of the 3 entries, 1 saturated (the limiter denied nothing) and 1 capped") {
		t.Errorf("caption: %v", f)
	}
}
