package model

import (
	"math"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
)

// modelRequests builds the transcript's requests of population pop as a
// trial does: clients from newClients, each request's number and caller
// from nextCaller (which caches the caller between rotations), its
// location from pickLocation with the trial's generator.
func modelRequests(pl *plan.Plan, pop int) ([]plantest.Request, error) {
	p := &pl.Populations[pop]
	cs := newClients(pl.Populations, pl.Clients)
	_, src := trialSource(pl.Seed, 0)
	var out []plantest.Request
	for k := range min(plantest.Clients, p.Clients) {
		ci := int32(p.First + k)
		c := &cs[ci]
		for range plantest.Requests {
			n := c.nextCaller(p, ci)
			out = append(out, plantest.Request{Client: int(ci), N: n, Caller: c.caller, IP: c.ip, Location: pickLocation(p, n, src)})
		}
	}
	return out, nil
}

// TestRequestsMatchPlan: for every library scenario (each sweep point) and
// plantest's cross-driver cases, the model sends the requests the plan's
// golden transcript lists (internal/plan/testdata/requests): the same
// client numbers, callers, addresses and locations, a drawn location one
// the population can arrive at. internal/attack compares its requests with
// the same golden.
//
// It also runs one trial of every point with a constant-rate or ramped open
// loop and compares each such population's requests with the golden's
// expected arrivals e = clients x HitsBy(its time in the run). The model
// sends arrival m (m = 0, 1, ... over the population, client m mod clients
// at intensity m/clients) at ArrivalAt(m/clients) and only before the
// population's end, so it sends exactly ceil(e): e itself when e is whole,
// since arrival e falls on the end and is not sent.
func TestRequestsMatchPlan(t *testing.T) {
	plantest.CheckDriver(t, "the model", modelRequests, func(c plantest.Case) {
		for _, pt := range c.Points {
			checkArrivals(t, c.Name+" "+pt.Label, pt.Plan)
		}
	})
}

// checkArrivals runs one trial of pl when it has a constant-rate or ramped
// open loop and compares its requests with the expected arrivals.
func checkArrivals(t *testing.T, name string, pl *plan.Plan) {
	var open []int
	for i := range pl.Populations {
		if p := &pl.Populations[i]; p.Send == plan.Open && !p.Poisson {
			open = append(open, i)
		}
	}
	if len(open) == 0 {
		return
	}
	s, err := Run(pl, Options{Seed: pl.Seed, Trials: 1})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, i := range open {
		e, _ := plantest.ExpectedArrivals(&pl.Populations[i])
		if got, want := s.Populations[i].Requests, int64(math.Ceil(e)); got != want {
			t.Errorf("%s: population %s sent %d requests, want ceil(%g) = %d", name, pl.Populations[i].Name, got, e, want)
		}
	}
}
