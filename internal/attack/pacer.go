package attack

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// pacer is a vegeta.Pacer that can also say how many hits it has called for
// by a given elapsed time, so that the offered rate can be reported beside the
// achieved one.
type pacer interface {
	vegeta.Pacer
	// hitsBy returns the hits the pacer schedules in [0, elapsed].
	hitsBy(elapsed time.Duration) float64
}

// constantRate returns the vegeta pacer for perSec requests a second, exact
// to the nanosecond for fractional rates ({Freq: 1, Per: interval}).
func constantRate(perSec float64) vegeta.Rate {
	if perSec <= 0 {
		return vegeta.Rate{Freq: 0, Per: 0}
	}
	return vegeta.Rate{Freq: 1, Per: time.Duration(math.Max(1, math.Round(1e9/perSec)))}
}

// Constant paces at a fixed rate: vegeta's ConstantPacer, which counts how
// many hits it owes.
type Constant struct{ cp vegeta.ConstantPacer }

// NewConstant returns a pacer of perSec requests a second.
func NewConstant(perSec float64) Constant { return Constant{constantRate(perSec)} }

// Pace is vegeta's ConstantPacer.Pace.
func (c Constant) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if c.cp.Per <= 0 {
		return 0, true // a zero rate sends nothing (vegeta would send unboundedly)
	}
	return c.cp.Pace(elapsed, hits)
}

// Rate is vegeta's ConstantPacer.Rate.
func (c Constant) Rate(elapsed time.Duration) float64 { return c.cp.Rate(elapsed) }

func (c Constant) hitsBy(elapsed time.Duration) float64 {
	if c.cp.Per <= 0 {
		return 0
	}
	return float64(c.cp.Freq) * float64(elapsed) / float64(c.cp.Per)
}

// Poisson paces an open loop whose gaps are exponential with mean 1/rate:
// the arrivals of many independent users. Its arrival times are drawn from a
// seeded generator, so two runs with the same seed schedule the same times.
// It implements both Pace and Rate of vegeta.Pacer and is safe for
// concurrent use.
type Poisson struct {
	rate float64 // per second
	mu   sync.Mutex
	rng  *rand.Rand
	n    uint64        // index of the arrival at next
	next time.Duration // time of arrival n, from the attack's start
}

// NewPoisson returns a Poisson pacer of perSec arrivals a second on average.
func NewPoisson(perSec float64, seed uint64) *Poisson {
	p := &Poisson{rate: perSec, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	p.next = p.gap()
	return p
}

// gap draws one exponential inter-arrival time.
func (p *Poisson) gap() time.Duration {
	if p.rate <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(p.rng.ExpFloat64() / p.rate * 1e9)
}

// Pace returns how long to wait until arrival number hits: the attacker asks
// with hits = the number of requests sent so far.
func (p *Poisson) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if p.rate <= 0 {
		return 0, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.n < hits {
		g := p.gap()
		if p.next > math.MaxInt64-g {
			return 0, true
		}
		p.next += g
		p.n++
	}
	return max(0, p.next-elapsed), false
}

// Rate returns the mean arrival rate per second, the same at every time.
func (p *Poisson) Rate(time.Duration) float64 { return p.rate }

func (p *Poisson) hitsBy(elapsed time.Duration) float64 { return p.rate * elapsed.Seconds() }

// Ramp paces a rate that grows linearly from a start rate to an end rate over
// a given time and then holds: vegeta's LinearPacer for the ramp, a constant
// rate after it.
type Ramp struct {
	lin   vegeta.LinearPacer
	from  float64 // per second
	to    float64
	over  time.Duration
	atEnd float64 // hits scheduled by the end of the ramp
}

// NewRamp returns a pacer from `from` to `to` requests a second over `over`.
func NewRamp(from, to float64, over time.Duration) *Ramp {
	r := &Ramp{from: from, to: to, over: over}
	slope := 0.0
	if over > 0 {
		slope = (to - from) / over.Seconds()
	}
	r.lin = vegeta.LinearPacer{StartAt: constantRate(from), Slope: slope}
	r.atEnd = r.hitsBy(over)
	return r
}

// Pace returns the wait before the next hit.
func (r *Ramp) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if r.over > 0 && elapsed < r.over && r.from > 0 {
		wait, stop := r.lin.Pace(elapsed, hits)
		if stop || elapsed+wait <= r.over {
			return wait, stop
		}
	}
	if r.over > 0 && elapsed < r.over && r.from <= 0 {
		// LinearPacer treats a zero start rate as unbounded: solve the
		// ramp's hits(t) = hits+1 directly instead.
		a := (r.to - r.from) / r.over.Seconds()
		if t := math.Sqrt(2 * float64(hits+1) / a); a > 0 && t < r.over.Seconds() {
			return max(0, time.Duration(t*1e9)-elapsed), false
		}
	}
	// Past the ramp: constant at r.to, after the hits the ramp scheduled.
	if r.to <= 0 {
		return 0, true
	}
	due := r.over + time.Duration((float64(hits+1)-r.atEnd)/r.to*1e9)
	return max(0, due-elapsed), false
}

// Rate returns the instantaneous rate per second at elapsed.
func (r *Ramp) Rate(elapsed time.Duration) float64 {
	if elapsed >= r.over {
		return r.to
	}
	return r.from + (r.to-r.from)*elapsed.Seconds()/r.over.Seconds()
}

func (r *Ramp) hitsBy(elapsed time.Duration) float64 {
	t := min(elapsed, r.over).Seconds()
	h := r.from*t + (r.to-r.from)/r.over.Seconds()*t*t/2
	if r.over <= 0 {
		h = 0
	}
	if elapsed > r.over {
		h += r.to * (elapsed - r.over).Seconds()
	}
	return h
}

// Burst sends size requests at once at `at`, then again every `every` (once
// when every is 0); with a spread, a burst's requests leave evenly over it
// instead. Run it with size workers so that a burst really leaves at once.
type Burst struct {
	size   uint64
	at     time.Duration
	every  time.Duration
	spread time.Duration
}

// NewBurst returns a burst pacer.
func NewBurst(size int, at, every, spread time.Duration) Burst {
	return Burst{size: uint64(max(size, 0)), at: at, every: every, spread: max(spread, 0)}
}

// Pace returns the wait until the burst that hit number hits belongs to.
func (b Burst) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
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
func (b Burst) Rate(time.Duration) float64 {
	if b.every <= 0 {
		return 0
	}
	return float64(b.size) / b.every.Seconds()
}

func (b Burst) hitsBy(elapsed time.Duration) float64 {
	if elapsed < b.at || b.size == 0 {
		return 0
	}
	if b.every <= 0 {
		return float64(b.size)
	}
	return float64(b.size) * float64(1+(elapsed-b.at)/b.every)
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
}

// Pace waits until the next hit is due and returns (0, false), or returns
// (0, true) when the run stops first or the hit would fall after the
// attack's end.
func (w interruptible) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	wait, stop := w.p.Pace(elapsed, hits)
	if stop {
		return 0, true
	}
	if wait <= 0 {
		return 0, false
	}
	if w.du > 0 && elapsed+wait > w.du {
		return 0, true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return 0, false
	case <-w.stop:
		return 0, true
	}
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
