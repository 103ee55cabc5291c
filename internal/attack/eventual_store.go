package attack

import (
	"fmt"

	"github.com/overshoot-dev/overshoot/internal/eventual"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// newEventual returns the eventual store for sc: the simulator's Workers KV
// model with the scenario's store.kv parameters and locations, its
// latencies divided by live.time_scale, on the wall clock.
func newEventual(sc *scenario.Scenario, seed uint64) (*BuiltinStore, error) {
	s, err := eventual.New(eventual.Options{KV: sc.Store.KV, Locations: sc.Locations, Seed: seed, TimeScale: sc.Live.TimeScale})
	if err != nil {
		return nil, err
	}
	desc := "eventual (the Workers KV model on the wall clock"
	if ts := sc.Live.TimeScale; ts > 0 && ts != 1 {
		desc += fmt.Sprintf(", latencies / %g", ts)
	}
	desc += ")"
	if sc.Store.Kind != scenario.KindKV {
		desc += fmt.Sprintf("; note: the scenario's store is %s, the live target models kv", sc.Store.Kind)
	}
	return &BuiltinStore{Store: s, AddTo: func(k *measure.KVCounters) { s.Wait(); s.AddTo(k) }, Describe: desc}, nil
}
