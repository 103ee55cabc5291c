package model

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// storeLen returns how many keys a trial's store holds.
func storeLen(t *trial) int {
	switch s := t.store.(type) {
	case *KV:
		return s.Len()
	case *Memory:
		return s.Len()
	}
	if o, ok := t.owned.(*Objects); ok {
		return o.Len()
	}
	return 0
}

// TestMemoryFollowsLiveKeys runs the same traffic for 3 and for 30
// simulated minutes: ten times the requests. Keys rotate every 5 requests
// (a rotating-cookie bot), so keys keep being created and expiring. The
// store's keys, the events in the queue, the requests in flight and the
// live heap must stay about the same, not grow tenfold.
func TestMemoryFollowsLiveKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ~300 k simulated requests")
	}
	type peak struct {
		reqs                  int64
		keys, queue, inFlight int
		heap                  uint64
	}
	measure := func(length time.Duration) peak {
		p := closedLoop(bot("rotator"), 2, scenario.Latency{Dist: scenario.DistExponential, Mean: dur(10 * time.Millisecond)})
		p.Clients, p.Arrive.Mode = 10, "spread"
		p.Identity = scenario.Identity{Token: "rotating", RotateEvery: 5, IP: "per-client"}
		sc := kvScenario(5, 10*time.Second, scenario.DefaultKV(), []string{"a", "b"}, length, p)
		c, err := compile(planOf(t, sc))
		if err != nil {
			t.Fatal(err)
		}
		var pk peak
		var ms runtime.MemStats
		c.probe = func(tr *trial) {
			pk.keys = max(pk.keys, storeLen(tr))
			runtime.GC()
			runtime.ReadMemStats(&ms)
			pk.heap = max(pk.heap, ms.HeapAlloc)
		}
		_, st, err := c.runTrial(context.Background(), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		pk.reqs, pk.queue, pk.inFlight = st.Requests, st.MaxQueue, st.MaxInFlight
		return pk
	}
	short, long := measure(3*time.Minute), measure(30*time.Minute)
	t.Logf("3 min: %+v", short)
	t.Logf("30 min: %+v", long)
	if long.reqs < 9*short.reqs {
		t.Fatalf("30 min made %d requests, 3 min %d: not the tenfold the test needs", long.reqs, short.reqs)
	}
	if long.queue != short.queue || long.inFlight != short.inFlight {
		t.Errorf("queue %d -> %d, in flight %d -> %d: want the same (20 loops)", short.queue, long.queue, short.inFlight, long.inFlight)
	}
	if long.queue > 20 || long.inFlight > 20 {
		t.Errorf("queue %d, in flight %d: want at most 20 (10 clients x 2 loops)", long.queue, long.inFlight)
	}
	if float64(long.keys) > 1.5*float64(short.keys) {
		t.Errorf("store keys %d -> %d over ten times the requests", short.keys, long.keys)
	}
	if float64(long.heap) > 2*float64(short.heap) {
		t.Errorf("live heap %d -> %d bytes over ten times the requests", short.heap, long.heap)
	}
}
