package measure

import (
	"bytes"
	"strings"
	"testing"
)

// TestWidenedBand: a calibration's misfit widens each end of a band by its
// factor, never pulls a low end at or above 1 below 1, and leaves the
// band alone when it is not one -calibrate writes.
func TestWidenedBand(t *testing.T) {
	for _, tt := range []struct {
		band   [2]float64
		misfit []float64
		want   [2]float64
	}{
		{[2]float64{4, 5}, []float64{0.8, 1.2}, [2]float64{3.2, 6}},
		{[2]float64{1.1, 2}, []float64{0.5, 1}, [2]float64{1, 2}},    // not below 1 where the trials were not
		{[2]float64{0.5, 2}, []float64{0.5, 1}, [2]float64{0.25, 2}}, // traffic too thin to reach the limit
		{[2]float64{4, 5}, nil, [2]float64{4, 5}},                    // no misfit
		{[2]float64{4, 5}, []float64{1.2, 0.8}, [2]float64{4, 5}},    // would narrow it: not a misfit
		{[2]float64{4, 5}, []float64{0.5, 1, 2}, [2]float64{4, 5}},   // three numbers
	} {
		if got := WidenedBand(tt.band, tt.misfit); got != tt.want {
			t.Errorf("WidenedBand(%v, %v) = %v, want %v", tt.band, tt.misfit, got, tt.want)
		}
	}
}

// TestWriteTextWidened: a calibrated prediction prints its trials' band
// and, beside it, that band widened by the misfit, where one live run is
// expected; an uncalibrated one prints the trials' band alone.
func TestWriteTextWidened(t *testing.T) {
	s := &Summary{Mode: "simulate", Trials: 40, Limiter: LimiterRef{Limit: 20}}
	s.Totals.Requests, s.Overshoot.KeyWindows = 1000, 40
	s.Overshoot.PerTrial.MaxRatio = Interval{Lo: 4, Hi: 5}
	var b bytes.Buffer
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "widened") {
		t.Errorf("an uncalibrated prediction says its band is widened:\n%s", b.String())
	}
	s.Overshoot.PerTrial.Misfit = []float64{0.8, 1.2}
	b.Reset()
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	if want := "calibrated.misfit): 3.20x to 6.00x, where one live run is expected"; !strings.Contains(b.String(), want) {
		t.Errorf("the text lacks %q:\n%s", want, b.String())
	}
}
