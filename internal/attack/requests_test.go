package attack

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"testing"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// attackRequests builds the transcript's requests of population pop as a
// live run does: a closed loop's from each client's own targeter, an open
// loop's or a burst's from the population's targeter, which hands request i
// to client i mod clients (a closed loop's clients take turns, one request
// each, as when they run at once). Each request is read back from what would go on
// the wire: the client number from its X-Overshoot-Client header, the
// caller as the limiter computes it from the request, the address from
// X-Forwarded-For and the location from X-Overshoot-Location (none: the
// first location, as the target takes it).
func attackRequests(pl *plan.Plan, pop int) ([]plantest.Request, error) {
	p := &pl.Populations[pop]
	id := newIdentities("http://x/", pl, pop, p.Name, "", "X-Forwarded-For", nil, plan.Shard{})
	clients := min(plantest.Clients, p.Clients)
	var targets []vegeta.Target
	if p.Send == plan.Closed {
		// The clients' requests interleave, as they do when the clients
		// run at once: round the clients, one request each.
		cls := make([]*client, clients)
		for k := range cls {
			cls[k] = &client{id: id, c: k}
		}
		for range plantest.Requests {
			for _, cl := range cls {
				var tg vegeta.Target
				if err := cl.target(&tg); err != nil {
					return nil, err
				}
				targets = append(targets, tg)
			}
		}
	} else {
		for range p.Clients*(plantest.Requests-1) + clients {
			var tg vegeta.Target
			if err := id.target(&tg); err != nil {
				return nil, err
			}
			targets = append(targets, tg)
		}
	}
	sent := map[int]int64{} // requests per client
	var out []plantest.Request
	for _, tg := range targets {
		r, err := http.NewRequest(tg.Method, tg.URL, nil)
		if err != nil {
			return nil, err
		}
		r.Header = tg.Header
		c, err := strconv.Atoi(r.Header.Get(HeaderClient))
		if err != nil {
			return nil, fmt.Errorf("client header: %v", err)
		}
		if c >= p.First+clients {
			continue // a client the transcript does not list
		}
		loc := 0
		if name := r.Header.Get(target.HeaderLocation); name != "" || len(pl.Locations) > 1 {
			if loc = slices.Index(pl.Locations, name); loc < 0 {
				return nil, fmt.Errorf("location header %q names no location of %v", name, pl.Locations)
			}
		}
		out = append(out, plantest.Request{Client: c, N: sent[c], Caller: limiter.Caller(pl.Token.Token(r), r.Header),
			IP: r.Header.Get("X-Forwarded-For"), Location: loc})
		sent[c]++
	}
	// The requests went round the clients: list them client by client.
	slices.SortStableFunc(out, func(a, b plantest.Request) int { return a.Client - b.Client })
	return out, nil
}

// TestRequestsMatchPlan: for every library scenario (each sweep point) and
// plantest's cross-driver cases, a live run sends the requests the plan's
// golden transcript lists (internal/plan/testdata/requests): the same
// client numbers, callers, addresses and locations, a drawn location one
// the population can arrive at. internal/model compares its requests with
// the same golden.
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
