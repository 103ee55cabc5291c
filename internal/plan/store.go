package plan

import (
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// StoreKind is the store a limiter keeps its counters in, as the model
// knows it: one typed value instead of a string kept in many places.
type StoreKind uint8

// The store kinds of a scenario's store.kind.
const (
	KV StoreKind = iota + 1
	DurableObject
	PerLocation
	Memory
	Redis
)

// String returns the kind's scenario name (store.kind).
func (k StoreKind) String() string {
	switch k {
	case KV:
		return scenario.KindKV
	case DurableObject:
		return scenario.KindDurableObject
	case PerLocation:
		return scenario.KindPerLocation
	case Memory:
		return scenario.KindMemory
	case Redis:
		return scenario.KindRedis
	}
	return fmt.Sprintf("StoreKind(%d)", uint8(k))
}

// ParseStoreKind returns the kind a scenario's store.kind names.
func ParseStoreKind(name string) (StoreKind, error) {
	for _, k := range []StoreKind{KV, DurableObject, PerLocation, Memory, Redis} {
		if k.String() == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("store.kind %q is unknown: use one of %v", name, scenario.StoreKinds)
}

// LiveStore is the store a live run's limiter used, as the summary's
// limiter.store names it for mode "attack".
type LiveStore string

// The live stores: the built-in target's (eventual, memory, cloudflare, redis) and
// a target out of sight (url).
const (
	// LiveEventual is the model's Workers KV state machine on the wall clock.
	LiveEventual LiveStore = "eventual"
	// LiveMemory is a linearizable store with the scenario's store.latency.
	LiveMemory LiveStore = "memory"
	// LiveCloudflare is a real Workers KV namespace over the REST API.
	LiveCloudflare LiveStore = "cloudflare"
	// LiveRedis is real Redis: one server, or the primary Sentinel names;
	// the model's redis store predicts it.
	LiveRedis LiveStore = "redis"
	// LiveURL is any endpoint: its store is not known.
	LiveURL LiveStore = "url"
)

// BuiltinStores are the stores the built-in target can run on.
var BuiltinStores = []LiveStore{LiveMemory, LiveEventual, LiveCloudflare, LiveRedis}

// Models returns the model store that predicts a live store: KV for the
// eventual store and for a real Workers KV namespace, Memory for the
// memory store, Redis for real Redis. ok is false for a store the model cannot stand for (url:
// whatever the endpoint runs on).
func (s LiveStore) Models() (k StoreKind, ok bool) {
	switch s {
	case LiveEventual, LiveCloudflare:
		return KV, true
	case LiveMemory:
		return Memory, true
	case LiveRedis:
		return Redis, true
	}
	return 0, false
}

// Store is the compiled store: its kind and the parameters of every kind,
// latencies ready to sample. Parameters of the kinds not chosen are
// compiled too, so that a sweep over store.kind and a live store of another
// kind find them.
type Store struct {
	Kind          StoreKind
	KV            KVParams
	DurableObject DurableObjectParams
	// RateLimitSync is how old the per-location store's cached count may
	// be (store.rate_limit.sync; 0: exact per location).
	RateLimitSync time.Duration
	// Latency is each operation's latency on the memory and per-location
	// stores.
	Latency Dist
	// LatencyText describes Latency for people, e.g. "lognormal(median
	// 1ms, p99 5ms)".
	LatencyText string
	// Redis is the redis store's parameters (store.redis, or its defaults
	// when the scenario gives none).
	Redis RedisParams
}

// KVParams are the Workers KV model's parameters (scenario store.kv),
// compiled: durations in nanoseconds, distributions ready to sample,
// locations as indices into Plan.Locations.
type KVParams struct {
	CacheTTL                 time.Duration
	HotRead, ColdRead, Write Dist
	// ReadYourWritesFailure is the probability that the writer's cache
	// misses its own write.
	ReadYourWritesFailure float64
	Purge                 bool
	PurgeLag              Dist
	// CacheDomains is the number of disjoint caches per location (1 or more).
	CacheDomains int
	// DomainPerRequest keeps a Worker request on the cache domain of its
	// first read; false picks one per operation.
	DomainPerRequest bool
	// WriteEvery is the least time between two accepted writes to a key (0:
	// no write limit); GlobalWriteLimit counts them across locations
	// instead of per location.
	WriteEvery       time.Duration
	GlobalWriteLimit bool
	// DailyWriteQuota and DailyReadQuota are the free plan's quotas (0:
	// none), reset at 00:00 UTC.
	DailyWriteQuota, DailyReadQuota int64
	Outages                         []Outage
	// ReadErrorRate and WriteErrorRate are the probabilities that an
	// operation fails at random.
	ReadErrorRate, WriteErrorRate float64
}

// Outage is a time span, from the run's start, when the store fails
// operations: at Location (-1: everywhere), reads and/or writes.
type Outage struct {
	Start, End  time.Duration
	Location    int
	Read, Write bool
}

// DurableObjectParams are the durable-object store's parameters, compiled.
type DurableObjectParams struct {
	// Home is the index of the location where the objects live, or -1:
	// each where the first request for it came from.
	Home int
	// RTT is the round trip from another location; Local from Home.
	RTT, Local Dist
	// MaxRPS is the soft limit per object per second (0: none).
	MaxRPS float64
}

// compileStore compiles a validated scenario's store.
func compileStore(sc *scenario.Scenario) (Store, error) {
	st := sc.Store
	kind, err := ParseStoreKind(st.Kind)
	if err != nil {
		return Store{}, err
	}
	out := Store{Kind: kind, LatencyText: st.Latency.String()}
	kv := st.KV
	p := KVParams{CacheTTL: kv.CacheTTL.D(), ReadYourWritesFailure: kv.ReadYourWritesP, Purge: kv.Purge.Enabled,
		CacheDomains: max(kv.CacheDomains, 1), DomainPerRequest: kv.CacheDomainPer == "request",
		GlobalWriteLimit: kv.WriteLimit.Scope == "global", DailyWriteQuota: kv.DailyWriteQuota, DailyReadQuota: kv.DailyReadQuota,
		ReadErrorRate: kv.ErrorRate.Read, WriteErrorRate: kv.ErrorRate.Write}
	if kv.WriteLimit.PerSecond > 0 {
		p.WriteEvery = time.Duration(float64(time.Second) / kv.WriteLimit.PerSecond)
	}
	for _, o := range kv.Outages {
		co := Outage{Start: o.Start.D(), End: o.Start.D() + o.Duration.D(), Location: -1,
			Read: o.Ops != "write", Write: o.Ops != "read"}
		if o.Location != "" {
			co.Location = locationIndex(sc.Locations, o.Location)
		}
		p.Outages = append(p.Outages, co)
	}
	do := DurableObjectParams{MaxRPS: st.DurableObject.MaxRPS, Home: -1}
	if l := st.DurableObject.Location; l != "" && l != scenario.DurableObjectFirstRequest {
		do.Home = max(0, locationIndex(sc.Locations, l))
	}
	out.RateLimitSync = st.RateLimit.Sync.D()
	for _, d := range []struct {
		path string
		l    scenario.Latency
		to   *Dist
	}{{"store.kv.hot_read", kv.HotRead, &p.HotRead}, {"store.kv.cold_read", kv.ColdRead, &p.ColdRead},
		{"store.kv.write", kv.Write, &p.Write}, {"store.kv.purge.lag", kv.Purge.Lag, &p.PurgeLag},
		{"store.durable_object.rtt", st.DurableObject.RTT, &do.RTT}, {"store.durable_object.local", st.DurableObject.Local, &do.Local},
		{"store.latency", st.Latency, &out.Latency}} {
		if *d.to, err = NewDist(d.l); err != nil {
			return Store{}, fmt.Errorf("%s: %v", d.path, err)
		}
	}
	out.KV, out.DurableObject = p, do
	if out.Redis, err = compileRedis(st.Redis); err != nil {
		return Store{}, err
	}
	return out, nil
}

// scaled returns s with every latency and lag divided by f: the one
// time-scale rule of a live run (see CompileLive). Cache TTLs, key expiry,
// write limits and quotas keep their real values.
func (s Store) scaled(f float64) Store {
	if !(f > 0) || f == 1 {
		return s
	}
	k := &s.KV
	for _, d := range []*Dist{&k.HotRead, &k.ColdRead, &k.Write, &k.PurgeLag, &s.DurableObject.RTT, &s.DurableObject.Local, &s.Latency} {
		*d = d.DividedBy(f)
	}
	s.Redis = s.Redis.scaled(f)
	s.LatencyText += fmt.Sprintf(" / %g", f)
	return s
}

// locationIndex returns the index of the named location, or -1.
func locationIndex(locations []scenario.Location, name string) int {
	for i, l := range locations {
		if l.Name == name {
			return i
		}
	}
	return -1
}
