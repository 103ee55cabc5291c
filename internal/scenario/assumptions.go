package scenario

// Assumption is a default the model rests on that no published source
// fixes (DefaultTable says "assumption"), with the values it could
// plausibly have instead. simulate re-predicts a scenario's headline with
// each alternative, so that a reader sees how far the answer moves when the
// assumption is wrong.
type Assumption struct {
	// Path is the scenario field, as -set names it.
	Path string
	// What says what the assumption is about, for people.
	What string
	// Alternatives are plausible values, as -set writes them.
	Alternatives []string
}

// assumptions lists every assumption and its alternatives, by the store
// kind it is about.
var assumptions = map[string][]Assumption{
	KindKV: {
		{Path: "store.kv.write_limit.per_second", What: "the 1 write/s per key limit is enforced (a user report saw ten writes within 20 ms all succeed)",
			Alternatives: []string{"0"}},
		{Path: "store.kv.write_limit.scope", What: "the write limit counts per location", Alternatives: []string{"global"}},
		{Path: "store.kv.write", What: "a write takes lognormal(80 ms, p99 400 ms) to commit", Alternatives: []string{"20ms", "300ms"}},
		{Path: "store.kv.purge.lag", What: "a purge reaches other locations after lognormal(2 s, p99 20 s)", Alternatives: []string{"200ms", "30s"}},
		{Path: "store.kv.cache_domains", What: "one cache per location", Alternatives: []string{"4"}},
		{Path: "store.kv.cache_domain_per", What: "the cache is picked per KV call", Alternatives: []string{"request"}},
		{Path: "store.kv.read_your_writes_failure", What: "the writer always sees its own write", Alternatives: []string{"0.1"}},
	},
	KindDurableObject: {
		{Path: "store.durable_object.rtt", What: "a cross-region round trip of lognormal(50 ms, p99 200 ms)", Alternatives: []string{"10ms", "150ms"}},
	},
	KindMemory: {
		{Path: "store.latency", What: "each operation takes lognormal(1 ms, p99 5 ms)", Alternatives: []string{"100us", "20ms"}},
	},
	KindRedis: {
		{Path: "store.redis.replication_lag", What: "a write reaches a replica after lognormal(1 ms, p99 10 ms) (asynchronous replication; its lag unpublished)",
			Alternatives: []string{"100us", "50ms"}},
		{Path: "store.redis.latency", What: "each command takes lognormal(500 us, p99 2 ms), a server in the same network", Alternatives: []string{"200us", "5ms"}},
		{Path: "store.redis.service", What: "no command waits for a server's thread (unset: one Redis thread serves about 100,000 commands a second)",
			Alternatives: []string{"20us", "200us"}},
		{Path: "store.redis.request_service", What: "a request's own work (the client's, the target's) takes none of that thread's time (unset)",
			Alternatives: []string{"20us", "200us"}},
		{Path: "store.redis.order", What: "the host takes up waiting work in no fixed order (random; with store.redis.service or request_service set)",
			Alternatives: []string{"fifo"}},
		{Path: "store.redis.failover", What: "the sentinels name the promoted replica lognormal(1.2 s, p99 1.4 s) after down_after (Sentinel's INFO every second to the replicas of a primary down, after a few timer ticks; a split vote waits for the election timeout)",
			Alternatives: []string{"1s", "10s"}},
		{Path: "store.redis.reconnect", What: "clients reach the new primary lognormal(50 ms, p99 150 ms) after the promotion (their next dial asks a sentinel; a client whose dials are refused probes once a second)",
			Alternatives: []string{"10ms", "1s"}},
	},
	KindPerLocation: {
		{Path: "store.rate_limit.sync", What: "a location's cached count is refreshed when older than 1 s (counters updated asynchronously; unpublished)",
			Alternatives: []string{"0s", "10s"}},
		{Path: "store.latency", What: "each operation takes lognormal(1 ms, p99 5 ms)", Alternatives: []string{"100us", "20ms"}},
	},
}

// Assumptions returns the assumptions that bear on s (those of its store
// kind) that s does not set itself: a value the scenario chose is its
// author's claim, not the model's default.
func (s *Scenario) Assumptions() []Assumption {
	var out []Assumption
	for _, a := range assumptions[s.Store.Kind] {
		if s.given(a.Path) {
			continue
		}
		out = append(out, a)
	}
	return out
}
