package model_test

import (
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// The seed's limiter (5 per window) on the linearizable memory store, hit
// by 16 requests at once: a scenario compiled into a plan, then simulated.
// Every read happens before any write commits, so all 16 get through.
func ExampleRun() {
	sc, err := scenario.Parse("burst.yaml", []byte(`
name: burst
trials: 1
duration: 1m
limiter: {limit: 5, window: 1h}
store: {kind: memory, latency: 5ms}
traffic:
  - {name: bot, burst: {size: 16}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := model.Run(pl, model.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("allowed %d of %d (ratio %.1f), lost updates %d\n",
		s.Totals.Allowed, s.Totals.Requests, s.Overshoot.Ratio.Max, s.KV.LostUpdates)
	// Output: allowed 16 of 16 (ratio 3.2), lost updates 15
}

// The KV model driven by hand, as a wall-clock driver would drive it (with
// time.Since(start) for now, a mutex around each call, and sleeps of the
// latencies returned). Location 1 cached "missing" before location 0 wrote,
// so it keeps answering "missing" until its cached entry expires (60 s).
func ExampleKV() {
	sc, err := scenario.Default("store.kv.purge.enabled=false", "locations=[{name: ams}, {name: sin}]", "traffic.bot.arrive.location=ams")
	if err != nil {
		fmt.Println(err)
		return
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := model.NewKV(model.KVConfig{Params: pl.Store.KV, Locations: len(pl.Locations),
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Rand: model.TrialRand(1, 0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := s.Read(0, 1, model.AnyDomain, "k") // sin caches "missing"
	w, lat, err := s.Write(time.Second, 0, model.AnyDomain, "k", "1", time.Minute, model.UnknownVersion)
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Commit(time.Second+lat, w) // the put's latency later
	fmt.Println(r.Found, s.Read(30*time.Second, 1, model.AnyDomain, "k").Found, s.Read(61*time.Second, 1, model.AnyDomain, "k").Value)
	// Output: false false 1
}
