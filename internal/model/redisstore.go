package model

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Redis is the model of Redis with asynchronous replicas watched by
// Sentinel (store.kind redis), a Store the engine drives op by op.
//
// Node 0 starts as the primary and nodes 1 to N as its replicas
// (replica-1 to replica-N). Every command takes store.redis.latency, a
// round trip; as in the memory store, driven by the engine (halfway) a
// command takes effect half-way through it and answers at its end. A write committed at the primary is
// applied at each replica after a lag drawn per replica per write, in
// order per replica (a write never overtakes an earlier one). Reads go to
// the primary, or, with read: replica, to a replica drawn at random per
// read among those the sentinels do not hold down (go-redis's replica
// reads pick one per connection), or the primary when there is none.
//
// With store.redis.service set, every command waits for the host's
// thread (redisqueue.go), in no fixed order or, with order: fifo, its
// turn; with fifo a committed write's copy also reaches each replica the
// host's backlog later than its lag says (it takes no capacity).
//
// With wait > 0 a write is followed by WAIT: its answer comes when that
// many replicas applied it (or after wait_timeout), one more round trip
// later; a WAIT longer than the client's timeout fails the request though
// the write stays committed.
//
// The faults schedule (plan.Faults) drives failover. A primary killed,
// paused or partitioned from its replicas and the sentinels for at least
// down_after is failed over: failover later the replica that applied most
// (Sentinel prefers the greatest replication offset) is promoted; the
// writes the old primary had committed that the promoted replica had not
// applied are lost (counted as the increments missing from the count a
// key ends with, lost.go). Clients reach the new
// primary reconnect after the promotion; until then they send to the old
// one: a killed node fails each command after a redial (a sentinel's
// round trip and a connect before the command's own, redisfaults.go's
// redial), and a read or an atomic update the primary took before its
// kill and had not answered yet times out at the client (its links are cut
// with it: cutAnswer), a paused one answers nothing (the
// client times out), a partitioned one keeps taking writes, which are
// lost too (the last failover wins). A deposed primary that comes back is
// resynchronised as a replica of the new one. The other replicas
// resynchronise from the promoted one: they keep the writes it has and
// drop the others.
//
// Simplifications (docs/stores.md): a write meets its node as it is
// when the write is sent (a write sent before a kill and due after it
// is lost, though the limiter took it as written), a read or an atomic
// update when it reaches it, half-way; a write that timed out
// at the client never
// takes effect; a full resynchronisation is instant; a failover with no
// reachable replica at promotion time does not happen and is not retried.
type Redis struct {
	p     plan.RedisParams
	rng   *rand.Rand
	ctr   *measure.KVCounters
	nodes []*rnode
	// primary is the node the sentinels and replicas take for the
	// primary (-1: none left); client the node clients send writes and
	// primary reads to.
	primary, client int
	now             int64 // the time the store has advanced to
	acts            acts
	waits           waitHeap // commits of writes that WAIT, by time
	nwaits          uint64
	version         uint64
	// acked holds, per key life, the writes committed or lost on their
	// way (the increments acknowledged: lost.go), when counts is set.
	acked     map[string]life
	counts    bool
	free      *repItem
	failovers int
	nextSweep int64
	scratch   []int
	// queued: commands wait for the thread that serves them all
	// (store.redis.service set), q; lastWait is the last atomic update's
	// wait and service there.
	queued   bool
	q        rqueue
	lastWait int64
	// kills are the times of the schedule's kill-primary faults
	// (cutAnswer).
	kills []int64
}

// RedisConfig configures a Redis store.
type RedisConfig struct {
	Params plan.RedisParams
	// Faults is the schedule (plan.Plan.Faults), sorted by start.
	Faults []plan.Fault
	// Rand draws every latency, lag and replica pick.
	Rand *rand.Rand
	// Counters, when set, receive every operation and lost update.
	Counters *measure.KVCounters
}

// rnode is one redis-server.
type rnode struct {
	data map[string]*rentry
	// isPrimary: the node takes writes (it was the primary and has not
	// been demoted, or it was promoted).
	isPrimary bool
	dead      bool
	// paused is set from pausedSince to pausedUntil; cut (partitioned
	// from replicas and sentinels) until cutUntil.
	paused                   bool
	pausedSince, pausedUntil int64
	cut                      bool
	cutUntil                 int64
	// seq counts the writes of the node's history: committed (primary)
	// or applied (replica), numbered across a failover.
	seq uint64
	// A replica's writes still to apply, in order; unblockedAt is when it
	// last could apply again (after a pause, a partition or a failover),
	// lastApply the apply time of the latest queued write.
	head, tail             *repItem
	unblockedAt, lastApply int64
	// Link latency added to writes sent to this replica until linkUntil.
	linkLat, linkJitter, linkUntil int64
}

// rentry is one key at a node.
type rentry struct {
	value     string
	version   uint64
	committed int64 // when the write holding value committed at its primary
	expires   int64
	// npending counts the key's writes queued at this replica;
	// pendingFirst is the commit time of the first (the write that made
	// value stale), lastPending the last.
	npending     int32
	pendingFirst int64
	lastPending  *repItem
	// ackAt is when the write holding value was answered to its client;
	// prev and prevAckAt the value before it and when that was answered
	// (hasPrev: there was one), so that a read is judged against the
	// latest write acknowledged before it was sent.
	ackAt, prevAckAt int64
	prev             string
	hasPrev          bool
}

// live returns the version e holds at t, 0 when none (never written, or
// expired).
func (e *rentry) live(t int64) uint64 {
	if e != nil && e.version != 0 && t < e.expires {
		return e.version
	}
	return 0
}

// NewRedis returns a Redis store with a primary and cfg.Params.Replicas
// replicas, every node empty, the faults scheduled.
func NewRedis(cfg RedisConfig) (*Redis, error) {
	if cfg.Rand == nil {
		return nil, fmt.Errorf("redis store: no random source")
	}
	p := cfg.Params
	if p.Replicas < 0 || p.Wait < 0 || p.Wait > p.Replicas {
		return nil, fmt.Errorf("redis store: %d replicas and wait %d: give 0 or more replicas and a wait of at most their number", p.Replicas, p.Wait)
	}
	if p.Timeout <= 0 || p.DownAfter <= 0 {
		return nil, fmt.Errorf("redis store: timeout %v and down_after %v must be above 0", p.Timeout, p.DownAfter)
	}
	s := &Redis{p: p, rng: cfg.Rand, ctr: cfg.Counters, acked: map[string]life{}, nextSweep: sweepEvery, queued: p.Queued,
		q: rqueue{free: make([]int64, max(p.Threads, 1))}}
	for i := 0; i <= p.Replicas; i++ {
		s.nodes = append(s.nodes, &rnode{data: map[string]*rentry{}, isPrimary: i == 0})
	}
	for _, f := range cfg.Faults {
		if f.Target >= 0 && int(f.Target) >= p.Replicas {
			return nil, fmt.Errorf("redis store: fault %s at %v targets %s but there are %d replicas", f.Kind, f.At, f.Target, p.Replicas)
		}
		s.acts.push(int64(f.At), func(t int64) { s.startFault(t, f) })
		if f.Kind == plan.KillPrimary {
			s.kills = append(s.kills, int64(f.At))
		}
	}
	return s, nil
}

// Failovers returns how many promotions the store has made.
func (s *Redis) Failovers() int { return s.failovers }

// Primary returns the node the sentinels take for the primary (0 at
// first, replica-N is node N; -1: none).
func (s *Redis) Primary() int { return s.primary }

// Read implements Store.
func (s *Redis) Read(now time.Duration, loc, dom int, key string) ReadResult {
	t := s.advance(int64(now))
	lat := s.p.Latency.Sample(s.rng)
	there, _ := half(lat)
	return s.read(t, t, lat, int64(there), dom, key)
}

// Draw implements halfway.
func (s *Redis) Draw() time.Duration { return s.p.Latency.Sample(s.rng) }

// ReadHalf implements halfway: the read meets its node, and is judged
// (faults, timeout), when it reaches it, half-way through lat.
func (s *Redis) ReadHalf(now, lat time.Duration, loc, dom int, key string) ReadResult {
	t := s.advance(int64(now))
	there, _ := half(lat)
	r := s.read(t, t-int64(there), lat, 0, dom, key)
	r.Latency = max(r.Latency-there, 0)
	return r
}

// read reads key at t, for a read sent at sent, with round trip lat, the
// read reaching the host's thread in after t (0 for a read at that node:
// ReadHalf); the result's Latency is the round trip as the faults, the
// thread's queue and the client's timeout make it.
func (s *Redis) read(t, sent int64, lat time.Duration, in int64, dom int, key string) ReadResult {
	n := s.client
	if s.p.ReadReplica {
		n = s.pickReplica(t)
	}
	lat, err := s.reach(n, t, lat, "get", key)
	if !s.nodes[n].paused {
		var qerr error
		if lat, qerr = s.queue(t+in, lat, "get", key); err == nil {
			err = qerr
		}
	}
	if err == nil && s.cutAnswer(n, t+in, sent+int64(lat)) {
		lat, err = s.p.Timeout, kv.NewUnavailable("get", key, fmt.Sprintf("redis: timeout: i/o timeout after %v: the primary was killed before its answer reached the client", s.p.Timeout))
	}
	if err != nil {
		if s.ctr != nil {
			s.ctr.Read(err)
		}
		return ReadResult{Err: err, Latency: lat, Domain: dom}
	}
	r := ReadResult{Latency: lat, Domain: dom}
	e := s.nodes[n].data[key]
	if v := e.live(t); v != 0 {
		r.Value, r.Found, r.Version = e.value, true, v
	}
	if s.ctr != nil {
		s.ctr.Read(nil)
		s.visibility(t, sent, n, key, e, r.Version)
	}
	return r
}

// visibility records a read at t, sent at sent, of a key holding a live
// value at the node clients write to, whose entry at node n, the node
// read, is e. A read of that node is fresh, as the memory store's. A
// replica read is fresh unless it missed the latest write acknowledged
// before it was sent (redis.Ledger's definition): when it returned the
// value the primary holds, or the count of that acknowledged write by any
// write (a live client tells counts apart, not writes); one sent before
// any write it could know of was acknowledged is not counted.
func (s *Redis) visibility(t, sent int64, n int, key string, e *rentry, got uint64) {
	truth := s.nodes[s.client].data[key]
	v := truth.live(t)
	if v == 0 {
		return
	}
	want := truth.value
	if n != s.client && truth.ackAt > sent {
		if !truth.hasPrev || truth.prevAckAt > sent {
			return
		}
		want = truth.prev
	}
	since := time.Duration(t - truth.committed)
	if got == v || got != 0 && e.value == want {
		s.ctr.Visibility(since, 0, true)
		return
	}
	staleFor := since
	if e != nil && e.npending > 0 {
		staleFor = time.Duration(t - e.pendingFirst)
	}
	s.ctr.Visibility(since, staleFor, false)
}

// Write implements Store: WriteHalf's write, to be committed when its
// answer comes.
func (s *Redis) Write(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64) (PendingWrite, time.Duration, error) {
	w, _, answer, err := s.WriteHalf(now, loc, dom, key, value, ttl, readVersion)
	return w, answer, err
}

// WriteHalf implements halfway. The write goes to the node clients take
// for the primary; it fails at a dead node after the client's redial, is
// refused at once by a replica, and times out at a paused one; it is
// judged when it is sent. It takes effect
// half-way through its round trip (after a paused node resumes, half-way
// back from then).
func (s *Redis) WriteHalf(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64) (PendingWrite, time.Duration, time.Duration, error) {
	t := s.advance(int64(now))
	raw := s.p.Latency.Sample(s.rng)
	lat := raw
	n := s.client
	var err error
	if ttl < time.Second {
		err = kv.NewInvalidTTL(key, ttl)
	} else if lat, err = s.reach(n, t, lat, "put", key); err == nil && !s.nodes[n].isPrimary {
		err = kv.NewUnavailable("put", key, readOnlyText)
	}
	_, back := half(raw)
	effect := max(lat-back, 0)
	if ttl >= time.Second && !s.nodes[n].paused {
		var qerr error
		if lat, qerr = s.queue(t+int64(effect), lat, "put", key); err == nil {
			err = qerr
		}
	}
	w := PendingWrite{Key: key, Value: value, TTL: ttl, Loc: loc, Domain: n, ReadVersion: readVersion, ackAt: t + int64(lat)}
	if err == nil && s.p.Wait > 0 {
		w, lat, err = s.wait(t, effect, lat, w)
	}
	if s.ctr != nil {
		s.ctr.Write(err)
	}
	if err != nil {
		return PendingWrite{}, 0, lat, err
	}
	return w, effect, lat, nil
}

// Commit implements Store. A write that WAITs was committed at its time
// already (advance).
func (s *Redis) Commit(now time.Duration, w PendingWrite) {
	t := s.advance(int64(now))
	if s.p.Wait > 0 {
		return
	}
	s.commit(t, w, nil)
}

// What a client sees from a killed primary (its address accepts and
// closes every connection: redisfaults.go's redial) and from a replica
// asked to write, as go-redis says them.
const (
	deadText     = "redis: EOF: the server is down, its address closes every connection"
	readOnlyText = "redis: READONLY You can't write against a read only replica"
)

// reach returns the latency of a command sent at t to node n with round
// trip lat, or the error the client sees: from a dead node after the
// client's redial and lat, after the client's timeout from a node paused
// past it.
func (s *Redis) reach(n int, t int64, lat time.Duration, op, key string) (time.Duration, error) {
	nd := s.nodes[n]
	timeout := s.p.Timeout
	switch {
	case nd.dead:
		return lat + time.Duration(s.redial(t)), kv.NewUnavailable(op, key, deadText)
	case nd.paused:
		if nd.pausedUntil-t < int64(timeout-lat) {
			return time.Duration(nd.pausedUntil-t) + lat, nil
		}
		return timeout, kv.NewUnavailable(op, key, fmt.Sprintf("redis: timeout: i/o timeout after %v: the server does not answer", timeout))
	case lat > timeout:
		return timeout, kv.NewUnavailable(op, key, fmt.Sprintf("redis: timeout: i/o timeout after %v", timeout))
	}
	return lat, nil
}

// queue adds to a command's round trip lat its wait and service at the
// thread, which it reaches at t (serve), or returns the client's timeout
// error when that makes it too long. A command refused by a dead node or
// a replica is served too: the thread stands for the host's cores, which
// the client's side of a refused command takes as well; one sent to a
// paused node is not (it waits for an answer, taking no time of the
// host's until it times out).
func (s *Redis) queue(t int64, lat time.Duration, op, key string) (time.Duration, error) {
	if !s.queued {
		return lat, nil
	}
	lat += time.Duration(s.serve(t))
	if lat > s.p.Timeout {
		return s.p.Timeout, kv.NewUnavailable(op, key, fmt.Sprintf("redis: timeout: i/o timeout after %v", s.p.Timeout))
	}
	return lat, nil
}

// cutAnswer reports whether a read that node n took at at, whose answer
// would reach its client at answer, never reaches it: n is the primary and
// is killed in between. The harness kills a primary with its links cut
// (its proxy holds what it has not yet delivered, and the client waits
// for its timeout); only the answers of commands the node had taken are
// held: a command still on its way finds the node dead and fails as a
// dead node's do (reach). Reads, and atomic updates through CutUpdate,
// which the engine then neither decides on nor applies; a write's answer
// cut so would leave the model's acknowledged increments and the ledger's
// apart (parity_test.go), so writes answer as before.
func (s *Redis) cutAnswer(n int, at, answer int64) bool {
	if n != s.primary {
		return false
	}
	for _, k := range s.kills {
		if k >= at && k < answer {
			return true
		}
	}
	return false
}

// pickReplica returns the node a replica read goes to: one of the
// replicas the sentinels do not hold down (alive, not paused for
// down_after or more), drawn at random, or the clients' primary when there
// is none.
func (s *Redis) pickReplica(t int64) int {
	c := s.scratch[:0]
	for i, nd := range s.nodes {
		if !nd.isPrimary && !nd.dead && !(nd.paused && t-nd.pausedSince >= int64(s.p.DownAfter)) {
			c = append(c, i)
		}
	}
	s.scratch = c
	switch len(c) {
	case 0:
		return s.client
	case 1:
		return c[0]
	}
	return c[s.rng.IntN(len(c))]
}

// commit makes write w take effect at its node at t. At the primary it is
// the memory store's last-writer-wins commit, sent to every replica with
// lags (drawn now when nil). At a deposed primary or a node gone since
// the write was sent, the write is lost. Either way it is an increment
// acknowledged (lost.go).
func (s *Redis) commit(t int64, w PendingWrite, lags []int64) {
	n := w.Domain
	nd := s.nodes[n]
	s.version++
	v := s.version
	if n != s.primary || nd.dead {
		if nd.isPrimary && !nd.dead {
			s.set(nd, w, v, t) // its clients read it until it is demoted
			nd.seq++
		}
		s.acknowledged(t, w)
		return
	}
	s.acknowledged(t, w)
	s.set(nd, w, v, t)
	nd.seq++
	for i, r := range s.nodes {
		if r.isPrimary || r.dead {
			continue
		}
		var lag int64
		if lags != nil {
			lag = lags[i]
		} else {
			lag = s.lag(r, t)
		}
		s.enqueue(r, w, v, nd.seq, t, lag)
	}
}

// set stores w's value as version v at node nd, committed at t.
func (s *Redis) set(nd *rnode, w PendingWrite, v uint64, t int64) {
	e := nd.data[w.Key]
	if e == nil {
		e = &rentry{}
		nd.data[w.Key] = e
	}
	e.prev, e.prevAckAt, e.hasPrev = e.value, e.ackAt, e.live(t) != 0
	e.value, e.version, e.committed, e.expires = w.Value, v, t, after(t, int64(w.TTL))
	e.ackAt = w.ackAt
	if w.ackAt == 0 {
		e.ackAt = t // an atomic update's: answered half a round trip later
	}
}

// CountIncrements makes the store count lost updates: the engine calls it
// for a limiter whose values are counts (lost.go).
func (s *Redis) CountIncrements() { s.counts = true }

// life is a key's life as its writers made it: the writes acknowledged,
// and when the latest of them set it to expire. A failover does not end
// it: a promoted replica without the key has lost its increments.
type life struct {
	acked, expires int64
}

// acknowledged counts write w, committed (or lost) at t, in its key's
// life, settling the life before it when that is over.
func (s *Redis) acknowledged(t int64, w PendingWrite) {
	if !s.counts {
		return
	}
	l := s.acked[w.Key]
	if l.acked > 0 && t >= l.expires {
		s.settleKey(w.Key, s.truth().data[w.Key])
		l = life{}
	}
	l.acked++
	l.expires = after(t, int64(w.TTL))
	s.acked[w.Key] = l
}

// settleKey counts the lost updates of key's life, which ends with e at
// the primary (nil: the primary does not have the key), and forgets it.
func (s *Redis) settleKey(key string, e *rentry) {
	l, ok := s.acked[key]
	if !ok {
		return
	}
	delete(s.acked, key)
	if s.ctr != nil {
		v, found := e.valueOf()
		s.ctr.Lost(lostOf(l.acked, v, found))
	}
}

// valueOf returns the value e holds, live or expired (its last), and
// whether it holds one; false for nil.
func (e *rentry) valueOf() (string, bool) {
	if e == nil || e.version == 0 {
		return "", false
	}
	return e.value, true
}

// truth returns the node whose counts a key ends with: the one the
// sentinels take for the primary, or, with none left, the one clients
// send to.
func (s *Redis) truth() *rnode {
	if s.primary >= 0 {
		return s.nodes[s.primary]
	}
	return s.nodes[s.client]
}

// Held returns the value the node the sentinels take for the primary
// holds for key at now, and whether it holds one: what a key's count ends
// with (a live run's redis.Ledger reads it so at the end).
func (s *Redis) Held(now time.Duration, key string) (string, bool) {
	t := s.advance(int64(now))
	e := s.truth().data[key]
	if e.live(t) == 0 {
		return "", false
	}
	return e.value, true
}

// Settle counts the lost updates of every key life still running at now,
// from the counts at the primary.
func (s *Redis) Settle(now time.Duration) {
	s.advance(int64(now))
	nd := s.truth()
	for key := range s.acked {
		s.settleKey(key, nd.data[key])
	}
}

// lag draws the replication lag of a write sent at t to replica r: the
// store's lag and the host's backlog then (none unless order: fifo), plus
// a link-latency fault's latency and jitter.
func (s *Redis) lag(r *rnode, t int64) int64 {
	lag := after(int64(s.p.ReplicationLag.Sample(s.rng)), s.backlog(t))
	if t < r.linkUntil {
		extra := r.linkLat
		if r.linkJitter > 0 {
			extra += int64((s.rng.Float64()*2 - 1) * float64(r.linkJitter))
		}
		lag = after(lag, max(extra, 0))
	}
	return lag
}

// wait is Write for a write followed by WAIT: the write commits at the
// primary at t+effect (queued in s.waits), its answer comes at t+lat, and
// WAIT's answer comes when p.Wait replicas applied it, as their lags and
// the faults then in force say, or after wait_timeout, one more round
// trip later. A WAIT that outlasts the client's timeout is an error; the
// write stays committed.
func (s *Redis) wait(t int64, effect, lat time.Duration, w PendingWrite) (PendingWrite, time.Duration, error) {
	e := t + int64(effect)
	lags := make([]int64, len(s.nodes))
	etas := make([]int64, 0, len(s.nodes))
	for i, r := range s.nodes {
		if r.isPrimary || r.dead {
			continue
		}
		lags[i] = s.lag(r, e)
		etas = append(etas, s.eta(r, max(after(e, lags[i]), r.lastApply)))
	}
	ack := int64(math.MaxInt64)
	if len(etas) >= s.p.Wait {
		sortInt64(etas)
		ack = etas[s.p.Wait-1]
	}
	if wt := int64(s.p.WaitTimeout); wt > 0 {
		ack = min(ack, after(e, wt))
	}
	sent := t + int64(lat) // WAIT is sent when the write's answer comes
	half := int64(s.p.Latency.Sample(s.rng)) / 2
	answer := after(max(after(sent, half), ack), half)
	timedOut := answer-sent > int64(s.p.Timeout)
	w.ackAt = answer
	if timedOut {
		w.ackAt = math.MaxInt64 // committed, never acknowledged
	}
	s.nwaits++
	heap.Push(&s.waits, waitingWrite{at: e, n: s.nwaits, w: w, lags: lags})
	if timedOut {
		err := kv.NewUnavailable("put", w.Key, fmt.Sprintf("redis: WAIT %d: timeout: i/o timeout after %v", s.p.Wait, s.p.Timeout))
		return PendingWrite{}, lat + s.p.Timeout, err
	}
	return w, time.Duration(answer - t), nil
}

// eta returns when replica r can apply a write due at a, as the faults
// in force now hold it back (math.MaxInt64: not before a failover).
func (s *Redis) eta(r *rnode, a int64) int64 {
	a = max(a, r.unblockedAt)
	if r.paused {
		a = max(a, r.pausedUntil)
	}
	if s.primary < 0 || s.nodes[s.primary].dead {
		return math.MaxInt64
	}
	src := s.nodes[s.primary]
	if src.paused {
		a = max(a, src.pausedUntil)
	}
	if src.cut {
		a = max(a, src.cutUntil)
	}
	return a
}

// advance brings the store to time to: the faults' actions, the
// commits of writes that WAIT and the replicas' applications due by then,
// in time order. It returns to (or the time already reached, if later).
func (s *Redis) advance(to int64) int64 {
	to = max(to, s.now)
	for {
		ta, tc := s.acts.next(), int64(math.MaxInt64)
		if len(s.waits) > 0 {
			tc = s.waits[0].at
		}
		t := min(ta, tc)
		if t > to {
			break
		}
		s.deliver(t)
		s.now = t
		if tc <= ta {
			ww := heap.Pop(&s.waits).(waitingWrite)
			s.commit(t, ww.w, ww.lags)
		} else {
			s.acts.pop()(t)
		}
	}
	s.deliver(to)
	s.now = to
	s.sweep(to)
	return to
}

// sweep drops, every sweepEvery, the keys no node holds live and no
// replica waits for.
func (s *Redis) sweep(t int64) {
	if t < s.nextSweep {
		return
	}
	s.nextSweep = t + sweepEvery
	nd := s.truth()
	for key, l := range s.acked {
		if t >= l.expires {
			s.settleKey(key, nd.data[key])
		}
	}
	for _, nd := range s.nodes {
		for k, e := range nd.data {
			if e.npending == 0 && e.live(t) == 0 {
				delete(nd.data, k)
			}
		}
	}
}

// sortInt64 sorts a few values in place.
func sortInt64(x []int64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// waitingWrite is a write that WAITs, to commit at its time.
type waitingWrite struct {
	at   int64
	n    uint64 // submission order, for writes due at one instant
	w    PendingWrite
	lags []int64
}

// waitHeap orders waiting writes by time, then by submission.
type waitHeap []waitingWrite

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].n < h[j].n
}
func (h waitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *waitHeap) Push(x any)   { *h = append(*h, x.(waitingWrite)) }
func (h *waitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
