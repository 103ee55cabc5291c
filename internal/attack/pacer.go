package attack

import (
	"math"
	"math/rand/v2"
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

// poissonPacer paces an open loop whose gaps are exponential with mean 1/rate:
// the arrivals of many independent users. Its arrival times are drawn from a
// seeded generator, so two runs with the same seed schedule the same times.
// It implements both Pace and Rate of vegeta.Pacer and is safe for
// concurrent use.
type poissonPacer struct {
	rate float64 // per second
	seed uint64
	mu   sync.Mutex
	sch  arrivals // the schedule Pace walks
	// count replays the same schedule for hitsBy, so that counting never
	// moves the one Pace walks; countAt is the time it was last asked for.
	count   arrivals
	countAt time.Duration
}

// arrivals walks one seeded poissonPacer schedule: arrival n is at next.
type arrivals struct {
	rng  *rand.Rand
	n    uint64
	next time.Duration
}

// newPoisson returns a Poisson pacer of perSec arrivals a second on average.
func newPoisson(perSec float64, seed uint64) *poissonPacer {
	p := &poissonPacer{rate: perSec, seed: seed}
	p.sch = p.start()
	return p
}

// start returns the schedule at its first arrival.
func (p *poissonPacer) start() arrivals {
	a := arrivals{rng: rand.New(rand.NewPCG(p.seed, 0x9e3779b97f4a7c15))}
	a.next = p.gap(a.rng)
	return a
}

// gap draws one exponential inter-arrival time.
func (p *poissonPacer) gap(rng *rand.Rand) time.Duration {
	if p.rate <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(rng.ExpFloat64() / p.rate * 1e9)
}

// advance moves a to its next arrival; false when its time would overflow.
func (p *poissonPacer) advance(a *arrivals) bool {
	g := p.gap(a.rng)
	if a.next > math.MaxInt64-g {
		return false
	}
	a.next += g
	a.n++
	return true
}

// Pace returns how long to wait until arrival number hits: the attacker asks
// with hits = the number of requests sent so far.
func (p *poissonPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if p.rate <= 0 {
		return 0, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.sch.n < hits {
		if !p.advance(&p.sch) {
			return 0, true
		}
	}
	return max(0, p.sch.next-elapsed), false
}

// Rate returns the mean arrival rate per second, the same at every time.
func (p *poissonPacer) Rate(time.Duration) float64 { return p.rate }

// hitsBy returns the arrivals the schedule has in [0, elapsed]: the real
// count, replayed from the seed, not the rate times the time. Asked for
// increasing times it walks the schedule once.
func (p *poissonPacer) hitsBy(elapsed time.Duration) float64 {
	if p.rate <= 0 {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.count.rng == nil || elapsed < p.countAt {
		p.count = p.start() // an earlier time than the last asked: start over
	}
	p.countAt = elapsed
	for p.count.next <= elapsed {
		if !p.advance(&p.count) {
			break
		}
	}
	return float64(p.count.n)
}

// burstPacer sends size requests at once at `at`, then again every `every` (once
// when every is 0); with a spread, a burst's requests leave evenly over it
// instead. Run it with size workers so that a burst really leaves at once.
type burstPacer struct {
	size   uint64
	at     time.Duration
	every  time.Duration
	spread time.Duration
}

// newBurst returns a burst pacer.
func newBurst(size int, at, every, spread time.Duration) burstPacer {
	return burstPacer{size: uint64(max(size, 0)), at: at, every: every, spread: max(spread, 0)}
}

// Pace returns the wait until the burst that hit number hits belongs to.
func (b burstPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if b.size == 0 {
		return 0, true
	}
	k := hits / b.size
	if b.every <= 0 && k >= 1 {
		return 0, true
	}
	if b.every > 0 && k > uint64((math.MaxInt64-b.at)/b.every) {
		return 0, true
	}
	due := b.at + time.Duration(k)*b.every
	if b.spread > 0 { // hit i of the burst leaves i/size of the spread in
		due += time.Duration(hits%b.size) * (b.spread / time.Duration(b.size))
	}
	return max(0, due-elapsed), false
}

// Rate returns the mean rate per second: size per period (0 for a single
// burst, which has no period).
func (b burstPacer) Rate(time.Duration) float64 {
	if b.every <= 0 {
		return 0
	}
	return float64(b.size) / b.every.Seconds()
}

// hitsBy counts the hits due by elapsed, a spread burst's only as far as
// they have left.
func (b burstPacer) hitsBy(elapsed time.Duration) float64 {
	if elapsed < b.at || b.size == 0 {
		return 0
	}
	n := uint64(1) // bursts begun
	if b.every > 0 {
		n += uint64((elapsed - b.at) / b.every)
	}
	last := b.size // hits of the last burst begun
	if step := b.spread / time.Duration(b.size); step > 0 {
		since := elapsed - b.at - time.Duration(n-1)*b.every
		last = min(b.size, uint64(since/step)+1)
	}
	return float64((n-1)*b.size + last)
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
	d := p.id.drawThink()
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
