package model

import (
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// wallKV is the wrapper the package doc describes for a wall-clock driver:
// one mutex around every call, now = time.Since(start), sleeps of the
// latencies returned outside the mutex, and Commit after a write's sleep.
type wallKV struct {
	mu    sync.Mutex
	s     *KV
	start time.Time
}

func (w *wallKV) get(loc int, key string) ReadResult {
	w.mu.Lock()
	r := w.s.Read(time.Since(w.start), loc, AnyDomain, key)
	w.mu.Unlock()
	time.Sleep(r.Latency)
	return r
}

func (w *wallKV) put(loc int, key, value string, version uint64) error {
	w.mu.Lock()
	p, lat, err := w.s.Write(time.Since(w.start), loc, AnyDomain, key, value, time.Minute, version)
	w.mu.Unlock()
	time.Sleep(lat)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.s.Commit(time.Since(w.start), p)
	w.mu.Unlock()
	return nil
}

// TestWallClockDriver drives the KV model from 8 goroutines on the real
// clock (latencies scaled 1000x down, so it takes milliseconds), each
// reading and incrementing one counter at two locations: the same code the
// simulator runs, safe under the race detector with the documented mutex,
// and losing updates as the simulator predicts concurrent writers do.
func TestWallClockDriver(t *testing.T) {
	ctr := &measure.NewRecorder(measure.Config{Limit: 1, Window: time.Minute, Populations: []measure.Population{{}}}).KV
	p := scenario.DefaultKV()
	p.WriteLimit.PerSecond = 0
	s, err := NewKV(KVConfig{Params: p, Locations: []string{"A", "B"}, Start: time.Now(), Rand: TrialRand(1, 0), Counters: ctr, TimeScale: 1000})
	if err != nil {
		t.Fatal(err)
	}
	w := &wallKV{s: s, start: time.Now()}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				r := w.get(g%2, "counter")
				if err := w.put(g%2, "counter", r.Value+"1", r.Version); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if ctr.Writes != 160 || ctr.Reads != 160 {
		t.Errorf("%d reads, %d writes; want 160 and 160", ctr.Reads, ctr.Writes)
	}
	if ctr.LostUpdates == 0 {
		t.Errorf("8 concurrent read-modify-write loops lost no update")
	}
}
