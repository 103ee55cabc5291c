package model

import "time"

// rqueue is the one thread that serves every command of the store, one at
// a time (store.redis.service): free is when it has served every command
// that reached it so far. One thread for all the nodes, not one each: the
// servers and their clients share the cores of one host, as attack's
// harness runs them (docs/validation.md, "Real Redis": replica reads do not
// serve more requests a second than primary reads there).
type rqueue struct {
	free int64
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
	q := &s.q
	start := max(t, q.free)
	q.free = after(start, int64(s.p.Service.Sample(s.rng)))
	return q.free - t
}

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
