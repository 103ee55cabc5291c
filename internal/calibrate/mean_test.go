package calibrate

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestMeanAtIncludesSpread: with a spread fitted beside a scale, the mean
// the calibration prints is the mean of the latency the fit runs with
// (Fitter.Sets), not the mean at the scenario's spread.
func TestMeanAtIncludesSpread(t *testing.T) {
	l := scenario.Latency{Dist: scenario.DistLognormal, Median: scenario.Duration(500 * time.Microsecond), P99: scenario.Duration(2 * time.Millisecond)}
	params := []Param{
		{Path: "store.redis.latency", Leaves: []string{"store.redis.latency"}, base: []scenario.Latency{l}},
		{Path: "spread:store.redis.latency", spread: true, Leaves: []string{"store.redis.latency"}, base: []scenario.Latency{l}},
	}
	x := []float64{math.Log(2), math.Log(1.5)}
	sets, err := (&Fitter{Params: params}).Sets(x, nil)
	if err != nil || len(sets) != 1 {
		t.Fatalf("Sets: %v, %v", sets, err)
	}
	var ran scenario.Latency
	if err := json.Unmarshal([]byte(strings.SplitN(sets[0], "=", 2)[1]), &ran); err != nil {
		t.Fatalf("Sets wrote %q: %v", sets[0], err)
	}
	want := ran.MeanDuration()
	if got := meanAt(params, 0, x); got != want {
		t.Errorf("mean at the fit %v, want %v (the latency the fit runs with)", got, want)
	}
	if atScale := l.Scaled(2).MeanDuration(); want <= atScale {
		t.Fatalf("the test needs a spread that moves the mean: %v with it, %v without", want, atScale)
	}
	text := describeAt(params, 0, x)
	if shown := scenario.Duration(want.Round(time.Microsecond)).String(); !strings.Contains(text, "mean "+shown) {
		t.Errorf("describeAt = %q, want it to show the mean %s", text, shown)
	}
	if got, want := meanAt(params, 0, []float64{math.Log(2), 0}), l.Scaled(2).MeanDuration(); got != want {
		t.Errorf("mean with the spread at its start %v, want %v", got, want)
	}
}
