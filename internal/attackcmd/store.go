package attackcmd

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/eventual"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// BuiltinStore is a store for the built-in target and how to collect its KV
// counters at the end of a run.
type BuiltinStore struct {
	kv.Store
	// AddTo adds the store's counters to a recorder's.
	AddTo func(*measure.KVCounters)
	// Describe says what the store is, for the console.
	Describe string
	// Close, when set, releases the store's connections once its run is over.
	Close func()
	// Started, when set, is told when the run starts (a store that applies
	// the scenario's faults starts them then).
	Started func(start time.Time)
	// Soak, when set, is the store without its counting: the built-in
	// target decides warm-up requests on it (target.Config.Soak), and the
	// run is warmed up for redisSoak first (attack.Options.Soak).
	Soak kv.Store
	// OnHost is whether the store's servers run on this host, sharing its
	// cores with attack and the target (-redis-harness, or every address
	// on loopback); the summary then records the host's cores.
	OnHost bool
}

// NewStore returns the built-in target's store (memory or eventual) for a
// live plan, whose latencies are already divided by the run's time scale.
//
// memory is kv.Memory (linearizable) with the plan's store latency drawn
// for every operation, which takes effect half-way through it (kv.Delayed),
// as in the model; eventual is the simulator's Workers KV model on the
// wall clock (internal/eventual).
func NewStore(kind plan.LiveStore, pl *plan.Plan, seed uint64) (*BuiltinStore, error) {
	switch kind {
	case plan.LiveMemory:
		var s kv.Store = kv.NewMemory(kv.MemoryOptions{})
		desc := "memory"
		if lat := pl.Store.Latency; !lat.IsZero() {
			s = &kv.Delayed{Store: s, Delay: sampler(lat, seed)}
			desc += " (latency " + pl.Store.LatencyText + ")"
		}
		cs := NewCountingStore(s)
		return &BuiltinStore{Store: cs, AddTo: cs.AddTo, Describe: desc}, nil
	case plan.LiveEventual:
		return newEventual(pl, seed)
	}
	return nil, fmt.Errorf("-store %q is unknown: use one of %v", kind, plan.BuiltinStores)
}

// storeFor picks the built-in target's store from the scenario's store
// kind when -store was not given, so that the live run runs the store the
// scenario names: memory for memory, the Workers KV model for kv. A kind
// the built-in target cannot run without more (redis: servers) or at all
// (durable-object, per-location) is refused with what to give instead,
// rather than measured on the KV model under the scenario's name.
func (c *config) storeFor(pl *plan.Plan) error {
	if c.storeSet || c.url != "" {
		return nil
	}
	switch pl.Store.Kind {
	case plan.Memory:
		c.store = plan.LiveMemory
	case plan.Redis:
		return fmt.Errorf("the scenario's store is redis: give -store redis with -redis-harness (servers attack starts and faults) or -redis-addr HOST:PORT")
	case plan.DurableObject, plan.PerLocation:
		return fmt.Errorf("the scenario's store is %s, which the built-in target cannot run: give -store memory (one exact counter per key, the nearest live store), -store eventual (the Workers KV model), or -url of a target that runs it", pl.Store.Kind)
	}
	return nil
}

// sampler returns a function that draws latencies from d, safe for
// concurrent use, from a generator seeded with seed.
func sampler(d plan.Dist, seed uint64) func() time.Duration {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 0x1a7))
	return func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return d.Sample(rng)
	}
}

// newEventual returns the eventual store for a live plan: the simulator's
// Workers KV model with the plan's KV parameters and locations, on the wall
// clock. Its draws (latencies, lags) are the store's, live: seeded from
// seed and the clock, not from seed alone, which would make them the
// model's trial 0 of that seed and every run of one seed the same sample
// of the store, so that simulate -compare held one trial's draws against
// the band of the trials it is one of.
func newEventual(pl *plan.Plan, seed uint64) (*BuiltinStore, error) {
	s, err := eventual.New(eventual.Options{KV: pl.Store.KV, Locations: pl.Locations, Seed: liveStoreSeed(seed),
		Counts: pl.Limiter.Algorithm.Counts()})
	if err != nil {
		return nil, err
	}
	desc := "eventual (the Workers KV model on the wall clock"
	if ts := pl.TimeScale; ts != 1 {
		desc += fmt.Sprintf(", latencies / %g", ts)
	}
	desc += ")"
	if pl.Store.Kind != plan.KV {
		desc += fmt.Sprintf("; note: the scenario's store is %s, the live target models kv", pl.Store.Kind)
	}
	return &BuiltinStore{Store: s, AddTo: func(k *measure.KVCounters) { s.Wait(); s.AddTo(k) }, Describe: desc}, nil
}

// liveStoreSeed mixes seed with the clock, so that each live store draws
// its own sample.
func liveStoreSeed(seed uint64) uint64 {
	return rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano()))).Uint64()
}
