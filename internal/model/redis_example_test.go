package model_test

import (
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// The redis model driven by hand: a write, then the primary killed before
// its replica applied it. down_after (1 s) and the failover (500 ms)
// later the replica is promoted without the write, a lost update; the
// clients reach it 100 ms after that and read the count it has.
func ExampleRedis() {
	sc, err := scenario.Default("store.kind=redis", "store.redis.replicas=1", "store.redis.latency=1ms",
		"store.redis.replication_lag=50ms", "store.redis.down_after=1s", "store.redis.failover=500ms", "store.redis.reconnect=100ms",
		"faults=[{at: 20ms, kind: kill-primary}]")
	if err != nil {
		fmt.Println(err)
		return
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctr := measure.NewKVCounters()
	s, err := model.NewRedis(model.RedisConfig{Params: pl.Store.Redis, Faults: pl.Faults, Rand: model.TrialRand(1, 0), Counters: ctr})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.CountIncrements() // the values are counts: count lost updates
	w, lat, _ := s.Write(0, 0, model.AnyDomain, "k", "1", time.Minute, 0)
	s.Commit(lat, w) // at the primary at 1 ms; at the replica it would be at 51 ms
	_, _, err = s.Write(time.Second, 0, model.AnyDomain, "k", "2", time.Minute, 1)
	fmt.Println(err)
	r := s.Read(1700*time.Millisecond, 0, model.AnyDomain, "k")
	s.Settle(1700 * time.Millisecond) // one increment acknowledged, none held
	fmt.Println(r.Found, ctr.LostUpdates, s.Failovers())
	// Output:
	// KV PUT failed: redis: EOF: the server is down, its address closes every connection
	// false 1 1
}
