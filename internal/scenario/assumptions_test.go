package scenario

import "testing"

// TestAssumptions: the assumptions that bear on a scenario are its store
// kind's, less those it sets itself.
func TestAssumptions(t *testing.T) {
	sc, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	paths := func(as []Assumption) map[string]bool {
		m := map[string]bool{}
		for _, a := range as {
			m[a.Path] = true
			if len(a.Alternatives) == 0 || a.What == "" {
				t.Errorf("%s has no alternatives or no words", a.Path)
			}
		}
		return m
	}
	if got := paths(sc.Assumptions()); !got["store.kv.write_limit.per_second"] || !got["store.kv.write"] || got["store.latency"] {
		t.Errorf("kv assumptions %v", got)
	}
	sc, err = Default("store.kv.write=50ms", "store.kind=memory")
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(sc.Assumptions()); !got["store.latency"] || got["store.kv.write"] {
		t.Errorf("memory assumptions %v", got)
	}
	sc, err = Default("store.kind=redis", "store.redis.latency=1ms")
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(sc.Assumptions()); !got["store.redis.replication_lag"] || !got["store.redis.failover"] || got["store.redis.latency"] || got["store.kv.write"] {
		t.Errorf("redis assumptions %v", got)
	}
	sc, _ = Default("store.kv.write=50ms")
	if got := paths(sc.Assumptions()); got["store.kv.write"] {
		t.Errorf("a write latency the scenario sets is still an assumption: %v", got)
	}
}

// TestAssumptionsNoZeroLatency: no alternative sets a store latency to 0,
// which would leave a closed loop that does not think stuck at one instant
// (simulate's "how sure" re-prediction then failed the whole run).
func TestAssumptionsNoZeroLatency(t *testing.T) {
	for kind, as := range assumptions {
		for _, a := range as {
			if a.Path != "store.latency" && a.Path != "store.redis.latency" {
				continue
			}
			for _, alt := range a.Alternatives {
				if d, err := ParseDuration(alt); err == nil && d == 0 {
					t.Errorf("%s: %s has the alternative %s", kind, a.Path, alt)
				}
			}
		}
	}
}
