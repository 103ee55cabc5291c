package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Event kinds.
const (
	evLoop   uint8 = iota + 1 // a closed-loop client sends (idx: client)
	evOpen                    // an open-loop client sends (idx: client)
	evBurst                   // a population bursts (idx: population)
	evSend                    // a client sends one request of a spread burst (idx: client)
	evRead                    // a read's result reaches the request (idx: request)
	evCommit                  // a request's write commits (idx: request)
	evOwner                   // a request reaches its key's owner (idx: request)
	evDone                    // a response reaches its client (idx: request)
	evUpdate                  // a request's atomic update reaches the store (idx: request)
	evReadAt                  // a read reaches a halfway store (idx: request)
	evStart                   // a request's own work at its host is done: its first operation goes out (idx: request)
)

// compiled is a plan prepared once for the engine, shared read-only by
// every trial.
type compiled struct {
	plan  *plan.Plan
	lim   *limiter.Limiter
	start time.Time
	end   int64
	// startNano is start in Unix nanoseconds, when nanoClock says every
	// instant of the run has one: the limiter plans from it without
	// building a time.Time from start for each request.
	startNano int64
	nanoClock bool
	pops      []plan.Population
	nClients  int
	mpops     []measure.Population
	// stuckAfter is how many events may run at one instant before the
	// trial is declared stuck: stuckLimit plus room for every request the
	// populations can send at once.
	stuckAfter int
	// probe, when set (tests only), is called every probeEvery events.
	probe func(t *trial)
}

// probeEvery is how often (in events) compiled.probe is called.
const probeEvery = 1 << 16

// compile prepares pl for the engine.
func compile(pl *plan.Plan) (*compiled, error) {
	if pl == nil {
		return nil, fmt.Errorf("no plan")
	}
	lim, err := limiter.New(pl.Limiter)
	if err != nil {
		return nil, err
	}
	c := &compiled{plan: pl, lim: lim, start: pl.Start, end: int64(pl.Duration), pops: pl.Populations,
		nClients: pl.Clients, mpops: pl.MeasurePopulations()}
	if ns := c.start.UnixNano(); time.Unix(0, ns).Equal(c.start) {
		if endNs := ns + c.end; endNs >= ns && time.Unix(0, endNs).Equal(c.start.Add(time.Duration(c.end))) {
			c.startNano, c.nanoClock = ns, true
		}
	}
	c.stuckAfter = stuckLimit
	for _, p := range c.pops {
		// Each request at one instant takes a few events (send, read, ...),
		// so a population that sends many at once may run that many.
		c.stuckAfter += 8 * p.InFlightAtOnce()
	}
	if err := c.checkUpdate(); err != nil {
		return nil, err
	}
	// Build one store now, so that its errors surface before any trial.
	if _, _, err := c.newStore(rand.New(rand.NewPCG(0, 0)), nil); err != nil {
		return nil, err
	}
	return c, nil
}

// checkUpdate refuses a limiter of the atomic shape on a store the model
// cannot apply its update on in one step: the memory store applies it at
// commit, a Durable Object at its owner; Workers KV has no atomic update.
func (c *compiled) checkUpdate() error {
	if !c.lim.Atomic() {
		return nil
	}
	switch k := c.plan.Store.Kind; {
	case k != plan.Memory && k != plan.DurableObject && k != plan.Redis:
		return fmt.Errorf("limiter.update atomic: the model's %s store has no atomic update: use read-then-write, or store.kind memory, redis or durable-object", k)
	case k == plan.Redis && c.plan.Store.Redis.Wait > 0:
		return fmt.Errorf("limiter.update atomic: the model's redis store does not WAIT after a script: set store.redis.wait to 0, or use read-then-write")
	case c.plan.Server.Mode != plan.ServerNone:
		return fmt.Errorf("limiter.update atomic: the serving side's model runs read-then-write steps only: use read-then-write, or server.mode none")
	}
	return nil
}

// newStore builds the plan's store for one trial: either a Store the
// engine drives op by op, or an Owned one.
func (c *compiled) newStore(rng *rand.Rand, ctr *measure.KVCounters) (Store, Owned, error) {
	st := c.plan.Store
	n := len(c.plan.Locations)
	if len(c.plan.Faults) > 0 && st.Kind != plan.Redis {
		return nil, nil, fmt.Errorf("faults: store kind %v does not model faults: run them on store.kind redis, or remove faults", st.Kind)
	}
	switch st.Kind {
	case plan.KV:
		s, err := NewKV(KVConfig{Params: st.KV, Locations: n, Start: c.start, Rand: rng, Counters: ctr})
		return s, nil, err
	case plan.Memory:
		s, err := NewMemory(st.Latency, rng, ctr)
		return s, nil, err
	case plan.DurableObject:
		o, err := NewDurableObjects(st.DurableObject, n, rng, ctr)
		return nil, o, err
	case plan.PerLocation:
		o, err := NewPerLocation(st.Latency, st.RateLimitSync, n, rng, ctr)
		return nil, o, err
	case plan.Redis:
		s, err := NewRedis(RedisConfig{Params: st.Redis, Faults: c.plan.Faults, Rand: rng, Counters: ctr})
		return s, nil, err
	}
	return nil, nil, fmt.Errorf("store kind %v is unknown", st.Kind)
}

// request is one request in flight.
type request struct {
	client int32
	cl     *client // &trial.clients[client], found without indexing
	loc    int32
	dom    int32 // the cache domain the request used, AnyDomain before its first read
	owner  int32
	nread  int32
	// win is the plan the request was planned with, for its caller
	// (win.caller) and window, and into how far into that window it was
	// sent (the plan's Into: planOf).
	win  *callerWindow
	into time.Duration
	// got are the reads of the plan's keys. A reused slot's got[1] may
	// hold its last request's read: only a plan of two keys looks at it,
	// and that plan reads both keys first (the limiter's algorithm, and
	// so its plans' number of keys, is the same for the whole run).
	got      [2]limiter.Read
	versions [2]uint64 // the versions read, per planned key
	// err is the error of the read in flight, nil when it succeeded:
	// readDone takes it, and clears it, so that a read that succeeds
	// stores nothing here.
	err     error
	w       PendingWrite
	out     int64            // owned stores and halfway ones: the way back (a read's: its round trip)
	sentAt  int64            // when the request was sent, for its latency
	decided measure.Decision // what it got, for its latency by decision
}

// trial is the state of one trial.
type trial struct {
	c       *compiled
	rng     *rand.Rand
	q       queue
	now     int64
	store   Store
	kv      *KV              // store, when it is the KV model: called with key refs
	mem     updater          // store, when the limiter's updates are atomic: one update a request (updateDone)
	inc     incrementCounter // store, when it counts lost updates: settled at the trial's end
	hw      halfway          // store, when its operations take effect half-way (with no serving side)
	qu      queued           // mem, when its updates can wait for a thread (redis)
	rq      requester        // store, when each request takes time at its host before its first operation
	owned   Owned
	rec     *measure.Recorder
	clients []client
	reqs    []request
	free    []int32
	srv     *server // the serving side; nil for server mode none (server.go)
	// direct says a request goes straight to the store's first read: the
	// store is driven op by op (not owned) and there is no serving side.
	direct bool
	// dec is readDone's decision, set whole by DecideInto: kept here
	// rather than zeroed on the stack for every request.
	dec limiter.Decision
	// plan is planOf's: a request's plan with its Into.
	plan limiter.Plan

	i        int // the trial's number
	st       trialStats
	last     int64 // the latest event's time
	same     int   // how many events ran at last
	requests int64 // requests started
	maxQueue int   // most events ever scheduled at once
	maxReqs  int   // most requests ever in flight

	// onSend, when set (by tests), is told of every request sent: its
	// client, its number for the client and its location.
	onSend func(c *client, ci int32, n int64, loc int32)
}

// trialStats describes the work of one trial, for benchmarks and tests of
// memory growth.
type trialStats struct {
	Requests    int64 // requests started
	Events      int64 // events processed
	MaxQueue    int   // most events scheduled at once
	MaxInFlight int   // most requests in flight at once
}

// stuckLimit is how many events beyond those of the requests sent at once
// may run at one virtual instant before the trial is declared stuck (a
// closed loop with no latency and no think time never lets time advance).
var stuckLimit = 1 << 20

// runTrial runs trial i of a run with seed and returns its results.
func (c *compiled) runTrial(ctx context.Context, seed uint64, i int) (measure.Trial, trialStats, error) {
	t, err := c.newTrial(seed, i)
	if err != nil {
		return measure.Trial{}, trialStats{}, err
	}
	if _, err := t.run(ctx, -1); err != nil {
		return measure.Trial{}, t.st, err
	}
	if t.inc != nil {
		t.inc.Settle(time.Duration(c.end))
	}
	t.st.Requests, t.st.MaxQueue, t.st.MaxInFlight = t.requests, t.maxQueue, t.maxReqs
	return t.rec.Finish(time.Duration(c.end)), t.st, nil
}

// newTrial prepares trial i of a run with seed, its first events
// scheduled.
func (c *compiled) newTrial(seed uint64, i int) (*trial, error) {
	t := &trial{c: c, i: i, last: -1}
	t.rng = TrialRand(seed, i)
	t.rec = measure.NewRecorder(measure.Config{Limit: c.lim.Config().Limit, Window: c.lim.Config().Window, Algorithm: string(c.lim.Config().Algorithm),
		Start: c.start, Populations: c.mpops})
	var err error
	if t.store, t.owned, err = c.newStore(t.rng, &t.rec.KV); err != nil {
		return nil, err
	}
	if ic, ok := t.store.(incrementCounter); ok && c.lim.Config().Algorithm.Counts() {
		t.inc = ic
		ic.CountIncrements()
	}
	t.srv = newServer(t)
	t.kv, _ = t.store.(*KV)
	if c.lim.Atomic() {
		t.mem, _ = t.store.(updater)
		t.qu, _ = t.store.(queued)
	}
	t.direct = t.owned == nil && t.srv == nil
	if t.srv == nil {
		t.hw, _ = t.store.(halfway)
	}
	if rq, ok := t.store.(requester); ok && rq.PerRequest() {
		t.rq = rq
	}
	t.clients = newClients(c.pops, c.nClients, plan.NewStream(seed, i))
	t.schedule()
	return t, nil
}

// run runs up to n events taken from the queue (all of them when n < 0)
// and reports whether the trial has ended: no event is left before its
// end. A closed loop's send that done starts itself (sendsNow) counts as
// an event in trialStats.Events, but not in n.
//
// It is never inlined: some profiles had a profile-guided build inline it
// into runTrial, where the hot loop cost about 21 more instructions per
// request on default.yaml and 31 on botnet.yaml.
//
//go:noinline
func (t *trial) run(ctx context.Context, n int64) (bool, error) {
	c := t.c
	for ; n != 0; n-- {
		e, ok := t.q.popBefore(c.end)
		if !ok {
			return true, nil
		}
		t.st.Events++
		if e.at == t.last {
			if t.same++; t.same > c.stuckAfter {
				return true, fmt.Errorf("trial %d is stuck at %v: %d events without time advancing; give closed loops a think time or the store a latency above 0", t.i, time.Duration(e.at), t.same)
			}
		} else {
			t.last, t.same = e.at, 0
		}
		if t.st.Events&(probeEvery-1) == 0 {
			if ctx.Err() != nil {
				return true, ctx.Err()
			}
			if c.probe != nil {
				c.probe(t)
			}
		}
		t.now = e.at
		t.step(e)
	}
	return false, nil
}

// schedule queues every population's first sends.
func (t *trial) schedule() {
	for pi := range t.c.pops {
		p := &t.c.pops[pi]
		start, end := int64(p.Start), int64(p.End)
		if start >= end {
			continue
		}
		switch p.Send {
		case plan.Closed:
			for k := 0; k < p.Clients; k++ {
				for j := 0; j < p.Concurrency; j++ {
					t.push(start, evLoop, int32(p.First+k))
				}
			}
		case plan.Open:
			for k := 0; k < p.Clients; k++ {
				c := &t.clients[p.First+k]
				c.y = p.Arrival(c.draws, k, 0, 0)
				if at := int64(p.ArrivalAt(c.y)); at < end {
					t.push(at, evOpen, int32(p.First+k))
				}
			}
		case plan.Burst:
			if at := start + int64(p.BurstAt); at < end {
				t.push(at, evBurst, int32(pi))
			}
		}
	}
}

func (t *trial) push(at int64, kind uint8, idx int32) {
	if at < t.now { // overflow past the end of time: never runs
		at = math.MaxInt64
	}
	t.q.push(at, kind, idx)
	if n := t.q.len(); n > t.maxQueue {
		t.maxQueue = n
	}
}

// step runs one event.
func (t *trial) step(e event) {
	switch e.kind {
	case evLoop:
		t.send(&t.clients[e.idx], e.idx, nil, 0)
	case evOpen:
		c := &t.clients[e.idx]
		t.send(c, e.idx, nil, 0)
		p := c.p
		if at := nextOpen(p, c, int(e.idx)-p.First); at < int64(p.End) {
			t.push(at, evOpen, e.idx)
		}
	case evBurst:
		t.burst(&t.c.pops[e.idx], e.idx)
	case evSend:
		t.send(&t.clients[e.idx], e.idx, nil, 0)
	case evRead:
		t.readDone(e.idx)
	case evReadAt:
		t.readHalf(e.idx)
	case evCommit:
		r := &t.reqs[e.idx]
		t.store.Commit(time.Duration(t.now), r.w)
		if t.hw != nil {
			t.push(t.now+r.out, evDone, e.idx)
		} else {
			t.done(r, e.idx)
		}
	case evOwner:
		t.atOwner(e.idx)
	case evDone:
		t.done(&t.reqs[e.idx], e.idx)
	case evUpdate:
		t.updateDone(e.idx)
	case evStart:
		t.start(&t.reqs[e.idx], e.idx)
	default:
		t.srv.step(t, e)
	}
}

// burst sends, or schedules, the requests of population p's burst that
// begins now, as the plan times them (plan.Population.BurstTime), and
// schedules the next burst. A burst without a spread sends at once.
func (t *trial) burst(p *plan.Population, pi int32) {
	n := int64(p.Clients * p.BurstSize)
	b := int64(0) // the burst's number
	if p.BurstEvery > 0 {
		b = (t.now - int64(p.Start+p.BurstAt)) / int64(p.BurstEvery)
	}
	end := int64(p.End)
	for j := range n {
		i, ci := b*n+j, int32(p.First)+int32(j%int64(p.Clients))
		if p.BurstSpread <= 0 {
			t.send(&t.clients[ci], ci, nil, 0)
		} else if at := int64(p.BurstTime(i)); at < end {
			t.push(at, evSend, ci)
		}
	}
	if next := int64(p.BurstTime((b + 1) * n)); next < end {
		t.push(next, evBurst, pi)
	}
}

// send starts a request from client c, &t.clients[ci], at now, in request
// slot ri, r: the slot of the client's request just done (which release
// and alloc would have handed it), or a new one when r is nil.
//
// It is never inlined: a profile-guided build would otherwise inline it
// into step and done wherever the profile finds them hot, and the larger
// callers then cost more than the call saves (28 more instructions per
// request on default.yaml with one regenerated profile).
//
//go:noinline
func (t *trial) send(c *client, ci int32, r *request, ri int32) {
	if r == nil {
		ri = t.alloc()
		r = &t.reqs[ri]
	}
	p := c.p
	n := c.nextCaller(p, ci)
	t.requests++
	// A reused slot keeps its last request's fields; set every one this
	// request reads before it writes it.
	r.client, r.cl, r.nread, r.dom, r.sentAt, r.decided = ci, c, 0, AnyDomain, t.now, measure.DecidedError
	loc := c.location(n)
	r.loc = loc
	if t.onSend != nil {
		t.onSend(c, ci, n, loc)
	}
	r.win, r.into = t.planFor(c)
	if t.rq != nil {
		if d := t.rq.Request(time.Duration(t.now)); d > 0 {
			t.push(t.now+int64(d), evStart, ri)
			return
		}
	}
	t.start(r, ri)
}

// start sends request r's (&t.reqs[ri]) first operation to the store, now.
func (t *trial) start(r *request, ri int32) {
	if t.mem != nil {
		there, back := half(t.mem.UpdateLatency())
		r.out = int64(back)
		t.push(t.now+int64(there), evUpdate, ri)
		return
	}
	if t.direct {
		t.read(r, ri)
		return
	}
	if t.owned != nil {
		owner, in, out := t.owned.Route(time.Duration(t.now), int(r.loc), r.win.plan.Keys[0])
		r.owner, r.out = int32(owner), int64(out)
		t.push(t.now+int64(in), evOwner, ri)
		return
	}
	if t.srv != nil {
		t.srv.arrive(t, ri)
		return
	}
	t.read(r, ri)
}

// planFor returns the plan of client c's request at now, and how far into
// its window now is: c.win while it serves c's caller at now, else a new
// one, which c keeps. On a clock in Unix nanoseconds (nanoClock) that is
// two comparisons with the window's bounds, with no call.
func (t *trial) planFor(c *client) (*callerWindow, time.Duration) {
	if t.c.nanoClock {
		now := t.c.startNano + t.now
		if w := c.win; w != nil && now >= w.from && now < w.to {
			return w, time.Duration(now - w.from)
		}
		w := &callerWindow{caller: c.caller}
		t.c.lim.PlanIntoUnixNano(&w.plan, &w.keys, now, c.caller)
		w.from, w.to = w.keys.WindowUnixNano()
		c.win = w
		return w, w.plan.Into
	}
	// Beyond int64 nanoseconds: plan with the time (c.win's keys serve
	// while they are the caller's for the window), and keep a new
	// callerWindow when the plan's keys or window differ from c.win's.
	p := &t.plan
	w := c.win
	if w == nil {
		w = &callerWindow{caller: c.caller}
	}
	t.c.lim.PlanInto(p, &w.keys, t.c.start.Add(time.Duration(t.now)), c.caller)
	if c.win == nil || p.Window != w.plan.Window || p.NKeys != w.plan.NKeys || p.Keys != w.plan.Keys {
		w = &callerWindow{caller: c.caller, plan: *p, keys: w.keys}
		c.win = w
	}
	return w, p.Into
}

// planOf returns request r's plan, its Into set, in t.plan: for the calls
// that take a whole plan.
func (t *trial) planOf(r *request) *limiter.Plan {
	t.plan = r.win.plan
	t.plan.Into = r.into
	return &t.plan
}

// read issues the next read of request r, &t.reqs[ri] (passed along, as
// done's, so that it is not indexed again: a pointer into t.reqs is good
// until the next alloc). What it reads goes into r.got and r.versions at
// once: the read takes effect when it is issued, and nothing looks at
// them before readDone. At a halfway store the read takes effect half-way
// through its round trip (readHalf).
func (t *trial) read(r *request, ri int32) {
	if t.hw != nil {
		lat := t.hw.Draw()
		r.out = int64(lat)
		there, _ := half(lat)
		t.push(t.now+int64(there), evReadAt, ri)
		return
	}
	var dom int
	var lat time.Duration
	var err error
	if t.kv != nil {
		ref := &r.win.refs[r.nread]
		dom, lat, err = t.kv.read(time.Duration(t.now), int(r.loc), int(r.dom), r.win.plan.Keys[r.nread], ref, &r.got[r.nread], &r.versions[r.nread])
	} else {
		res := t.store.Read(time.Duration(t.now), int(r.loc), int(r.dom), r.win.plan.Keys[r.nread])
		r.got[r.nread] = limiter.Read{Value: res.Value, Found: res.Found}
		r.versions[r.nread] = res.Version
		dom, lat, err = res.Domain, res.Latency, res.Err
	}
	if err != nil {
		r.err = err
	}
	r.dom = int32(dom)
	t.push(t.now+int64(lat), evRead, ri)
}

// readHalf runs request ri's read at a halfway store, now, half-way
// through the round trip read drew (r.out), and schedules its answer.
func (t *trial) readHalf(ri int32) {
	r := &t.reqs[ri]
	res := t.hw.ReadHalf(time.Duration(t.now), time.Duration(r.out), int(r.loc), int(r.dom), r.win.plan.Keys[r.nread])
	r.got[r.nread] = limiter.Read{Value: res.Value, Found: res.Found}
	r.versions[r.nread] = res.Version
	if res.Err != nil {
		r.err = res.Err
	}
	r.dom = int32(res.Domain)
	t.push(t.now+int64(res.Latency), evRead, ri)
}

// readDone takes a read's result: on error the error policy decides; after
// the last read the limiter decides and the write, if any, is submitted.
//
// It is never inlined: inlined into step, it makes step too large to be
// inlined into run, which costs more than the call saves.
//
//go:noinline
func (t *trial) readDone(ri int32) {
	r := &t.reqs[ri]
	if r.err != nil {
		err := r.err
		r.err = nil
		d := t.c.lim.Failed(*t.planOf(r), err)
		t.record(r, &d)
		t.done(r, ri)
		return
	}
	r.nread++
	if int(r.nread) < r.win.plan.NKeys {
		t.read(r, ri)
		return
	}
	// The usual request of a flood is denied by the count: recorded from
	// the plan's window, with no Decision built.
	if t.c.lim.DeniesByCount(&r.win.plan, &r.got) && t.rec.Denied(&r.win.rec, int(r.cl.pop), r.win.plan.Window, time.Duration(t.now), r.into) {
		r.decided = measure.DecidedDenied
		t.done(r, ri)
		return
	}
	d := &t.dec
	t.c.lim.DecideInto(d, t.planOf(r), &r.got)
	if d.Write.Key == "" {
		t.record(r, d)
		t.done(r, ri)
		return
	}
	// The writer read the key it writes (every algorithm writes one of
	// its planned keys); that read's version is what it replaces.
	version, slot := UnknownVersion, -1
	for i := 0; i < r.win.plan.NKeys; i++ {
		if r.win.plan.Keys[i] == d.Write.Key {
			version, slot = r.versions[i], i
			break
		}
	}
	if t.srv != nil {
		t.srv.hold(t, ri, *d, version)
		return
	}
	if t.hw != nil {
		t.writeHalf(r, ri, d, version)
		return
	}
	var w PendingWrite
	var lat time.Duration
	var err error
	if t.kv != nil && slot >= 0 {
		ref := &r.win.refs[slot]
		w, lat, err = t.kv.submit(time.Duration(t.now), int(r.loc), int(r.dom), d.Write.Key, d.Write.Value, d.Write.TTL, version, ref)
	} else {
		w, lat, err = t.store.Write(time.Duration(t.now), int(r.loc), int(r.dom), d.Write.Key, d.Write.Value, d.Write.TTL, version)
	}
	if err != nil {
		d := t.c.lim.Failed(*t.planOf(r), err)
		t.record(r, &d)
		t.push(t.now+int64(lat), evDone, ri)
		return
	}
	t.record(r, d)
	r.w = w
	t.push(t.now+int64(lat), evCommit, ri)
}

// writeHalf submits decision d's write for request r, &t.reqs[ri], to a
// halfway store: it commits when the store says (half-way), and the
// response reaches the client at the end of the write's round trip.
func (t *trial) writeHalf(r *request, ri int32, d *limiter.Decision, version uint64) {
	w, effect, answer, err := t.hw.WriteHalf(time.Duration(t.now), int(r.loc), int(r.dom), d.Write.Key, d.Write.Value, d.Write.TTL, version)
	if err != nil {
		d := t.c.lim.Failed(*t.planOf(r), err)
		t.record(r, &d)
		t.push(t.now+int64(answer), evDone, ri)
		return
	}
	t.record(r, d)
	r.w = w
	r.out = int64(answer - effect)
	t.push(t.now+int64(effect), evCommit, ri)
}

// updateDone applies request ri's atomic update at the store, now (half-way
// through its round trip), in one step: the values its keys hold, the
// limiter's Update on them, its write committed at once. The response
// reaches the client at the end of the round trip, r.out later.
func (t *trial) updateDone(ri int32) {
	r := &t.reqs[ri]
	now := time.Duration(t.now)
	p := t.planOf(r)
	d := &t.dec
	err := t.mem.Update(now, &p.Keys, p.NKeys, &r.got)
	out := r.out
	if t.qu != nil {
		out += int64(t.qu.LastWait())
	}
	if c, ok := t.mem.(cutter); ok && err == nil {
		if lat, cerr := c.CutUpdate(now, now+time.Duration(out), p.Keys[0]); cerr != nil {
			err, out = cerr, int64(lat)
		}
	}
	if err != nil {
		*d = t.c.lim.Failed(*p, err)
	} else {
		t.c.lim.UpdateInto(d, p, &r.got)
		if d.Write.Key != "" {
			if err := t.mem.Apply(now, &d.Write); err != nil {
				*d = t.c.lim.Failed(*p, err)
			}
		}
	}
	t.record(r, d)
	t.push(t.now+out, evDone, ri)
}

// atOwner runs the read, decision and write at the key's owner, atomically.
func (t *trial) atOwner(ri int32) {
	r := &t.reqs[ri]
	now := time.Duration(t.now)
	owner := int(r.owner)
	p := t.planOf(r)
	if err := t.owned.Admit(now, owner, p.Keys[0]); err != nil {
		d := t.c.lim.Failed(*p, err)
		t.record(r, &d)
	} else if lg, ok := t.owned.(lagged); ok && lg.Lagged() {
		t.laggedAtOwner(r, lg, now, owner)
	} else {
		for i := 0; i < p.NKeys; i++ {
			r.got[i].Value, r.got[i].Found = t.owned.Get(now, owner, p.Keys[i])
		}
		var d limiter.Decision
		if t.c.lim.Atomic() {
			t.c.lim.UpdateInto(&d, p, &r.got) // the INCR shape: every request counts
		} else {
			t.c.lim.DecideInto(&d, p, &r.got)
		}
		if d.Write.Key != "" {
			if err := t.owned.Put(now, owner, d.Write.Key, d.Write.Value, d.Write.TTL); err != nil {
				d = t.c.lim.Failed(*p, err)
			}
		}
		t.record(r, &d)
	}
	t.push(t.now+r.out, evDone, ri)
}

// lagged is an Owned store whose decisions read a cached view of a key
// (the Rate Limiting binding's counters, updated asynchronously).
type lagged interface {
	Lagged() bool
	View(now time.Duration, owner int, key string) (value string, found bool)
	Fresh(now time.Duration, owner int, key string) (value string, found bool)
}

// laggedAtOwner decides r on the owner's cached view; an allowed request's
// increment is then applied to the count itself (decided again on it, so
// that increments add up instead of overwriting each other). An increment
// the count itself refuses (already at the limit) is not stored, which
// leaves the later decisions of a count at or past its limit unchanged.
func (t *trial) laggedAtOwner(r *request, lg lagged, now time.Duration, owner int) {
	p := t.planOf(r)
	for i := 0; i < p.NKeys; i++ {
		r.got[i].Value, r.got[i].Found = lg.View(now, owner, p.Keys[i])
	}
	d := t.c.lim.Decide(*p, r.got)
	if d.Allowed && d.Write.Key != "" {
		for i := 0; i < p.NKeys; i++ {
			r.got[i].Value, r.got[i].Found = lg.Fresh(now, owner, p.Keys[i])
		}
		if w := t.c.lim.Decide(*p, r.got).Write; w.Key != "" {
			if err := t.owned.Put(now, owner, w.Key, w.Value, w.TTL); err != nil {
				d = t.c.lim.Failed(*p, err)
			}
		}
	}
	t.record(r, &d)
}

// record reports the decision for r, made now.
func (t *trial) record(r *request, d *limiter.Decision) {
	c := r.cl
	if !d.Allowed && !d.FailClosed && t.rec.Denied(&r.win.rec, int(c.pop), d.Window, time.Duration(t.now), r.into) {
		r.decided = measure.DecidedDenied
		return
	}
	out := measure.Denied
	if d.Allowed {
		out = measure.Allowed
	}
	e := measure.Event{Pop: int(c.pop), Client: int(r.client), Key: r.win.caller, Window: d.Window, At: time.Duration(t.now), Into: r.into, Planned: true,
		Outcome: out, FailOpen: d.FailOpen, FailClosed: d.FailClosed, Remaining: d.Remaining, HasRemaining: d.Allowed && !d.FailOpen}
	r.decided = measure.DecisionOf(e)
	t.rec.RecordWith(&r.win.rec, e)
}

// done completes request r, &t.reqs[ri]: its response has reached the
// client. A closed loop thinks, then sends again.
func (t *trial) done(r *request, ri int32) {
	if t.srv != nil && t.srv.respond(t, ri) {
		return
	}
	t.rec.RequestLatency(r.decided, time.Duration(t.now-r.sentAt))
	ci, c := r.client, r.cl
	if !c.closed {
		t.release(ri)
		return
	}
	next := t.now
	if c.thinks {
		next += c.think()
	}
	if next < c.stopAt && next >= t.now {
		if next == t.now && t.sendsNow() {
			t.send(c, ci, r, ri) // in this request's slot
			return
		}
		t.push(next, evLoop, ci)
	}
	t.release(ri)
}

// sendsNow reports whether a closed loop's send at now, were it pushed,
// would be the next event run, with nothing for run to check before it,
// and if so counts it as run does: the queue is empty, so it would be
// popped next (now is before the trial's end); it is neither the event
// that makes the trial stuck nor one that probes. Then done starts the
// send itself, without a push and a pop, and the order is the same.
func (t *trial) sendsNow() bool {
	if t.q.n != 0 || t.srv != nil || t.same >= t.c.stuckAfter || (t.st.Events+1)&(probeEvery-1) == 0 {
		return false
	}
	t.st.Events++
	t.same++
	return true
}

// alloc takes a request slot from the free list, or grows the slice.
func (t *trial) alloc() int32 {
	if n := len(t.free); n > 0 {
		ri := t.free[n-1]
		t.free = t.free[:n-1]
		return ri
	}
	t.reqs = append(t.reqs, request{})
	if len(t.reqs) > t.maxReqs {
		t.maxReqs = len(t.reqs)
	}
	return int32(len(t.reqs) - 1)
}

// release returns a request slot. Its fields are left as they are (zeroing
// them costs write barriers on every request); send resets what it must,
// and what they still reference is bounded by the requests in flight.
func (t *trial) release(ri int32) {
	t.free = append(t.free, ri)
}
