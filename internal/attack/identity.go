package attack

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// errBudget is what a targeter returns once the run's request budget
// (max_requests) is spent; vegeta then stops that attack and emits one fake
// result carrying this error, which the runner drops.
var errBudget = errors.New("overshoot: request budget spent")

// phi is the golden ratio's fractional part: request i picks a weighted
// location with u = frac(i * phi), a low-discrepancy sequence that spreads
// any number of requests in proportion to the weights without a random
// generator shared between workers.
const phi = 0.6180339887498949

// identities builds the requests of one population: which client sends
// request i, with which token, address and location. It is a vegeta.Targeter
// (through its target method) and safe for concurrent use.
type identities struct {
	url      string
	pop      string // population name (the attack's name)
	popIndex int
	firstIP  int    // clients of earlier populations: client c of this one is firstIP+c in the run
	runID    string // "" or "<id>-", prefixed to every token
	clients  int
	token    limiter.TokenSource
	tokenOf  string // per-client | rotating | shared
	rotate   uint64
	ipMode   string // per-client | nat | none
	natPool  int
	ipHeader string // X-Forwarded-For or CF-Connecting-IP

	locations []string  // candidate locations; empty: no location header
	cum       []float64 // cumulative weights, normalised to 1, for spread/weighted
	alternate bool

	n      atomic.Uint64   // requests built so far
	sent   []atomic.Uint64 // per client, for rotating tokens
	budget *atomic.Int64   // requests left in the run; nil: unbounded
	// fixed holds each client's headers per location when its token does
	// not rotate: index client*len(locations)+location (or client when
	// there is no location). vegeta copies a target's headers into each
	// request, so they are shared safely.
	fixed []http.Header

	// A closed loop's think time, slept by each client between a response
	// and its next request (thinkPacer). deadline is when the attack ends
	// and stop is closed when the run is interrupted: a think time past
	// either ends the client's attack instead.
	think    scenario.Latency
	thinkMu  sync.Mutex
	thinkRng *rand.Rand
	deadline time.Time
	stop     <-chan struct{}
}

// drawThink draws one think time.
func (id *identities) drawThink() time.Duration {
	id.thinkMu.Lock()
	defer id.thinkMu.Unlock()
	return id.think.Quantile(id.thinkRng.Float64())
}

// setThink gives the population a think time, drawn from a generator seeded
// with seed.
func (id *identities) setThink(think scenario.Latency, seed uint64) {
	if think.IsZero() || think.Dist == scenario.DistConstant && think.Value == 0 {
		return
	}
	id.think, id.thinkRng = think, rand.New(rand.NewPCG(seed, 0x5eed))
}

// newIdentities prepares the requests of population p (index i) of sc.
func newIdentities(url string, sc *scenario.Scenario, i int, runID, ipHeader string, budget *atomic.Int64) (*identities, error) {
	p := sc.Traffic[i]
	if runID != "" {
		runID += "-"
	}
	firstIP := 0
	for _, q := range sc.Traffic[:i] {
		firstIP += max(1, q.Clients)
	}
	id := &identities{
		url: url, pop: p.Name, popIndex: i, runID: runID, firstIP: firstIP, clients: max(1, p.Clients),
		token:   limiter.TokenSource{From: sc.Limiter.Token.From, Name: sc.Limiter.Token.Name},
		tokenOf: p.Identity.Token, rotate: uint64(max(0, p.Identity.RotateEvery)),
		ipMode: p.Identity.IP, natPool: max(1, p.Identity.NATPool), ipHeader: ipHeader, budget: budget,
	}
	if id.token == (limiter.TokenSource{}) {
		id.token = limiter.DefaultTokenSource
	}
	if err := id.token.Validate(); err != nil {
		return nil, fmt.Errorf("limiter.token: %w", err)
	}
	switch id.tokenOf {
	case "", "per-client", "shared":
	case "rotating":
		if id.rotate == 0 {
			return nil, fmt.Errorf("traffic %q: identity.token rotating needs rotate_every >= 1", p.Name)
		}
		id.sent = make([]atomic.Uint64, id.clients)
	default:
		return nil, fmt.Errorf("traffic %q: identity.token %q is unknown: use per-client, rotating or shared", p.Name, id.tokenOf)
	}
	switch id.ipMode {
	case "", "per-client", "nat", "none":
	default:
		return nil, fmt.Errorf("traffic %q: identity.ip %q is unknown: use per-client, nat or none", p.Name, id.ipMode)
	}
	if err := id.arrive(sc, p); err != nil {
		return nil, err
	}
	if len(sc.Locations) <= 1 {
		// One location: the store needs no header to know it (a request
		// without one arrives at the first location).
		id.locations, id.cum = nil, nil
	}
	if id.tokenOf != "rotating" {
		nl := max(1, len(id.locations))
		id.fixed = make([]http.Header, id.clients*nl)
		for c := 0; c < id.clients; c++ {
			for l := 0; l < nl; l++ {
				loc := ""
				if len(id.locations) > 0 {
					loc = id.locations[l]
				}
				id.fixed[c*nl+l] = id.header(c, id.tokenFor(c), id.ipFor(c), loc)
			}
		}
	}
	return id, nil
}

// header builds the identity headers of a request from client c.
func (id *identities) header(c int, tok, ip, loc string) http.Header {
	h := make(http.Header, 4)
	h[HeaderClient] = []string{strconv.Itoa(id.firstIP + c)}
	if id.token.From == "cookie" {
		h["Cookie"] = []string{id.token.Name + "=" + tok}
	} else {
		h[http.CanonicalHeaderKey(id.token.Name)] = []string{tok}
	}
	if ip != "" {
		h[id.ipHeader] = []string{ip}
	}
	if loc != "" {
		h[target.HeaderLocation] = []string{loc}
	}
	return h
}

// arrive sets where the population's requests arrive.
func (id *identities) arrive(sc *scenario.Scenario, p scenario.Population) error {
	weights := func(names []string, ws []float64) {
		var sum float64
		for _, w := range ws {
			sum += w
		}
		id.locations = names
		acc := 0.0
		for _, w := range ws {
			acc += w / sum
			id.cum = append(id.cum, acc)
		}
	}
	all := func() ([]string, []float64) {
		var names []string
		var ws []float64
		for _, l := range sc.Locations {
			names = append(names, l.Name)
			w := l.Weight
			if w <= 0 {
				w = 1
			}
			ws = append(ws, w)
		}
		return names, ws
	}
	switch p.Arrive.Mode {
	case "":
		if p.Arrive.Location != "" {
			id.locations = []string{p.Arrive.Location}
		} else if len(sc.Locations) > 0 {
			id.locations = []string{sc.Locations[0].Name}
		}
	case "one":
		loc := p.Arrive.Location
		if loc == "" && len(sc.Locations) > 0 {
			loc = sc.Locations[0].Name
		}
		if loc != "" {
			id.locations = []string{loc}
		}
	case "spread":
		weights(all())
	case "weighted":
		var names []string
		var ws []float64
		for _, w := range p.Arrive.Weights {
			names = append(names, w.Location)
			ws = append(ws, w.Weight)
		}
		if len(names) == 0 {
			return fmt.Errorf("traffic %q: arrive weighted has no weights", p.Name)
		}
		weights(names, ws)
	case "alternate":
		id.locations, _ = all()
		id.alternate = true
	default:
		return fmt.Errorf("traffic %q: arrive.mode %q is unknown: use one, spread, weighted or alternate", p.Name, p.Arrive.Mode)
	}
	return nil
}

// tokenFor returns the token client c sends with its next request: the
// simulator's tokens ("anon-p<population>-c<client>", "-r<rotation>" for
// rotating, "anon-p<population>" shared), after the run id when there is one.
func (id *identities) tokenFor(c int) string {
	t := id.runID + "anon-p" + strconv.Itoa(id.popIndex)
	switch id.tokenOf {
	case "shared":
		return t
	case "rotating":
		k := id.sent[c].Add(1) - 1
		return t + "-c" + strconv.Itoa(c) + "-r" + strconv.FormatUint(k/id.rotate, 10)
	}
	return t + "-c" + strconv.Itoa(c)
}

// ipFor returns the address client c sends from, or "" for none, as the
// simulator numbers them: per-client addresses are 10.x.y.z counted across
// all populations, so no two clients share one; a NAT pool of M is
// 100.64.x.y for slots 0..M-1, the same in every population.
func (id *identities) ipFor(c int) string {
	switch id.ipMode {
	case "none":
		return ""
	case "nat":
		return quad(100, 64, c%id.natPool)
	}
	return quad(10, 0, id.firstIP+c)
}

// quad formats a.b.c.d with n spread over the low bits (b + n>>16, n>>8, n).
func quad(a, b, n int) string {
	return strconv.Itoa(a) + "." + strconv.Itoa(b+(n>>16)) + "." + strconv.Itoa((n>>8)&255) + "." + strconv.Itoa(n&255)
}

// locationFor returns the index in id.locations of the population's request
// i, the k-th request of its client, or -1 when requests carry no location.
// Alternate goes round the locations per client, as the simulator does.
func (id *identities) locationFor(i, k uint64) int {
	switch {
	case len(id.locations) == 0:
		return -1
	case len(id.locations) == 1:
		return 0
	case id.alternate:
		return int(k % uint64(len(id.locations)))
	}
	_, u := math.Modf(float64(i) * phi)
	for j, c := range id.cum {
		if u < c {
			return j
		}
	}
	return len(id.locations) - 1
}

// take spends one request of the run's budget: errBudget once it is gone.
func (id *identities) take() error {
	if id.budget != nil && id.budget.Add(-1) < 0 {
		return errBudget
	}
	return nil
}

// target fills t with the population's next request, from its clients in
// turn. It is the vegeta.Targeter of an open loop or a burst, whose
// requests belong to no client's own loop.
func (id *identities) target(t *vegeta.Target) error {
	if t == nil {
		return vegeta.ErrNilTarget
	}
	if err := id.take(); err != nil {
		return err
	}
	i := id.n.Add(1) - 1
	c := i % uint64(id.clients)
	id.fill(t, int(c), id.locationFor(i, i/uint64(id.clients)))
	return nil
}

// fill makes t a request from client c arriving at location l (-1: none).
func (id *identities) fill(t *vegeta.Target, c, l int) {
	var h http.Header
	if id.fixed != nil {
		h = id.fixed[c*max(1, len(id.locations))+max(0, l)]
	} else {
		loc := ""
		if l >= 0 {
			loc = id.locations[l]
		}
		h = id.header(c, id.tokenFor(c), id.ipFor(c), loc)
	}
	t.Method = http.MethodGet
	t.URL = id.url
	t.Body = nil
	t.Header = h
}

// client is one closed-loop client: its own vegeta attack sends only its
// requests, C at a time, so that it never has more than C in flight and
// its think time follows its own responses.
type client struct {
	id *identities
	c  int
	k  atomic.Uint64 // requests this client has sent
}

// target fills t with the client's next request; it is the client's
// vegeta.Targeter.
func (cl *client) target(t *vegeta.Target) error {
	if t == nil {
		return vegeta.ErrNilTarget
	}
	if err := cl.id.take(); err != nil {
		return err
	}
	i := cl.id.n.Add(1) - 1
	cl.id.fill(t, cl.c, cl.id.locationFor(i, cl.k.Add(1)-1))
	return nil
}
