package model

import (
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
)

// updater is a store that applies a limiter's atomic update in one step
// (limiter.update atomic): the memory store under its lock, the redis
// store as a script at the primary. The engine draws the update's round
// trip (UpdateLatency) when the request is sent; half-way through it calls
// Update, decides on what it read, and calls Apply, in one event; the
// answer reaches the client at its end.
type updater interface {
	UpdateLatency() time.Duration
	Update(now time.Duration, keys *[2]string, n int, cur *[2]limiter.Read) error
	Apply(now time.Duration, w *limiter.Write) error
}

var (
	_ updater = (*Memory)(nil)
	_ updater = (*Redis)(nil)
)

// UpdateLatency draws an atomic update's round trip: one command (the
// script's EVALSHA), half-way through which the update is applied at the
// node clients take for the primary.
func (s *Redis) UpdateLatency() time.Duration { return s.p.Latency.Sample(s.rng) }

// Update is the first half of an atomic update at now, at the node
// clients take for the primary: it reads the first n of keys into cur,
// counting the reads (the script then waits for the node's thread and is
// served: LastWait), or returns the error the client sees: a dead node
// fails it after the client's redial (LastWait too), a paused one times out (at the end of the round trip drawn: the
// model does not stretch it to the client's timeout), a replica answers
// READONLY.
func (s *Redis) Update(now time.Duration, keys *[2]string, n int, cur *[2]limiter.Read) error {
	t := s.advance(int64(now))
	nd := s.nodes[s.client]
	s.lastWait = 0
	var err error
	switch {
	case nd.dead:
		err = kv.NewUnavailable("get", keys[0], deadText)
	case nd.paused:
		err = kv.NewUnavailable("get", keys[0], "redis: timeout: the server does not answer")
	case !nd.isPrimary:
		err = kv.NewUnavailable("get", keys[0], readOnlyText)
	}
	if !nd.paused {
		s.lastWait = s.serve(t)
	}
	if nd.dead {
		// The sentinel's command reaches the thread with the update's
		// own (judged half-way), and waits for it: the thread's queue
		// takes its commands in the order they come, none reserved ahead.
		s.lastWait += s.redial(t)
	}
	if err != nil {
		if s.ctr != nil {
			s.ctr.Read(err)
		}
		return err
	}
	for i := 0; i < n; i++ {
		e := nd.data[keys[i]]
		cur[i] = limiter.Read{}
		if v := e.live(t); v != 0 {
			cur[i] = limiter.Read{Value: e.value, Found: true}
		}
		if s.ctr != nil {
			s.ctr.Read(nil)
			if cur[i].Found {
				s.ctr.Visibility(time.Duration(t-e.committed), 0, true)
			}
		}
	}
	return nil
}

// cutter is an updater whose node can be killed with the answer of an
// update it took still on its way (the redis store: cutAnswer): the engine
// asks, after Update and before Apply, and a cut update is neither decided
// on nor applied; the client sees the error after its timeout.
type cutter interface {
	CutUpdate(now, answer time.Duration, key string) (time.Duration, error)
}

var _ cutter = (*Redis)(nil)

// CutUpdate implements cutter: the update Update took at now, answering
// at answer, never answers when the primary that took it is killed in
// between (cutAnswer); it returns how long after now the client's timeout
// ends it, and the timeout's error. The update is not applied: live, the
// killed primary ran the script, but with its links cut the increment
// reached no replica and no client, so it is neither kept nor acknowledged
// (the ledger counts it nowhere either).
func (s *Redis) CutUpdate(now, answer time.Duration, key string) (time.Duration, error) {
	if !s.cutAnswer(s.client, int64(now), int64(answer)) {
		return 0, nil
	}
	// The update was sent half its round trip before now at the latest;
	// the client's timeout runs from its send, which the engine does not
	// say: it is taken at now, so the error comes at most that much late.
	return s.p.Timeout, kv.NewUnavailable("update", key, fmt.Sprintf("redis: timeout: i/o timeout after %v: the primary was killed before its answer reached the client", s.p.Timeout))
}

// Apply commits an atomic update's write at now at the same node, the
// second half of Update: a live key keeps its expiry when w.KeepTTL. It is
// replicated and lost at a failover like any write; none is lost to a
// race, since nothing came between its read and its write. A TTL under a
// second is refused, as EX and PEXPIRE in whole seconds are by the live
// store.
func (s *Redis) Apply(now time.Duration, w *limiter.Write) error {
	t := s.advance(int64(now))
	var err error
	if w.TTL < time.Second {
		err = kv.NewInvalidTTL(w.Key, w.TTL)
	}
	if s.ctr != nil {
		s.ctr.Write(err)
	}
	if err != nil {
		return err
	}
	ttl := w.TTL
	if e := s.nodes[s.client].data[w.Key]; w.KeepTTL && e.live(t) != 0 {
		ttl = time.Duration(e.expires - t)
	}
	s.commit(t, PendingWrite{Key: w.Key, Value: w.Value, TTL: ttl, Domain: s.client, ReadVersion: UnknownVersion}, nil)
	return nil
}
