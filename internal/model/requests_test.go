package model

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
)

// modelRequests builds the transcript's requests of population pop as
// trial 0 of the plan's seed sends them: it runs the trial and notes every
// request send starts (its client, number, caller and location, and, for
// an open loop or a burst, its virtual time), until the first clients have
// sent what the transcript lists or the trial ends. A closed loop's
// requests are closedRequests'.
func modelRequests(pl *plan.Plan, pop int) ([]plantest.Request, error) {
	p := &pl.Populations[pop]
	if p.Send == plan.Closed {
		return closedRequests(pl, pop), nil
	}
	clients := min(plantest.Clients, p.Clients)
	c, err := compile(pl)
	if err != nil {
		return nil, err
	}
	t, err := c.newTrial(pl.Seed, 0)
	if err != nil {
		return nil, err
	}
	got := make([][]plantest.Request, clients)
	full := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.onSend = func(cl *client, ci int32, n int64, loc int32) {
		k := int(ci) - p.First
		if k < 0 || k >= clients || len(got[k]) >= plantest.Requests {
			return
		}
		r := plantest.Request{Client: int(ci), N: n, Caller: cl.caller, IP: p.IP(k, n), Location: int(loc), At: -1, Think: -1}
		if p.Send != plan.Closed {
			r.At = timeOf(t.now)
		}
		if got[k] = append(got[k], r); len(got[k]) == plantest.Requests {
			if full++; full == clients {
				cancel()
			}
		}
	}
	if _, err := t.run(ctx, -1); err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	var out []plantest.Request
	for _, rs := range got {
		out = append(out, rs...)
	}
	return out, nil
}

// closedRequests builds a closed loop's requests as a trial's clients
// build them, without the trial, whose closed loops send as their
// responses come back: each request's number and caller from nextCaller
// (which caches the caller between rotations), its location from
// client.location, the client's think times from client.think.
func closedRequests(pl *plan.Plan, pop int) []plantest.Request {
	p := &pl.Populations[pop]
	cs := newClients(pl.Populations, pl.Clients, plan.NewStream(pl.Seed, 0))
	var out []plantest.Request
	for k := range min(plantest.Clients, p.Clients) {
		ci := int32(p.First + k)
		c := &cs[ci]
		for range plantest.Requests {
			n := c.nextCaller(p, ci)
			r := plantest.Request{Client: int(ci), N: n, Caller: c.caller, IP: p.IP(k, n), Location: int(c.location(n)), At: -1, Think: -1}
			if c.thinks {
				r.Think = timeOf(c.think())
			}
			out = append(out, r)
		}
	}
	return out
}

// timeOf converts a virtual time to a transcript's.
func timeOf(ns int64) time.Duration { return time.Duration(ns) }

// TestRequestsMatchPlan: for every library scenario (each sweep point) and
// plantest's cross-driver cases, the model sends the requests the plan's
// golden transcript lists (internal/plan/testdata/requests): the same
// client numbers, callers, addresses and locations, the same times for
// open loops and bursts, the same think times for closed loops.
// internal/attack compares its requests with the same golden.
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

// TestGeneratedRequestsMatchPlan: for 1,000 generated scenarios covering
// every traffic option, the model sends the plan's requests.
func TestGeneratedRequestsMatchPlan(t *testing.T) {
	t.Parallel()
	n := 1000
	if testing.Short() {
		n = 200
	}
	plantest.CheckGenerated(t, "the model", modelRequests, n)
}

// checkArrivals runs one trial of pl when it has a constant-rate or ramped
// open loop and compares the requests each such population sends (every
// send, counted by the trial's onSend, including those still in flight at
// the trial's end, which no summary counts) with the expected arrivals.
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
	c, err := compile(pl)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tr, err := c.newTrial(pl.Seed, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sent := make([]int64, len(pl.Populations))
	tr.onSend = func(cl *client, _ int32, _ int64, _ int32) { sent[cl.pop]++ }
	if _, err := tr.run(context.Background(), -1); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, i := range open {
		e, _ := plantest.ExpectedArrivals(&pl.Populations[i])
		if got, want := sent[i], int64(math.Ceil(e)); got != want {
			t.Errorf("%s: population %s sent %d requests, want ceil(%g) = %d", name, pl.Populations[i].Name, got, e, want)
		}
	}
}
