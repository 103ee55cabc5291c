package measure

import (
	"strings"
	"testing"
)

// TestDiff compares two runs metric by metric and says which is better;
// sweeps are compared point by point and must have the same points.
func TestDiff(t *testing.T) {
	run := func(max float64, fd int64) *Summary {
		return &Summary{Limiter: LimiterRef{Limit: 5}, Totals: Totals{Requests: 100},
			Overshoot:   Overshoot{KeyWindows: 4, Ratio: Stats{Max: max, P99: max}, MaxInIntervalRatio: max},
			Populations: []Population{{Name: "users", Legitimate: true, Requests: 100, FalseDenials: fd}}}
	}
	cs, err := Diff(run(4, 10), run(2, 10))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]MetricChange{}
	for _, c := range cs {
		got[c.Name] = c
	}
	if c := got["ratio.max"]; c.Better != "B" || c.Change != -2 {
		t.Errorf("ratio.max %+v, want B better by 2", c)
	}
	if c := got["false_denials.rate"]; c.Better != "same" {
		t.Errorf("false denials %+v, want the same", c)
	}
	if _, ok := got["latency.p99"]; ok {
		t.Error("a metric neither run measured is listed")
	}
	var b strings.Builder
	if err := WriteDiff(&b, "before", "after", cs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ratio.max") || !strings.Contains(b.String(), "-2.00x (-50%)") {
		t.Errorf("diff text:\n%s", b.String())
	}
	sweep := func(v string) *Summary {
		return &Summary{Points: []Point{{Params: []Param{{Path: "c", Value: v}}, Summary: run(1, 0)}}}
	}
	if _, err := Diff(sweep("1"), sweep("2")); err == nil || !strings.Contains(err.Error(), "same points") {
		t.Errorf("sweeps over other points: err %v", err)
	}
	if _, err := Diff(run(1, 0), sweep("1")); err == nil {
		t.Error("a run and a sweep compared")
	}
}
