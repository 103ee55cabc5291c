package attack

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// attackRequests builds the transcript's requests of population pop as an
// unsharded live run does (attackSharded with one shard).
func attackRequests(pl *plan.Plan, pop int) ([]plantest.Request, error) {
	return attackSharded(pl, pop, 1)
}

// attackSharded builds the transcript's requests of population pop as a
// live run in shards shards does, each shard from its own specs
// (buildSpecs): a closed loop's from each client's own targeter, with its
// think times from the client's thinkPacer; an open loop's or a burst's
// from the population's targeter, each request timed by the spec's pacer
// (hit i is due at the pacer's wait for it from the start). Each request
// is read back from what would go on the wire: the client number from its
// X-Overshoot-Client header, the caller as the target's limiter keys the
// request, the address from X-Forwarded-For and the location from
// X-Overshoot-Location (none: the first location, as the target takes it).
// The shards' requests are put together client by client, in request
// order.
func attackSharded(pl *plan.Plan, pop, shards int) ([]plantest.Request, error) {
	p := &pl.Populations[pop]
	clients := min(plantest.Clients, p.Clients)
	var out []plantest.Request
	for si := range shards {
		specs, _ := buildSpecs(Options{Plan: pl, URL: "http://x/", Seed: pl.Seed, IPHeader: "X-Forwarded-For",
			Shard: plan.Shard{Index: si, Count: shards}}, pl.Duration, nil, nil)
		s := specs[pop]
		var (
			reqs []plantest.Request
			err  error
		)
		if s.closed {
			reqs, err = closedSent(pl, s, clients)
		} else {
			reqs, err = pacedSent(pl, s, clients)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, reqs...)
	}
	slices.SortStableFunc(out, func(a, b plantest.Request) int {
		if a.Client != b.Client {
			return a.Client - b.Client
		}
		return int(a.N - b.N)
	})
	// Each client's first Requests requests, of those the shards sent.
	var kept []plantest.Request
	for _, r := range out {
		if r.N < plantest.Requests {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// closedSent builds the first requests of a closed loop's first clients in
// one shard: each client's targeter, as many times as it takes to pass
// request Requests, and its think times, each as the whole run numbers it.
func closedSent(pl *plan.Plan, s *spec, clients int) ([]plantest.Request, error) {
	var out []plantest.Request
	for c := range clients {
		cl := &client{id: s.ids, c: c}
		if s.slots != nil {
			sl := s.slots[c]
			if sl.slots == 0 {
				continue
			}
			cl.every, cl.offset = uint64(sl.every), uint64(sl.offset)
		}
		tp := &thinkPacer{id: s.ids, draws: s.ids.stream.Client(s.ids.pop, c), every: int64(cl.every), offset: int64(cl.offset)}
		for {
			n := int64(cl.k.Load()*max(cl.every, 1) + cl.offset) // the number cl.target gives the request
			if n >= plantest.Requests {
				break
			}
			var tg vegeta.Target
			if err := cl.target(&tg); err != nil {
				return nil, err
			}
			r, err := wireRequest(pl, tg)
			if err != nil {
				return nil, err
			}
			r.N, r.At, r.Think = n, -1, -1
			if s.ids.hasThink() {
				r.Think = tp.nextThink()
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// pacedSent builds the requests of an open loop's or a burst's first
// clients in one shard, from the population's targeter, hit i due when its
// pacer says, until every first client has passed request Requests or the
// population stops sending.
func pacedSent(pl *plan.Plan, s *spec, clients int) ([]plantest.Request, error) {
	p := s.ids.pop
	var out []plantest.Request
	done := map[int]bool{}
	for i := uint64(0); len(done) < clients && i < uint64(p.Clients)*plantest.Requests*64+1000; i++ {
		wait, stop := s.pacer.Pace(0, i)
		if stop || wait >= s.duration {
			break // the attack ends before this hit: it is not sent
		}
		// What target does, with the request's number kept.
		var tg vegeta.Target
		c, n := s.ids.next()
		s.ids.fill(&tg, c, n, s.ids.locationFor(c, n))
		r, err := wireRequest(pl, tg)
		if err != nil {
			return nil, err
		}
		if r.Client >= p.First+clients {
			continue
		}
		r.N = int64(n)
		if r.N >= plantest.Requests-1 {
			done[r.Client] = true
		}
		r.At, r.Think = p.Start+wait, -1
		out = append(out, r)
	}
	return out, nil
}

// wireRequest reads a request back from target tg as it goes on the
// wire. N is left for the caller: the request's number for its client is
// not on the wire.
func wireRequest(pl *plan.Plan, tg vegeta.Target) (plantest.Request, error) {
	r, err := http.NewRequest(tg.Method, tg.URL, nil)
	if err != nil {
		return plantest.Request{}, err
	}
	r.Header = tg.Header
	c, err := strconv.Atoi(r.Header.Get(HeaderClient))
	if err != nil {
		return plantest.Request{}, fmt.Errorf("client header: %v", err)
	}
	loc := 0
	if name := r.Header.Get(target.HeaderLocation); name != "" || len(pl.Locations) > 1 {
		if loc = slices.Index(pl.Locations, name); loc < 0 {
			return plantest.Request{}, fmt.Errorf("location header %q names no location of %v", name, pl.Locations)
		}
	}
	return plantest.Request{Client: c, Caller: pl.Key.Caller(pl.Token.Token(r), r.Header),
		IP: r.Header.Get("X-Forwarded-For"), Location: loc}, nil
}

// TestRequestsMatchPlan: for every library scenario (each sweep point) and
// plantest's cross-driver cases, a live run sends the requests the plan's
// golden transcript lists (internal/plan/testdata/requests): the same
// client numbers, callers, addresses and locations, the same plan times
// for open loops and bursts, the same think times for closed loops.
// internal/model compares its requests with the same golden.
//
// It also compares, for every constant-rate or ramped open loop, the
// requests its pacer schedules over the population's time in the run
// (hitsBy) with the golden's expected arrivals clients x HitsBy: the pacer
// sends the hits due before the end, as many as the model does,
// ceil(clients x HitsBy).
func TestRequestsMatchPlan(t *testing.T) {
	plantest.CheckDriver(t, "the live run", attackRequests, func(c plantest.Case) {
		for _, pt := range c.Points {
			pl := pt.Plan
			specs, _ := buildSpecs(Options{Plan: pl, URL: "http://x/"}, pl.Duration, nil, nil)
			for i, s := range specs {
				p := &pl.Populations[i]
				e, ok := plantest.ExpectedArrivals(p)
				if !ok || p.Poisson {
					continue
				}
				if got := s.pacer.hitsBy(s.duration); got != math.Ceil(e-1e-9) {
					t.Errorf("%s %s: population %s: the pacer schedules %g requests over %v, want %g", c.Name, pt.Label, p.Name, got, s.duration, e)
				}
			}
		}
	})
}

// TestGeneratedRequestsMatchPlan: for 1,000 generated scenarios covering
// every traffic option, a live run sends the plan's requests, whole or in
// shards: scenario i runs in 1 + i mod 3 shards, whose requests together
// are the plan's.
func TestGeneratedRequestsMatchPlan(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	i := 0
	plantest.CheckGenerated(t, "the live run", func(pl *plan.Plan, pop int) ([]plantest.Request, error) {
		if pop == 0 {
			i++
		}
		return attackSharded(pl, pop, 1+(i-1)%3)
	}, n)
}

// TestPoissonPacerCounts: a Poisson loop's pacer counts (hitsBy) the hits
// its Pace schedules by each time, replayed from the plan's draws.
func TestPoissonPacerCounts(t *testing.T) {
	pl := livePlan(t, parse(t, `
name: poisson
limiter: {name: t, limit: 5, window: 1s}
traffic: [{name: p, clients: 7, open_loop: {rate: 3/s, poisson: true, ramp: {to: 9/s, over: 4s}}}]
live: {duration: 10s}
`))
	pp := newPoisson(&pl.Populations[0], plan.NewStream(1, 0))
	var dues []time.Duration
	for i := uint64(0); ; i++ {
		w, stop := pp.Pace(0, i)
		if stop || w > 10*time.Second {
			break
		}
		dues = append(dues, w)
	}
	for _, at := range []time.Duration{0, 300 * time.Millisecond, time.Second, 5 * time.Second, 2 * time.Second, 9 * time.Second} {
		want := 0
		for _, d := range dues {
			if d <= at {
				want++
			}
		}
		if got := pp.hitsBy(at); got != float64(want) {
			t.Errorf("hitsBy(%v) = %v, want %d", at, got, want)
		}
	}
}
