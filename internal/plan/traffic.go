package plan

import (
	"math"
	"strconv"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// Send is how a population sends.
type Send uint8

// The ways a population sends.
const (
	// Closed is the bot loop: each client keeps Concurrency requests in
	// flight and thinks between a response and its next request.
	Closed Send = iota + 1
	// Open sends at a rate whatever the responses.
	Open
	// Burst sends BurstSize requests per client at once, at BurstAt and
	// then every BurstEvery.
	Burst
)

// Token and address modes of an identity, and arrival modes.
const (
	tokenPerClient uint8 = iota + 1
	tokenRotating
	tokenShared

	ipPerClient
	ipNAT
	ipNone

	arriveOne
	arriveWeighted // spread (location weights) and weighted (population weights)
	arriveAlternate
)

// Population is a compiled traffic population: who its clients are (the
// identity of client k's request n), where their requests arrive, and when
// they send. Both drivers read it: the model in virtual time, the live
// runner on the wall clock. It is read-only once compiled.
type Population struct {
	// Name is the population's name; Index its place in the scenario.
	Name  string
	Index int
	// Legitimate populations are counted for false denials.
	Legitimate bool
	// Clients is the number of clients; First the run-wide number of the
	// first (client k of this population is client First+k of the run).
	Clients int
	First   int
	// Start and End bound when the population sends, from the run's start
	// (End is the population's own end or the run's, whichever is first).
	Start, End time.Duration

	Send Send
	// Concurrency and Think are a closed loop's requests in flight per
	// client and its think time.
	Concurrency int
	Think       Dist
	// Rate is an open loop's rate per client per second; with a ramp it
	// changes linearly to RampTo over RampOver, then holds. Poisson makes
	// the gaps exponential.
	Rate, RampTo float64
	RampOver     time.Duration
	Poisson      bool
	// BurstSize requests per client leave at BurstAt (from Start), then
	// every BurstEvery (0: once), spread evenly over BurstSpread (0: in
	// one instant).
	BurstSize                        int
	BurstAt, BurstEvery, BurstSpread time.Duration
	slope                            float64 // open loop: rate change per second during the ramp
	token, ip, arrive                uint8
	rotateEvery                      int64
	natPool                          int
	loc                              int       // arriveOne
	locs                             []int     // arriveWeighted: candidate locations
	cum                              []float64 // arriveWeighted: cumulative weights, last = 1
	nLocs                            int       // arriveAlternate
}

// compilePopulations compiles a validated scenario's traffic for a run of
// length end.
func compilePopulations(sc *scenario.Scenario, end time.Duration) ([]Population, int, error) {
	var pops []Population
	total := 0
	for i, p := range sc.Traffic {
		c := Population{Name: p.Name, Index: i, Legitimate: p.Legitimate, Clients: p.Clients, First: total,
			Start: p.Start.D(), End: end}
		if p.Duration > 0 && c.Start+p.Duration.D() < end {
			c.End = c.Start + p.Duration.D()
		}
		switch {
		case p.ClosedLoop != nil:
			c.Send, c.Concurrency = Closed, p.ClosedLoop.Concurrency
			var err error
			if c.Think, err = NewDist(p.ClosedLoop.Think); err != nil {
				return nil, 0, err
			}
		case p.OpenLoop != nil:
			c.Send, c.Rate, c.Poisson = Open, p.OpenLoop.Rate.PerSecond(), p.OpenLoop.Poisson
			c.RampTo = c.Rate
			if r := p.OpenLoop.Ramp; r != nil && r.Over > 0 {
				c.RampTo, c.RampOver = r.To.PerSecond(), r.Over.D()
				c.slope = (c.RampTo - c.Rate) / c.RampOver.Seconds()
			}
		case p.Burst != nil:
			c.Send, c.BurstSize = Burst, p.Burst.Size
			c.BurstAt, c.BurstEvery, c.BurstSpread = p.Burst.At.D(), p.Burst.Every.D(), p.Burst.Spread.D()
		}
		switch p.Identity.Token {
		case "rotating":
			c.token, c.rotateEvery = tokenRotating, int64(p.Identity.RotateEvery)
		case "shared":
			c.token = tokenShared
		default:
			c.token = tokenPerClient
		}
		switch p.Identity.IP {
		case "nat":
			c.ip, c.natPool = ipNAT, p.Identity.NATPool
		case "none":
			c.ip = ipNone
		default:
			c.ip = ipPerClient
		}
		c.compileArrive(p.Arrive, sc.Locations)
		pops = append(pops, c)
		total += p.Clients
	}
	return pops, total, nil
}

// compileArrive sets where the population's requests arrive.
func (c *Population) compileArrive(a scenario.Arrive, locs []scenario.Location) {
	weighted := func(idx []int, w []float64) {
		var sum float64
		for _, x := range w {
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
	}
	switch a.Mode {
	case "spread":
		idx := make([]int, len(locs))
		w := make([]float64, len(locs))
		for i, l := range locs {
			idx[i], w[i] = i, l.Weight
		}
		weighted(idx, w)
	case "weighted":
		idx := make([]int, len(a.Weights))
		w := make([]float64, len(a.Weights))
		for i, x := range a.Weights {
			idx[i], w[i] = locationIndex(locs, x.Location), x.Weight
		}
		weighted(idx, w)
	case "alternate":
		c.arrive, c.nLocs = arriveAlternate, len(locs)
	default:
		c.arrive = arriveOne
		if a.Location != "" {
			c.loc = max(0, locationIndex(locs, a.Location))
		}
	}
}

// Identities. Tokens are "anon-p<population>-c<client>" (per client),
// "anon-p<population>-c<client>-r<rotation>" (rotating) or "anon-p<population>"
// (shared). Per-client addresses are 10.x.y.z, numbered across all
// populations so that no two clients share one; a NAT pool of M is
// 100.64.x.y for pool slots 0..M-1, the same addresses in every population,
// so that two populations behind NAT share them as an office's users and a
// bot inside it would. A client with no address sends none, and the limiter
// keys it as "unknown", as the seed does.

// Rotates reports whether the population's tokens change every
// RotateEvery requests; a driver then asks Token for each request.
func (p *Population) Rotates() bool { return p.token == tokenRotating }

// Rotation returns the rotation of client's request n (0-based): 0 unless
// the token rotates.
func (p *Population) Rotation(n int64) int64 {
	if p.token != tokenRotating {
		return 0
	}
	return n / p.rotateEvery
}

// Token returns the token client k of the population sends with its
// request n (0-based, counted per client).
func (p *Population) Token(k int, n int64) string {
	switch p.token {
	case tokenShared:
		return "anon-p" + strconv.Itoa(p.Index)
	case tokenRotating:
		return "anon-p" + strconv.Itoa(p.Index) + "-c" + strconv.Itoa(k) + "-r" + strconv.FormatInt(n/p.rotateEvery, 10)
	}
	return "anon-p" + strconv.Itoa(p.Index) + "-c" + strconv.Itoa(k)
}

// IP returns the address client k of the population sends from, "" for
// none.
func (p *Population) IP(k int) string {
	switch p.ip {
	case ipNone:
		return ""
	case ipNAT:
		return quad(100, 64, k%p.natPool)
	}
	return quad(10, 0, p.First+k)
}

// Caller returns the limiter's caller identity of a request with token
// from address ip ("" for none), as limiter.Caller builds it from a
// request carrying that CF-Connecting-IP or none.
func Caller(token, ip string) string {
	if ip == "" {
		ip = "unknown"
	}
	return token + ":" + ip
}

// quad formats a.b.c.d with n spread over the low bits (b + n>>16, n>>8, n).
func quad(a, b, n int) string {
	return strconv.Itoa(a) + "." + strconv.Itoa(b+(n>>16)) + "." + strconv.Itoa((n>>8)&255) + "." + strconv.Itoa(n&255)
}

// DrawsLocation reports whether Location uses its u: only when requests
// spread over several locations at random. A driver draws u only then, so
// that a population at one location costs no random draw.
func (p *Population) DrawsLocation() bool { return p.arrive == arriveWeighted && len(p.cum) > 1 }

// OneLocation returns the location where every request of the population
// arrives, and true, when there is one that Location always returns
// (arrive one, or spread over one location), so that a driver need not
// ask for each request; else false.
func (p *Population) OneLocation() (int, bool) {
	switch {
	case p.arrive == arriveWeighted && len(p.cum) == 1:
		return p.locs[0], true
	case p.arrive != arriveWeighted && p.arrive != arriveAlternate:
		return p.loc, true
	}
	return 0, false
}

// Location returns the index of the location where a client's request n
// (0-based, per client) arrives, given u uniform in [0, 1), which each
// driver draws its own way (the model from its trial's source, the live
// runner from a low-discrepancy sequence). Alternate goes round the
// locations per client.
func (p *Population) Location(n int64, u float64) int {
	switch p.arrive {
	case arriveWeighted:
		if len(p.cum) == 1 {
			return p.locs[0]
		}
		// The first i with u < cum[i], or the last: start where u would
		// fall if the weights were equal (a step or none from the answer
		// when they are) and walk to it. cum never decreases, so the walk
		// finds what a scan from the start would.
		last := len(p.cum) - 1
		i := min(max(int(u*float64(len(p.cum))), 0), last)
		for i > 0 && u < p.cum[i-1] {
			i--
		}
		for i < last && u >= p.cum[i] {
			i++
		}
		return p.locs[i]
	case arriveAlternate:
		return int(n % int64(p.nLocs))
	}
	return p.loc
}

// Arrival times of an open loop. Each client's arrivals are those of a
// process with rate(s) = Rate + slope*s for s < RampOver after Start, then
// RampTo: arrival j of a constant-rate client is at cumulative intensity
// y = j + phase, a Poisson client's at the sum of j+1 Exp(1) draws. The
// clients of a constant rate are evenly out of phase (client k at k/Clients),
// so that together they send at Clients x Rate exactly.

// HitsBy returns Λ(d): how many arrivals one client expects in the first d
// after the population starts.
func (p *Population) HitsBy(d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	s := d.Seconds()
	over := p.RampOver.Seconds()
	if p.slope == 0 || s <= over {
		return p.Rate*s + p.slope*s*s/2
	}
	return p.Rate*over + p.slope*over*over/2 + (s-over)*p.RampTo
}

// RateAt returns one client's arrival rate per second d after the
// population starts.
func (p *Population) RateAt(d time.Duration) float64 {
	if p.slope == 0 || d >= p.RampOver {
		return p.RampTo
	}
	return p.Rate + p.slope*d.Seconds()
}

// inverse returns s for Λ(s) = y, in seconds after the population starts.
func (p *Population) inverse(y float64) float64 {
	if y <= 0 {
		return 0
	}
	if p.slope == 0 {
		return y / p.Rate
	}
	// Λ(s) = rate*s + slope*s²/2 for s <= rampOver.
	over := p.RampOver.Seconds()
	lOver := p.Rate*over + p.slope*over*over/2
	if y <= lOver {
		a, b := p.slope/2, p.Rate
		// a s² + b s - y = 0; the positive root, written to stay exact
		// when a is tiny or negative.
		disc := b*b + 4*a*y
		if disc < 0 { // a ramp down to 0 never reaches y
			return math.Inf(1)
		}
		return 2 * y / (b + math.Sqrt(disc))
	}
	top := p.Rate + p.slope*over
	if top <= 0 {
		return math.Inf(1)
	}
	return over + (y-lOver)/top
}

// ArrivalAt returns when, from the run's start, an open loop reaches
// cumulative intensity y (an arrival's), or math.MaxInt64 when it never
// does.
func (p *Population) ArrivalAt(y float64) time.Duration {
	s := p.inverse(y)
	t := float64(p.Start) + math.Round(s*float64(time.Second))
	if !(t < float64(math.MaxInt64/2)) {
		return math.MaxInt64
	}
	return time.Duration(t)
}

// Phase returns the cumulative intensity of a constant-rate client k's
// first arrival: clients are evenly out of phase.
func (p *Population) Phase(k int) float64 { return float64(k) / float64(p.Clients) }

// InFlightAtOnce is the most requests the population can send at one
// instant: a closed loop's clients x concurrency, a burst's clients x size.
func (p *Population) InFlightAtOnce() int {
	return p.Clients * max(p.Concurrency, p.BurstSize, 1)
}
