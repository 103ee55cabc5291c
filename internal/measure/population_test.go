package measure

import (
	"strings"
	"testing"
	"time"
)

// burstRun is one bursting key among many users, recorded: 200 users' keys
// allow 2 each in window 0, the burst's key 50 (limit 10, all it sent).
func burstRun(t *testing.T) *Summary {
	t.Helper()
	r := NewRecorder(Config{Limit: 10, Window: time.Minute,
		Populations: []Population{{Name: "users", Legitimate: true}, {Name: "burst"}}})
	for u := 0; u < 200; u++ {
		for i := 0; i < 2; i++ {
			r.Record(Event{Pop: 0, Client: u, Key: "u" + string(rune('a'+u%26)) + string(rune('a'+u/26)), At: time.Duration(u*10+i) * time.Millisecond, Outcome: Allowed})
		}
	}
	for i := 0; i < 50; i++ {
		r.Record(Event{Pop: 1, Client: 1000, Key: "b", At: 5*time.Second + time.Duration(i)*20*time.Millisecond, Outcome: Allowed, FailOpen: true})
	}
	s := Summarize(Summary{Limiter: LimiterRef{Limit: 10}}, 10, []Trial{r.Finish(time.Minute)})
	return &s
}

// TestGatesPerPopulation: on one bursting key among many users, the
// pooled ratio.p99<=1.5 holds (it is the users') but warns, naming the
// burst; the same bound on the burst's population, or on the max, breaks;
// a gate on a population the run does not have fails, saying which it has.
func TestGatesPerPopulation(t *testing.T) {
	s := burstRun(t)
	check1 := func(text string) Verdict {
		c, err := ParseCondition(text)
		if err != nil {
			t.Fatal(err)
		}
		return Check(s, []Condition{c})[0]
	}
	v := check1("ratio.p99<=1.5")
	if !v.Pass || !strings.Contains(v.Warning, "1 key-window of 201 broke the same bound") || !strings.Contains(v.Warning, "one key of burst") && !strings.Contains(v.Warning, "a key of burst") ||
		!strings.Contains(v.Warning, "burst:ratio.max<=1.5") {
		t.Errorf("ratio.p99<=1.5: pass %v, warning %q; want a pass warning of the burst", v.Pass, v.Warning)
	}
	if v := check1("ratio.p99<=6"); !v.Pass || v.Warning != "" {
		t.Errorf("ratio.p99<=6: pass %v, warning %q; want a pass with no warning (every key-window holds it)", v.Pass, v.Warning)
	}
	if v := check1("burst:ratio.max<=1.5"); v.Pass || v.Value != 5 || v.String() != "✗ burst:ratio.max<=1.5: 5.00x" {
		t.Errorf("burst:ratio.max<=1.5 = %s, want broken at 5.00x", v)
	}
	if v := check1("users:ratio.max<=1.5"); !v.Pass || v.Value != 0.2 {
		t.Errorf("users:ratio.max<=1.5 = %s, want 0.20x", v)
	}
	if v := check1("users:allowed.max<=2"); !v.Pass || v.Value != 2 {
		t.Errorf("users:allowed.max<=2 = %s, want 2", v)
	}
	// One population's quantile warns of its own key-windows.
	po := &PopulationOvershoot{KeyWindows: 101, Allowed: CountStats{N: 101, P99: 1, Max: 50},
		Histogram: []Bin{{Allowed: 1, KeyWindows: 100}, {Allowed: 50, KeyWindows: 1}}}
	po.Ratio = po.Allowed.Ratio(10)
	mixed := &Summary{Limiter: LimiterRef{Limit: 10}, Populations: []Population{{Name: "api", Overshoot: po}}}
	c, _ := ParseCondition("api:ratio.p99<=1.5")
	if v := Check(mixed, []Condition{c})[0]; !v.Pass || !strings.Contains(v.Warning, "holds over the api's key-windows, but 1 key-window of 101 broke the same bound, ratio.max is 5.00x; gate api:ratio.max<=1.5 to catch it") {
		t.Errorf("api:ratio.p99<=1.5: %s, warning %q", v, v.Warning)
	}
	if v := check1("bots:ratio.max<=1.5"); v.Pass || !strings.Contains(v.String(), `no population "bots": it has users, burst`) {
		t.Errorf("bots: %s", v)
	}
	if v := check1("allowed.p99<=10"); !v.Pass || !strings.Contains(v.Warning, "allowed.max<=10") {
		t.Errorf("allowed.p99<=10: %s, warning %q", v, v.Warning)
	}
}

// TestAnswerNamesWho: the answer names the worst key-window's population
// and offered load, and says when the ratio is capped by it and when the
// limiter denied nothing; sensitivity rows say so in a word.
func TestAnswerNamesWho(t *testing.T) {
	s := burstRun(t)
	a := s.Answer
	if a == nil || a.Population != "burst" || a.Offered != 50 || a.Allowed != 50 || !a.Capped || !a.DeniedNothing {
		t.Fatalf("answer %+v", a)
	}
	if want := "one key of burst: 50 sent in 980ms, all 50 let through, 5.00x the limit"; a.Who != want {
		t.Errorf("who = %q, want %q", a.Who, want)
	}
	notes := strings.Join(a.Notes, "\n")
	for _, want := range []string{"the limiter denied nothing: all 450 requests were let through",
		"5.00x is capped by the offered load", "of the 40 requests an exact limiter (no lag) would have denied, 40 (100%) got through"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	if got := SensitivityNote(s); got != "saturated" {
		t.Errorf("sensitivity note %q, want saturated", got)
	}
	s.Totals.Denied = 1
	if got := SensitivityNote(s); got != "capped" {
		t.Errorf("sensitivity note %q, want capped", got)
	}
	var b strings.Builder
	if err := WriteResults(&b, s); err != nil || !strings.Contains(b.String(), "  worst key-window: one key of burst: 50 sent in 980ms") {
		t.Errorf("terminal (%v):\n%s", err, b.String())
	}
}

// TestSpanWords rounds a key-window's span as a reader says it.
func TestSpanWords(t *testing.T) {
	for _, tt := range []struct {
		secs float64
		want string
	}{{0, "under 1ms"}, {0.0004, "under 1ms"}, {0.998, "998ms"}, {1.23, "1.2s"}, {59.9, "60s"}, {60, "60s"},
		{1440, "24 min"}, {84916, "23.6 h"}} {
		if got := spanWords(tt.secs); got != tt.want {
			t.Errorf("spanWords(%v) = %q, want %q", tt.secs, got, tt.want)
		}
	}
}

// TestSweepNamesWho: a sweep's terminal summary names the worst key-window
// of the point that let the most through, and says where.
func TestSweepNamesWho(t *testing.T) {
	one := burstRun(t)
	low := *one
	low.Overshoot.Ratio.Max = 1
	low.Answer = &Answer{Who: "a key of users: 2 sent in 10ms, all 2 let through, 0.20x the limit"}
	s := &Summary{Points: []Point{{Params: []Param{{Path: "c", Value: "1"}}, Summary: &low}, {Params: []Param{{Path: "c", Value: "8"}}, Summary: one}}}
	var b strings.Builder
	if err := WriteResults(&b, s); err != nil || !strings.Contains(b.String(), "  worst key-window at c=8: one key of burst: 50 sent in 980ms") ||
		!strings.Contains(b.String(), "  note:  the limiter denied nothing") {
		t.Errorf("terminal (%v):\n%s", err, b.String())
	}
}
