package redistest

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestReplicationLagLoopback measures how far behind the primary a
// replica of the harness is on loopback, through its proxies, as the
// Redis validation's scenario takes it (examples/redis/plain.yaml's
// store.redis.replication_lag): a SET on the primary, then at once a GET
// on a replica, which reaches it about one round trip after the SET took
// effect; a stale one is read again until it has the write. It logs the
// round trip, the share stale and the rereads. It fails when replication
// is not that close: a quarter or more of the GETs stale, or a write not
// at the replica within 100 ms (the test's bound, far above loopback's).
func TestReplicationLagLoopback(t *testing.T) {
	t.Parallel()
	c := Start(t)
	p, r := c.Primary.Client(t), c.Replicas[0].Client(t)
	x := ctx(t, 30*time.Second)
	const n = 2000
	var rtt []time.Duration
	stale, rereads := 0, 0
	for i := 1; i <= n; i++ {
		v := strconv.Itoa(i)
		t0 := time.Now()
		if err := p.Set(x, "lag", v, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		rtt = append(rtt, time.Since(t0))
		t1 := time.Now()
		got, err := r.Get(x, "lag").Result()
		if err != nil {
			t.Fatal(err)
		}
		if got != v {
			stale++
		}
		for got != v {
			if time.Since(t1) > 100*time.Millisecond {
				t.Fatalf("write %d not at the replica 100ms after its reply (it holds %q)", i, got)
			}
			rereads++
			if got, err = r.Get(x, "lag").Result(); err != nil {
				t.Fatal(err)
			}
		}
	}
	med := median(rtt)
	t.Logf("SET round trip median %v; a GET at the replica right after the reply: %d of %d stale (%.1f%%), %d rereads in all",
		med, stale, n, 100*float64(stale)/n, rereads)
	if stale*4 >= n {
		t.Errorf("%d of %d reads right after a write's reply were stale: the replica lags more than a round trip (%v) a quarter of the time", stale, n, med)
	}
}

// median returns the median of d, which it sorts.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
