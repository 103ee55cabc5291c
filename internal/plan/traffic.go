package plan

import (
	"hash/fnv"
	"math"
	"strconv"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
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
	tokenPool
	tokenShared
	tokenNone

	ipPerClient
	ipNAT
	ipPool // also shared: a pool of one
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
	key                              limiter.KeyBy
	rotateEvery                      int64
	natPool                          int
	tokenPool                        int64
	ipPool                           int64
	poolFirst                        int       // ipPool: the run-wide number of the pool's first address
	perRequest                       bool      // arriveWeighted: each request draws its location, not each client
	loc                              int       // arriveOne
	locs                             []int     // arriveWeighted: candidate locations
	cum                              []float64 // arriveWeighted: cumulative weights, last = 1
	nLocs                            int       // arriveAlternate
}

// compilePopulations compiles a validated scenario's traffic for a run of
// length end.
func compilePopulations(sc *scenario.Scenario, end time.Duration) ([]Population, int, error) {
	var pops []Population
	total, pools := 0, 0
	for i, p := range sc.Traffic {
		c := Population{Name: p.Name, Index: i, Legitimate: p.Legitimate, Clients: p.Clients, First: total,
			Start: p.Start.D(), End: end, key: limiter.KeyBy(sc.Limiter.Key)}
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
		c.compileIdentity(p.Identity, &pools)
		c.compileArrive(p.Arrive, sc.Locations)
		pops = append(pops, c)
		total += p.Clients
	}
	return pops, total, nil
}

// compileIdentity sets what the population's clients send; pools counts
// the pooled addresses of the populations before it, so that no two
// populations' pools share an address.
func (c *Population) compileIdentity(id scenario.Identity, pools *int) {
	switch id.Token {
	case "rotating":
		c.token, c.rotateEvery = tokenRotating, int64(id.RotateEvery)
	case "pool":
		c.token, c.tokenPool = tokenPool, int64(id.TokenPool)
	case "shared":
		c.token = tokenShared
	case "none":
		c.token = tokenNone
	default:
		c.token = tokenPerClient
	}
	switch id.IP {
	case "nat":
		c.ip, c.natPool = ipNAT, id.NATPool
	case "pool", "shared":
		c.ip, c.ipPool, c.poolFirst = ipPool, int64(max(id.IPPool, 1)), *pools
		*pools += int(c.ipPool)
	case "none":
		c.ip = ipNone
	default:
		c.ip = ipPerClient
	}
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
		c.arrive, c.locs, c.perRequest = arriveWeighted, idx, a.Per == "request"
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
// "anon-p<population>-c<client>-r<rotation>" (rotating),
// "anon-p<population>-t<slot>" (a pool: client k's request n sends slot
// (k+n) mod N, so that one client cycles through the whole pool and many
// spread over it) or "anon-p<population>" (shared); a client with no token
// sends none, and the limiter reads limiter.NoToken. Per-client addresses
// are 10.x.y.z, numbered across all populations so that no two clients
// share one; a NAT pool of M is 100.64.x.y for pool slots 0..M-1 (client k
// keeps slot k mod M), the same addresses in every population, so that two
// populations behind NAT share them as an office's users and a bot inside
// it would. An address pool (a scraper's exit addresses; shared is a pool
// of one) is 198.18.x.y, numbered across the populations' pools, and
// client k's request n goes out through slot (k+n) mod M. A client with no
// address sends none, and the limiter reads "unknown", as the seed does.

// Rotates reports whether what a client sends (its token or address)
// changes from request to request; a driver then asks Token and IP for
// each request.
func (p *Population) Rotates() bool {
	return p.token == tokenRotating || p.token == tokenPool || p.ip == ipPool && p.ipPool > 1
}

// Rotation returns a number that changes whenever the caller identity of
// a client's request n (0-based) may differ from its request n-1's: 0
// when it never does, as the limiter keys it (a rotating token under a
// limiter keyed by IP alone changes no caller). A driver that caches a
// client's caller builds it anew only when the rotation changes.
func (p *Population) Rotation(n int64) int64 {
	tokens := p.key != limiter.KeyIP && (p.token == tokenRotating || p.token == tokenPool)
	addrs := p.key != limiter.KeyToken && p.ip == ipPool && p.ipPool > 1
	switch {
	case !tokens && !addrs:
		return 0
	case addrs || p.token == tokenPool:
		return n
	}
	return n / p.rotateEvery
}

// Token returns the token client k of the population sends with its
// request n (0-based, counted per client), "" for none.
func (p *Population) Token(k int, n int64) string {
	switch p.token {
	case tokenShared:
		return "anon-p" + strconv.Itoa(p.Index)
	case tokenNone:
		return ""
	case tokenRotating:
		return "anon-p" + strconv.Itoa(p.Index) + "-c" + strconv.Itoa(k) + "-r" + strconv.FormatInt(n/p.rotateEvery, 10)
	case tokenPool:
		return "anon-p" + strconv.Itoa(p.Index) + "-t" + strconv.FormatInt((int64(k)+n)%p.tokenPool, 10)
	}
	return "anon-p" + strconv.Itoa(p.Index) + "-c" + strconv.Itoa(k)
}

// IP returns the address client k of the population sends its request n
// from, "" for none.
func (p *Population) IP(k int, n int64) string { return p.RunIP(k, n, 0) }

// RunIP returns the address client k sends its request n from in the run
// salted salt (RunSalt): IP's address moved within its range, so that two
// runs against a store that outlives them do not share keys when the
// limiter keys on the address alone (limiter.key ip), where a run id in
// the token cannot keep them apart. Within a run two requests share an
// address exactly when they share it under IP, so the model's identities
// hold. Salt 0 is IP.
func (p *Population) RunIP(k int, n int64, salt uint32) string {
	switch p.ip {
	case ipNone:
		return ""
	case ipNAT:
		return quad(100, 64, k%p.natPool, salt)
	case ipPool:
		return quad(198, 18, p.poolFirst+int((int64(k)+n)%p.ipPool), salt)
	}
	return quad(10, 0, p.First+k, salt)
}

// RunSalt is the address salt of run id (RunIP); 0 for none.
func RunSalt(id string) uint32 {
	if id == "" {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()
}

// Caller returns the limiter's caller identity of client k's request n, as
// the limiter builds it (limiter.KeyBy.Caller) from a request carrying the
// token and address Token and IP give.
func (p *Population) Caller(k int, n int64) string {
	return callerOf(p.key, p.Token(k, n), p.IP(k, n))
}

// callerOf returns the caller identity key builds from a request with
// token ("" for none) from address ip ("" for none), as the limiter
// builds it from a request carrying them.
func callerOf(key limiter.KeyBy, token, ip string) string {
	if token == "" {
		token = limiter.NoToken
	}
	if ip == "" {
		ip = "unknown"
	}
	return key.Of(token, ip)
}

// quad formats a.b.c.d with n spread over the low bits (b + n>>16, n>>8,
// n), moved by salt: its low 16 bits XOR n's (a bijection that keeps n's
// block of 65,536) and its next 7 bits add to b. Two runs' addresses meet
// only when those 7 bits agree and the low 16 fall within one block of the
// population's size.
func quad(a, b, n int, salt uint32) string {
	n ^= int(salt & 0xffff)
	b += int(salt>>16) & 0x7f
	return strconv.Itoa(a) + "." + strconv.Itoa(b+(n>>16)) + "." + strconv.Itoa((n>>8)&255) + "." + strconv.Itoa(n&255)
}

// DrawsLocation reports whether each request draws its location (arrive
// spread or weighted per request over several locations): a driver then
// asks Location for each request. Otherwise a client's location is the
// same for all its requests (ClientLocation), or goes round (alternate).
func (p *Population) DrawsLocation() bool {
	return p.arrive == arriveWeighted && len(p.cum) > 1 && p.perRequest
}

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

// Pinned reports whether each client's requests all arrive at the one
// location it drew (ClientLocation): arrive spread or weighted per client.
func (p *Population) Pinned() bool {
	return p.arrive == arriveWeighted && !p.perRequest
}

// Location returns the index of the location where a client's request n
// (0-based, per client) arrives, with the client's draws d: the one its
// population arrives at; the one the client drew once, by the weights
// (per client, as anycast clients stay at their nearest location); one
// drawn for each request (per request, a client behind rotating proxies);
// or, alternating, round the locations per client.
func (p *Population) Location(d Draws, n int64) int {
	switch p.arrive {
	case arriveWeighted:
		if !p.perRequest {
			n = 0
		}
		return p.LocationAt(d.u(n, factLocation))
	case arriveAlternate:
		return int(n % int64(p.nLocs))
	}
	return p.loc
}

// LocationAt returns the location a weighted draw u, uniform in [0, 1),
// picks: the first whose cumulative weight is above u.
func (p *Population) LocationAt(u float64) int {
	if p.arrive != arriveWeighted {
		return p.loc
	}
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

// BurstTime returns when, from the run's start, request i (from 0) of a
// bursting population leaves, or math.MaxInt64 when it never does: the
// requests of burst b are i = b*Clients*BurstSize + j for j from 0, client
// j mod Clients's, leaving j*(BurstSpread/(Clients*BurstSize)) after the
// burst starts at Start + BurstAt + b*BurstEvery (one burst when BurstEvery
// is 0).
func (p *Population) BurstTime(i int64) time.Duration {
	n := int64(p.Clients) * int64(p.BurstSize)
	if n <= 0 || i < 0 {
		return math.MaxInt64
	}
	b, j := i/n, i%n
	if b > 0 && (p.BurstEvery <= 0 || b > int64((math.MaxInt64/2-p.BurstAt-p.Start)/p.BurstEvery)) {
		return math.MaxInt64
	}
	at := p.Start + p.BurstAt + time.Duration(b)*p.BurstEvery
	if p.BurstSpread > 0 {
		at += time.Duration(j) * (p.BurstSpread / time.Duration(n))
	}
	return at
}

// InFlightAtOnce is the most requests the population can send at one
// instant: a closed loop's clients x concurrency, a burst's clients x size.
func (p *Population) InFlightAtOnce() int {
	return p.Clients * max(p.Concurrency, p.BurstSize, 1)
}
