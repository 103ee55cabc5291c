package kv

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestSleepKeepsToItsDuration checks that Sleep ends closer to its
// deadline than a bare timer, whose wake-up the runtime rounds to whole
// milliseconds: the built-in target's latencies are the model's only if
// its sleeps are. It compares medians of the two in the same conditions,
// and tries three times, since a loaded machine delays both.
func TestSleepKeepsToItsDuration(t *testing.T) {
	const d = 2300 * time.Microsecond
	median := func(sleep func()) time.Duration {
		xs := make([]time.Duration, 31)
		for i := range xs {
			t0 := time.Now()
			sleep()
			xs[i] = time.Since(t0) - d
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	var ours, timer time.Duration
	for range 3 {
		ours = median(func() { _ = Sleep(context.Background(), d) })
		timer = median(func() { <-time.After(d) })
		if ours < 0 {
			t.Fatalf("Sleep(%v) ended %v early", d, -ours)
		}
		if ours < timer/2 || ours < 200*time.Microsecond {
			return
		}
	}
	t.Errorf("Sleep(%v) overshoots by %v at the median, a bare timer by %v: want well under the timer's", d, ours, timer)
}
