package attack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// Stores the built-in target can run on, as -store names them.
var Stores = []string{"memory", "eventual"}

// BuiltinStore is a store for the built-in target and how to collect its KV
// counters at the end of a run.
type BuiltinStore struct {
	kv.Store
	// AddTo adds the store's counters to a recorder's.
	AddTo func(*measure.KVCounters)
	// Describe says what the store is, for the console.
	Describe string
}

// NewStore returns the built-in target's store of kind (memory or
// eventual) for scenario sc.
//
// memory is kv.Memory (linearizable) with the scenario's store.latency drawn
// before every operation; eventual is the simulator's Workers KV model on the
// wall clock (internal/eventual).
func NewStore(kind string, sc *scenario.Scenario, seed uint64) (*BuiltinStore, error) {
	switch kind {
	case "memory":
		var s kv.Store = kv.NewMemory(kv.MemoryOptions{})
		desc := "memory"
		if lat := sc.Store.Latency; !lat.IsZero() && !(lat.Dist == scenario.DistConstant && lat.Value == 0) {
			s = &latencyStore{Store: s, lat: lat, rng: rand.New(rand.NewPCG(seed, 0x1a7))}
			desc += " (latency " + lat.String() + ")"
		}
		cs := target.NewCountingStore(s)
		return &BuiltinStore{Store: cs, AddTo: cs.AddTo, Describe: desc}, nil
	case "eventual":
		return newEventual(sc, seed)
	}
	return nil, fmt.Errorf("-store %q is unknown: use one of %v", kind, Stores)
}

// latencyStore sleeps a latency drawn from a distribution before each
// operation of the store it wraps takes effect, as a network would.
type latencyStore struct {
	kv.Store
	lat scenario.Latency
	mu  sync.Mutex
	rng *rand.Rand
}

func (s *latencyStore) wait(ctx context.Context) error {
	s.mu.Lock()
	d := s.lat.Quantile(s.rng.Float64())
	s.mu.Unlock()
	return kv.Sleep(ctx, d)
}

// Get sleeps a latency, then reads.
func (s *latencyStore) Get(ctx context.Context, key string) (string, bool, error) {
	if err := s.wait(ctx); err != nil {
		return "", false, kv.WrapUnavailable("get", key, err)
	}
	return s.Store.Get(ctx, key)
}

// Put sleeps a latency, then writes.
func (s *latencyStore) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	if err := s.wait(ctx); err != nil {
		return kv.WrapUnavailable("put", key, err)
	}
	return s.Store.Put(ctx, key, value, ttl)
}
