package plantest

import (
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// TimeScaleYAML is a scenario whose every store latency and lag is a
// constant, played live ten times faster (live.time_scale 10) on the
// memory store: the tests of the one time-scale rule compile it in
// internal/plan, run its stores in internal/attackcmd and predict with it
// in internal/simulatecmd.
const TimeScaleYAML = `
name: time-scale
limiter: {name: t, limit: 5, window: 10s}
store:
  kind: memory
  latency: 40ms
  kv:
    hot_read: 20ms
    cold_read: 80ms
    write: 60ms
    purge: {enabled: true, lag: 50ms}
  durable_object: {rtt: 100ms, local: 30ms}
locations: [{name: a}, {name: b}]
traffic: [{name: p, open_loop: {rate: 1/s}}]
live: {duration: 5s, time_scale: 10}
`

// TimeScaled lists TimeScaleYAML's latencies: where each is in a compiled
// store, its value as written (what the simulator uses) and its value
// live (divided by the time scale: what the live stores sleep and what
// simulate -compare predicts with).
var TimeScaled = []struct {
	Path       string
	Of         func(*plan.Store) plan.Dist
	Real, Live time.Duration
}{
	{"store.latency", func(s *plan.Store) plan.Dist { return s.Latency }, 40 * time.Millisecond, 4 * time.Millisecond},
	{"store.kv.hot_read", func(s *plan.Store) plan.Dist { return s.KV.HotRead }, 20 * time.Millisecond, 2 * time.Millisecond},
	{"store.kv.cold_read", func(s *plan.Store) plan.Dist { return s.KV.ColdRead }, 80 * time.Millisecond, 8 * time.Millisecond},
	{"store.kv.write", func(s *plan.Store) plan.Dist { return s.KV.Write }, 60 * time.Millisecond, 6 * time.Millisecond},
	{"store.kv.purge.lag", func(s *plan.Store) plan.Dist { return s.KV.PurgeLag }, 50 * time.Millisecond, 5 * time.Millisecond},
	{"store.durable_object.rtt", func(s *plan.Store) plan.Dist { return s.DurableObject.RTT }, 100 * time.Millisecond, 10 * time.Millisecond},
	{"store.durable_object.local", func(s *plan.Store) plan.Dist { return s.DurableObject.Local }, 30 * time.Millisecond, 3 * time.Millisecond},
}
