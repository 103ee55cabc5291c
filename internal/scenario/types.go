// Package scenario is the schema of a threat model: the limiter under test,
// the store it runs on, the traffic that hits it, how many trials to run and
// what to sweep. Scenario files are YAML (scenarios/*.yaml), decoded
// strictly; both drivers (simulate and attack) read the same Scenario.
package scenario

import "time"

// Scenario is one threat model, as a scenario file states it.
type Scenario struct {
	// Name identifies the scenario in reports; defaults to the file's base name.
	Name string `yaml:"name" json:"name"`
	// Question is the question the scenario answers, shown atop its report.
	Question string `yaml:"question,omitempty" json:"question"`
	// Seed is the default seed; -seed overrides it.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Trials is the number of independent trials simulate runs.
	Trials int `yaml:"trials" json:"trials"`
	// Duration is the simulated time each trial covers.
	Duration Duration `yaml:"duration" json:"duration"`
	// Start is the virtual wall-clock time at which a trial begins (its
	// phase against window boundaries); RFC 3339.
	Start time.Time `yaml:"start" json:"start"`
	// Limiter is the limiter under test.
	Limiter Limiter `yaml:"limiter" json:"limiter"`
	// Store is what the limiter keeps its counters in.
	Store Store `yaml:"store" json:"store"`
	// Locations are the points of presence traffic arrives at.
	Locations []Location `yaml:"locations" json:"locations"`
	// Traffic is the populations of clients.
	Traffic []Population `yaml:"traffic" json:"traffic"`
	// Sweep lists parameters to vary; several give a grid.
	Sweep []Sweep `yaml:"sweep,omitempty" json:"sweep,omitempty"`
	// Live is how attack turns this scenario into real load.
	Live Live `yaml:"live" json:"live"`
	// Report says what the scenario's report leads with.
	Report Report `yaml:"report" json:"report"`
	// Advise is what simulate -advise looks for: a budget and the design
	// space to search.
	Advise Advise `yaml:"advise,omitempty" json:"advise,omitempty"`
	// Server is the serving side in front of the store: nil (or mode none)
	// models none, as before it existed; the canonical form and hash of a
	// scenario without it are unchanged.
	Server *Server `yaml:"server,omitempty" json:"server,omitempty"`
	// Faults is a schedule of faults the store suffers during a run (store
	// kind redis only): both drivers apply them at their times. Empty, the
	// canonical form and hash of a scenario are unchanged.
	Faults []Fault `yaml:"faults,omitempty" json:"faults,omitempty"`
	// Calibrated is set in a scenario that simulate -calibrate wrote: what
	// it was fitted to. The model ignores it; -compare reads it to accept
	// live runs of the scenario it was calibrated from (by its base hash).
	Calibrated *Calibration `yaml:"calibrated,omitempty" json:"calibrated,omitempty"`

	// src is the text the scenario was decoded from, for With and Expand.
	src *source
}

// Calibration records where a calibrated scenario's fitted values came
// from.
type Calibration struct {
	// Runs are the live summaries the values were fitted to.
	Runs []string `yaml:"runs" json:"runs"`
	// BaseHash is the base hash (Scenario.BaseHash: the file as written,
	// before -set) of the scenario the calibrated one was written from, the
	// first run's: simulate -compare accepts a live run whose summary
	// records the same scenario.base_hash. Empty in a scenario written by a
	// -calibrate from before it existed.
	BaseHash string `yaml:"base_hash,omitempty" json:"base_hash,omitempty"`
	// Fitted are the paths fitted (a section such as server.cpu scales
	// every latency under it).
	Fitted []string `yaml:"fitted" json:"fitted"`
	// LeaveOneOut are the relative errors of each run's max ratio predicted
	// from a fit to the other runs: the error to expect of a prediction
	// from this calibration, near the traffic it was fitted to.
	LeaveOneOut []float64 `yaml:"leave_one_out,omitempty" json:"leave_one_out,omitempty"`
	// Alternatives are the fitted values as fits to each repeat alone put
	// them, each a list of path=value overrides: simulate spreads a
	// calibrated scenario's trials over them and the fitted values, so
	// that its band holds the calibration's own uncertainty.
	Alternatives [][]string `yaml:"alternatives,omitempty" json:"alternatives,omitempty"`
	// Misfit is how far the fit missed its own runs: the least and the
	// most, over the runs fitted, of the live median max ratio over the
	// fit's predicted median, the first at most 1 and the second at least
	// 1. A model that misses the runs it was fitted to by a tenth misses
	// the traffic it predicts by at least that: simulate -compare
	// multiplies a calibrated band's low end by the first and its high end
	// by the second. Absent or [1, 1]: the fit met its runs' medians.
	Misfit []float64 `yaml:"misfit,omitempty" json:"misfit,omitempty"`
}

// Limiter is the limiter's configuration as a scenario states it.
type Limiter struct {
	Name        string   `yaml:"name" json:"name"`                 // route name in the key
	Algorithm   string   `yaml:"algorithm" json:"algorithm"`       // fixed-window | sliding-window | token-bucket | gcra
	Limit       int64    `yaml:"limit" json:"limit"`               // requests per window
	Window      Duration `yaml:"window" json:"window"`             // window length
	ErrorPolicy string   `yaml:"error_policy" json:"error_policy"` // fail-open | fail-closed
	Token       Token    `yaml:"token" json:"token"`               // where the token comes from (live)
	// Key is what the limiter keys a caller on: the seed's token and IP
	// ("token-ip"), the IP alone ("ip") or the token alone ("token", an
	// API key). What clients send is the traffic's identity, apart.
	Key string `yaml:"key" json:"key"`
	// Update is how the limiter reaches its store: "read-then-write" (the
	// seed's; empty means it) or "atomic" (the store applies the update in
	// one step: INCR counters, GCRA scripts). Empty is left out of the
	// canonical form, so that a scenario without it keeps its hash.
	Update string `yaml:"update,omitempty" json:"update,omitempty"`
	// Burst is gcra's burst (0: the limit).
	Burst int64 `yaml:"burst,omitempty" json:"burst,omitempty"`
}

// Token says where a request carries its anonymous token.
type Token struct {
	From string `yaml:"from" json:"from"` // header | cookie
	Name string `yaml:"name" json:"name"` // e.g. X-Anon-Token
}

// Store names the store and holds the parameters of each kind.
type Store struct {
	// Kind is kv | durable-object | per-location | memory | redis.
	Kind          string        `yaml:"kind" json:"kind"`
	KV            KV            `yaml:"kv" json:"kv"`
	DurableObject DurableObject `yaml:"durable_object" json:"durable_object"`
	// RateLimit is the per-location store's (the Rate Limiting binding's)
	// consistency.
	RateLimit RateLimit `yaml:"rate_limit" json:"rate_limit"`
	// Latency of the memory and per-location stores' operations.
	Latency Latency `yaml:"latency" json:"latency"`
	// Redis is the redis store's parameters: nil unless store.kind is
	// redis or the file gives them, so that the canonical form and hash of
	// a scenario without them are unchanged.
	Redis *Redis `yaml:"redis,omitempty" json:"redis,omitempty"`
}

// Redis is the redis store's parameters: a primary and its asynchronous
// replicas, watched by Sentinel. Every default is sourced in docs/facts.md
// (published fact or assumption) and stated in docs/scenarios.md.
type Redis struct {
	// Replicas is the number of replicas of the primary (default 2).
	Replicas int `yaml:"replicas" json:"replicas"`
	// Read is where reads go: primary (default) or replica (one of the
	// replicas at random, as go-redis's replica reads pick one).
	Read string `yaml:"read" json:"read"`
	// ReplicationLag is the time from a write's commit at the primary to
	// its application at a replica, drawn per replica per write; each
	// replica applies writes in order.
	ReplicationLag Latency `yaml:"replication_lag" json:"replication_lag"`
	// Latency is each command's round trip from the client to a server.
	Latency Latency `yaml:"latency" json:"latency"`
	// Service is the time each command holds the one thread that serves
	// it: commands wait their turn, one at a time (unset: none wait).
	Service Latency `yaml:"service,omitempty" json:"service,omitzero"`
	// RequestService is each request's own time at that thread, besides
	// its commands: the client's and the target's work for it, before
	// its first command (unset: none).
	RequestService Latency `yaml:"request_service,omitempty" json:"request_service,omitzero"`
	// Threads is how many of those the host serves at once, each on a
	// core of its own (0: 1).
	Threads int `yaml:"threads,omitempty" json:"threads,omitzero"`
	// Order is the order in which the host takes up what waits for it:
	// random (the default, "") or fifo (RedisOrderRandom, RedisOrderFIFO).
	Order string `yaml:"order,omitempty" json:"order,omitempty"`
	// Wait is WAIT's numreplicas after every write: the write returns once
	// that many replicas applied it, or after WaitTimeout (0: no WAIT).
	Wait int `yaml:"wait" json:"wait"`
	// WaitTimeout is WAIT's timeout (0: none, as Redis reads WAIT n 0;
	// the client timeout still bounds the call).
	WaitTimeout Duration `yaml:"wait_timeout" json:"wait_timeout"`
	// Timeout is the client's bound on one command: a command not answered
	// by then fails, and the limiter's error policy decides.
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// DownAfter is Sentinel's down-after-milliseconds: how long the
	// primary must be unreachable before the sentinels start a failover.
	DownAfter Duration `yaml:"down_after" json:"down_after"`
	// Failover is the time from the sentinels agreeing the primary is down
	// to a replica promoted: the leader's election and the promotion.
	Failover Latency `yaml:"failover" json:"failover"`
	// Reconnect is the time a client takes, after the promotion, to learn
	// of the new primary and connect to it.
	Reconnect Latency `yaml:"reconnect" json:"reconnect"`
}

// Fault is one fault of a scenario's schedule.
type Fault struct {
	// At is when the fault starts, from the trial's start.
	At Duration `yaml:"at" json:"at"`
	// Kind is kill-primary | pause | link-latency | partition.
	Kind string `yaml:"kind" json:"kind"`
	// Target is the node it hits: primary, replica-N (1 to store.redis.replicas)
	// or replicas (every replica). kill-primary and partition hit the
	// primary; link-latency the replication link of a replica.
	Target string `yaml:"target" json:"target"`
	// For is how long the fault lasts (0: to the end of the run); a killed
	// primary stays down, and For must be 0.
	For Duration `yaml:"for" json:"for"`
	// Latency and Jitter are what link-latency adds to the replication
	// link: latency, plus or minus up to jitter, per write.
	Latency Duration `yaml:"latency,omitempty" json:"latency,omitempty"`
	Jitter  Duration `yaml:"jitter,omitempty" json:"jitter,omitempty"`
}

// KV is the Workers KV model's parameters; every default is sourced in
// docs/facts.md and stated in the scenario docs.
type KV struct {
	CacheTTL        Duration   `yaml:"cache_ttl" json:"cache_ttl"`                               // get() cacheTtl, default 60s
	HotRead         Latency    `yaml:"hot_read" json:"hot_read"`                                 // cache hit latency
	ColdRead        Latency    `yaml:"cold_read" json:"cold_read"`                               // cache miss: fetch from central
	Write           Latency    `yaml:"write" json:"write"`                                       // put until committed centrally
	ReadYourWritesP float64    `yaml:"read_your_writes_failure" json:"read_your_writes_failure"` // p: the writer's location misses its own write
	Purge           Purge      `yaml:"purge" json:"purge"`                                       // push invalidation to other locations
	CacheDomains    int        `yaml:"cache_domains" json:"cache_domains"`                       // virtual caches per location, picked at random
	CacheDomainPer  string     `yaml:"cache_domain_per" json:"cache_domain_per"`                 // operation | request: how often the cache is picked
	WriteLimit      WriteLimit `yaml:"write_limit" json:"write_limit"`                           // 1 write/s per key
	DailyWriteQuota int64      `yaml:"daily_write_quota" json:"daily_write_quota"`               // free plan: 1000; 0 = paid plan, none
	DailyReadQuota  int64      `yaml:"daily_read_quota" json:"daily_read_quota"`                 // free plan: 100000; 0 = none
	Outages         []Outage   `yaml:"outages,omitempty" json:"outages,omitempty"`               // windows when every operation fails
	ErrorRate       ErrorRate  `yaml:"error_rate" json:"error_rate"`                             // random failures
}

// Purge is the hybrid push: a write broadcasts a purge that reaches each
// other location after a lag drawn from Lag.
type Purge struct {
	Enabled bool    `yaml:"enabled" json:"enabled"`
	Lag     Latency `yaml:"lag" json:"lag"`
}

// WriteLimit is the per-key write rate limit.
type WriteLimit struct {
	PerSecond float64 `yaml:"per_second" json:"per_second"` // 1 as published; 0 disables
	Scope     string  `yaml:"scope" json:"scope"`           // location | global (unpublished: a parameter)
}

// Outage is a time span when the store fails every operation.
type Outage struct {
	Start    Duration `yaml:"start" json:"start"` // from trial start
	Duration Duration `yaml:"duration" json:"duration"`
	Location string   `yaml:"location,omitempty" json:"location,omitempty"` // empty: all locations
	Ops      string   `yaml:"ops,omitempty" json:"ops,omitempty"`           // read | write | all (default all)
}

// ErrorRate is the probability that an operation fails at random.
type ErrorRate struct {
	Read  float64 `yaml:"read" json:"read"`
	Write float64 `yaml:"write" json:"write"`
}

// DurableObject is the durable-object store's parameters.
type DurableObject struct {
	Location string  `yaml:"location" json:"location"` // where the object lives: first-request (default: near the first request for it) or a location's name (pinned)
	RTT      Latency `yaml:"rtt" json:"rtt"`           // round trip from a caller at another location
	Local    Latency `yaml:"local" json:"local"`       // round trip from its own location
	MaxRPS   float64 `yaml:"max_rps" json:"max_rps"`   // soft limit per object, then "overloaded" errors
}

// RateLimit is the Rate Limiting binding's consistency: each location's
// counter is cached where the Worker runs and updated asynchronously
// (facts: "permissive, eventually consistent"). Sync is how old the cached
// count a decision reads may be: a cached count older than Sync is
// refreshed from the location's count on the next check; an increment
// always lands on the location's count. 0 is an exact counter per
// location.
type RateLimit struct {
	Sync Duration `yaml:"sync" json:"sync"`
}

// Location is a point of presence.
type Location struct {
	Name string `yaml:"name" json:"name"`
	// Weight is the share of "spread" traffic that arrives here; default 1.
	Weight float64 `yaml:"weight" json:"weight"`
}

// Population is a group of clients that send alike.
type Population struct {
	Name       string   `yaml:"name" json:"name"`
	Clients    int      `yaml:"clients" json:"clients"`
	Legitimate bool     `yaml:"legitimate" json:"legitimate"` // counted for false denials
	Identity   Identity `yaml:"identity" json:"identity"`
	Arrive     Arrive   `yaml:"arrive" json:"arrive"`
	// Exactly one of ClosedLoop, OpenLoop, Burst is set.
	ClosedLoop *ClosedLoop `yaml:"closed_loop,omitempty" json:"closed_loop,omitempty"`
	OpenLoop   *OpenLoop   `yaml:"open_loop,omitempty" json:"open_loop,omitempty"`
	Burst      *Burst      `yaml:"burst,omitempty" json:"burst,omitempty"`
	Start      Duration    `yaml:"start" json:"start"`       // from trial start
	Duration   Duration    `yaml:"duration" json:"duration"` // 0: until the trial ends
}

// Identity is what a population's clients send: their tokens and
// addresses. What the limiter keys on is the limiter's (Limiter.Key).
type Identity struct {
	Token       string `yaml:"token" json:"token"`                               // per-client | rotating | pool | shared | none
	RotateEvery int    `yaml:"rotate_every" json:"rotate_every"`                 // rotating: new token every N requests
	TokenPool   int    `yaml:"token_pool,omitempty" json:"token_pool,omitempty"` // pool: the population's N tokens, each client's requests cycling through them
	IP          string `yaml:"ip" json:"ip"`                                     // per-client | nat | pool | shared | none
	NATPool     int    `yaml:"nat_pool" json:"nat_pool"`                         // nat: clients share M addresses, each keeping one
	IPPool      int    `yaml:"ip_pool,omitempty" json:"ip_pool,omitempty"`       // pool: the population's M addresses, each client's requests cycling through them
}

// Arrive says at which locations a population's requests arrive.
type Arrive struct {
	Mode     string   `yaml:"mode" json:"mode"`                             // one | spread | weighted | alternate
	Per      string   `yaml:"per,omitempty" json:"per,omitempty"`           // spread, weighted: client (each client stays where it first arrives) | request
	Location string   `yaml:"location,omitempty" json:"location,omitempty"` // one
	Weights  []Weight `yaml:"weights,omitempty" json:"weights,omitempty"`   // weighted
}

// Weight is one location's share of a weighted arrival.
type Weight struct {
	Location string  `yaml:"location" json:"location"`
	Weight   float64 `yaml:"weight" json:"weight"`
}

// ClosedLoop is the bot loop: each client keeps Concurrency requests in
// flight, waiting Think between a response and its next request.
type ClosedLoop struct {
	Concurrency int     `yaml:"concurrency" json:"concurrency"`
	Think       Latency `yaml:"think" json:"think"`
}

// OpenLoop sends at a rate whatever the responses.
type OpenLoop struct {
	Rate    Rate  `yaml:"rate" json:"rate"`       // per client
	Poisson bool  `yaml:"poisson" json:"poisson"` // exponential gaps instead of constant
	Ramp    *Ramp `yaml:"ramp,omitempty" json:"ramp,omitempty"`
}

// Ramp grows the rate linearly from Rate to To over Over.
type Ramp struct {
	To   Rate     `yaml:"to" json:"to"`
	Over Duration `yaml:"over" json:"over"`
}

// Burst sends Size requests at once, at At and then every Every; with
// Spread they leave evenly over that time instead of in one instant (as
// real concurrent requests do, a few at a time).
type Burst struct {
	Size   int      `yaml:"size" json:"size"`
	At     Duration `yaml:"at" json:"at"`                             // first burst, from population start
	Every  Duration `yaml:"every" json:"every"`                       // 0: once
	Spread Duration `yaml:"spread,omitempty" json:"spread,omitempty"` // 0: all in one instant
}

// Latency is a distribution of durations. Dist is constant | uniform |
// exponential | lognormal | empirical; the fields used depend on it. In YAML
// a bare duration ("20ms") means constant.
type Latency struct {
	Dist   string     `yaml:"dist" json:"dist"`
	Value  Duration   `yaml:"value,omitempty" json:"value,omitempty"`         // constant
	Min    Duration   `yaml:"min,omitempty" json:"min,omitempty"`             // uniform
	Max    Duration   `yaml:"max,omitempty" json:"max,omitempty"`             // uniform
	Mean   Duration   `yaml:"mean,omitempty" json:"mean,omitempty"`           // exponential
	Median Duration   `yaml:"median,omitempty" json:"median,omitempty"`       // lognormal
	P99    Duration   `yaml:"p99,omitempty" json:"p99,omitempty"`             // lognormal
	Points []Quantile `yaml:"quantiles,omitempty" json:"quantiles,omitempty"` // empirical
}

// Quantile is one point of an empirical distribution: P of the mass is at or
// below Value.
type Quantile struct {
	P     float64  `yaml:"p" json:"p"`
	Value Duration `yaml:"value" json:"value"`
}

// Sweep varies one parameter, named by its path (e.g. "traffic.bot.closed_loop.concurrency"
// or "store.kind"), over Values given as they would be written in the file.
type Sweep struct {
	Path   string   `yaml:"path" json:"path"`
	Values []string `yaml:"values" json:"values"`
}

// Live is how attack runs the scenario for real: shorter, and at rates a
// loopback target can take.
type Live struct {
	Duration    Duration `yaml:"duration" json:"duration"`         // default 10s
	MaxRequests int64    `yaml:"max_requests" json:"max_requests"` // stop after this many; 0: no bound but Duration
	// Window overrides the limiter's window for the live run, so that a day
	// limit can be watched over seconds; 0 keeps the scenario's.
	Window Duration `yaml:"window,omitempty" json:"window,omitempty"`
	// TimeScale divides every store latency and lag the live run plays (and
	// its prediction, plan.CompileLive, uses).
	TimeScale float64 `yaml:"time_scale,omitempty" json:"time_scale,omitempty"`
	// Warmup opens the closed loops' connections before the run starts,
	// one request per in-flight slot under a key of its own, so that the
	// run measures a target already connected to, as the model has it.
	// Unset, it is true when the scenario has a closed loop (SetDefaults);
	// false turns it off.
	Warmup *bool `yaml:"warmup,omitempty" json:"warmup,omitempty"`
}

// Advise is simulate -advise's question, stated in the scenario: the
// budget every design must meet (conditions in the -threshold grammar) and
// the design space; an empty list means every choice.
type Advise struct {
	Budget     []string `yaml:"budget,omitempty" json:"budget,omitempty"`         // e.g. ["allowed.p99<=120", "false_denials.rate<=0.1%"]
	Algorithms []string `yaml:"algorithms,omitempty" json:"algorithms,omitempty"` // fixed-window | sliding-window | token-bucket
	Stores     []string `yaml:"stores,omitempty" json:"stores,omitempty"`         // kv | durable-object | per-location | memory
	Policies   []string `yaml:"policies,omitempty" json:"policies,omitempty"`     // fail-open | fail-closed
	MaxLimit   int64    `yaml:"max_limit,omitempty" json:"max_limit,omitempty"`   // the largest limit tried; 0: 64 x the limit, at least 1024
}

// Report says what a scenario's report leads with.
type Report struct {
	// Headline names the metric the scenario's question is about (one of
	// measure.Metrics, e.g. "interval.max"): the headline, the sweep table
	// and the sweep figure lead with it. Default ratio.max.
	Headline string `yaml:"headline" json:"headline"`
}

// Server is the serving side the simulator puts in front of the store: who
// runs a request's steps and the store's operations, and when (see
// docs/serving-side.md).
type Server struct {
	// Mode is none (no serving side: each request runs on its own) or
	// single-thread (wrangler dev: one thread runs every request's steps and
	// the local store's operations, taking new requests in batches).
	Mode string `yaml:"mode" json:"mode"`
	// CPU is the thread time of each step of a request.
	CPU ServerCPU `yaml:"cpu" json:"cpu"`
	// RTT is the client's round trip to the server, half each way.
	RTT Latency `yaml:"rtt" json:"rtt"`
	// Wake is how long a thread blocked waiting for work (nothing running,
	// nothing ready) takes to start on a request that reaches it: the
	// operating system waking a thread blocked in epoll, which on a busy
	// machine waits for a core. It applies to the server's thread and the
	// proxy's, and is zero (omitted) unless set. Requests that arrive
	// while the thread wakes join its first batch.
	Wake Latency `yaml:"wake,omitempty" json:"wake,omitzero"`
	// BatchMax is the most requests the thread takes from its sockets at
	// once, when its queue empties (kj polls at most 16 events).
	BatchMax int `yaml:"batch_max" json:"batch_max"`
	// Proxy is a second thread every request passes on its way in and out
	// (wrangler dev's proxy process); nil: none.
	Proxy *ServerProxy `yaml:"proxy,omitempty" json:"proxy,omitempty"`
	// Send is how a closed loop's requests sent at one instant leave the
	// live client, one after another; nil: as measured (DefaultServerSend).
	Send *ServerSend `yaml:"send,omitempty" json:"send,omitempty"`
	// Stall is the host taking a thread away now and then (a garbage
	// collection, the scheduler on a busy machine); nil: never.
	Stall *ServerStall `yaml:"stall,omitempty" json:"stall,omitempty"`
}

// ServerStall is how often each thread (the server's and the proxy's,
// each on its own) stops, and for how long: a stall comes after every
// Every draw of the thread's own work (its steps' time, as a garbage
// collection comes after so much allocation, so an idle thread does not
// stall) and holds the step under way a Lasts draw longer.
type ServerStall struct {
	Every Latency `yaml:"every" json:"every"`
	Lasts Latency `yaml:"lasts" json:"lasts"`
}

// MinStallEvery is the least mean work between a thread's stalls: a stall
// more often than this is a slower step, not a stall.
const MinStallEvery = time.Millisecond

// LatenciesWithSend is Latencies with the client's send spacing at its
// default (DefaultServerSend) when the server gives none: what the model
// runs with, and what -calibrate can probe.
func (sv *Server) LatenciesWithSend() []NamedLatency {
	out := sv.Latencies()
	if sv.Send == nil {
		d := DefaultServerSend()
		out = append(out, NamedLatency{"server.send.first", d.First}, NamedLatency{"server.send.next", d.Next})
	}
	return out
}

// ServerSend is how far apart a closed loop's requests sent at one instant
// (its first C, say) leave: the live client (attack's vegeta workers,
// which start one after another) cannot send them at once. The second
// leaves First after the first, each further one Next after the one
// before.
type ServerSend struct {
	First Latency `yaml:"first" json:"first"`
	Next  Latency `yaml:"next" json:"next"`
}

// DefaultServerSend is the spacing measured on the 2-core build machine
// (docs/serving-side.md, "The start of a run"): the second of 32 requests
// 0.13-0.18 ms after the first, then about 35 us apart.
func DefaultServerSend() ServerSend {
	return ServerSend{First: Constant(150 * time.Microsecond), Next: Constant(35 * time.Microsecond)}
}

// NamedLatency is one of a scenario's latencies with the path that names
// it.
type NamedLatency struct {
	Path    string
	Latency Latency
}

// Latencies lists the server's latencies by path: its steps, its round
// trip, its threads' wake-up and, when it has them, its proxy's passes,
// the client's send spacing and its threads' stalls.
func (sv *Server) Latencies() []NamedLatency {
	out := []NamedLatency{{"server.cpu.before_read", sv.CPU.BeforeRead}, {"server.cpu.between", sv.CPU.Between},
		{"server.cpu.after_write", sv.CPU.AfterWrite}, {"server.rtt", sv.RTT}, {"server.wake", sv.Wake}}
	if px := sv.Proxy; px != nil {
		out = append(out, NamedLatency{"server.proxy.cpu_in", px.CPUIn}, NamedLatency{"server.proxy.cpu_out", px.CPUOut})
	}
	if sd := sv.Send; sd != nil {
		out = append(out, NamedLatency{"server.send.first", sd.First}, NamedLatency{"server.send.next", sd.Next})
	}
	if st := sv.Stall; st != nil {
		out = append(out, NamedLatency{"server.stall.every", st.Every}, NamedLatency{"server.stall.lasts", st.Lasts})
	}
	return out
}

// ServerProxy is a thread of its own in front of the server's: wrangler
// dev's ProxyWorker process, which takes each request and hands it to the
// Worker's process, and passes the response back. Requests wait for it in
// order of arrival.
type ServerProxy struct {
	CPUIn  Latency `yaml:"cpu_in" json:"cpu_in"`   // the proxy's thread time for a request on its way in
	CPUOut Latency `yaml:"cpu_out" json:"cpu_out"` // and for its response on the way out
}

// ServerCPU is the thread time of each step of a request under mode
// single-thread; the store's read takes effect at the end of BeforeRead and
// its write at the end of Between.
type ServerCPU struct {
	BeforeRead Latency `yaml:"before_read" json:"before_read"` // up to and including the store's read
	Between    Latency `yaml:"between" json:"between"`         // from the value read to the write taking effect
	AfterWrite Latency `yaml:"after_write" json:"after_write"` // the response, after the write (or the denial)
}

// Duration is a time.Duration written with units in YAML: "250ms", "60s",
// "5m", "2h", "1d" (24 h).
type Duration time.Duration

// Rate is requests per second, written "10/s", "600/m", "5/d" or a bare
// number (per second).
type Rate float64

// PopulationNames are the names of the scenario's populations, in order.
func (s *Scenario) PopulationNames() []string {
	names := make([]string, len(s.Traffic))
	for i, p := range s.Traffic {
		names[i] = p.Name
	}
	return names
}
