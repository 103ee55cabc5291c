package measure

import (
	"strings"
	"testing"
)

// TestCompareRate: the requests a second the live runs served are held
// against the model's trials' range and shown, but do not change the
// verdict; outside the range a failing verdict's what-to-do starts with
// the host's speed. A side without a duration has no rate.
func TestCompareRate(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(*Summary) // the live run
		pred     func(*Summary) // the prediction
		none     bool           // no rate at all
		inside   bool
		measured float64
		verdict  string
		note     []string // each must appear in RateNote; none when empty
		do       string   // must start Do, when set
	}{
		{name: "same speed", inside: true, measured: 1000, verdict: VerdictHolds},
		{name: "a faster host, headline inside", edit: func(m *Summary) { m.Totals.SimulatedSeconds = 0.8 },
			measured: 1250, verdict: VerdictHolds, note: []string{"25% more requests a second", "1250/s against 1000/s to 1000/s", "simulate calibrate)"}},
		{name: "a slower host, headline outside", edit: func(m *Summary) { m.Totals.SimulatedSeconds = 2; m.Overshoot.Ratio.Max = 9 },
			measured: 500, verdict: VerdictFails, note: []string{"50% fewer", "the attacker did not keep up"}, do: "first, the live runs served 50% fewer"},
		{name: "the trials spread", pred: func(p *Summary) {
			for i := range p.Mechanism.Trials {
				p.Mechanism.Trials[i].Requests = int64(900 + 20*i)
			}
		}, inside: true, measured: 1000, verdict: VerdictHolds},
		{name: "no live duration", edit: func(m *Summary) { m.Totals.SimulatedSeconds = 0 }, none: true, verdict: VerdictHolds},
		{name: "no model duration", pred: func(p *Summary) { p.Totals.SimulatedSeconds = 0 }, none: true, verdict: VerdictHolds},
		{name: "no trials", pred: func(p *Summary) { p.Mechanism = nil }, none: true, verdict: VerdictHolds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mechPrediction()
			p.Totals.SimulatedSeconds = 1
			if tt.pred != nil {
				tt.pred(p)
			}
			m := mechMeasured(func(m *Summary) {
				m.Totals.SimulatedSeconds = 1
				m.Mechanism = &Mechanism{Trials: []MechanismTrial{{Requests: 1000, FailOpen: 10, Writes: 100, RateLimited: 80, Committed: 20, ReadsOfWritten: 50}}}
				if tt.edit != nil {
					tt.edit(m)
				}
			})
			c := Compare(p, m)
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %q (why: %s), want %q: the rate must not change it", c.Verdict, c.Why, tt.verdict)
			}
			if tt.none {
				if c.Rate != nil {
					t.Fatalf("rate %+v, want none", c.Rate)
				}
				return
			}
			if c.Rate == nil || !c.Rate.Observed {
				t.Fatalf("rate %+v, want one observed", c.Rate)
			}
			if c.Rate.InsideBand != tt.inside || c.Rate.Measured != tt.measured {
				t.Errorf("rate measured %v inside %v (band %v), want %v inside %v", c.Rate.Measured, c.Rate.InsideBand, c.Rate.PredictedBand, tt.measured, tt.inside)
			}
			n := c.RateNote()
			if (n == "") != (len(tt.note) == 0) {
				t.Errorf("note %q, want one only when the rate is outside", n)
			}
			for _, w := range tt.note {
				if !strings.Contains(n, w) {
					t.Errorf("note %q lacks %q", n, w)
				}
			}
			if tt.do != "" && !strings.HasPrefix(c.Do, tt.do) {
				t.Errorf("do %q, want it to start with %q", c.Do, tt.do)
			}
			if tt.do == "" && strings.Contains(c.Do, "requests a second") {
				t.Errorf("do %q speaks of the rate, which is inside or the verdict holds", c.Do)
			}
		})
	}
}
