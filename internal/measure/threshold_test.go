package measure

import "testing"

func TestThreshold(t *testing.T) {
	s := &Summary{Overshoot: Overshoot{KeyWindows: 10, Ratio: Stats{Max: 3, P99: 2, P95: 1.5, P50: 1, Mean: 1.2},
		PerTrial: PerTrial{MaxRatio: Interval{P95: 2.5}}}}
	tests := []struct {
		max    float64
		at     string
		broken bool
	}{
		{0, "max", false},
		{2.9, "max", true},
		{3, "max", false},
		{1.9, "p99", true},
		{2, "p99", false},
		{1.4, "p95", true},
		{1, "p50", false},
		{1.1, "mean", true},
		{2.4, "trial-p95", true},
		{2.5, "trial-p95", false},
	}
	for _, tt := range tests {
		th := Threshold{Max: tt.max, At: tt.at}
		if err := th.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := len(th.Check(s)) > 0; got != tt.broken {
			t.Errorf("Threshold{%v, %s}.Check broken = %v, want %v", tt.max, tt.at, got, tt.broken)
		}
	}
	sweep := &Summary{Points: []Point{
		{Params: []Param{{"c", "1"}}, Summary: &Summary{Overshoot: Overshoot{KeyWindows: 1, Ratio: Stats{Max: 1}}}},
		{Params: []Param{{"c", "8"}}, Summary: &Summary{Overshoot: Overshoot{KeyWindows: 1, Ratio: Stats{Max: 4}}}},
	}}
	if got := (Threshold{Max: 2, At: "max"}).Check(sweep); len(got) != 1 || got[0] != "✗ ratio.max<=2 at c=8: 4.00x" {
		t.Errorf("sweep check = %q", got)
	}
	// A run where nothing got a decision cannot pass a gate.
	if got := (Threshold{Max: 2, At: "max"}).Check(&Summary{}); len(got) != 1 {
		t.Errorf("empty run: check = %q, want one failure", got)
	}
	for _, bad := range []Threshold{{Max: -1, At: "max"}, {Max: 1, At: "p90"}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
}
