package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// How a population sends.
const (
	sendClosed uint8 = iota + 1
	sendOpen
	sendBurst
)

// Token and IP modes of an identity, and arrival modes.
const (
	tokenPerClient uint8 = 1
	tokenRotating  uint8 = 2
	tokenShared    uint8 = 3

	ipPerClient uint8 = 1
	ipNAT       uint8 = 2
	ipNone      uint8 = 3

	arriveOne       uint8 = 1
	arriveWeighted  uint8 = 2 // spread (location weights) and weighted (population weights)
	arriveAlternate uint8 = 3
)

// population is a compiled scenario.Population.
type population struct {
	name       string
	legitimate bool
	clients    int
	first      int // index of its first client in the trial's client slice
	start, end int64

	send uint8
	// closed loop
	concurrency int
	think       Dist
	// open loop: rate(t) = rate + slope*t for t < rampOver (seconds since
	// start), then rate + slope*rampOver
	rate, slope, rampOver float64
	poisson               bool
	// burst
	burstSize         int
	burstAt, burstEvy int64
	burstSpread       int64

	token, ip   uint8
	rotateEvery int64
	natPool     int

	arrive   uint8
	loc      int       // arriveOne
	locs     []int     // arriveWeighted: candidate locations
	cum      []float64 // arriveWeighted: cumulative weights, last = 1
	nLocs    int       // arriveAlternate
	firstIPs int       // per-client IPs: index of this population's first client among all
}

// client is one simulated client's state.
type client struct {
	pop    int32
	caller string // token + ":" + ip, as limiter.Caller builds it
	ip     string
	sent   int64   // requests sent so far
	rot    int64   // current rotation (rotating tokens)
	next   int32   // next location (alternate)
	y      float64 // open loop: arrivals' cumulative intensity so far
	stopAt int64   // when the client stops sending (population end)
}

// compilePopulations checks the traffic and compiles it.
func compilePopulations(sc *scenario.Scenario, end int64) ([]population, int, error) {
	var pops []population
	total := 0
	for i, p := range sc.Traffic {
		where := fmt.Sprintf("traffic[%d] (%s)", i, p.Name)
		c := population{name: p.Name, legitimate: p.Legitimate, clients: p.Clients, first: total,
			start: int64(p.Start), firstIPs: total}
		if p.Clients <= 0 {
			return nil, 0, fmt.Errorf("%s.clients %d must be at least 1", where, p.Clients)
		}
		c.end = end
		if p.Duration > 0 && c.start+int64(p.Duration) < end {
			c.end = c.start + int64(p.Duration)
		}
		n := 0
		if p.ClosedLoop != nil {
			n++
			c.send = sendClosed
			c.concurrency = p.ClosedLoop.Concurrency
			if c.concurrency <= 0 {
				return nil, 0, fmt.Errorf("%s.closed_loop.concurrency %d must be at least 1", where, c.concurrency)
			}
			var err error
			if c.think, err = NewDist(p.ClosedLoop.Think); err != nil {
				return nil, 0, fmt.Errorf("%s.closed_loop.think: %v", where, err)
			}
		}
		if p.OpenLoop != nil {
			n++
			c.send = sendOpen
			c.rate = p.OpenLoop.Rate.PerSecond()
			c.poisson = p.OpenLoop.Poisson
			if r := p.OpenLoop.Ramp; r != nil {
				if r.Over <= 0 {
					return nil, 0, fmt.Errorf("%s.open_loop.ramp.over must be above 0", where)
				}
				c.rampOver = r.Over.D().Seconds()
				c.slope = (r.To.PerSecond() - c.rate) / c.rampOver
			}
			if !(c.rate > 0 || c.slope > 0) || math.IsInf(c.rate, 0) || math.IsNaN(c.rate) || c.rate < 0 {
				return nil, 0, fmt.Errorf("%s.open_loop.rate %v must be above 0 (or ramp to a rate above 0)", where, p.OpenLoop.Rate)
			}
		}
		if p.Burst != nil {
			n++
			c.send = sendBurst
			c.burstSize, c.burstAt, c.burstEvy = p.Burst.Size, int64(p.Burst.At), int64(p.Burst.Every)
			c.burstSpread = int64(p.Burst.Spread)
			if c.burstSize <= 0 {
				return nil, 0, fmt.Errorf("%s.burst.size %d must be at least 1", where, c.burstSize)
			}
		}
		if n != 1 {
			return nil, 0, fmt.Errorf("%s sets %d of closed_loop, open_loop and burst: set exactly one", where, n)
		}
		switch p.Identity.Token {
		case "per-client", "":
			c.token = tokenPerClient
		case "rotating":
			c.token = tokenRotating
			c.rotateEvery = int64(p.Identity.RotateEvery)
			if c.rotateEvery <= 0 {
				return nil, 0, fmt.Errorf("%s.identity.rotate_every %d must be at least 1 for a rotating token", where, p.Identity.RotateEvery)
			}
		case "shared":
			c.token = tokenShared
		default:
			return nil, 0, fmt.Errorf("%s.identity.token %q is unknown: use per-client, rotating or shared", where, p.Identity.Token)
		}
		switch p.Identity.IP {
		case "per-client", "":
			c.ip = ipPerClient
		case "nat":
			c.ip = ipNAT
			c.natPool = p.Identity.NATPool
			if c.natPool <= 0 {
				return nil, 0, fmt.Errorf("%s.identity.nat_pool %d must be at least 1 for ip: nat", where, c.natPool)
			}
		case "none":
			c.ip = ipNone
		default:
			return nil, 0, fmt.Errorf("%s.identity.ip %q is unknown: use per-client, nat or none", where, p.Identity.IP)
		}
		if err := compileArrive(&c, p.Arrive, sc.Locations, where); err != nil {
			return nil, 0, err
		}
		pops = append(pops, c)
		total += p.Clients
	}
	if len(pops) == 0 {
		return nil, 0, fmt.Errorf("the scenario has no traffic: add a population under traffic")
	}
	return pops, total, nil
}

func compileArrive(c *population, a scenario.Arrive, locs []scenario.Location, where string) error {
	if len(locs) == 0 {
		return fmt.Errorf("the scenario has no locations: add at least one under locations")
	}
	weighted := func(idx []int, w []float64) error {
		var sum float64
		for _, x := range w {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("%s.arrive: weight %v must be 0 or more", where, x)
			}
			sum += x
		}
		if sum == 0 { // no weights given: equal shares
			for i := range w {
				w[i] = 1
			}
			sum = float64(len(w))
		}
		c.arrive, c.locs = arriveWeighted, idx
		acc := 0.0
		for _, x := range w {
			acc += x
			c.cum = append(c.cum, acc/sum)
		}
		c.cum[len(c.cum)-1] = 1
		return nil
	}
	switch a.Mode {
	case "one", "":
		c.arrive = arriveOne
		if a.Location != "" {
			if c.loc = LocationIndex(locs, a.Location); c.loc < 0 {
				return fmt.Errorf("%s.arrive.location %q is not a location: use one of the names under locations", where, a.Location)
			}
		}
	case "spread":
		idx := make([]int, len(locs))
		w := make([]float64, len(locs))
		for i, l := range locs {
			idx[i], w[i] = i, l.Weight
		}
		return weighted(idx, w)
	case "weighted":
		if len(a.Weights) == 0 {
			return fmt.Errorf("%s.arrive.weights is empty: list locations and weights for mode weighted", where)
		}
		idx := make([]int, len(a.Weights))
		w := make([]float64, len(a.Weights))
		for i, x := range a.Weights {
			if idx[i] = LocationIndex(locs, x.Location); idx[i] < 0 {
				return fmt.Errorf("%s.arrive.weights[%d].location %q is not a location", where, i, x.Location)
			}
			w[i] = x.Weight
		}
		return weighted(idx, w)
	case "alternate":
		c.arrive, c.nLocs = arriveAlternate, len(locs)
	default:
		return fmt.Errorf("%s.arrive.mode %q is unknown: use one, spread, weighted or alternate", where, a.Mode)
	}
	return nil
}

// pickLocation returns where client c's next request arrives.
func (p *population) pickLocation(c *client, r *rand.Rand) int {
	switch p.arrive {
	case arriveWeighted:
		if len(p.cum) == 1 {
			return p.locs[0]
		}
		u := r.Float64()
		for i, x := range p.cum {
			if u < x {
				return p.locs[i]
			}
		}
		return p.locs[len(p.locs)-1]
	case arriveAlternate:
		l := int(c.next)
		c.next = int32((l + 1) % p.nLocs)
		return l
	}
	return p.loc
}

// Identities. Tokens look like "anon-p<population>-c<client>" (per client),
// "anon-p<population>-c<client>-r<rotation>" (rotating) or "anon-p<population>"
// (shared). Per-client addresses are 10.x.y.z, numbered across all
// populations so no two clients share one; a NAT pool of M is 100.64.x.y for
// pool slots 0..M-1, the same addresses in every population, so two
// populations behind NAT share them as an office's users and a bot inside it
// would; ip none gives the seed's "unknown". The caller is token + ":" + ip,
// exactly what limiter.Caller builds from a request carrying that
// CF-Connecting-IP (or none).

// clientToken returns client k of population p's token at rotation rot.
func clientToken(p *population, pi, k int, rot int64) string {
	switch p.token {
	case tokenShared:
		return "anon-p" + strconv.Itoa(pi)
	case tokenRotating:
		return "anon-p" + strconv.Itoa(pi) + "-c" + strconv.Itoa(k) + "-r" + strconv.FormatInt(rot, 10)
	}
	return "anon-p" + strconv.Itoa(pi) + "-c" + strconv.Itoa(k)
}

// clientIP returns client k of population p's address.
func clientIP(p *population, k int) string {
	switch p.ip {
	case ipNone:
		return "unknown"
	case ipNAT:
		return quad(100, 64, k%p.natPool)
	}
	return quad(10, 0, p.firstIPs+k)
}

// quad formats a.b.c.d with n spread over the low bits (b + n>>16, n>>8, n).
func quad(a, b, n int) string {
	return strconv.Itoa(a) + "." + strconv.Itoa(b+(n>>16)) + "." + strconv.Itoa((n>>8)&255) + "." + strconv.Itoa(n&255)
}

// nextCaller counts a request from client ci of population p and sets its
// caller: a rotating token changes every rotateEvery requests.
func (c *client) nextCaller(p *population, ci int32) {
	if p.token == tokenRotating {
		if rot := c.sent / p.rotateEvery; rot != c.rot {
			c.rot = rot
			c.caller = clientToken(p, int(c.pop), int(ci)-p.first, rot) + ":" + c.ip
		}
	}
	c.sent++
}

// newClients builds every client of the populations, callers precomputed.
func newClients(pops []population, total int) []client {
	cs := make([]client, 0, total)
	for pi := range pops {
		p := &pops[pi]
		for k := 0; k < p.clients; k++ {
			ip := clientIP(p, k)
			cs = append(cs, client{pop: int32(pi), ip: ip, caller: clientToken(p, pi, k, 0) + ":" + ip, stopAt: p.end})
		}
	}
	return cs
}

// inverse returns s for Λ(s) = y, where Λ(s) is the open loop's expected
// number of arrivals in the first s seconds after the population starts.
func (p *population) inverse(y float64) float64 {
	if y <= 0 {
		return 0
	}
	if p.slope == 0 {
		return y / p.rate
	}
	// Λ(s) = rate*s + slope*s²/2 for s <= rampOver.
	over := p.rampOver
	lOver := p.rate*over + p.slope*over*over/2
	if y <= lOver {
		a, b := p.slope/2, p.rate
		// a s² + b s - y = 0; the positive root, written to stay exact
		// when a is tiny or negative.
		disc := b*b + 4*a*y
		if disc < 0 { // a ramp down to 0 never reaches y
			return math.Inf(1)
		}
		return 2 * y / (b + math.Sqrt(disc))
	}
	top := p.rate + p.slope*over
	if top <= 0 {
		return math.Inf(1)
	}
	return over + (y-lOver)/top
}

// nextOpen returns the virtual time of client c's next open-loop arrival
// (math.MaxInt64 when there is none), advancing its intensity: one unit per
// arrival at a constant rate, an Exp(1) draw for a Poisson process (exact
// for the linear ramp, by inverting its cumulative rate).
func (p *population) nextOpen(c *client, r *rand.Rand) int64 {
	if p.poisson {
		c.y += r.ExpFloat64()
	} else {
		c.y++
	}
	return p.openAt(c.y)
}

func (p *population) openAt(y float64) int64 {
	s := p.inverse(y)
	t := float64(p.start) + math.Round(s*float64(time.Second))
	if !(t < float64(math.MaxInt64/2)) {
		return math.MaxInt64
	}
	return int64(t)
}
