package model

import (
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// client is one simulated client's state.
type client struct {
	pop    int32
	p      *plan.Population // pops[pop], found without indexing
	caller string           // the limiter's caller identity (plan.Population.Caller)
	draws  plan.Draws       // the client's traffic draws in this trial
	sent   int64            // requests sent so far
	rot    int64            // current rotation (plan.Population.Rotation)
	y      float64          // open loop: arrivals' cumulative intensity so far
	// thought counts the client's think times drawn so far: think j is
	// plan.Population.ThinkTime(draws, j).
	thought int64
	stopAt  int64 // when the client stops sending (population end)
	// win is the plan of the client's latest request, built once per
	// caller and window rather than once per request (trial.planFor);
	// nil when the caller has changed since.
	win *callerWindow
	// loc is where every request of the client arrives, when its
	// population has one location (plan.Population.OneLocation); else -1.
	loc int32
	// closed says the client's population sends in a closed loop, and
	// thinks that it has a think time to draw (p.Think is not zero).
	closed, thinks bool
}

// nextCaller counts a request from client ci of population p and sets its
// caller: a rotating token changes every rotateEvery requests. It returns
// the request's number for the client (0-based).
// It is small enough to be inlined: a rotating token's caller is rotate's.
func (c *client) nextCaller(p *plan.Population, ci int32) int64 {
	if p.Rotates() {
		c.rotate(ci)
	}
	n := c.sent
	c.sent++
	return n
}

// rotate sets the caller of client ci's next request, c.sent, for a
// population whose token rotates.
func (c *client) rotate(ci int32) {
	p, n := c.p, c.sent
	if rot := p.Rotation(n); rot != c.rot {
		c.rot = rot
		c.caller = p.Caller(int(ci)-p.First, n)
		c.win = nil // planned for the caller before
	}
}

// callerWindow is the limiter's plan for one caller in one window, built
// once (trial.planFor) and shared by every request of the client in the
// window: a request points to it instead of copying its keys and caller,
// and its refs find the KV model's state of its keys without hashing them.
// Nothing changes it once built but its refs.
type callerWindow struct {
	caller string
	// plan is the plan for the request that built it: a request keeps
	// how far into the window it is itself (request.into).
	plan limiter.Plan
	// keys built plan; from and to are the window's bounds in Unix
	// nanoseconds (keys.WindowUnixNano): plan serves the caller at every
	// instant in [from, to).
	keys     limiter.Keys
	from, to int64
	// refs find the KV store's state of plan.Keys[i], and rec the
	// recorder's state of caller, without hashing them.
	refs [2]kvRef
	rec  measure.KeyRef
}

// newClients builds every client of the populations for a trial whose
// traffic draws from s, callers precomputed, and each client's location
// when it has one for all its requests.
func newClients(pops []plan.Population, total int, s plan.Stream) []client {
	cs := make([]client, 0, total)
	for pi := range pops {
		p := &pops[pi]
		for k := 0; k < p.Clients; k++ {
			c := client{pop: int32(pi), p: p, draws: s.Client(p, k), caller: p.Caller(k, 0), stopAt: int64(p.End),
				loc: -1, closed: p.Send == plan.Closed, thinks: !p.Think.IsZero()}
			if loc, ok := p.OneLocation(); ok {
				c.loc = int32(loc)
			} else if p.Pinned() {
				c.loc = int32(p.Location(c.draws, 0))
			}
			cs = append(cs, c)
		}
	}
	return cs
}

// location returns where the client's request n arrives: its one
// location, or the one the plan draws for the request.
func (c *client) location(n int64) int32 {
	if c.loc >= 0 {
		return c.loc
	}
	return int32(c.p.Location(c.draws, n))
}

// nextOpen returns the virtual time of client c's next open-loop arrival
// (math.MaxInt64 when there is none), advancing its intensity as the plan
// says (plan.Population.Arrival): c.sent is the arrival's number, and k
// the client's within its population.
func nextOpen(p *plan.Population, c *client, k int) int64 {
	c.y = p.Arrival(c.draws, k, c.sent, c.y)
	return int64(p.ArrivalAt(c.y))
}

// think returns client c's next think time, as the plan says.
func (c *client) think() int64 {
	d := c.p.ThinkTime(c.draws, c.thought)
	c.thought++
	return int64(d)
}
