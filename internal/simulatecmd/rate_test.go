package simulatecmd

import (
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestWriteComparisonRate: the comparison's text shows the live runs'
// requests a second against the model's trials, marked not judged, and
// says what a rate outside them means; no rate line when there is none.
func TestWriteComparisonRate(t *testing.T) {
	c := measure.Comparison{Verdict: measure.VerdictHolds, Why: "inside", LikeForLike: true, InsideBand: true, Repeats: 3, KeyWindows: 3,
		Rate: &measure.MechanismCheck{Name: measure.ThroughputName, What: "requests a second", Observed: true,
			Measured: 15000, PredictedMedian: 12600, PredictedBand: [2]float64{12400, 12800}}}
	var b strings.Builder
	writeComparison(&b, &c)
	for _, w := range []string{"rate:     15000/s, predicted 12600/s (trials 12400/s to 12800/s): OUTSIDE (median of 3 live runs; not judged)",
		"the live runs served 19% more requests a second"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("comparison text lacks %q:\n%s", w, b.String())
		}
	}
	c.Rate = nil
	b.Reset()
	writeComparison(&b, &c)
	if strings.Contains(b.String(), "rate:") {
		t.Errorf("a comparison without a rate prints one:\n%s", b.String())
	}
}
