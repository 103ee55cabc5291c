package model

import (
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// rqueue is the one thread that serves every command of the store, one at
// a time (store.redis.service), or store.redis.threads of them: free is,
// per core, when it has served the work that reached it so far. One
// queue for all the nodes, not one each: the servers and their clients
// share the cores of one host, as attack's harness runs them
// (docs/validation.md, "Real Redis").
type rqueue struct {
	// free holds, per core (store.redis.threads), when it has served
	// what reached it.
	free []int64
}

// serve takes a command that reaches the thread at t into the queue and
// returns how long after t it has been served: its wait for the commands
// before it, and its own service, drawn from the store's. Zero when the
// store has no service time (store.redis.service unset), with nothing
// drawn.
//
// The command takes effect when it reaches the thread, as without a
// queue; the wait only delays its answer (and, through the answer, the
// request's next command).
func (s *Redis) serve(t int64) int64 {
	if !s.queued {
		return 0
	}
	return s.take(t, &s.p.Service)
}

// backlog is how long a replica's copy of a write committed at t waits
// for the host before it is applied, besides its lag: with the host
// taking up work in arrival order (store.redis.order: fifo), what work
// reaching it then would wait, since the harness's proxies and replicas
// share the host's cores with everything else and a read arriving later
// is served after the copy; in no fixed order (random, the default) or
// without a queue, none: the copy's wait and a later read's are drawn
// alike, so a read taking effect when it arrives (serve) sees the copy
// its lag after the commit, whatever the host's load. It takes no
// capacity (a copy costs the host little: on the validation's host a
// request that writes cost at C = 32 about what its two commands do,
// docs/validation.md, "A writing cell in the fit").
func (s *Redis) backlog(t int64) int64 {
	if !s.queued || !s.p.FIFO {
		return 0
	}
	return max(s.q.free[s.q.first()]-t, 0)
}

// first is the core that is free first (the lowest-numbered of those
// free at once).
func (q *rqueue) first() int {
	i := 0
	for j := 1; j < len(q.free); j++ {
		if q.free[j] < q.free[i] {
			i = j
		}
	}
	return i
}

// take queues work of a draw of d reaching the thread at t and returns
// how long after t it is done. It goes to the core that is free first
// (the lowest-numbered of those free at once), which is busy for d more:
// the cores never idle while work waits, in either order. In arrival
// order (store.redis.order: fifo) the work waits until that core has
// done what reached it before; in no fixed order (random) it waits a
// uniform share of that, as work taken up at a random point of the queue
// does, and the mean wait is the same once the host is saturated (the
// work ahead of it then is twice as long as in arrival order's queue).
func (s *Redis) take(t int64, d *plan.Dist) int64 {
	free, i := s.q.free, s.q.first()
	start := max(t, free[i])
	sv := int64(d.Sample(s.rng))
	free[i] = after(start, sv)
	wait := start - t
	if !s.p.FIFO && wait > 0 {
		wait = int64(float64(wait) * s.rng.Float64())
	}
	return after(wait, sv)
}

// Request implements requester: a request sent at now takes its own
// store.redis.request_service at the thread before its first command,
// which is sent that much later (its wait there and its service).
func (s *Redis) Request(now time.Duration) time.Duration {
	t := s.advance(int64(now))
	return time.Duration(t-int64(now)) + time.Duration(s.take(t, &s.p.RequestService))
}

// PerRequest implements requester.
func (s *Redis) PerRequest() bool { return s.p.PerRequest }

// requester is a store whose host serves each request's own work (the
// client's and the target's: store.redis.request_service) on the thread
// that serves its commands: the engine asks Request when a request is
// sent, when PerRequest, and starts its first command that much later.
type requester interface {
	PerRequest() bool
	Request(now time.Duration) time.Duration
}

var _ requester = (*Redis)(nil)

// LastWait implements queued: how much later than its round trip the
// last Update's answer came.
func (s *Redis) LastWait() time.Duration { return time.Duration(s.lastWait) }

// queued is an updater whose node serves one command at a time, so that
// an atomic update's answer can come later than the round trip drawn for
// it (UpdateLatency): the engine adds LastWait, read right after Update
// and Apply, to the time the answer takes.
type queued interface {
	LastWait() time.Duration
}

var _ queued = (*Redis)(nil)
