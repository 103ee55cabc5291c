package model

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// KVConfig is what NewKV needs: the compiled KV parameters, the number of
// locations (loc arguments of Read and Write are indices below it), the
// virtual wall-clock time of now = 0 (for the daily quota's 00:00 UTC
// reset), the random source, and where to count KV work.
type KVConfig struct {
	Params    plan.KVParams
	Locations int
	Start     time.Time
	// Rand draws latencies, lags, cache domains, read-your-writes failures
	// and random errors. Required.
	Rand *rand.Rand
	// Counters receives reads, writes, errors, lost updates and
	// visibility; nil counts nothing.
	Counters *measure.KVCounters
}

// cacheEntry is one cached read at a location's cache domain: a value or
// "missing" (found false), with the version it came from and when it stops
// being served: min(fetched-at + cacheTtl, key expiry), or earlier when a
// purge arrives.
type cacheEntry struct {
	value   string
	version uint64
	expires int64
	found   bool
}

// kvKey is everything the model holds about one key: its central state, its
// cached copies, one per location and cache domain, and the per-location
// write-limit state. Keeping them together makes a read one map lookup.
type kvKey struct {
	entry
	// cache is indexed by location x domains + domain; an entry with
	// expires 0 holds nothing.
	cache []cacheEntry
	// locSubmit is, per location, the last accepted submission + 1 (0:
	// none), for the per-location write limit; nil until used.
	locSubmit []int64
	// limited is the key's 429 error, built once: a fail-open flood meets
	// it on every request, and errors are never changed once made.
	limited *kv.Error
	// commits are the key's latest commits, oldest first, so that a stale
	// read can be timed from the write that replaced what it returned.
	commits [commitsKept]commitAt
	nCommit int
	// vis is the visibility bin of the key's last read, where the next
	// read's usually is (measure.KVCounters.VisibilityIn).
	vis measure.VisBin
}

// commitsKept is how many of a key's latest commits are remembered.
const commitsKept = 4

// commitAt is one commit: the version it made and when.
type commitAt struct {
	version uint64
	at      int64
}

// noteCommit remembers a commit, dropping the oldest beyond commitsKept.
func (k *kvKey) noteCommit(version uint64, at int64) {
	if k.nCommit == commitsKept {
		copy(k.commits[:], k.commits[1:])
		k.nCommit--
	}
	k.commits[k.nCommit] = commitAt{version, at}
	k.nCommit++
}

// replacedAt returns when the first remembered commit newer than version
// happened: the time a value of that version became outdated (or, when more
// than commitsKept writes followed it, the oldest remembered: a lower
// bound on how long it has been outdated).
func (k *kvKey) replacedAt(version uint64) int64 {
	for _, c := range k.commits[:k.nCommit] {
		if c.version > version {
			return c.at
		}
	}
	return k.committed
}

// rateLimited returns k's 429 error.
func (k *kvKey) rateLimited(key string) error {
	if k.limited == nil {
		k.limited = kv.NewWriteRateLimited(key)
	}
	return k.limited
}

// outage is a plan.Outage: [start, end) in virtual ns, a
// location index or -1 for all, and which operations fail.
type outage struct {
	start, end  int64
	loc         int
	read, write bool
}

// KV is the Workers KV model: a central
// store where the last committed write wins, and per location (and per cache
// domain within one) a read cache of values and misses. It is a pure state
// machine over virtual time: no goroutines, no clock, no sleeping.
//
// Rules, each a parameter of plan.KVParams (scenario store.kv):
//   - A read takes effect when called. It is served from the cache domain
//     (picked at random per request) while its entry lives (hot latency),
//     else fetched from the central store (cold latency) and cached, a miss
//     as "missing", until min(now + cache_ttl, key expiry).
//   - A write is checked when submitted (key length and expirationTtl >= 60 s,
//     outages and error rate, the daily quota, then the per-key write limit,
//     counted over accepted submissions per key, globally or per location)
//     and commits at Commit. At commit the writer's cache domain holds the
//     new value at once with probability 1 - read_your_writes_failure; every
//     other cached copy stays until it expires or, with purge enabled, until
//     a purge reaches its location after a lag drawn per location.
//   - Daily quotas reset at 00:00 UTC of the virtual clock; a failed
//     operation does not use quota.
//   - Errors carry Workers KV's messages (internal/kv). A failed read
//     returns after a cold read's latency and a failed write after a
//     write's (a 429 included); an operation rejected before it is sent
//     (expirationTtl under 60 s, a key over 512 bytes) returns after a hot
//     read's time, the cost of the call, so no loop can spin in no time.
//   - A key's state is dropped once nothing about it is live (sweeps every
//     30 s of virtual time), so memory follows live keys, not requests.
type KV struct {
	cacheTTL          int64
	hot, cold, write  plan.Dist
	lag               plan.Dist
	ryw               float64 // read-your-writes failure probability
	purge             bool
	domains           int
	domainPerRequest  bool  // a request keeps the cache domain of its first read
	writeEvery        int64 // write limit: min ns between accepted writes to a key; 0 none
	globalScope       bool
	writeQuota        int64
	readQuota         int64
	outages           []outage
	errRead, errWrite float64
	// plain is true when no read can fail but by its key or location: no
	// outages, no read error rate, no daily read quota.
	plain bool

	rng    *rand.Rand
	ctr    *measure.KVCounters
	counts bool // the values are counts: count lost updates (lost.go)
	// failures holds the error last made of each kind, for failure.
	failures [nFailures]failed

	keys    map[string]*kvKey
	epoch   uint64 // counts sweeps from 1: a kvRef from an earlier one may point to a dropped key, and the zero kvRef matches none
	nLocs   int
	version uint64

	dayEnd        int64 // virtual time the current UTC day ends
	reads, writes int64 // today's accepted operations
	nextSweep     int64
	nextTick      int64 // min(dayEnd, nextSweep): tick has nothing to do before it
}

// NewKV returns an empty KV store for c. The parameters come from a plan,
// which validated them; NewKV only checks what a caller could leave out.
func NewKV(c KVConfig) (*KV, error) {
	p := c.Params
	if c.Rand == nil {
		return nil, fmt.Errorf("kv store: no random source")
	}
	if c.Locations < 1 {
		return nil, fmt.Errorf("kv store: the scenario has no locations: add at least one under locations")
	}
	if p.CacheTTL <= 0 {
		return nil, fmt.Errorf("kv store: cache TTL %v must be above 0 (Workers KV's default is 60s)", p.CacheTTL)
	}
	s := &KV{cacheTTL: int64(p.CacheTTL), hot: p.HotRead, cold: p.ColdRead, write: p.Write, lag: p.PurgeLag,
		ryw: p.ReadYourWritesFailure, purge: p.Purge,
		domains: max(p.CacheDomains, 1), domainPerRequest: p.DomainPerRequest,
		writeEvery: int64(p.WriteEvery), globalScope: p.GlobalWriteLimit,
		writeQuota: p.DailyWriteQuota, readQuota: p.DailyReadQuota,
		errRead: p.ReadErrorRate, errWrite: p.WriteErrorRate, rng: c.Rand, ctr: c.Counters,
		keys: map[string]*kvKey{}, nLocs: c.Locations, epoch: 1}
	for _, o := range p.Outages {
		s.outages = append(s.outages, outage{start: int64(o.Start), end: int64(o.End), loc: o.Location, read: o.Read, write: o.Write})
	}
	s.plain = len(s.outages) == 0 && s.errRead == 0 && s.readQuota == 0
	s.dayEnd = untilMidnight(c.Start)
	s.nextSweep = sweepEvery
	s.nextTick = min(s.dayEnd, s.nextSweep)
	return s, nil
}

// untilMidnight returns how long after start the next 00:00 UTC comes.
func untilMidnight(start time.Time) int64 {
	const day = int64(24 * time.Hour)
	u := start.UnixNano()
	r := u % day
	if r < 0 {
		r += day
	}
	return day - r
}

// badLocation is the error for a location index out of range: a driver's
// mistake, reported rather than crashing the store.
func badLocation(op, key string, loc, n int) error {
	return kv.NewUnavailable(op, key, fmt.Sprintf("location index %d is out of range: the store has %d locations", loc, n))
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// The kinds of error an operation can meet, for failure.
const (
	getDown   = iota // a get during an outage
	getFailed        // a get that meets the error rate
	getQuota         // a get over the daily quota
	putDown
	putFailed
	putQuota
	nFailures
)

// failed is the error last made of one kind, and the key it names.
type failed struct {
	key string
	err error
}

// failure returns the error of the given kind for key. It reuses the last
// one made when it names the same key, so that a flood of failing requests
// (an outage, a spent quota) does not build an error for every request;
// errors are never changed once made, so sharing one is safe.
func (s *KV) failure(kind int, key string) error {
	f := &s.failures[kind]
	if f.err != nil && f.key == key {
		return f.err
	}
	var err error
	switch kind {
	case getDown:
		err = kv.NewUnavailable("get", key, "503 Service Unavailable")
	case getFailed:
		err = kv.NewUnavailable("get", key, "500 Internal Server Error")
	case getQuota:
		err = kv.NewDailyQuota("get", key)
	case putDown:
		err = kv.NewUnavailable("put", key, "503 Service Unavailable")
	case putFailed:
		err = kv.NewUnavailable("put", key, "500 Internal Server Error")
	default:
		err = kv.NewDailyQuota("put", key)
	}
	*f = failed{key: key, err: err}
	return err
}

// tick advances time-driven state to t: the quota day, and now and then a
// sweep of expired state. Small enough to be inlined: most calls find
// nothing due.
func (s *KV) tick(t int64) {
	if t >= s.nextTick {
		s.tickDue(t)
	}
}

// tickDue is tick when something may be due: the next day, or a sweep.
func (s *KV) tickDue(t int64) {
	for t >= s.dayEnd {
		s.dayEnd += int64(24 * time.Hour)
		s.reads, s.writes = 0, 0
	}
	if t >= s.nextSweep {
		s.sweep(t)
	}
	s.nextTick = min(s.dayEnd, s.nextSweep)
}

// down reports whether an outage covers operation read/write at loc and t.
func (s *KV) down(t int64, loc int, write bool) bool {
	for i := range s.outages {
		o := &s.outages[i]
		if t >= o.start && t < o.end && (o.loc < 0 || o.loc == loc) && (write && o.write || !write && o.read) {
			return true
		}
	}
	return false
}

func (s *KV) countRead(err error) {
	if s.ctr != nil {
		s.ctr.Read(err)
	}
}

func (s *KV) countWrite(err error) {
	if s.ctr != nil {
		s.ctr.Write(err)
	}
}

// kvRef remembers where a KV store keeps one key's state, so that a driver
// that reads and writes the same key over and over (the simulator keeps one
// per callerWindow and planned key) finds it without hashing the key each
// time. A ref serves one key, the one it is first used with: the driver
// passes it with no other (its key is not compared). The zero kvRef is
// empty; a ref is refreshed whenever a sweep may have dropped what it
// points to.
type kvRef struct {
	k     *kvKey
	epoch uint64
}

// lookup returns key's state, or nil when the store holds none, using and
// refreshing ref, key's ref, when it is not nil.
func (s *KV) lookup(key string, ref *kvRef) *kvKey {
	if ref != nil && ref.epoch == s.epoch { // ref.k is then set
		return ref.k
	}
	k := s.keys[key]
	if ref != nil && k != nil {
		*ref = kvRef{k: k, epoch: s.epoch}
	}
	return k
}

// Read implements Store.
func (s *KV) Read(now time.Duration, loc, dom int, key string) ReadResult {
	var got limiter.Read
	var res ReadResult
	res.Domain, res.Latency, res.Err = s.read(now, loc, dom, key, nil, &got, &res.Version)
	res.Value, res.Found = got.Value, got.Found
	return res
}

// read is Read, finding the key's state through ref when it is not nil.
// It sets what was read straight into *got and *version (the simulator's
// request: a returned ReadResult was copied twice on the stack and once
// more into the request, and then again into its reads) and returns the
// cache domain used, the latency and the error. A failed read leaves *got
// and *version alone.
func (s *KV) read(now time.Duration, loc, dom int, key string, ref *kvRef, got *limiter.Read, version *uint64) (int, time.Duration, error) {
	t := int64(now)
	s.tick(t)
	if !s.plain || len(key) > kv.MaxKeyBytes || loc < 0 || loc >= s.nLocs {
		if lat, err := s.readFails(t, loc, key); err != nil {
			return 0, lat, err
		}
	}
	s.reads++
	dom = s.pickDomain(dom)
	k := s.lookup(key, ref)
	if k == nil {
		k = &kvKey{}
		s.keys[key] = k
	}
	if k.cache == nil {
		k.cache = make([]cacheEntry, s.nLocs*s.domains)
	}
	e := &k.cache[loc*s.domains+dom]
	var lat time.Duration
	if t < e.expires {
		lat = s.hot.Sample(s.rng)
	} else {
		*e = cacheEntry{expires: after(t, s.cacheTTL)}
		if k.live(t) != 0 {
			e.value, e.found, e.version = k.value, true, k.version
			e.expires = min(e.expires, k.expires)
		}
		lat = s.cold.Sample(s.rng)
	}
	if s.ctr != nil {
		s.ctr.Reads++ // KVCounters.Read(nil), which a profile-guided build may not inline
		if v := k.live(t); v != 0 {
			var staleFor int64 // Visibility reads it only for a stale read
			if e.version != v {
				staleFor = t - k.replacedAt(e.version)
			}
			s.ctr.VisibilityIn(&k.vis, time.Duration(t-k.committed), time.Duration(staleFor), e.version == v)
		}
	}
	got.Value, got.Found, *version = e.value, e.found, e.version
	return dom, lat, nil
}

// readFails runs the checks a read can fail (the key's length, the
// location, outages, the error rate, the quota), in that order, and
// returns the error of the one that failed, with the read's latency, or
// a nil error. read calls it only when one can fail (KV.plain is false,
// or the key or location is out of range): a plain store's reads skip the
// checks, and keeping them out of read keeps read small.
func (s *KV) readFails(t int64, loc int, key string) (time.Duration, error) {
	if len(key) > kv.MaxKeyBytes {
		// Rejected by the runtime without a round trip; a hot read's time
		// stands for the call, so a closed loop cannot spin in no time.
		err := kv.NewKeyTooLong("get", key)
		s.countRead(err)
		return s.hot.Sample(s.rng), err
	}
	if loc < 0 || loc >= s.nLocs {
		err := badLocation("get", key, loc, s.nLocs)
		s.countRead(err)
		return 0, err
	}
	if s.down(t, loc, false) {
		err := s.failure(getDown, key)
		s.countRead(err)
		return s.cold.Sample(s.rng), err
	}
	if s.errRead > 0 && s.rng.Float64() < s.errRead {
		err := s.failure(getFailed, key)
		s.countRead(err)
		return s.cold.Sample(s.rng), err
	}
	if s.readQuota > 0 && s.reads >= s.readQuota {
		err := s.failure(getQuota, key)
		s.countRead(err)
		return s.cold.Sample(s.rng), err
	}
	return 0, nil
}

// Write implements Store.
func (s *KV) Write(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64) (PendingWrite, time.Duration, error) {
	return s.submit(now, loc, dom, key, value, ttl, readVersion, nil)
}

// submit is Write, finding the key's state through ref when it is not nil.
func (s *KV) submit(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64, ref *kvRef) (PendingWrite, time.Duration, error) {
	t := int64(now)
	s.tick(t)
	if err := kv.CheckPut(key, ttl); err != nil {
		s.countWrite(err)
		return PendingWrite{}, s.hot.Sample(s.rng), err
	}
	if loc < 0 || loc >= s.nLocs {
		err := badLocation("put", key, loc, s.nLocs)
		s.countWrite(err)
		return PendingWrite{}, 0, err
	}
	var err error
	switch {
	case s.down(t, loc, true):
		err = s.failure(putDown, key)
	case s.errWrite > 0 && s.rng.Float64() < s.errWrite:
		err = s.failure(putFailed, key)
	case s.writeQuota > 0 && s.writes >= s.writeQuota:
		err = s.failure(putQuota, key)
	}
	k := s.lookup(key, ref)
	if err == nil && s.writeEvery > 0 && k != nil {
		if s.globalScope {
			if k.submitted && t-k.lastSubmit < s.writeEvery {
				err = k.rateLimited(key)
			}
		} else if k.locSubmit != nil && k.locSubmit[loc] != 0 && t-(k.locSubmit[loc]-1) < s.writeEvery {
			err = k.rateLimited(key)
		}
	}
	lat := s.write.Sample(s.rng)
	s.countWrite(err)
	if err != nil {
		return PendingWrite{}, lat, err
	}
	s.writes++
	if k == nil {
		k = &kvKey{}
		s.keys[key] = k
	}
	k.pending++
	if s.writeEvery > 0 {
		if s.globalScope {
			k.lastSubmit, k.submitted = t, true
		} else {
			if k.locSubmit == nil {
				k.locSubmit = make([]int64, s.nLocs)
			}
			k.locSubmit[loc] = t + 1
		}
	}
	return PendingWrite{Key: key, Value: value, TTL: ttl, Loc: loc, Domain: s.pickDomain(dom), ReadVersion: readVersion, k: k}, lat, nil
}

// pickDomain returns the cache domain an operation uses: the request's
// (dom) when caches are picked per request and it has one, else one at
// random.
func (s *KV) pickDomain(dom int) int {
	if s.domains <= 1 {
		return 0
	}
	return s.pickOf(dom)
}

// pickOf is pickDomain with several domains.
func (s *KV) pickOf(dom int) int {
	if s.domainPerRequest && dom >= 0 && dom < s.domains {
		return dom
	}
	return s.rng.IntN(s.domains)
}

// Commit implements Store: the write becomes the central value (last writer
// wins), the writer's domain sees it at once unless read-your-writes fails,
// and purges are sent.
func (s *KV) Commit(now time.Duration, w PendingWrite) {
	t := int64(now)
	s.tick(t)
	// A write in flight keeps its key's state from being swept, so the
	// state Write found is still the key's.
	k := w.k
	if k == nil {
		k = s.keys[w.Key]
	}
	if k == nil { // only if a driver commits a write it never submitted
		k = &kvKey{entry: entry{pending: 1}}
		s.keys[w.Key] = k
	}
	k.pending--
	if k.live(t) == 0 {
		k.nCommit = 0 // a new life of the key: older commits replaced nothing it holds
		settleEntry(&k.entry, s.ctr)
	}
	if s.counts {
		k.acked++
	}
	s.version++
	k.value, k.version, k.committed, k.expires = w.Value, s.version, t, after(t, int64(w.TTL))
	k.noteCommit(s.version, t)
	seen := s.ryw == 0 || s.rng.Float64() >= s.ryw
	if w.Loc < 0 || w.Loc >= s.nLocs || w.Domain < 0 || w.Domain >= s.domains {
		seen = false // a write Write never made: no cache of its own
	}
	if seen {
		if k.cache == nil {
			k.cache = make([]cacheEntry, s.nLocs*s.domains)
		}
		k.cache[w.Loc*s.domains+w.Domain] = cacheEntry{value: w.Value, version: k.version, found: true,
			expires: min(after(t, s.cacheTTL), k.expires)}
	}
	if !s.purge || k.cache == nil {
		return
	}
	for l := 0; l < s.nLocs; l++ {
		lag := int64(-1)
		for d := 0; d < s.domains; d++ {
			if seen && l == w.Loc && d == w.Domain {
				continue
			}
			e := &k.cache[l*s.domains+d]
			if e.expires <= t {
				continue
			}
			if lag < 0 {
				lag = int64(s.lag.Sample(s.rng))
			}
			e.expires = min(e.expires, after(t, lag))
		}
	}
}

// sweep drops every key that holds nothing any more: no live value, no
// write in flight, no live cached copy, no write-limit state in force.
func (s *KV) sweep(t int64) {
	s.nextSweep = t + sweepEvery
	s.epoch++ // the sweep may drop keys that refs point to
	for key, k := range s.keys {
		if k.live(t) == 0 {
			settleEntry(&k.entry, s.ctr)
		}
		if k.pending != 0 || k.live(t) != 0 || (k.submitted && t-k.lastSubmit < s.writeEvery) {
			continue
		}
		keep := false
		for i := range k.cache {
			if k.cache[i].expires > t {
				keep = true
				break
			}
		}
		for _, last := range k.locSubmit {
			if last != 0 && t-(last-1) < s.writeEvery {
				keep = true
				break
			}
		}
		if !keep {
			delete(s.keys, key)
		}
	}
}

// CountIncrements makes the store count lost updates: the engine calls it
// for a limiter whose values are counts (lost.go).
func (s *KV) CountIncrements() { s.counts = true }

// Settle counts the lost updates of every key life still running at now,
// from the central store's counts.
func (s *KV) Settle(now time.Duration) {
	for _, k := range s.keys {
		settleEntry(&k.entry, s.ctr)
	}
}

// Len returns how many keys the store holds state for (live, cached
// somewhere, or not yet swept), for tests of memory growth.
func (s *KV) Len() int { return len(s.keys) }
