package model

import (
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// The serving side (scenario server, plan.ServerParams). Mode none has no
// server: requests run as sim.go runs them. Mode single-thread is wrangler
// dev (docs/serving-side.md): one thread runs every request's steps and the
// local store's operations.
//
// A request reaches the server half its round trip after it is sent and
// waits in the inbox. When the thread's ready queue is empty, the inbox
// joins it in arrival order (kj polls sockets only when no in-process work
// is ready): that is a batch, of at most batch_max, the oldest first (kj
// asks epoll for 16 events per poll). The thread serves the ready queue in
// order, one step at a time for that step's CPU draw; after each step the
// request goes to the back of the queue (it awaited the store):
//
//	before_read  ends with the store's read (the value is read then)
//	between      ends with the write: committed, visible to every later read
//	after_write  ends with the response leaving; the client has it half a
//	             round trip later
//
// A request that writes nothing (denied, or a failed read) goes from its
// read to after_write. The store's own latency is not used: its work is the
// thread's.
//
// With a proxy (wrangler dev's proxy process), a request passes a second
// thread of its own on the way in, before the inbox, and its response on
// the way out, before the way back. The proxy is a thread like the
// server's (wrangler dev's proxy is a second workerd): when it has passed
// its batch, it takes its queue as the next one (at most batch_max, the
// oldest first) and passes them one at a time, for each one's cpu_in or
// cpu_out draw. The batch's first request goes on when its own pass ends;
// the batch's other requests on the way in go on together when the whole
// batch has passed (their writes to the server wait behind the batch's
// work); responses go on as they pass. So a burst reaches the server as one
// request, then the rest of its batch at once: live runs start so (read
// groups 1, then 1 or about 15; docs/serving-side.md, "The start of a run").
//
// A thread with nothing to do blocks; work that reaches it (a request, or
// at the proxy a response) starts it after a wake draw (server.wake, none
// when unset): the operating system waking a thread blocked in epoll.
// Requests that reach the inbox meanwhile join the first batch.

// A closed loop's client cannot send its requests at one instant: live
// (attack, whose vegeta workers start one after another) the second of a
// closed loop's first C requests left 0.13-0.18 ms after the first and each
// further one about 35 us after the one before (docs/serving-side.md, "The
// start of a run"). Under a server, requests a closed-loop client sends at
// one instant leave that way: the second server.send.first after the
// first, each further one server.send.next after the one before
// (scenario.DefaultServerSend unless the scenario says).

// Server event kinds, after sim.go's.
const (
	evArrive    uint8 = 64 + iota // a request reaches the server (idx: request)
	evKick                        // the thread looks for its next step (idx unused)
	evStep                        // the thread finishes a request's step (idx: request)
	evProxy                       // the proxy finishes passing a request in or out (idx: request)
	evProxyWake                   // the idle proxy thread is up to take its queue (idx unused)
)

// The step a request waits for or is in.
const (
	phIdle     uint8 = iota // not at the server, or its response is on the way back
	phRead                  // before_read
	phWrite                 // between
	phRespond               // after_write
	phBack                  // the response is on its way to the client
	phProxyIn               // at the proxy, on the way in
	phProxyOut              // at the proxy, on the way out
)

// srvReq is the server's state of one request slot.
type srvReq struct {
	phase   uint8
	back    int64            // the way back: the round trip's second half
	d       limiter.Decision // held between the read and the write
	version uint64           // the version the write replaces
}

// server is one trial's single thread.
type server struct {
	p      *plan.ServerParams
	busy   bool // a step is running
	kicked bool // an evKick is scheduled
	inbox  fifo
	ready  fifo
	reqs   []srvReq

	// The proxy thread, when there is one: its queue, whether it is
	// passing a request, and whether it is waking to.
	pbusy, pwaking bool
	pq             fifo
	// The proxy's batch: the requests it took from pq together and has
	// yet to pass (pbatch), those on the way in it has passed and holds
	// until the whole batch has (pheld), and whether the next pass is the
	// batch's first (pfirst).
	pbatch, pheld fifo
	pfirst        bool

	// The stalls of the server's thread and of the proxy's (server.stall).
	stalls, pstalls stallClock

	// sameAt is the last instant a closed-loop client sent at, same how
	// many it sent then before the last, and lineOff how long after sameAt
	// the last of them left (server.send).
	sameAt, same, lineOff int64

	// Batches and BatchedRequests count the batches taken and their
	// requests, for tests.
	batches, batched int64
}

// fifo is a first-in first-out queue of request slots.
type fifo struct {
	q    []int32
	head int
}

func (f *fifo) push(ri int32) { f.q = append(f.q, ri) }
func (f *fifo) len() int      { return len(f.q) - f.head }
func (f *fifo) pop() int32 {
	ri := f.q[f.head]
	if f.head++; f.head == len(f.q) {
		f.q, f.head = f.q[:0], 0
	}
	return ri
}

// newServer returns trial t's server, or nil for mode none. Under a
// server the store's reads take effect when called and return at once.
func newServer(t *trial) *server {
	p := &t.c.plan.Server
	if p.Mode == plan.ServerNone {
		return nil
	}
	t.store = onThread{t.store}
	return &server{p: p, sameAt: -1}
}

// onThread is a store whose operations run on the server's thread: the
// thread's steps account for their time, so they return at once.
type onThread struct{ Store }

// Read implements Store.
func (o onThread) Read(now time.Duration, loc, dom int, key string) ReadResult {
	r := o.Store.Read(now, loc, dom, key)
	r.Latency = 0
	return r
}

// state returns ri's server state, growing the table as requests are.
func (s *server) state(ri int32) *srvReq {
	for int(ri) >= len(s.reqs) {
		s.reqs = append(s.reqs, srvReq{})
	}
	return &s.reqs[ri]
}

// arrive sends request ri to the server: it arrives after half a round
// trip, and after its place in line when a closed-loop client sent others
// at the same instant before it (sim.go's send calls it instead of
// reading).
func (s *server) arrive(t *trial, ri int32) {
	st := s.state(ri)
	rtt := int64(s.p.RTT.Sample(t.rng))
	there := rtt / 2
	st.phase, st.back = phRead, rtt-there
	there += s.inLine(t, ri)
	if s.p.Proxy {
		st.phase = phProxyIn
	}
	if there == 0 {
		s.enter(t, ri)
		return
	}
	t.push(t.now+there, evArrive, ri)
}

// inLine returns how long after its send instant request ri leaves: 0
// for the first a closed-loop client sends at an instant, a SendFirst draw
// for the second, a SendNext draw more for each further one.
func (s *server) inLine(t *trial, ri int32) int64 {
	if !t.reqs[ri].cl.closed {
		return 0
	}
	if t.now != s.sameAt {
		s.sameAt, s.same, s.lineOff = t.now, 0, 0
		return 0
	}
	s.same++
	gap := &s.p.SendNext
	if s.same == 1 {
		gap = &s.p.SendFirst
	}
	s.lineOff += int64(gap.Sample(t.rng))
	return s.lineOff
}

// enter puts request ri in the inbox, or in the proxy's queue when it has
// yet to pass the proxy.
func (s *server) enter(t *trial, ri int32) {
	if s.reqs[ri].phase == phProxyIn {
		s.toProxy(t, ri)
		return
	}
	s.inbox.push(ri)
	s.wake(t, true)
}

// wakeUp draws how long a blocked thread takes to start on new work: the
// server's wake, drawn only when it is set.
func (s *server) wakeUp(t *trial) int64 {
	if s.p.Wake.IsZero() {
		return 0
	}
	return int64(s.p.Wake.Sample(t.rng))
}

// toProxy queues request ri at the proxy and starts the proxy if idle
// (no batch under way), after its wake-up.
func (s *server) toProxy(t *trial, ri int32) {
	s.pq.push(ri)
	if s.pbusy || s.pwaking || s.pbatch.len() > 0 {
		return
	}
	if w := s.wakeUp(t); w > 0 {
		s.pwaking = true
		t.push(t.now+w, evProxyWake, 0)
		return
	}
	s.proxyNext(t)
}

// proxyNext starts passing the next request of the proxy's batch unless
// the proxy is busy, taking its queue as the next batch (at most
// batch_max, the oldest first) when the last one has passed.
func (s *server) proxyNext(t *trial) {
	if s.pbusy {
		return
	}
	if s.pbatch.len() == 0 {
		if s.pq.len() == 0 {
			return
		}
		for n := min(s.pq.len(), s.p.BatchMax); n > 0; n-- {
			s.pbatch.push(s.pq.pop())
		}
		s.pfirst = true
	}
	ri := s.pbatch.pop()
	var cpu time.Duration
	if s.reqs[ri].phase == phProxyIn {
		cpu = s.p.ProxyIn.Sample(t.rng)
	} else {
		cpu = s.p.ProxyOut.Sample(t.rng)
	}
	s.pbusy = true
	t.push(t.now+s.stalled(t, &s.pstalls, int64(cpu)), evProxy, ri)
}

// proxied ends the proxy's pass of request ri. The batch's first request
// and every response go on at once; the batch's other requests on the way
// in are held, and go on together once the whole batch has passed.
func (s *server) proxied(t *trial, ri int32) {
	s.pbusy = false
	if s.pfirst || s.reqs[ri].phase != phProxyIn {
		s.handOn(t, ri)
	} else {
		s.pheld.push(ri)
	}
	s.pfirst = false
	if s.pbatch.len() == 0 {
		for s.pheld.len() > 0 {
			s.handOn(t, s.pheld.pop())
		}
	}
	s.proxyNext(t)
}

// handOn sends request ri on from the proxy: in, to the inbox; out, on
// the way back to the client.
func (s *server) handOn(t *trial, ri int32) {
	st := &s.reqs[ri]
	if st.phase == phProxyIn {
		st.phase = phRead
		s.enter(t, ri)
	} else {
		goBack(t, st, ri)
	}
}

// goBack sends request ri's response on its way to the client, which has
// it the second half of its round trip later.
func goBack(t *trial, st *srvReq, ri int32) {
	st.phase = phBack
	t.push(t.now+st.back, evDone, ri)
}

// wake schedules a look for work, unless the thread is busy or one is
// already scheduled: now when the thread has just ended a step, after its
// wake-up when a request reached it from outside (arrived) while it was
// blocked; whatever arrives meanwhile joins its first batch. Running it as
// an event lets everything else at this instant (arrivals, a read's
// result) happen first.
func (s *server) wake(t *trial, arrived bool) {
	if s.busy || s.kicked {
		return
	}
	s.kicked = true
	at := t.now
	if arrived {
		at += s.wakeUp(t)
	}
	t.push(at, evKick, 0)
}

// hold keeps request ri's decision and the version it replaces until its
// between step ends (sim.go's readDone calls it instead of writing).
func (s *server) hold(t *trial, ri int32, d limiter.Decision, version uint64) {
	st := s.state(ri)
	st.phase, st.d, st.version = phWrite, d, version
	s.ready.push(ri)
	s.wake(t, false)
}

// respond is called where request ri would be done. It queues the
// response step and reports true, or, when the response has reached the
// client, resets ri and reports false so that done proceeds.
func (s *server) respond(t *trial, ri int32) bool {
	st := s.state(ri)
	if st.phase == phBack {
		st.phase = phIdle
		return false
	}
	st.phase = phRespond
	s.ready.push(ri)
	s.wake(t, false)
	return true
}

// step runs a server event.
func (s *server) step(t *trial, e event) {
	switch e.kind {
	case evArrive:
		s.enter(t, e.idx)
	case evKick:
		s.kicked = false
		s.next(t)
	case evStep:
		s.busy = false
		s.finish(t, e.idx)
	case evProxy:
		s.proxied(t, e.idx)
	case evProxyWake:
		s.pwaking = false
		s.proxyNext(t)
	}
}

// next starts the thread's next step, taking the inbox as one batch when
// the ready queue is empty.
func (s *server) next(t *trial) {
	if s.busy {
		return
	}
	if s.ready.len() == 0 && s.inbox.len() > 0 {
		n := min(s.inbox.len(), s.p.BatchMax)
		s.batches++
		s.batched += int64(n)
		for range n {
			s.ready.push(s.inbox.pop())
		}
	}
	if s.ready.len() == 0 {
		return
	}
	ri := s.ready.pop()
	var cpu time.Duration
	switch s.reqs[ri].phase {
	case phRead:
		cpu = s.p.BeforeRead.Sample(t.rng)
	case phWrite:
		cpu = s.p.Between.Sample(t.rng)
	default:
		cpu = s.p.AfterWrite.Sample(t.rng)
	}
	s.busy = true
	t.push(t.now+s.stalled(t, &s.stalls, int64(cpu)), evStep, ri)
}

// stallClock is one thread's stalls: the thread time it has worked
// (busy) and the worked time at which its next stall comes (at), once
// drawn (drawn).
type stallClock struct {
	busy, at int64
	drawn    bool
}

// stalled returns how long a step of cpu takes with the thread's stalls
// (server.stall): a stall comes after every StallEvery of the thread's
// own work, as a garbage collection comes after so much allocation, and
// holds the step under way StallLasts longer. Without stalls it is cpu.
func (s *server) stalled(t *trial, c *stallClock, cpu int64) int64 {
	p := s.p
	if !p.Stall {
		return cpu
	}
	if !c.drawn {
		c.at, c.drawn = int64(p.StallEvery.Sample(t.rng)), true
	}
	c.busy += cpu
	d := cpu
	for c.at <= c.busy {
		d += int64(p.StallLasts.Sample(t.rng))
		c.at += max(1, int64(p.StallEvery.Sample(t.rng)))
	}
	return d
}

// finish ends request ri's step: the read, the write or the response.
// Every path but the response's ends in hold or respond, which wake the
// thread.
func (s *server) finish(t *trial, ri int32) {
	st := &s.reqs[ri]
	switch st.phase {
	case phRead:
		t.read(&t.reqs[ri], ri)
	case phWrite:
		r := &t.reqs[ri]
		d := st.d
		st.d = limiter.Decision{}
		now := time.Duration(t.now)
		w, _, err := t.store.Write(now, int(r.loc), int(r.dom), d.Write.Key, d.Write.Value, d.Write.TTL, st.version)
		if err != nil {
			d = t.c.lim.Failed(*t.planOf(r), err)
		} else {
			t.store.Commit(now, w)
		}
		t.record(r, &d)
		t.done(r, ri)
	default:
		if s.p.Proxy {
			st.phase = phProxyOut
			s.toProxy(t, ri)
		} else {
			goBack(t, st, ri)
		}
		s.wake(t, false)
	}
}
