package attack

import (
	"math"
	"net/http"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// TestServiceAndStoreTime: the accountant keeps the target's service time
// (X-Overshoot-Service-Us) and, from responses that also state what the
// store's modeled latencies stood for (X-Overshoot-Store-Us), that time and
// the rest, the target's own; a response with only the service time adds
// to neither of the two.
func TestServiceAndStoreTime(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	a := newAccountant(newTestRecorder(start), map[string]int{"bot": 0}, 1, 10*time.Second, DefaultSkew, start, nil)
	for i, r := range []struct{ service, store string }{{"2500", "2000"}, {"3000", "2000"}, {"90000", "85000"}, {"4000", ""}, {"1000", "1200"}} {
		h := http.Header{target.HeaderWindow: {"1"}, target.HeaderService: {r.service}}
		if r.store != "" {
			h.Set(target.HeaderStore, r.store)
		}
		a.add(&vegeta.Result{Attack: "bot", Code: 200, Timestamp: start.Add(time.Duration(i) * time.Millisecond), Latency: 5 * time.Millisecond, Headers: h}, "k", 0)
	}
	if a.service.N != 5 || a.store.N != 4 || a.overhead.N != 4 {
		t.Fatalf("service %d, store %d, overhead %d requests; want 5, 4, 4", a.service.N, a.store.N, a.overhead.N)
	}
	// Store 2+2+85+1.2 ms; overhead 0.5+1+5+0 ms (a store time above the
	// service time is clamped at none).
	if got := a.store.Sum; math.Abs(got-90.2) > 1e-9 {
		t.Errorf("store time %v ms in all, want 90.2", got)
	}
	if got := a.overhead.Sum; math.Abs(got-6.5) > 1e-9 {
		t.Errorf("overhead %v ms in all, want 6.5", got)
	}
	s := a.summarize(measure.Summary{}, 5, time.Second, 5, "http://127.0.0.1/", "", nil)
	if s.Live.StoreMs == nil || s.Live.OverheadMs == nil || s.Live.StoreMs.N != 4 || s.Live.ServiceMs.N != 5 {
		t.Fatalf("live store %+v, overhead %+v, service %+v; want 4, 4 and 5 requests", s.Live.StoreMs, s.Live.OverheadMs, s.Live.ServiceMs)
	}
	if m := s.Mechanism; m == nil || len(m.Trials) != 1 || m.Trials[0].StoreP50Ms != s.Live.StoreMs.P50 {
		t.Errorf("mechanism %+v: want the run's store time p50 %v", m, s.Live.StoreMs.P50)
	}
}
