package attack

import (
	"math"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// pacer is a vegeta.Pacer that can also say how many hits it has called for
// by a given elapsed time, so that the offered rate can be reported beside the
// achieved one.
type pacer interface {
	vegeta.Pacer
	// hitsBy returns the hits the pacer schedules in [0, elapsed].
	hitsBy(elapsed time.Duration) float64
}

// arrivalPacer paces an open loop of constant or ramped rate exactly as
// the model sends it: of the population's clients together, hit m is at
// cumulative intensity m/clients, due at plan.Population.ArrivalAt (client
// 0 at the start, the others evenly out of phase), and the hits scheduled
// by a time are clients x HitsBy. The arrival rule exists once, in the
// plan.
type arrivalPacer struct {
	p       *plan.Population
	clients float64
}

// newArrivals returns the pacer of population p's open loop.
func newArrivals(p *plan.Population) arrivalPacer {
	return arrivalPacer{p: p, clients: float64(p.Clients)}
}

// Pace returns the wait until hit number hits is due.
func (a arrivalPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	at := a.p.ArrivalAt(float64(hits) / a.clients)
	if at == math.MaxInt64 {
		return 0, true // a ramp down to nothing: no more hits
	}
	if due := at - a.p.Start; due > elapsed {
		return due - elapsed, false
	}
	return 0, false
}

// Rate returns the population's rate per second at elapsed.
func (a arrivalPacer) Rate(elapsed time.Duration) float64 { return a.clients * a.p.RateAt(elapsed) }

// hitsBy counts the hits due before elapsed: hit m is due at intensity
// m/clients, so those with m < clients x HitsBy(elapsed), as many as the
// model sends before the same time.
func (a arrivalPacer) hitsBy(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return math.Ceil(a.clients*a.p.HitsBy(elapsed) - 1e-9)
}

// poissonPacer paces a Poisson open loop (constant or ramped) exactly as
// the model sends it: hit m is the plan's arrival m of the population's
// clients together (plan.Arrivals), due at its ArrivalAt. The arrivals
// are the plan's counter-based draws, so two runs with the same seed
// schedule the same times, and the targeter (identities.next) hands hit m
// to the client whose arrival it is. It is safe for concurrent use.
type poissonPacer struct {
	p  *plan.Population
	s  plan.Stream
	mu sync.Mutex
	// sch is the walk Pace follows, next the time of its next arrival
	// (from the population's start).
	sch  *plan.Arrivals
	next time.Duration
	// count replays the same arrivals for hitsBy, so that counting never
	// moves the walk Pace follows; countAt is the time it was last asked
	// for, countNext its next arrival's time.
	count     *plan.Arrivals
	countAt   time.Duration
	countNext time.Duration
}

// newPoisson returns the pacer of Poisson population p drawn from s.
func newPoisson(p *plan.Population, s plan.Stream) *poissonPacer {
	pp := &poissonPacer{p: p, s: s}
	pp.sch = p.Arrivals(s)
	pp.next = pp.due(pp.sch.Next())
	return pp
}

// due returns when arrival a is due from the population's start
// (math.MaxInt64: never).
func (p *poissonPacer) due(a plan.Arrival) time.Duration {
	at := p.p.ArrivalAt(a.Y)
	if at == math.MaxInt64 {
		return math.MaxInt64
	}
	return at - p.p.Start
}

// Pace returns how long to wait until arrival number hits: the attacker asks
// with hits = the number of requests sent so far.
func (p *poissonPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for uint64(p.sch.Walked()) <= hits {
		p.next = p.due(p.sch.Next())
	}
	if p.next == math.MaxInt64 {
		return 0, true
	}
	return max(0, p.next-elapsed), false
}

// Rate returns the population's rate per second at elapsed.
func (p *poissonPacer) Rate(elapsed time.Duration) float64 {
	return float64(p.p.Clients) * p.p.RateAt(elapsed)
}

// hitsBy returns the arrivals due in [0, elapsed]: the real count, replayed
// from the plan's draws, not the rate times the time. Asked for increasing
// times it walks the arrivals once.
func (p *poissonPacer) hitsBy(elapsed time.Duration) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.count == nil || elapsed < p.countAt {
		p.count = p.p.Arrivals(p.s) // an earlier time than the last asked: start over
		p.countNext = p.due(p.count.Next())
	}
	p.countAt = elapsed
	for p.countNext <= elapsed {
		p.countNext = p.due(p.count.Next())
	}
	return float64(p.count.Walked() - 1)
}

// burstPacer paces a bursting population exactly as the model sends it:
// hit i leaves at the plan's BurstTime(i). Run it with a burst's size of
// workers, so that a burst really leaves at once.
type burstPacer struct {
	p *plan.Population
}

// newBurst returns the pacer of bursting population p.
func newBurst(p *plan.Population) burstPacer { return burstPacer{p: p} }

// Pace returns the wait until hit number hits is due.
func (b burstPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if hits > math.MaxInt64 {
		return 0, true
	}
	at := b.p.BurstTime(int64(hits))
	if at == math.MaxInt64 {
		return 0, true
	}
	return max(0, at-b.p.Start-elapsed), false
}

// Rate returns the mean rate per second: a burst's requests per period (0
// for a single burst, which has no period).
func (b burstPacer) Rate(time.Duration) float64 {
	if b.p.BurstEvery <= 0 {
		return 0
	}
	return float64(b.p.Clients*b.p.BurstSize) / b.p.BurstEvery.Seconds()
}

// hitsBy counts the hits due by elapsed: those whose BurstTime, from the
// population's start, is at most elapsed.
func (b burstPacer) hitsBy(elapsed time.Duration) float64 {
	due := func(i int64) bool {
		at := b.p.BurstTime(i)
		return at != math.MaxInt64 && at-b.p.Start <= elapsed
	}
	n := int64(b.p.Clients) * int64(b.p.BurstSize)
	if n <= 0 || !due(0) {
		return 0
	}
	// The due hits are a prefix: find its end by doubling, then bisection.
	lo, hi := int64(0), int64(1)
	for due(hi) {
		lo, hi = hi, hi*2
		if hi > math.MaxInt64/4 {
			break
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if due(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return float64(lo + 1)
}

// unbounded paces a closed loop: no wait at all, so the attack sends as fast
// as its fixed number of workers free up (C requests in flight).
// It is vegeta.Rate{Freq: 0}, run with workers = max workers = C.
type unbounded struct{}

var closedLoop = vegeta.Rate{Freq: 0}

// Pace never waits: the workers, not the pacer, bound the loop.
func (unbounded) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	return closedLoop.Pace(elapsed, hits)
}

// Rate is 0: a closed loop has no rate of its own.
func (unbounded) Rate(time.Duration) float64   { return 0 }
func (unbounded) hitsBy(time.Duration) float64 { return 0 }

// interruptible wraps a pacer so that its waits happen inside Pace, where
// they can be cut short. vegeta sleeps a wait that Pace returns with
// time.Sleep, which neither Attacker.Stop nor the attack's duration
// interrupts: a slow open loop (8 requests a day) would hold a finished or
// interrupted run for hours. Here the wait is a timer beside the stop
// channel, and a hit due after the attack's duration ends the attack.
type interruptible struct {
	p    vegeta.Pacer
	du   time.Duration   // the attack's duration; 0: none
	stop <-chan struct{} // closed when the run is interrupted
	// stopped, when set, is told the elapsed time at which Pace ended the
	// attack: when sending stopped, for the offered rate.
	stopped func(elapsed time.Duration)
}

// Pace waits until the next hit is due and returns (0, false), or returns
// (0, true) when the run stops first or the hit would fall after the
// attack's end.
func (w interruptible) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	wait, stop := w.p.Pace(elapsed, hits)
	switch {
	case stop:
		return w.end(elapsed)
	case wait <= 0:
		return 0, false
	case w.du > 0 && elapsed+wait >= w.du:
		// A hit due at the end or after it is not sent, as the model
		// sends nothing at its populations' end.
		return w.end(w.du)
	}
	began := time.Now()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return 0, false
	case <-w.stop:
		return w.end(elapsed + time.Since(began))
	}
}

// end ends the attack, noting that it stopped sending at elapsed.
func (w interruptible) end(elapsed time.Duration) (time.Duration, bool) {
	if w.stopped != nil {
		w.stopped(elapsed)
	}
	return 0, true
}

// Rate is the wrapped pacer's rate.
func (w interruptible) Rate(elapsed time.Duration) float64 { return w.p.Rate(elapsed) }

// thinkPacer paces one closed-loop client with think time: its first C
// requests leave at once, and every later one waits for one of the client's
// responses to come back (a signal on freed, sent as each result is
// consumed) and then for a think time. The wait happens here, before vegeta
// times the request, so think time is never part of a latency, whether the
// request then succeeds or fails. A think time that would end after the
// attack ends the client's attack; so does an interrupt or a spent budget.
type thinkPacer struct {
	id    *identities
	slots uint64        // C: requests in flight
	freed chan struct{} // one signal per result of this client
	// draws are the client's; think j of this attack is the client's
	// think j*every + offset (a shard thinks for its share of the
	// client's slots: see clientSlots).
	draws         plan.Draws
	j             int64
	every, offset int64
}

// Pace waits for a free slot and a think time and returns (0, false), or
// returns (0, true) when the client's attack should end.
func (p *thinkPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	if hits < p.slots {
		return 0, false // a client sends at once, then thinks after each response
	}
	select {
	case <-p.freed:
	case <-p.id.stop:
		return 0, true
	}
	if b := p.id.budget; b != nil && b.Load() <= 0 {
		return 0, true
	}
	d := p.nextThink()
	if d <= 0 {
		return 0, false
	}
	if !p.id.deadline.IsZero() && time.Now().Add(d).After(p.id.deadline) {
		return 0, true // it would think past the attack's end: nothing more to send
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return 0, false
	case <-p.id.stop:
		return 0, true
	}
}

// nextThink returns the client's next think time, as the plan draws it.
func (p *thinkPacer) nextThink() time.Duration {
	d := p.id.pop.ThinkTime(p.draws, p.j*max(p.every, 1)+p.offset)
	p.j++
	return d
}

// Rate is 0: a closed loop has no rate of its own.
func (*thinkPacer) Rate(time.Duration) float64 { return 0 }

// shardPacer paces one shard's part of a schedule: of the hits the whole
// run's pacer calls for, hit j goes to shard j mod n, so that the shards'
// hits together are the unsharded schedule. Hit h of shard i is hit
// h*n + i of the whole.
type shardPacer struct {
	p    pacer
	n, i uint64
}

// Pace waits as the whole schedule waits for the shard's next hit.
func (s shardPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	return s.p.Pace(elapsed, hits*s.n+s.i)
}

// Rate is the shard's share of the whole rate.
func (s shardPacer) Rate(elapsed time.Duration) float64 { return s.p.Rate(elapsed) / float64(s.n) }

// hitsBy counts the shard's hits among the whole schedule's first ones.
func (s shardPacer) hitsBy(elapsed time.Duration) float64 {
	h := math.Floor(s.p.hitsBy(elapsed) + 1e-9)
	return float64(plan.Shard{Index: int(s.i), Count: int(s.n)}.Share(int64(h)))
}
