package model

import (
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// rqueue is the one thread that serves every command of the store, one at
// a time (store.redis.service): free is when it has served every command
// that reached it so far. One thread for all the nodes, not one each: the
// servers and their clients share the cores of one host, as attack's
// harness runs them (docs/validation.md, "Real Redis": replica reads do not
// serve more requests a second than primary reads there).
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
// queue: the nodes apply commands in the order they arrive, so what one
// reads is what it would read once served. The wait only delays its
// answer (and, through the answer, the request's next command).
func (s *Redis) serve(t int64) int64 {
	if !s.queued {
		return 0
	}
	return s.take(t, &s.p.Service)
}

// backlog is how long work reaching the thread at t would wait before
// a core takes it up (0 without a queue): a replica's copy of a write
// committed then waits that long too before it is applied, as the
// harness's proxies and replicas share the host's cores with everything
// else. It takes no capacity (a copy costs the host little: on the
// validation's host a request that writes cost at C = 32 about what its
// two commands do, docs/validation.md, "A writing cell in the fit"), so a
// replica only falls behind while the host is busy, not without end.
func (s *Redis) backlog(t int64) int64 {
	if !s.queued {
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
// how long after t it is done: on the core that is free first (with one
// core, a FIFO queue; with more, work that arrived first starts first).
func (s *Redis) take(t int64, d *plan.Dist) int64 {
	free, i := s.q.free, s.q.first()
	start := max(t, free[i])
	free[i] = after(start, int64(d.Sample(s.rng)))
	return free[i] - t
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
