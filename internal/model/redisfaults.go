package model

import (
	"math"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// acts is the store's own agenda: the faults' starts and ends, the
// sentinels' detections, promotions and clients reconnecting, in time
// order (actions at one instant in the order they were added).
type acts struct {
	list []act
	n    uint64
}

type act struct {
	at int64
	n  uint64
	do func(t int64)
}

// push adds an action at t.
func (a *acts) push(t int64, do func(t int64)) {
	a.n++
	x := act{at: t, n: a.n, do: do}
	i := len(a.list)
	a.list = append(a.list, x)
	for i > 0 && a.list[i-1].at > t {
		a.list[i] = a.list[i-1]
		i--
	}
	a.list[i] = x
}

// next returns the time of the first action (math.MaxInt64: none).
func (a *acts) next() int64 {
	if len(a.list) == 0 {
		return math.MaxInt64
	}
	return a.list[0].at
}

// pop removes and returns the first action.
func (a *acts) pop() func(t int64) {
	x := a.list[0]
	a.list = a.list[1:]
	return x.do
}

// end returns when a fault starting at t ends (math.MaxInt64: never).
func end(t int64, f plan.Fault) int64 {
	if f.For <= 0 {
		return math.MaxInt64
	}
	return after(t, int64(f.For))
}

// targets returns the nodes a fault's target names now.
func (s *Redis) targets(f plan.Fault) []int {
	switch f.Target {
	case plan.TargetPrimary:
		if s.primary < 0 {
			return nil
		}
		return []int{s.primary}
	case plan.TargetReplicas:
		var out []int
		for i, nd := range s.nodes {
			if !nd.isPrimary && !nd.dead {
				out = append(out, i)
			}
		}
		return out
	}
	return []int{int(f.Target) + 1}
}

// startFault applies fault f at t and schedules its end.
func (s *Redis) startFault(t int64, f plan.Fault) {
	until := end(t, f)
	for _, n := range s.targets(f) {
		nd := s.nodes[n]
		switch f.Kind {
		case plan.KillPrimary:
			nd.dead = true
			s.watch(t, n)
		case plan.Pause:
			nd.paused, nd.pausedSince, nd.pausedUntil = true, t, until
			if until < math.MaxInt64 {
				s.acts.push(until, func(u int64) { s.unpause(u, n) })
			}
			s.watch(t, n)
		case plan.Partition:
			nd.cut, nd.cutUntil = true, until
			if until < math.MaxInt64 {
				s.acts.push(until, func(u int64) { s.heal(u, n) })
			}
			s.watch(t, n)
		case plan.LinkLatency:
			nd.linkLat, nd.linkJitter, nd.linkUntil = int64(f.Latency), int64(f.Jitter), until
		}
	}
}

// watch schedules the sentinels' check of node n, which went out of their
// reach at t, down_after later: the primary still out of reach then is
// failed over.
func (s *Redis) watch(t int64, n int) {
	s.acts.push(after(t, int64(s.p.DownAfter)), func(d int64) {
		nd := s.nodes[n]
		if n != s.primary || !(nd.dead || nd.paused || nd.cut) {
			return
		}
		s.acts.push(after(d, int64(s.p.Failover.Sample(s.rng))), func(p int64) { s.promote(p, n) })
	})
}

// unreachable reports whether node nd is out of the sentinels' reach.
func unreachable(nd *rnode) bool { return nd.dead || nd.paused || nd.cut }

// unpause resumes node n at u.
func (s *Redis) unpause(u int64, n int) {
	nd := s.nodes[n]
	nd.paused = false
	s.back(u, n)
}

// heal ends node n's partition at u.
func (s *Redis) heal(u int64, n int) {
	nd := s.nodes[n]
	nd.cut = false
	s.back(u, n)
}

// back handles node n coming back within reach at u: a replica applies
// its queue again; a primary still the primary sends its queued writes
// again; a deposed one is demoted.
func (s *Redis) back(u int64, n int) {
	nd := s.nodes[n]
	if unreachable(nd) {
		return
	}
	switch {
	case !nd.isPrimary:
		nd.unblockedAt = max(nd.unblockedAt, u)
	case n == s.primary:
		for _, r := range s.nodes {
			if !r.isPrimary {
				r.unblockedAt = max(r.unblockedAt, u)
			}
		}
	default:
		s.demote(n)
	}
}

// promote fails over from old primary o at p: the reachable replica that
// applied most becomes the primary; the writes o committed beyond it are
// lost, the other replicas resynchronise from it, clients reach it
// reconnect later, and o, if alive, is demoted once back in reach.
func (s *Redis) promote(p int64, o int) {
	if o != s.primary {
		return
	}
	x := -1
	for i, nd := range s.nodes {
		if nd.isPrimary || nd.dead || nd.paused {
			continue
		}
		if x < 0 || nd.seq > s.nodes[x].seq {
			x = i
		}
	}
	if x < 0 {
		return // no replica to promote: the sentinels cannot fail over
	}
	xn := s.nodes[x]
	xn.head, xn.tail, xn.lastApply = nil, nil, 0
	for _, e := range xn.data {
		e.npending, e.lastPending = 0, nil
	}
	xn.isPrimary = true
	s.primary = x
	s.failovers++
	for i, r := range s.nodes {
		if r.isPrimary || r.dead || i == x {
			continue
		}
		if r.seq > xn.seq {
			s.resync(r, xn)
		} else {
			s.truncate(r, xn.seq)
		}
		r.unblockedAt = max(r.unblockedAt, p)
	}
	if od := s.nodes[o]; !od.dead && !unreachable(od) {
		s.demote(o)
	}
	s.acts.push(after(p, int64(s.p.Reconnect.Sample(s.rng))), func(int64) { s.client = s.primary })
}

// demote makes deposed primary n a replica of the primary, with a full
// resynchronisation: what it took since the failover is gone (counted
// lost when it committed).
func (s *Redis) demote(n int) {
	nd := s.nodes[n]
	nd.isPrimary = false
	if s.primary >= 0 {
		s.resync(nd, s.nodes[s.primary])
	}
}

// redial returns how much longer than its own round trip a command sent
// at t to a dead primary takes to fail, as go-redis's failover client
// fails it: the kill closed its connections, so it dials one for the
// command, and its dialer first asks a sentinel for the primary's address
// (SENTINEL get-master-addr-by-name, sentinel.go's MasterAddr: a round
// trip, and a command at the host's thread, which the sentinels share),
// then connects (a round trip the kernel answers: no thread's time). The
// dead address accepts the connection and closes it, as the harness's
// proxy does, so the dial counts as made (go-redis's dial breaker never
// opens) and the command's own round trip, the caller's, ends in EOF.
func (s *Redis) redial(t int64) int64 {
	d := int64(s.p.Latency.Sample(s.rng)) + s.serve(t)
	return d + int64(s.p.Latency.Sample(s.rng))
}
