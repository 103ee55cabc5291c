package model

import (
	"context"
	"testing"
	"time"
)

// TestNoAllocationPerRequest holds the simulator's hot loop to no
// allocation per simulated request in steady state: a warmed trial of a
// library scenario runs 10 x 1,000 more events (about 5,000 requests on
// botnet.yaml, 10,000 on the default, whose sends take no event from the
// queue) with no allocation at all. Allocations that follow keys and windows (a new
// key's state, a window's counters) are not per request: the warm-up is
// past the trial's first keys, and the stretch measured ends before the
// default scenario's window boundary (at 60 s).
func TestNoAllocationPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, name := range []string{"default", "botnet"} {
		t.Run(name, func(t *testing.T) {
			c, err := compile(libraryPlan(t, name))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := c.newTrial(c.plan.Seed, 0)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := tr.run(ctx, 5000); err != nil {
				t.Fatal(err)
			}
			reqs := tr.requests
			var ended bool
			allocs := testing.AllocsPerRun(10, func() {
				if ended, err = tr.run(ctx, 1000); err != nil || ended {
					t.Fatalf("the trial ended (%v) or failed (%v) before the measurement did", ended, err)
				}
			})
			reqs = tr.requests - reqs
			t.Logf("measured %d requests, up to %v of virtual time", reqs, time.Duration(tr.now))
			if allocs != 0 {
				t.Errorf("%v allocations per 1,000 events: want none", allocs)
			}
		})
	}
}
