package attack

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// errBudget is what a targeter returns once the run's request budget
// (max_requests) is spent; vegeta then stops that attack and emits one fake
// result carrying this error, which the runner drops.
var errBudget = errors.New("overshoot: request budget spent")

// identities builds the requests of one population: which client sends
// request i, with which token, address and location, all as the plan says
// (plan.Population), so that the live run sends exactly the requests the
// model simulates. It is a vegeta.Targeter (through its target method) and
// safe for concurrent use.
type identities struct {
	url      string
	pop      *plan.Population
	name     string // the attack's name
	runID    string // "" or "<id>-", prefixed to every token
	ipSalt   uint32 // the run's address salt (plan.RunSalt), 0 without a run id
	token    limiter.TokenSource
	ipHeader string // X-Forwarded-For or CF-Connecting-IP

	// locations are the plan's location names, or nil when there is one:
	// the store needs no header to know it (a request without one arrives
	// at the first location).
	locations []string

	n      atomic.Uint64 // requests built so far
	budget *atomic.Int64 // requests left in the run; nil: unbounded
	// shard is the part of the run this process sends: of an open loop's
	// or a burst's requests numbered 0, 1, ... it builds those numbered
	// shard.Index mod shard.Count (Count 1: all).
	shard plan.Shard
	// fixed holds each client's headers per location when its token does
	// not rotate: index client*max(1, len(locations))+location. vegeta
	// copies a target's headers into each request, so they are shared
	// safely. nil when there would be too many to keep.
	fixed []http.Header

	// stream is the run's traffic draws (trial 0 of its seed): where a
	// spreading client arrives, its think times, a Poisson loop's
	// arrivals, as the plan draws them for the model's trial 0.
	stream plan.Stream
	// open walks a Poisson open loop's arrivals in order, so that request
	// i of the population is the plan's arrival i (the pacer walks its
	// own copy for the times); nil otherwise.
	openMu sync.Mutex
	open   *plan.Arrivals

	// deadline is when the attack ends and stop is closed when the run is
	// interrupted: a closed loop's think time (thinkPacer) past either
	// ends the client's attack instead.
	deadline time.Time
	stop     <-chan struct{}
}

// maxFixedHeaders bounds the headers kept per population; beyond it each
// request builds its own.
const maxFixedHeaders = 1 << 16

// hasThink reports whether the population's clients think between requests.
func (id *identities) hasThink() bool { return id.pop.Send == plan.Closed && !id.pop.Think.IsZero() }

// newIdentities prepares the requests of population i of pl, whose
// traffic draws from stream.
func newIdentities(url string, pl *plan.Plan, i int, name, runID, ipHeader string, budget *atomic.Int64, shard plan.Shard, stream plan.Stream) *identities {
	salt := plan.RunSalt(runID)
	if runID != "" {
		runID += "-"
	}
	p := &pl.Populations[i]
	id := &identities{url: url, pop: p, name: name, runID: runID, ipSalt: salt,
		token: pl.Token, ipHeader: ipHeader, budget: budget, shard: shard, stream: stream}
	if id.shard.Count < 1 {
		id.shard = plan.Shard{Count: 1}
	}
	if len(pl.Locations) > 1 {
		id.locations = pl.Locations
	}
	if p.Send == plan.Open && p.Poisson {
		id.open = p.Arrivals(stream)
	}
	if p.Rotates() {
		return id
	}
	nl := max(1, len(id.locations))
	if p.Clients*nl > maxFixedHeaders {
		return id
	}
	id.fixed = make([]http.Header, p.Clients*nl)
	for c := 0; c < p.Clients; c++ {
		for l := 0; l < nl; l++ {
			loc := ""
			if len(id.locations) > 0 {
				loc = id.locations[l]
			}
			id.fixed[c*nl+l] = id.header(c, id.tokenFor(c, 0), p.RunIP(c, 0, id.ipSalt), loc)
		}
	}
	return id
}

// header builds the identity headers of a request from client c: its
// token, if it sends one, its address, if it has one, and its location.
func (id *identities) header(c int, tok, ip, loc string) http.Header {
	h := make(http.Header, 4)
	h[HeaderClient] = []string{strconv.Itoa(id.pop.First + c)}
	switch {
	case tok == "":
	case id.token.From == "cookie":
		h["Cookie"] = []string{id.token.Name + "=" + tok}
	default:
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

// tokenFor returns the token client c sends with its request n, after the
// run id when there is one; "" when the population sends none.
func (id *identities) tokenFor(c int, n uint64) string {
	tok := id.pop.Token(c, int64(n))
	if tok == "" {
		return ""
	}
	return id.runID + tok
}

// locationFor returns the index in id.locations where client c's request
// n arrives, as the plan places it, or -1 when requests carry no location.
func (id *identities) locationFor(c int, n uint64) int {
	if len(id.locations) == 0 {
		return -1
	}
	return id.pop.Location(id.stream.Client(id.pop, c), int64(n))
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
	c, n := id.next()
	id.fill(t, c, n, id.locationFor(c, n))
	return nil
}

// next returns the client and its request number of the population's next
// request in this shard, request i of the shard, request g = i*Count +
// Index of the whole run: of a Poisson loop, the plan's arrival g; else
// client g mod clients's request g / clients (a constant rate's arrivals,
// a burst's requests, in that order).
func (id *identities) next() (int, uint64) {
	if id.open != nil {
		id.openMu.Lock()
		defer id.openMu.Unlock()
		id.n.Add(1)
		for {
			g := id.open.Walked()
			if a := id.open.Next(); g%int64(id.shard.Count) == int64(id.shard.Index) {
				return a.K, uint64(a.N)
			}
		}
	}
	i := id.n.Add(1) - 1
	g := i*uint64(id.shard.Count) + uint64(id.shard.Index)
	return int(g % uint64(id.pop.Clients)), g / uint64(id.pop.Clients)
}

// fill makes t client c's request n, arriving at location l (-1: none).
func (id *identities) fill(t *vegeta.Target, c int, n uint64, l int) {
	var h http.Header
	if id.fixed != nil {
		h = id.fixed[c*max(1, len(id.locations))+max(0, l)]
	} else {
		loc := ""
		if l >= 0 {
			loc = id.locations[l]
		}
		h = id.header(c, id.tokenFor(c, n), id.pop.RunIP(c, int64(n), id.ipSalt), loc)
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
	// Sharded, the client's in-flight slots are spread over the shards
	// (see spec.slots): it sends every every-th of its requests in the
	// whole run, starting at the offset-th.
	every, offset uint64
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
	cl.id.n.Add(1)
	n := (cl.k.Add(1)-1)*max(cl.every, 1) + cl.offset
	cl.id.fill(t, cl.c, n, cl.id.locationFor(cl.c, n))
	return nil
}
