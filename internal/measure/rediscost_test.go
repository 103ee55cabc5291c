package measure

import (
	"strings"
	"testing"
)

// TestCostRedisNotPriced checks that a run on real Redis counts its store
// work but puts no Workers KV price or free-plan quota on it.
func TestCostRedisNotPriced(t *testing.T) {
	c := cost(KVCounters{Reads: 100, Writes: 10}, Totals{Requests: 100, SimulatedSeconds: 10}, 1, 10, 1, "redis")
	if c.Priced() || !strings.Contains(c.NotPriced, "Redis") {
		t.Errorf("NotPriced %q: want Redis named as not priced", c.NotPriced)
	}
	if c.USDPerMillionRequests != 0 || c.FreeWritesExhaustedAfterSecs != 0 || c.FreeReadsExhaustedAfterSecs != 0 {
		t.Errorf("cost %+v: want no dollars and no free-plan times", c)
	}
	if c.ReadsPerMillionRequests != 1e6 || c.WritesPerMillionRequests != 1e5 {
		t.Errorf("reads %v, writes %v per million requests; want 1e6 and 1e5 (the work is still counted)", c.ReadsPerMillionRequests, c.WritesPerMillionRequests)
	}
}
