package model

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// The hand loops are the speed yardstick: the model of a library scenario
// written out by hand as plain Go, with no engine, no Store interface and no
// limiter on the hot path, a key's count kept as an integer. They make the
// same store draws in the same order from the same trial source as the
// model, and take the traffic's facts (a client's location, its think
// times) from the plan's counter-based draws as the model does, so their
// counts are the model's (TestHandLoopMatchesModel), and BenchmarkHandLoop
// measures how fast the model could be.
//
// They cover what default.yaml and botnet.yaml use: a fixed window that
// fails open, on the KV model with one cache domain, purges, the
// per-location write limit and no errors, quotas or outages; one closed-loop
// population of one request in flight per client, with no think time or an
// exponential one. handConfigOf refuses any other scenario. They count what
// the summary's totals and headline need: requests, allowed, denied, fail
// open, KV reads, writes, errors, lost updates and stale reads, and per
// key-window the allowed requests and their read groups. Left out: latency
// histograms, staleness and visibility, timelines and the most allowed in
// any interval one window long.

// handConfig is what the hand loops read from a scenario before they run:
// plain numbers, times in nanoseconds.
type handConfig struct {
	startNano  int64 // the run's start, Unix nanoseconds
	end        int64 // the run's duration
	limit      int64
	windowMs   int64
	ttl        int64 // the fixed window's expirationTtl: max(60 s, window)
	cacheTTL   int64
	writeEvery int64 // the least time between two accepted writes to a key at one location
	hot, write handLognormal
	lag        handLognormal // a purge's lag to a location
	cold       handEmpirical
	locs       int
	loc        int       // where every request arrives, when cum is nil
	cum        []float64 // spread: a request arrives at the first location i with u < cum[i]
	clients    int
	natPool    int     // callers: client k is caller k % natPool; 0: caller k
	think      float64 // a closed loop's exponential think time's mean; 0: none
	thinkFixed int64   // a closed loop's constant think time (no draw); 0: none
	// pop is the population compiled: the plan draws its clients'
	// locations and think times.
	pop *plan.Population
}

// handLognormal is a lognormal latency: median x e^(sigma x N(0, 1)).
type handLognormal struct{ median, sigma float64 }

// draw draws one latency from r, as plan.Dist.Sample does.
func (d handLognormal) draw(r *rand.Rand) int64 {
	return handCap(d.median * math.Exp(d.sigma*r.NormFloat64()))
}

// handEmpirical is a latency given by quantiles, the piecewise-linear
// inverse CDF through points (ps[i], vs[i]).
type handEmpirical struct{ ps, vs []float64 }

// draw draws one latency from r, as plan.Dist.Sample does.
func (d *handEmpirical) draw(r *rand.Rand) int64 {
	u := r.Float64()
	ps, vs := d.ps, d.vs
	if u <= ps[0] {
		return handCap(vs[0])
	}
	for i := 1; i < len(ps); i++ {
		if u <= ps[i] {
			f := (u - ps[i-1]) / (ps[i] - ps[i-1])
			return handCap(vs[i-1] + f*(vs[i]-vs[i-1]))
		}
	}
	return handCap(vs[len(vs)-1])
}

// handCap converts a drawn latency to nanoseconds, capped at 2^62 as the
// model caps every draw.
func handCap(v float64) int64 {
	if !(v < 1<<62) {
		v = 1 << 62
	}
	return int64(v)
}

// handConfigOf returns the hand loops' configuration of sc, or fails tb
// when sc uses anything they do not reproduce.
func handConfigOf(tb testing.TB, sc *scenario.Scenario) *handConfig {
	tb.Helper()
	fail := func(what string, v any) {
		tb.Helper()
		tb.Fatalf("the hand loops do not reproduce %s %v", what, v)
	}
	lim, st, kv := sc.Limiter, sc.Store, sc.Store.KV
	switch {
	case lim.Algorithm != "fixed-window":
		fail("limiter.algorithm", lim.Algorithm)
	case lim.ErrorPolicy != "fail-open":
		fail("limiter.error_policy", lim.ErrorPolicy)
	case st.Kind != "kv":
		fail("store.kind", st.Kind)
	case sc.Server != nil && sc.Server.Mode != scenario.ServerNone:
		fail("server.mode", sc.Server.Mode)
	case kv.ReadYourWritesP != 0:
		fail("store.kv.read_your_writes_failure", kv.ReadYourWritesP)
	case !kv.Purge.Enabled:
		fail("store.kv.purge.enabled", kv.Purge.Enabled)
	case kv.CacheDomains != 1:
		fail("store.kv.cache_domains", kv.CacheDomains)
	case kv.WriteLimit.PerSecond <= 0 || kv.WriteLimit.Scope != "location":
		fail("store.kv.write_limit", kv.WriteLimit)
	case kv.DailyReadQuota != 0 || kv.DailyWriteQuota != 0:
		fail("a daily quota", kv.DailyReadQuota+kv.DailyWriteQuota)
	case kv.ErrorRate.Read != 0 || kv.ErrorRate.Write != 0 || len(kv.Outages) != 0:
		fail("store errors", kv.ErrorRate)
	case len(sc.Traffic) != 1:
		fail("populations:", len(sc.Traffic))
	case sc.Start.UnixNano() < 0:
		fail("a start before 1970:", sc.Start)
	}
	lognormal := func(what string, l scenario.Latency) handLognormal {
		if l.Dist != scenario.DistLognormal {
			fail(what, l)
		}
		_, sigma := l.LognormalParams()
		return handLognormal{median: float64(l.Median), sigma: sigma}
	}
	c := &handConfig{startNano: sc.Start.UnixNano(), end: int64(sc.Duration), limit: lim.Limit,
		windowMs: time.Duration(lim.Window).Milliseconds(), ttl: int64(max(60*time.Second, time.Duration(lim.Window))),
		cacheTTL: int64(kv.CacheTTL), writeEvery: int64(float64(time.Second) / kv.WriteLimit.PerSecond),
		hot: lognormal("store.kv.hot_read", kv.HotRead), write: lognormal("store.kv.write", kv.Write),
		lag: lognormal("store.kv.purge.lag", kv.Purge.Lag), locs: len(sc.Locations)}
	if kv.ColdRead.Dist != scenario.DistEmpirical {
		fail("store.kv.cold_read", kv.ColdRead)
	}
	for _, q := range kv.ColdRead.Points {
		c.cold.ps = append(c.cold.ps, q.P)
		c.cold.vs = append(c.cold.vs, float64(q.Value))
	}

	p := sc.Traffic[0]
	c.clients = p.Clients
	pl, err := plan.Compile(sc)
	if err != nil {
		tb.Fatal(err)
	}
	c.pop = &pl.Populations[0]
	switch {
	case p.ClosedLoop == nil || p.ClosedLoop.Concurrency != 1:
		fail("a population that is not a closed loop of concurrency 1:", p.Name)
	case p.Start != 0 || (p.Duration != 0 && p.Duration < sc.Duration):
		fail("a population's start or duration:", p.Name)
	case p.Identity.Token == "shared" && p.Identity.IP == "nat":
		c.natPool = p.Identity.NATPool
	case p.Identity.Token == "per-client" && p.Identity.IP != "none":
	default:
		fail("traffic identity", p.Identity)
	}
	switch think := p.ClosedLoop.Think; {
	case think.IsZero() || think.Dist == scenario.DistConstant && think.Value == 0:
	case think.Dist == scenario.DistExponential:
		c.think = float64(think.Mean)
	case think.Dist == scenario.DistConstant:
		c.thinkFixed = int64(think.Value)
	default:
		fail("think time", think)
	}
	switch p.Arrive.Mode {
	case "one":
		for i, l := range sc.Locations {
			if l.Name == p.Arrive.Location {
				c.loc = i
			}
		}
	case "spread":
		// The cumulative weights, as plan compiles them.
		var sum, acc float64
		w := make([]float64, len(sc.Locations))
		for i, l := range sc.Locations {
			w[i] = l.Weight
			sum += l.Weight
		}
		if sum == 0 {
			for i := range w {
				w[i] = 1
			}
			sum = float64(len(w))
		}
		for _, x := range w {
			acc += x
			c.cum = append(c.cum, acc/sum)
		}
		c.cum[len(c.cum)-1] = 1
		if len(c.cum) == 1 {
			c.cum = nil // one location: no draw
		}
	default:
		fail("arrive.mode", p.Arrive.Mode)
	}
	return c
}

// callerOf returns client k's caller: its limiter key is one per caller and
// window.
func (c *handConfig) callerOf(k int) int {
	if c.natPool > 0 {
		return k % c.natPool
	}
	return k
}

// callers returns how many callers the clients are.
func (c *handConfig) callers() int {
	if c.natPool > 0 {
		return min(c.natPool, c.clients)
	}
	return c.clients
}

// handCache is one location's cached read of a key: the count (when
// found) and its version, until expires.
type handCache struct {
	count   int64
	version uint64
	expires int64
	found   bool
}

// handKey is one limiter key, one caller in one window: the KV model's
// state of it and what the recorder counts of it.
type handKey struct {
	window int64
	until  int64 // when the window ends, from the run's start
	// The committed count, its version (0: none), and when it expires.
	count   int64
	version uint64
	expires int64
	acked   int64       // the writes committed in the key's life: its increments
	cache   []handCache // per location
	// lastWrite is, per location, the last accepted write's time + 1 (0:
	// none), for the write limit.
	lastWrite []int64
	// decided says a request of the key-window was decided; allowed counts
	// its allowed requests, and groups those that read each count.
	decided bool
	allowed int64
	groups  []int64
}

// handTotals are a hand loop's counts of one trial or several.
type handTotals struct {
	Requests, Allowed, Denied, FailOpen                 int64
	Reads, Writes, WriteErrors, LostUpdates, StaleReads int64
	// KeyWindows are the key-windows that decided a request; MaxAllowed
	// the most one allowed, OverLimit how many allowed more than the
	// limit, Excess by how many in all, and ReadGroup the most allowed
	// requests of one key-window that read the same count.
	KeyWindows, MaxAllowed, OverLimit, Excess, ReadGroup int64
}

// add pools o into t.
func (t *handTotals) add(o handTotals) {
	t.Requests += o.Requests
	t.Allowed += o.Allowed
	t.Denied += o.Denied
	t.FailOpen += o.FailOpen
	t.Reads += o.Reads
	t.Writes += o.Writes
	t.WriteErrors += o.WriteErrors
	t.LostUpdates += o.LostUpdates
	t.StaleReads += o.StaleReads
	t.KeyWindows += o.KeyWindows
	t.MaxAllowed = max(t.MaxAllowed, o.MaxAllowed)
	t.OverLimit += o.OverLimit
	t.Excess += o.Excess
	t.ReadGroup = max(t.ReadGroup, o.ReadGroup)
}

// handTrial is the state the hand loops share: the trial's random source,
// the KV model's latest version, and the keys.
type handTrial struct {
	c       *handConfig
	r       *rand.Rand
	version uint64
	keys    [][]*handKey // per caller, one per window, oldest first
	tot     handTotals
}

// newHandTrial starts trial i of a run with seed.
func newHandTrial(c *handConfig, seed uint64, i int) *handTrial {
	r := TrialRand(seed, i)
	return &handTrial{c: c, r: r, keys: make([][]*handKey, c.callers())}
}

// key returns caller's key for a request sent at now. Requests are sent in
// time order, so a caller's key is its newest, until its window ends, or a
// new one.
func (h *handTrial) key(caller int, now int64) *handKey {
	ks := h.keys[caller]
	if n := len(ks); n > 0 && now < ks[n-1].until {
		return ks[n-1]
	}
	ms := int64(time.Millisecond)
	w := (h.c.startNano + now) / ms / h.c.windowMs
	k := &handKey{window: w, until: (w+1)*h.c.windowMs*ms - h.c.startNano,
		cache: make([]handCache, h.c.locs), lastWrite: make([]int64, h.c.locs), groups: make([]int64, h.c.limit)}
	h.keys[caller] = append(ks, k)
	return k
}

// read reads k at location loc at t: from the cache while its entry lives
// (a hot read), else from the central store into the cache (a cold read).
// It returns what was read and the read's latency.
func (h *handTrial) read(k *handKey, loc int, t int64) (handCache, int64) {
	e := &k.cache[loc]
	var lat int64
	if t < e.expires {
		lat = h.c.hot.draw(h.r)
	} else {
		*e = handCache{expires: t + h.c.cacheTTL}
		if k.version != 0 && t < k.expires {
			e.count, e.found, e.version = k.count, true, k.version
			e.expires = min(e.expires, k.expires)
		}
		lat = h.c.cold.draw(h.r)
	}
	h.tot.Reads++
	if k.version != 0 && t < k.expires && e.version != k.version {
		h.tot.StaleReads++
	}
	return *e, lat
}

// submit submits a write to k from loc at t. It returns the write's
// latency and whether it was accepted (else the write limit refused it).
func (h *handTrial) submit(k *handKey, loc int, t int64) (int64, bool) {
	limited := k.lastWrite[loc] != 0 && t-(k.lastWrite[loc]-1) < h.c.writeEvery
	lat := h.c.write.draw(h.r)
	h.tot.Writes++
	if limited {
		h.tot.WriteErrors++
		return lat, false
	}
	k.lastWrite[loc] = t + 1
	return lat, true
}

// commit commits count to k at t, written from loc by a writer that read
// version read: loc's cache holds it at once, every other live cached copy
// is purged after a lag drawn per location. It is one increment of the
// key's life; a life that is over is settled first (lost).
func (h *handTrial) commit(k *handKey, loc int, read uint64, count, t int64) {
	if k.version != 0 && t >= k.expires {
		h.lost(k)
	}
	k.acked++
	h.version++
	k.count, k.version, k.expires = count, h.version, t+h.c.ttl
	k.cache[loc] = handCache{count: count, version: k.version, expires: min(t+h.c.cacheTTL, k.expires), found: true}
	for l := range k.cache {
		e := &k.cache[l]
		if l == loc || e.expires <= t {
			continue
		}
		e.expires = min(e.expires, t+h.c.lag.draw(h.r))
	}
}

// denied records a denied request of k.
func (h *handTrial) denied(k *handKey) {
	h.tot.Requests++
	h.tot.Denied++
	k.decided = true
}

// allowed records an allowed request of k that read count.
func (h *handTrial) allowed(k *handKey, count int64) {
	h.tot.Requests++
	h.tot.Allowed++
	k.decided = true
	k.allowed++
	k.groups[count]++
}

// failedOpen records a request of k allowed because its write failed.
func (h *handTrial) failedOpen(k *handKey) {
	h.tot.Requests++
	h.tot.Allowed++
	h.tot.FailOpen++
	k.decided = true
	k.allowed++
}

// lost counts the lost updates of k's life: its increments less the count
// it ends with.
func (h *handTrial) lost(k *handKey) {
	h.tot.LostUpdates += max(0, k.acked-k.count)
	k.acked = 0
}

// finish returns the trial's totals, its key-windows counted and their
// lost updates settled.
func (h *handTrial) finish() handTotals {
	for _, ks := range h.keys {
		for _, k := range ks {
			h.lost(k)
		}
	}
	t := h.tot
	for _, ks := range h.keys {
		for _, k := range ks {
			if !k.decided {
				continue
			}
			t.KeyWindows++
			t.MaxAllowed = max(t.MaxAllowed, k.allowed)
			if k.allowed > h.c.limit {
				t.OverLimit++
				t.Excess += k.allowed - h.c.limit
			}
			for _, n := range k.groups {
				t.ReadGroup = max(t.ReadGroup, n)
			}
		}
	}
	return t
}

// handDefault runs trial i of default.yaml's shape: one client that sends
// its next request as soon as the last one answers, so no event queue: the
// loop's clock jumps from one step to the next.
func handDefault(c *handConfig, seed uint64, i int) handTotals {
	if c.clients != 1 || c.think != 0 || c.thinkFixed != 0 || c.cum != nil {
		panic("handDefault runs one client with no think time at one location")
	}
	h := newHandTrial(c, seed, i)
	loc := c.loc
	now := int64(0)
	for now < c.end {
		k := h.key(0, now)
		got, lat := h.read(k, loc, now)
		if now += lat; now >= c.end {
			break
		}
		count := int64(0)
		if got.found {
			count = got.count
		}
		if count >= c.limit {
			h.denied(k)
			continue
		}
		lat, ok := h.submit(k, loc, now)
		now += lat
		if !ok {
			h.failedOpen(k)
			continue
		}
		h.allowed(k, count)
		if now >= c.end {
			break
		}
		h.commit(k, loc, got.version, count+1, now)
	}
	return h.finish()
}

// What a hand loop's client does next.
const (
	handSend   uint8 = iota // send a request
	handRead                // take the read's result and decide
	handCommit              // the write commits and the response arrives
	handDone                // a failed write's response arrives
)

// handEvent is a client's next step, at a time; seq orders steps at one
// time in the order they were scheduled.
type handEvent struct {
	at     int64
	seq    uint64
	client int32
	kind   uint8
}

// handBefore reports whether a runs before b.
func handBefore(a, b *handEvent) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// handClient is one client of handBotnet and its request in flight.
type handClient struct {
	caller int
	loc    int
	draws  plan.Draws // the plan's draws of the client's traffic
	sent   int64      // requests sent
	thinks int64      // think times drawn
	k      *handKey
	got    handCache // what the request read
	count  int64     // the count it read: got's, 0 when not found
}

// handBotnet runs trial i of botnet.yaml's shape: clients that each keep one
// request in flight and think between them, their requests spread over
// locations at random (default.yaml's one client too). Every client has
// exactly one step scheduled, so the queue is a binary heap of one event per
// client whose top is replaced by the client's next step.
func handBotnet(c *handConfig, seed uint64, i int) handTotals {
	h := newHandTrial(c, seed, i)
	cs := make([]handClient, c.clients)
	q := make([]handEvent, c.clients) // all at 0 in client order: a heap
	for k := range cs {
		cs[k] = handClient{caller: c.callerOf(k), loc: c.loc, draws: plan.NewStream(seed, i).Client(c.pop, k)}
		q[k] = handEvent{client: int32(k), kind: handSend, seq: uint64(k)}
	}
	seq := uint64(len(q))
	for len(q) > 0 && q[0].at < c.end {
		e := &q[0]
		now := e.at
		cl := &cs[e.client]
		think := false
		switch e.kind {
		case handSend:
			if c.cum != nil {
				cl.loc = c.pop.Location(cl.draws, cl.sent)
			}
			cl.sent++
			cl.k = h.key(cl.caller, now)
			var lat int64
			cl.got, lat = h.read(cl.k, cl.loc, now)
			e.at, e.kind = now+lat, handRead
		case handRead:
			count := int64(0)
			if cl.got.found {
				count = cl.got.count
			}
			cl.count = count
			if count >= c.limit {
				h.denied(cl.k)
				think = true
				break
			}
			lat, ok := h.submit(cl.k, cl.loc, now)
			if ok {
				h.allowed(cl.k, count)
				e.at, e.kind = now+lat, handCommit
			} else {
				h.failedOpen(cl.k)
				e.at, e.kind = now+lat, handDone
			}
		case handCommit:
			h.commit(cl.k, cl.loc, cl.got.version, cl.count+1, now)
			think = true
		case handDone:
			think = true
		}
		if think {
			next := now
			if c.think > 0 {
				next += int64(c.pop.ThinkTime(cl.draws, cl.thinks))
				cl.thinks++
			}
			next += c.thinkFixed
			if next >= c.end || next < now {
				// The client sends no more: its step leaves the queue.
				last := len(q) - 1
				q[0] = q[last]
				if q = q[:last]; last > 0 {
					handSiftDown(q)
				}
				continue
			}
			e.at, e.kind = next, handSend
		}
		e.seq = seq
		seq++
		handSiftDown(q)
	}
	return h.finish()
}

// handSiftDown moves the top of q (not empty) down to its place in the heap,
// moving the earlier child up into the hole at each level.
func handSiftDown(q []handEvent) {
	x := q[0]
	i, n := 0, len(q)
	for {
		m := 2*i + 1
		if m >= n {
			break
		}
		if r := m + 1; r < n && handBefore(&q[r], &q[m]) {
			m = r
		}
		if !handBefore(&q[m], &x) {
			break
		}
		q[i] = q[m]
		i = m
	}
	q[i] = x
}

// TestHandLoopMatchesModel checks the hand loops against the model: for the
// same seed and trials, every count they keep must be the model's.
// Disagreement means one of them is wrong: the docs (docs/scenarios.md,
// docs/facts.md) say which.
func TestHandLoopMatchesModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		sets   []string
		loop   func(*handConfig, uint64, int) handTotals
		trials int
	}{
		{"default", nil, handDefault, 3},
		{"default", []string{"duration=10m", "start=2026-01-01T23:55:00Z", "limiter.limit=20"}, handDefault, 2},
		{"default", nil, handBotnet, 2}, // the general loop, its queue of one
		{"botnet", []string{"duration=2m"}, handBotnet, 3},
		{"botnet", []string{"duration=1m", "traffic.botnet.closed_loop.think.mean=50ms"}, handBotnet, 2},
		{"botnet", []string{"duration=1m", "traffic.botnet.identity.token=per-client", "traffic.botnet.identity.ip=per-client", "traffic.botnet.identity.nat_pool=0"}, handBotnet, 2},
		{"botnet", clientsSets(1000), handBotnet, 2}, // BenchmarkClients' scenario
	}
	for _, tc := range tests {
		sc := libraryScenario(t, tc.name, tc.sets...)
		c := handConfigOf(t, sc)
		pl := planOf(t, sc)
		for _, seed := range []uint64{sc.Seed, 1, 99} {
			s, err := Run(pl, Options{Seed: seed, Trials: tc.trials})
			if err != nil {
				t.Fatal(err)
			}
			var h handTotals
			for i := 0; i < tc.trials; i++ {
				h.add(tc.loop(c, seed, i))
			}
			o, kv := s.Overshoot, s.KV
			model := handTotals{Requests: s.Totals.Requests, Allowed: s.Totals.Allowed, Denied: s.Totals.Denied,
				FailOpen: s.Totals.FailOpen, Reads: kv.Reads, Writes: kv.Writes, WriteErrors: kv.WriteErrors,
				LostUpdates: kv.LostUpdates, StaleReads: kv.StaleReads, KeyWindows: o.KeyWindows,
				MaxAllowed: o.MaxAllowed, OverLimit: o.OverLimit, Excess: o.Excess, ReadGroup: o.LargestReadGroup}
			if h != model {
				t.Errorf("%s %v seed %d: hand loop\n%+v\nmodel\n%+v", tc.name, tc.sets, seed, h, model)
			}
			if h.Requests == 0 || h.Allowed == 0 || h.Denied == 0 {
				t.Errorf("%s %v seed %d: a count is 0, the test shows little: %+v", tc.name, tc.sets, seed, h)
			}
			// What the hand loops do not count must be none.
			if kv.ReadErrors != 0 || kv.WriteErrors != kv.WriteRateLimited || s.Totals.Errors != 0 || s.Totals.FailClosed != 0 {
				t.Errorf("%s %v seed %d: the model met errors the hand loops do not make: %+v %+v", tc.name, tc.sets, seed, s.Totals, kv)
			}
			if want := float64(h.MaxAllowed) / float64(c.limit); o.Ratio.Max != want {
				t.Errorf("%s %v seed %d: ratio.max %v, hand loop %v", tc.name, tc.sets, seed, o.Ratio.Max, want)
			}
		}
	}
}

// BenchmarkHandLoop runs the hand loops of default.yaml and botnet.yaml, and
// the default by botnet's general loop with its event queue (default-heap),
// one trial per iteration: the trial BenchmarkLibrary runs of each (its
// first, at the scenario's seed), the same requests. scripts/bench-sim.sh
// -callgrind prints the model's instructions per request over the hand
// loops'.
func BenchmarkHandLoop(b *testing.B) {
	for _, tc := range []struct {
		name, scenario string
		sets           []string
		loop           func(*handConfig, uint64, int) handTotals
	}{
		{"default", "default", nil, handDefault},
		{"botnet", "botnet", nil, handBotnet},
		{"default-heap", "default", nil, handBotnet}, // the default run by botnet's general loop
		// BenchmarkClients' ends: what 10,000 clients cost a loop with
		// no engine, against one client.
		{"clients=1", "botnet", clientsSets(1), handBotnet},
		{"clients=10000", "botnet", clientsSets(10000), handBotnet},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sc := libraryScenario(b, tc.scenario, tc.sets...)
			c := handConfigOf(b, sc)
			benchRequests(b, func() int64 { return tc.loop(c, sc.Seed, 0).Requests })
		})
	}
}
