package measure

import "testing"

// TestPooledLiveStoreTime: repeated runs over the eventual store keep the
// store's time per request (the median of the runs' means, for -compare's
// closed loops); when a run did not state it, none is kept.
func TestPooledLiveStoreTime(t *testing.T) {
	run := func(mean float64) Summary {
		s := Summary{Live: &Live{DurationSecs: 4}}
		if mean > 0 {
			s.Live.StoreMs = &Stats{N: 100, Mean: mean}
		}
		return s
	}
	if l := PooledLive([]Summary{run(5), run(7), run(6)}); l.StoreMs == nil || l.StoreMs.Mean != 6 || l.StoreMs.N != 300 {
		t.Errorf("store time %+v, want mean 6 (the median) over 300 requests", l.StoreMs)
	}
	if l := PooledLive([]Summary{run(5), run(0)}); l.StoreMs != nil {
		t.Errorf("store time %+v with a run that stated none, want none", l.StoreMs)
	}
}
