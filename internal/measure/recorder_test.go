package measure

import (
	"testing"
	"time"
)

// TestRecorderOneKey counts by hand: limit 5, window 10 s; window 0 allows 7
// (2 over), window 1 allows 3, and a legitimate request denied at a true
// count of 3 is a false denial.
func TestRecorderOneKey(t *testing.T) {
	start := time.Unix(0, 0)
	r := NewRecorder(Config{Limit: 5, Window: 10 * time.Second, Start: start,
		Populations: []Population{{Name: "bot"}, {Name: "user", Legitimate: true}}})
	at := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for i := 0; i < 7; i++ {
		r.Record(Event{Pop: 0, Key: "k", Window: 0, At: at(9 + float64(i)/10), Outcome: Allowed})
	}
	r.Record(Event{Pop: 0, Key: "k", Window: 0, At: at(9.8), Outcome: Denied})
	for i := 0; i < 3; i++ {
		r.Record(Event{Pop: 1, Key: "k", Window: 1, At: at(10 + float64(i)/10), Outcome: Allowed})
	}
	r.Record(Event{Pop: 1, Key: "k", Window: 1, At: at(10.5), Outcome: Denied, FailClosed: true})
	r.Record(Event{Pop: 1, Key: "k", Window: 1, At: at(10.6), Outcome: Errored})
	tr := r.Finish(20 * time.Second)
	s := Summarize(Summary{Mode: "simulate"}, 5, []Trial{tr})

	if got, want := s.Totals, (Totals{Requests: 13, Allowed: 10, Denied: 2, Errors: 1, FailClosed: 1, SimulatedSeconds: 20}); got != want {
		t.Errorf("totals = %+v, want %+v", got, want)
	}
	o := s.Overshoot
	if o.KeyWindows != 2 || o.OverLimit != 1 || o.Excess != 2 || o.MaxAllowed != 7 {
		t.Errorf("overshoot = %+v, want 2 key-windows, 1 over, excess 2, max 7", o)
	}
	if o.Ratio.Max != 1.4 || o.Ratio.P50 != 0.6 || o.Ratio.Mean != 1.0 {
		t.Errorf("ratio = %+v, want max 1.4, p50 0.6, mean 1.0", o.Ratio)
	}
	// All 10 allowed fall within 9.0..10.2 s: one window-long interval.
	if o.MaxInInterval != 10 {
		t.Errorf("max in interval = %d, want 10", o.MaxInInterval)
	}
	if s.Populations[1].FalseDenials != 1 || s.Populations[0].FalseDenials != 0 {
		t.Errorf("false denials = %+v", s.Populations)
	}
	if len(s.WorstKeys) != 2 || s.WorstKeys[0].Allowed != 7 || s.WorstKeys[0].WindowStartSecs != 0 || s.WorstKeys[1].WindowStartSecs != 10 {
		t.Errorf("worst keys = %+v", s.WorstKeys)
	}
}

// TestRecorderForgetsQuietKeys shows memory follows live keys: a million
// one-request keys over many windows leave only the last windows' keys open.
func TestRecorderForgetsQuietKeys(t *testing.T) {
	r := NewRecorder(Config{Limit: 1, Window: time.Second, Populations: []Population{{Name: "p"}}})
	for i := 0; i < 100000; i++ {
		at := time.Duration(i) * time.Millisecond
		r.Record(Event{Key: string(rune('a'+i%26)) + time.Duration(i).String(), Window: int64(at / time.Second), At: at, Outcome: Allowed})
	}
	if n := len(r.keys); n > 3100 {
		t.Errorf("recorder holds %d keys after 100 windows of 1000 keys each; want at most 3 windows' worth", n)
	}
	tr := r.Finish(100 * time.Second)
	if tr.Hist[1] != 100000 {
		t.Errorf("hist = %v, want 100000 key-windows of 1", tr.Hist)
	}
}
