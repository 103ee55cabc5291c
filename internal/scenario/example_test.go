package scenario_test

import (
	"fmt"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

func ExampleParse() {
	s, err := scenario.Parse("seed.yaml", []byte(`
limiter: {limit: 5, window: 1d}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 0s}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.Limiter.Algorithm, s.Limiter.Limit, s.Limiter.Window, s.Store.Kind, s.Store.KV.CacheTTL, s.Trials)
	fmt.Println(s.Store.KV.HotRead, "p99", s.Store.KV.HotRead.Quantile(0.99))
	// Output:
	// seed fixed-window 5 1d kv 60s 200
	// lognormal(median 2ms, p99 12ms) p99 12ms
}

func ExampleParse_error() {
	_, err := scenario.Parse("bad.yaml", []byte(`
limiter: {limit: 5, window: 1d}
store:
  kv:
    cache_tll: 30s
traffic: [{name: bot, closed_loop: {}}]
`))
	fmt.Println(err)
	// Output:
	// bad.yaml:5:5: unknown field "cache_tll" in store.kv; did you mean "cache_ttl"?
}

func ExampleScenario_Expand() {
	s, err := scenario.Parse("grid.yaml", []byte(`
limiter: {limit: 5, window: 1d}
traffic: [{name: bot, closed_loop: {}}]
sweep:
  - path: store.kind
    values: [kv, memory]
  - path: traffic.bot.closed_loop.concurrency
    values: [1, 8]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	points, err := s.Expand()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range points {
		fmt.Println(p.Index, p.Label(), p.Scenario.Store.Kind, p.Scenario.Traffic[0].ClosedLoop.Concurrency)
	}
	// Output:
	// 0 store.kind=kv,traffic.bot.closed_loop.concurrency=1 kv 1
	// 1 store.kind=kv,traffic.bot.closed_loop.concurrency=8 kv 8
	// 2 store.kind=memory,traffic.bot.closed_loop.concurrency=1 memory 1
	// 3 store.kind=memory,traffic.bot.closed_loop.concurrency=8 memory 8
}

func ExampleParseDuration() {
	for _, in := range []string{"250ms", "60s", "1d12h", "86400"} {
		d, err := scenario.ParseDuration(in)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(d.D(), d)
	}
	// Output:
	// 250ms 250ms
	// 1m0s 60s
	// 36h0m0s 36h
	// duration "86400" has no unit: write e.g. "86400s" or "86400ms" (units: d, h, m, s, ms, us, ns)
}

func ExampleScenario_With() {
	s, err := scenario.Parse("x.yaml", []byte("limiter: {limit: 5, window: 1d}\ntraffic: [{name: bot, closed_loop: {}}]\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = s.With("store.kv.cache_ttl=10s")
	fmt.Println(err)
	// Output:
	// x.yaml: -set #1 store.kv.cache_ttl=10s: store.kv.cache_ttl: 10s is below KV's minimum cacheTtl of 30s (changelog 2026-01-30)
}
