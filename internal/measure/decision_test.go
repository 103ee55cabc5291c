package measure

import (
	"reflect"
	"testing"
	"time"
)

func TestDecisionOf(t *testing.T) {
	for _, tc := range []struct {
		e    Event
		want Decision
	}{
		{Event{Outcome: Allowed}, DecidedAllowed},
		{Event{Outcome: Allowed, FailOpen: true}, DecidedFailOpen},
		{Event{Outcome: Denied}, DecidedDenied},
		{Event{Outcome: Denied, FailClosed: true}, DecidedFailClosed},
		{Event{Outcome: Errored}, DecidedError},
		{Event{Outcome: Errored, FailOpen: true}, DecidedError},
	} {
		if got := DecisionOf(tc.e); got != tc.want {
			t.Errorf("DecisionOf(%+v) = %v, want %v", tc.e, got, tc.want)
		}
	}
	if s := Decision(99).String(); s != "unknown" {
		t.Errorf("Decision(99) is %q", s)
	}
}

// TestLatencyByDecisionPooled: each trial's latency by decision is pooled
// over trials; a decision no request got is left out.
func TestLatencyByDecisionPooled(t *testing.T) {
	var trials []Trial
	for range 2 {
		r := NewRecorder(Config{Limit: 5, Window: time.Second, Populations: []Population{{Name: "bot"}}})
		r.DecisionLatency(DecidedAllowed, 100*time.Millisecond)
		r.DecisionLatency(DecidedDenied, 3*time.Millisecond)
		r.DecisionLatency(DecidedDenied, 3*time.Millisecond)
		r.DecisionLatency(NumDecisions, time.Second) // not a decision: ignored
		trials = append(trials, r.Finish(time.Second))
	}
	s := Summarize(Summary{}, 5, trials)
	by := s.LatencyByDecision
	if by == nil || by.Allowed == nil || by.Denied == nil {
		t.Fatalf("latency by decision %+v", by)
	}
	if by.Allowed.N != 2 || by.Denied.N != 4 || by.FailOpen != nil || by.FailClosed != nil || by.Error != nil {
		t.Errorf("counts allowed %d denied %d, others %v %v %v", by.Allowed.N, by.Denied.N, by.FailOpen, by.FailClosed, by.Error)
	}
	if p := by.Denied.P50; p < 2.9 || p > 3.1 {
		t.Errorf("denied p50 %v ms, want 3", p)
	}
	if by.Of(DecidedAllowed) != by.Allowed || by.Of(NumDecisions) != nil || (*LatencyByDecision)(nil).Of(DecidedAllowed) != nil {
		t.Error("Of does not return the decision's statistics")
	}
	if s := Summarize(Summary{}, 5, []Trial{{}}); s.LatencyByDecision != nil {
		t.Errorf("no latency recorded, got %+v", s.LatencyByDecision)
	}
}

// TestRequestLatency: RequestLatency records what Latency and
// DecisionLatency record, for latencies in and outside the dense buckets.
func TestRequestLatency(t *testing.T) {
	a, b := NewRecorder(Config{Limit: 1, Window: time.Second}), NewRecorder(Config{Limit: 1, Window: time.Second})
	lats := []time.Duration{0, 1, 999, time.Microsecond, 1001, 37 * time.Millisecond, time.Hour, 1 << 62, -5}
	for i := range 3 * denseAfter { // past the map, into the dense buckets
		lats = append(lats, time.Duration(i)*137*time.Microsecond, time.Duration(i)<<40, 3)
	}
	for i, lat := range lats {
		d := Decision(i % int(NumDecisions+1)) // one past the last, which only Latency records
		a.Latency(lat)
		a.DecisionLatency(d, lat)
		b.RequestLatency(d, lat)
	}
	ta, tb := a.Finish(time.Second), b.Finish(time.Second)
	var want LogHist // what the dense buckets stand for
	for _, lat := range lats {
		want.Add(float64(lat) / float64(time.Millisecond))
	}
	if !reflect.DeepEqual(tb.Latency, want) {
		t.Errorf("RequestLatency recorded %+v, want the LogHist %+v", tb.Latency, want)
	}
	if !reflect.DeepEqual(ta.Latency, tb.Latency) || !reflect.DeepEqual(ta.LatencyByDecision, tb.LatencyByDecision) {
		t.Errorf("RequestLatency recorded %+v, %+v; Latency and DecisionLatency %+v, %+v",
			tb.Latency, tb.LatencyByDecision, ta.Latency, ta.LatencyByDecision)
	}
}
