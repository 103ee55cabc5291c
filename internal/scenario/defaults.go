package scenario

import (
	"fmt"
	"math"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// Every default below comes from docs/facts.md (the
// "facts file"), from the seed article, or, where Cloudflare publishes
// nothing, is a stated assumption kept as a parameter. docs/scenarios.md
// lists the same values; DefaultTable is the one list both use.

// Store kinds.
const (
	KindKV            = "kv"
	KindDurableObject = "durable-object"
	KindPerLocation   = "per-location"
	KindMemory        = "memory"
	KindRedis         = "redis"
)

// Server modes (server.mode).
const (
	// ServerNone is no serving side: every request runs on its own, as the
	// model did before server existed.
	ServerNone = "none"
	// ServerSingleThread is wrangler dev: one thread shared by the Worker's
	// steps and its local store's operations (docs/serving-side.md).
	ServerSingleThread = "single-thread"
)

// ServerModes lists every server mode, for validation and docs.
var ServerModes = []string{ServerNone, ServerSingleThread}

// StoreKinds lists every store kind, for validation and docs.
var StoreKinds = []string{KindKV, KindDurableObject, KindPerLocation, KindMemory, KindRedis}

// Default values that are not latencies.
const (
	// DefaultTrials is the number of trials per run: enough for a p99
	// across trials to rest on two trials and a 95% interval to be narrow.
	DefaultTrials = 200
	// DefaultLimiterName is the seed's route name (opts.name: 'roast').
	DefaultLimiterName = "roast"
	// DefaultCacheTTL is get()'s default cacheTtl: 60 s (facts file,
	// "Consistency", kv/api/read-key-value-pairs).
	DefaultCacheTTL = 60 * time.Second
	// MinCacheTTL is the smallest cacheTtl KV accepts: 30 s since the
	// changelog of 2026-01-30 (60 s before) (facts file, "Consistency").
	MinCacheTTL = 30 * time.Second
	// DefaultWritesPerSecond is the published per-key write limit: 1 write
	// per second to the same key (facts file, "Limits and errors").
	DefaultWritesPerSecond = 1.0
	// DefaultWriteLimitScope: whether the 1/s limit counts per location or
	// globally is not published (facts file); the default assumes per
	// location, the more permissive reading.
	DefaultWriteLimitScope = "location"
	// FreePlanDailyWrites and FreePlanDailyReads are the free plan's daily
	// quotas (facts file, "Limits and errors"); the default is the paid
	// plan: no quota (0).
	FreePlanDailyWrites = 1000
	FreePlanDailyReads  = 100000
	// DefaultDurableObjectMaxRPS is the soft limit of a Durable Object:
	// about 1,000 requests per second (facts file, "The alternatives").
	DefaultDurableObjectMaxRPS = 1000
	// DurableObjectFirstRequest is store.durable_object.location's default:
	// each object lives where the first request for it came from, as
	// Cloudflare places a new object (facts: docs/facts.md).
	DurableObjectFirstRequest = "first-request"
	// DefaultRateLimitSync is how old the Rate Limiting binding's cached
	// count may be. Unpublished ("updated asynchronously"): assumed 1 s.
	DefaultRateLimitSync = time.Second
	// DefaultLocation is the one location a scenario gets when it names none.
	DefaultLocation = "loc0"
	// DefaultLiveDuration is how long attack runs a scenario by default.
	DefaultLiveDuration = 10 * time.Second
	// MaxTrials is the most trials a scenario may ask for.
	MaxTrials = 100000
	// MaxSweepPoints is the most points a sweep grid may have.
	MaxSweepPoints = 10000
	// MaxClients is the most clients one population may have, and
	// MaxInFlight the most requests one population may have in flight
	// (clients x concurrency, or clients x burst size): bounds that keep a
	// run within memory rather than crash it.
	MaxClients  = 1000000
	MaxInFlight = 1000000
	// MaxOpenRate is the most requests a second one open-loop population
	// may send (clients x rate, and clients x ramp.to). The simulator's
	// memory follows the requests in flight, rate x response time, not the
	// simulated time: measured, 1,000,000/s holds about 250 MB per trial
	// running and 10,000,000/s 1.7 GB. It is also far above what vegeta
	// sends from one machine (tens of thousands a second).
	MaxOpenRate = 1000000
)

// DefaultStart is the virtual time at which a trial starts when the
// scenario gives none: midnight UTC, a window boundary for every window
// that divides a day.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultTokenSource is where the limiter finds the anonymous token: the
// X-Anon-Token header, as the built-in target and the example Worker read it.
var DefaultTokenSource = Token{From: limiter.DefaultTokenSource.From, Name: limiter.DefaultTokenSource.Name}

// DefaultHotRead is a KV read served from the location's cache. The blog of
// 2024-09-26 reports a p90 of KV calls under 12 ms and the hottest keys
// under 1 ms; we take lognormal median 2 ms, p99 12 ms (whose p90 is about
// 5.4 ms, under the published 12 ms).
func DefaultHotRead() Latency { return Lognormal(2*time.Millisecond, 12*time.Millisecond) }

// DefaultColdRead is a KV read that misses the cache and goes to the
// central store. The changelog of 2025-08-22 gives p95 ~50 ms and p99
// ~250 ms after the storage redesign. A lognormal through both points would
// need a median near 1 ms, which no cold read has, so the default is
// empirical quantiles through the two published points, plus two assumed
// ones: p1 5 ms and p50 20 ms (unpublished), and a cap p100 1 s (assumed).
func DefaultColdRead() Latency {
	return Latency{Dist: DistEmpirical, Points: []Quantile{
		{P: 0.01, Value: Duration(5 * time.Millisecond)},
		{P: 0.50, Value: Duration(20 * time.Millisecond)},
		{P: 0.95, Value: Duration(50 * time.Millisecond)},
		{P: 0.99, Value: Duration(250 * time.Millisecond)},
		{P: 1, Value: Duration(time.Second)},
	}}
}

// DefaultWrite is a put until the central store has committed it. No write
// latency is published (facts file, "Latency": "tens to hundreds of
// milliseconds depending on distance"); assumed lognormal median 80 ms,
// p99 400 ms.
func DefaultWrite() Latency { return Lognormal(80*time.Millisecond, 400*time.Millisecond) }

// DefaultPurgeLag is the time a write's purge takes to reach another
// location. Unpublished: the blog of 2023-06-21 says staleness is often
// shorter than the cache TTL but "typical didn't mean always"; assumed
// lognormal median 2 s, p99 20 s.
func DefaultPurgeLag() Latency { return Lognormal(2*time.Second, 20*time.Second) }

// DefaultDurableObjectLocal is the round trip to a Durable Object from its
// own location. Unpublished (facts file: "No official latency figure");
// assumed lognormal median 1 ms, p99 5 ms.
func DefaultDurableObjectLocal() Latency { return Lognormal(time.Millisecond, 5*time.Millisecond) }

// DefaultDurableObjectRTT is the round trip to a Durable Object from
// another location. Unpublished; assumed lognormal median 50 ms, p99 200 ms
// (a cross-region round trip).
func DefaultDurableObjectRTT() Latency { return Lognormal(50*time.Millisecond, 200*time.Millisecond) }

// DefaultStoreLatency is the latency of each operation of the memory and
// per-location stores. Unpublished for the Rate Limiting binding (facts
// file: counters cached on the machine); assumed lognormal median 1 ms,
// p99 5 ms, so that races within one location still exist.
func DefaultStoreLatency() Latency { return Lognormal(time.Millisecond, 5*time.Millisecond) }

// DefaultServer returns the single-thread server's defaults. No CPU cost of
// any step is published or in workerd's source (docs/serving-side.md,
// section 8): these are assumptions, meant to be calibrated, scaled so that
// one request costs 3 ms of thread time (the README's burst of 50 taking
// ~100-300 ms). before_read folds the Worker's entry and the local KV's
// SELECT (0.5 + 0.6 ms in the research's split), between the parse,
// compare and the put down to its INSERT (0.3 + 1.0 ms), after_write the
// commit turn and the response (0.6 ms). The wrangler proxy's thread is not
// modelled: its cost goes into these. The round trip is loopback, ~0.1 ms
// (assumption).
func DefaultServer() Server {
	return Server{Mode: ServerNone, CPU: ServerCPU{
		BeforeRead: Constant(1100 * time.Microsecond),
		Between:    Constant(1300 * time.Microsecond),
		AfterWrite: Constant(600 * time.Microsecond),
	}, RTT: Constant(100 * time.Microsecond), BatchMax: DefaultBatchMax}
}

// DefaultBatchMax is how many requests workerd's thread takes from its
// sockets at most when its queue empties: kj's event port asks epoll for at
// most 16 events per poll (capnproto c++/src/kj/async-unix.c++,
// UnixEventPort::wait, "struct epoll_event events[16]"), one per readable
// connection, and a connection carries one request at a time.
const DefaultBatchMax = 16

// DefaultKV returns the Workers KV model's parameters as published, with
// the unpublished ones at their stated assumptions.
func DefaultKV() KV {
	return KV{
		CacheTTL: Duration(DefaultCacheTTL),
		HotRead:  DefaultHotRead(),
		ColdRead: DefaultColdRead(),
		Write:    DefaultWrite(),
		// The docs: a write is "usually" visible at once at its own
		// location, not guaranteed; the failure probability is a parameter.
		ReadYourWritesP: 0,
		// Purges are on since 2023 (hybrid push/pull, blog 2023-06-21).
		Purge: Purge{Enabled: true, Lag: DefaultPurgeLag()},
		// One cache per location; the unpublished 2023 guide's virtual
		// data centres are a parameter.
		CacheDomains: 1,
		// The guide says a cache is "picked at random per request"; whether
		// that is each KV call or each Worker request is not said.
		CacheDomainPer: "operation",
		WriteLimit:     WriteLimit{PerSecond: DefaultWritesPerSecond, Scope: DefaultWriteLimitScope},
	}
}

// DefaultDurableObject returns the durable-object store's defaults: each
// object placed near the first request for it.
func DefaultDurableObject() DurableObject {
	return DurableObject{
		Location: DurableObjectFirstRequest,
		RTT:      DefaultDurableObjectRTT(),
		Local:    DefaultDurableObjectLocal(),
		MaxRPS:   DefaultDurableObjectMaxRPS,
	}
}

// DefaultLive returns the live run's defaults: 10 s, no request bound, the
// scenario's window and real-time latencies.
func DefaultLive() Live {
	return Live{Duration: Duration(DefaultLiveDuration), TimeScale: 1}
}

// DefaultDuration is the simulated time a trial covers when the scenario
// gives none: two limiter windows, so that every trial crosses at least one
// window boundary whatever its start.
func DefaultDuration(window time.Duration) time.Duration {
	if window > math.MaxInt64/2 {
		return window
	}
	return 2 * window
}

// SetDefaults fills every unset field of s with its default. A field the
// file writes explicitly as 0 is kept (and rejected by Validate where 0 is
// out of range); for a Scenario built in Go, a zero field is unset. It is
// idempotent; Load calls it before Validate, and code that builds a
// Scenario in Go calls it too.
func (s *Scenario) SetDefaults() {
	if s.Trials == 0 && !s.given("trials") {
		s.Trials = DefaultTrials
	}
	if s.Start.IsZero() {
		s.Start = DefaultStart
	}
	s.Start = s.Start.UTC() // one instant, one canonical form
	s.setLimiterDefaults()
	if s.Duration == 0 && s.Limiter.Window > 0 && !s.given("duration") {
		s.Duration = Duration(DefaultDuration(s.Limiter.Window.D()))
	}
	s.setLocationDefaults()
	s.setStoreDefaults()
	s.setTrafficDefaults(s.Locations[0].Name)
	s.setLiveDefaults()
	if s.Report.Headline == "" {
		s.Report.Headline = measure.DefaultHeadline
	}
	s.setServerDefaults()
}

// setLimiterDefaults fills the limiter section: the seed's name,
// algorithm, error policy, token and key, and no update mode when it is
// the seed's.
func (s *Scenario) setLimiterDefaults() {
	l := &s.Limiter
	if l.Name == "" {
		l.Name = DefaultLimiterName
	}
	if l.Algorithm == "" {
		l.Algorithm = string(limiter.FixedWindow)
	}
	if l.ErrorPolicy == "" {
		l.ErrorPolicy = string(limiter.FailOpen) // the seed's safeRateLimit
	}
	if l.Token.From == "" {
		l.Token.From = DefaultTokenSource.From
	}
	if l.Token.Name == "" {
		l.Token.Name = DefaultTokenSource.Name
	}
	if l.Key == "" {
		l.Key = string(limiter.KeyTokenIP) // the seed's
	}
	if l.Update == string(limiter.ReadThenWrite) {
		l.Update = "" // the seed's, which the canonical form leaves out: one scenario, one hash
	}
}

// setLocationDefaults gives s one default location when it has none, and
// each location a name and a weight of 1 when they are unset.
func (s *Scenario) setLocationDefaults() {
	if len(s.Locations) == 0 {
		s.Locations = []Location{{Name: DefaultLocation}}
	}
	for i := range s.Locations {
		if s.Locations[i].Name == "" {
			s.Locations[i].Name = defaultElemName("locations", i)
		}
		if s.Locations[i].Weight == 0 && !s.given(fmt.Sprintf("locations.%d.weight", i)) {
			s.Locations[i].Weight = 1
		}
	}
}

// setStoreDefaults fills the store section: its kind, the KV cache,
// latencies, purges and write limit, the Durable Object's, the rate-limit
// binding's sync, the store latency and redis.
func (s *Scenario) setStoreDefaults() {
	st := &s.Store
	if st.Kind == "" {
		st.Kind = KindKV
	}
	kv, dkv := &st.KV, DefaultKV()
	if kv.CacheTTL == 0 && !s.given("store.kv.cache_ttl") {
		kv.CacheTTL = dkv.CacheTTL
	}
	fillLatency(&kv.HotRead, dkv.HotRead)
	fillLatency(&kv.ColdRead, dkv.ColdRead)
	fillLatency(&kv.Write, dkv.Write)
	// Purges are on unless the file says "enabled: false"; a Scenario
	// built in Go without a source gets them on (set Enabled after
	// SetDefaults to turn them off).
	if !s.given("store.kv.purge.enabled") {
		kv.Purge.Enabled = true
	}
	fillLatency(&kv.Purge.Lag, dkv.Purge.Lag)
	if kv.CacheDomains == 0 && !s.given("store.kv.cache_domains") {
		kv.CacheDomains = dkv.CacheDomains
	}
	if kv.CacheDomainPer == "" {
		kv.CacheDomainPer = dkv.CacheDomainPer
	}
	// The write limit is on unless the file says "per_second: 0".
	if kv.WriteLimit.PerSecond == 0 && !s.given("store.kv.write_limit.per_second") {
		kv.WriteLimit.PerSecond = dkv.WriteLimit.PerSecond
	}
	if kv.WriteLimit.Scope == "" {
		kv.WriteLimit.Scope = dkv.WriteLimit.Scope
	}
	for i := range kv.Outages {
		if kv.Outages[i].Ops == "" {
			kv.Outages[i].Ops = "all"
		}
	}
	do, ddo := &st.DurableObject, DefaultDurableObject()
	if do.Location == "" {
		do.Location = ddo.Location
	}
	if st.RateLimit.Sync == 0 && !s.given("store.rate_limit.sync") {
		st.RateLimit.Sync = Duration(DefaultRateLimitSync)
	}
	fillLatency(&do.RTT, ddo.RTT)
	fillLatency(&do.Local, ddo.Local)
	if do.MaxRPS == 0 && !s.given("store.durable_object.max_rps") {
		do.MaxRPS = ddo.MaxRPS
	}
	fillLatency(&st.Latency, DefaultStoreLatency())
	s.setRedisDefaults()
}

// setTrafficDefaults fills each population: its name, clients, identity,
// arrival (at location first when it arrives at one) and closed loop.
func (s *Scenario) setTrafficDefaults(first string) {
	for i := range s.Traffic {
		p := &s.Traffic[i]
		if p.Name == "" {
			p.Name = defaultElemName("traffic", i)
		}
		if p.Clients == 0 && !s.given(fmt.Sprintf("traffic.%d.clients", i)) {
			p.Clients = 1
		}
		if p.Identity.Token == "" {
			p.Identity.Token = "per-client"
		}
		if p.Identity.IP == "" {
			p.Identity.IP = "per-client"
		}
		if p.Arrive.Mode == "" {
			if len(p.Arrive.Weights) > 0 {
				p.Arrive.Mode = "weighted"
			} else {
				p.Arrive.Mode = "one"
			}
		}
		if p.Arrive.Mode == "one" && p.Arrive.Location == "" {
			p.Arrive.Location = first
		}
		if (p.Arrive.Mode == "spread" || p.Arrive.Mode == "weighted") && p.Arrive.Per == "" {
			p.Arrive.Per = "client" // anycast: a client stays at its nearest location
		}
		if c := p.ClosedLoop; c != nil {
			if c.Concurrency == 0 && !s.given(fmt.Sprintf("traffic.%d.closed_loop.concurrency", i)) {
				c.Concurrency = 1
			}
			if c.Think.IsZero() {
				c.Think = Constant(0)
			}
		}
	}
}

// setLiveDefaults fills the live section: its duration, time scale, and
// a warm-up when a population keeps requests in flight.
func (s *Scenario) setLiveDefaults() {
	lv := &s.Live
	if lv.Duration == 0 && !s.given("live.duration") {
		lv.Duration = Duration(DefaultLiveDuration)
	}
	if lv.TimeScale == 0 && !s.given("live.time_scale") {
		lv.TimeScale = 1
	}
	if lv.Warmup == nil && s.hasClosedLoop() {
		// The model has no connection set-up: a live closed loop opens
		// its connections first, so that it measures what the model
		// predicts (docs/scenarios.md, live.warmup).
		warm := true
		lv.Warmup = &warm
	}
}

// hasClosedLoop reports whether a population of s keeps requests in
// flight (closed_loop).
func (s *Scenario) hasClosedLoop() bool {
	for _, p := range s.Traffic {
		if p.ClosedLoop != nil {
			return true
		}
	}
	return false
}

// onlyMode reports whether sv sets nothing but its mode.
func (sv *Server) onlyMode() bool {
	c := sv.CPU
	return c.BeforeRead.IsZero() && c.Between.IsZero() && c.AfterWrite.IsZero() && sv.RTT.IsZero() && sv.Wake.IsZero() && sv.Proxy == nil && sv.Send == nil && sv.Stall == nil && sv.BatchMax == 0
}

// setServerDefaults fills the server section. A section that says no more
// than mode none is dropped, so that it hashes as a scenario without one; a
// mode none with other fields is kept for Validate to reject.
func (s *Scenario) setServerDefaults() {
	sv := s.Server
	if sv == nil {
		return
	}
	if sv.Mode == "" {
		sv.Mode = ServerNone
	}
	if sv.Mode == ServerNone {
		if sv.onlyMode() {
			s.Server = nil
		}
		return
	}
	d := DefaultServer()
	fillLatency(&sv.CPU.BeforeRead, d.CPU.BeforeRead)
	fillLatency(&sv.CPU.Between, d.CPU.Between)
	fillLatency(&sv.CPU.AfterWrite, d.CPU.AfterWrite)
	fillLatency(&sv.RTT, d.RTT)
	if sv.BatchMax == 0 {
		sv.BatchMax = d.BatchMax
	}
}

// fillLatency sets *l to def when l is unset.
func fillLatency(l *Latency, def Latency) {
	if l.IsZero() {
		*l = def
	}
}

// given reports whether path was written in the source YAML or set by an
// override. A Scenario built in Go has no source: nothing was given.
func (s *Scenario) given(path string) bool {
	if s.src == nil {
		return false
	}
	for _, o := range s.src.sets {
		if o.path == path {
			return true
		}
	}
	body := s.src.tree()
	if body == nil {
		return false
	}
	_, k := find(body, path)
	return k == len(splitPath(path))
}

// DefaultEntry is one default, for the docs and reports: its path, value
// and where the value comes from.
type DefaultEntry struct {
	Path, Value, Source string
}

// DefaultTable lists the defaults SetDefaults fills in, with their sources,
// in the order docs/scenarios.md shows them.
func DefaultTable() []DefaultEntry {
	kv, do, sv := DefaultKV(), DefaultDurableObject(), DefaultServer()
	const facts = "facts file (docs/facts.md)"
	out := []DefaultEntry{
		{"trials", fmt.Sprint(DefaultTrials), "choice: p99 across trials rests on 2 trials"},
		{"duration", "2 x limiter.window", "choice: every trial crosses a window boundary"},
		{"start", DefaultStart.Format(time.RFC3339), "choice: midnight UTC, a boundary of every window dividing a day"},
		{"limiter.name", DefaultLimiterName, "seed article (opts.name)"},
		{"limiter.algorithm", string(limiter.FixedWindow), "seed article"},
		{"limiter.error_policy", string(limiter.FailOpen), "seed article (safeRateLimit allows on any KV error)"},
		{"limiter.token", DefaultTokenSource.From + " " + DefaultTokenSource.Name, "built-in target and example Worker"},
		{"locations", "[{name: " + DefaultLocation + ", weight: 1}]", "choice: one location"},
		{"store.kind", KindKV, "seed article (Workers KV)"},
		{"store.kv.cache_ttl", kv.CacheTTL.String(), facts + ", Consistency: get() cacheTtl default 60 s, minimum 30 s since changelog 2026-01-30"},
		{"store.kv.hot_read", kv.HotRead.String(), facts + ", Latency: blog 2024-09-26, p90 of KV calls under 12 ms"},
		{"store.kv.cold_read", kv.ColdRead.String(), facts + ", Latency: changelog 2025-08-22, p95 ~50 ms, p99 ~250 ms; p1, p50, p100 assumed"},
		{"store.kv.write", kv.Write.String(), "assumption: no write latency is published (facts file: tens to hundreds of ms)"},
		{"store.kv.read_your_writes_failure", "0", facts + ", Consistency: usually visible at once, not guaranteed"},
		{"store.kv.purge.enabled", "true", facts + ", Consistency: hybrid push/pull since 2023 (blog 2023-06-21)"},
		{"store.kv.purge.lag", kv.Purge.Lag.String(), "assumption: unpublished; often shorter than the cache TTL (blog 2023-06-21)"},
		{"store.kv.cache_domains", "1", "assumption: the unpublished 2023 guide's virtual data centres are a parameter"},
		{"store.kv.cache_domain_per", "operation", "assumption: the guide's \"picked at random per request\" may mean each KV call or each Worker request"},
		{"store.kv.write_limit.per_second", "1", facts + ", Limits and errors: 1 write per second per key"},
		{"store.kv.write_limit.scope", DefaultWriteLimitScope, "assumption: per location or global is unpublished"},
		{"store.kv.daily_write_quota", "0 (paid plan)", facts + ", Limits and errors: the free plan's is 1000"},
		{"store.kv.daily_read_quota", "0 (paid plan)", facts + ", Limits and errors: the free plan's is 100000"},
		{"store.kv.error_rate", "read 0, write 0", "choice: no random errors"},
		{"store.durable_object.location", DurableObjectFirstRequest, "docs/facts.md: a new object is placed near the request that first used it; a location's name pins it"},
		{"store.durable_object.local", do.Local.String(), "assumption: no official latency figure"},
		{"store.durable_object.rtt", do.RTT.String(), "assumption: a cross-region round trip"},
		{"store.durable_object.max_rps", fmt.Sprint(do.MaxRPS), facts + ", alternatives: soft limit about 1,000 requests/s"},
		{"store.rate_limit.sync", Duration(DefaultRateLimitSync).String(), "assumption: the binding's counters are cached and updated asynchronously (docs/facts.md), how fast is unpublished"},
		{"store.latency", DefaultStoreLatency().String(), "assumption: memory and per-location stores, unpublished"},
	}
	out = append(out, redisTable()...)
	return append(out, []DefaultEntry{
		{"traffic.*.name", "pop<index>", "choice"},
		{"traffic.*.clients", "1", "choice"},
		{"limiter.key", string(limiter.KeyTokenIP), "seed article: key = token + IP"},
		{"traffic.*.identity", "token per-client, ip per-client", "choice: each client its own token and address"},
		{"traffic.*.arrive", "mode one, at the first location", "choice"},
		{"traffic.*.arrive.per", "client", "anycast: a client reaches its nearest location and stays there"},
		{"traffic.*.closed_loop", "concurrency 1, think 0s", "seed threat: one bot loop"},
		{"live.duration", Duration(DefaultLiveDuration).String(), "choice: a short loopback attack"},
		{"live.time_scale", "1", "choice: real-time latencies"},
		{"server.mode", ServerNone, "choice: no serving side, the model as before server existed"},
		{"server.cpu.before_read", sv.CPU.BeforeRead.String(), "assumption: unpublished; calibrate (docs/serving-side.md)"},
		{"server.cpu.between", sv.CPU.Between.String(), "assumption: unpublished; calibrate (docs/serving-side.md)"},
		{"server.cpu.after_write", sv.CPU.AfterWrite.String(), "assumption: unpublished; calibrate (docs/serving-side.md)"},
		{"server.rtt", sv.RTT.String(), "assumption: a loopback round trip"},
		{"server.wake", "0s", "choice: a thread starts on work the moment it arrives, as the model did before wake existed; measured under load it is not (docs/serving-side.md, section 10), calibrate"},
		{"server.batch_max", fmt.Sprint(DefaultBatchMax), "source: kj's UnixEventPort::wait takes at most 16 epoll events per poll (capnproto async-unix.c++)"},
		{"server.proxy", "none", "choice: no proxy thread; wrangler dev has one (docs/serving-side.md, section 1), calibrate its CPU"},
		{"report.headline", measure.DefaultHeadline, "choice: the most one key-window allowed, as a multiple of the limit"},
	}...)
}
