package plan_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// compileYAML parses a scenario written in the test and compiles it.
func compileYAML(t *testing.T, yaml string) *plan.Plan {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return pl
}

// identityYAML has 70000 clients before the population under test, so that
// its per-client addresses are numbered after theirs and past 10.0.255.255.
const identityYAML = `
name: ids
limiter: {name: t, limit: 5, window: 1s}
traffic:
  - name: crowd
    clients: 70000
    open_loop: {rate: 1/s}
  - name: p
    clients: 5
    identity: {%s}
    open_loop: {rate: 1/s}
`

// TestIdentities: the token and address of client k's request n for each
// identity mode, and the caller the limiter keys it by, which must be what
// limiter.Caller computes from a request with that token and that
// CF-Connecting-IP (or none).
func TestIdentities(t *testing.T) {
	tests := []struct {
		identity   string
		k          int
		n          int64
		token, ip  string
		wantCaller string
	}{
		{"token: per-client, ip: per-client", 0, 0, "anon-p1-c0", "10.1.17.112", "anon-p1-c0:10.1.17.112"},
		{"token: per-client, ip: per-client", 4, 9, "anon-p1-c4", "10.1.17.116", "anon-p1-c4:10.1.17.116"},
		{"token: rotating, rotate_every: 3", 1, 2, "anon-p1-c1-r0", "10.1.17.113", "anon-p1-c1-r0:10.1.17.113"},
		{"token: rotating, rotate_every: 3", 1, 3, "anon-p1-c1-r1", "10.1.17.113", "anon-p1-c1-r1:10.1.17.113"},
		{"token: rotating, rotate_every: 3", 1, 7, "anon-p1-c1-r2", "10.1.17.113", "anon-p1-c1-r2:10.1.17.113"},
		{"token: shared", 3, 100, "anon-p1", "10.1.17.115", "anon-p1:10.1.17.115"},
		{"token: shared, ip: nat, nat_pool: 2", 0, 0, "anon-p1", "100.64.0.0", "anon-p1:100.64.0.0"},
		{"token: shared, ip: nat, nat_pool: 2", 3, 0, "anon-p1", "100.64.0.1", "anon-p1:100.64.0.1"},
		{"token: per-client, ip: nat, nat_pool: 3", 4, 0, "anon-p1-c4", "100.64.0.1", "anon-p1-c4:100.64.0.1"},
		{"token: per-client, ip: none", 2, 0, "anon-p1-c2", "", "anon-p1-c2:unknown"},
		{"token: rotating, rotate_every: 1, ip: none", 0, 5, "anon-p1-c0-r5", "", "anon-p1-c0-r5:unknown"},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s/k%d/n%d", tc.identity, tc.k, tc.n)
		t.Run(name, func(t *testing.T) {
			pl := compileYAML(t, fmt.Sprintf(identityYAML, tc.identity))
			p := &pl.Populations[1]
			tok, ip := p.Token(tc.k, tc.n), p.IP(tc.k)
			if tok != tc.token || ip != tc.ip {
				t.Errorf("token %q ip %q, want %q %q", tok, ip, tc.token, tc.ip)
			}
			got := plan.Caller(tok, ip)
			if got != tc.wantCaller {
				t.Errorf("Caller = %q, want %q", got, tc.wantCaller)
			}
			h := http.Header{}
			if ip != "" {
				h.Set("CF-Connecting-IP", ip)
			}
			if lc := limiter.Caller(tok, h); lc != got {
				t.Errorf("limiter.Caller of the request = %q, plan.Caller = %q", lc, got)
			}
		})
	}
}

const arriveYAML = `
name: arrive
limiter: {name: t, limit: 5, window: 1s}
locations: [{name: a, weight: 3}, {name: b, weight: 1}, {name: c, weight: 2}]
traffic:
  - name: p
    clients: 2
    arrive: %s
    open_loop: {rate: 1/s}
`

// TestArrive: where request n arrives given u, for each arrival mode: one
// location whatever n and u; alternate round the locations by the client's
// request number; spread (location weights) and weighted (the population's
// weights) following the weights given u.
func TestArrive(t *testing.T) {
	type at struct {
		n    int64
		u    float64
		want int
	}
	tests := []struct {
		arrive string
		draws  bool
		at     []at
	}{
		{"{mode: one}", false, []at{{0, 0, 0}, {7, 0.9, 0}}},
		{"{mode: one, location: b}", false, []at{{0, 0, 1}, {3, 0.99, 1}}},
		{"{mode: alternate}", false, []at{{0, 0.9, 0}, {1, 0.9, 1}, {2, 0, 2}, {3, 0.5, 0}, {10, 0, 1}}},
		// Weights 3:1:2 of 6: a for u < 1/2, b for u < 2/3, c after.
		{"{mode: spread}", true, []at{{0, 0, 0}, {0, 0.49, 0}, {5, 0.5, 1}, {0, 0.66, 1}, {0, 0.67, 2}, {0, 0.999, 2}}},
		// Weights a 1, c 3: a for u < 1/4, c after; never b.
		{"{mode: weighted, weights: [{location: a, weight: 1}, {location: c, weight: 3}]}", true,
			[]at{{0, 0, 0}, {0, 0.24, 0}, {1, 0.25, 2}, {0, 0.999, 2}}},
		// One weighted location: nothing to draw.
		{"{mode: weighted, weights: [{location: c, weight: 1}]}", false, []at{{0, 0, 2}, {4, 0.7, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.arrive, func(t *testing.T) {
			p := &compileYAML(t, fmt.Sprintf(arriveYAML, tc.arrive)).Populations[0]
			if p.DrawsLocation() != tc.draws {
				t.Errorf("DrawsLocation = %v, want %v", p.DrawsLocation(), tc.draws)
			}
			// OneLocation answers for the modes that arrive at one
			// location whatever n and u, and with Location's answer.
			one, isOne := p.OneLocation()
			if wantOne := tc.arrive != "{mode: alternate}" && !tc.draws; isOne != wantOne {
				t.Errorf("OneLocation says %v, want %v", isOne, wantOne)
			}
			for _, a := range tc.at {
				if got := p.Location(a.n, a.u); got != a.want {
					t.Errorf("Location(%d, %g) = %d, want %d", a.n, a.u, got, a.want)
				}
				if isOne && one != a.want {
					t.Errorf("OneLocation = %d, Location(%d, %g) = %d", one, a.n, a.u, a.want)
				}
			}
		})
	}
}

// TestArrivalAtInvertsHitsBy: for constant rates and ramps up, down and from
// next to nothing, the arrival at cumulative intensity HitsBy(d) is d after the
// population starts, to the nanosecond ArrivalAt rounds to.
func TestArrivalAtInvertsHitsBy(t *testing.T) {
	tests := []string{
		"start: 2s, open_loop: {rate: 3/s}",
		"open_loop: {rate: 7/m}",
		"start: 500ms, open_loop: {rate: 1/s, ramp: {to: 5/s, over: 4s}}",
		"open_loop: {rate: 10/s, ramp: {to: 2/s, over: 3s}}",
		"start: 1s, open_loop: {rate: 1/m, ramp: {to: 4/s, over: 2s}}",
	}
	for _, tc := range tests {
		t.Run(tc, func(t *testing.T) {
			pl := compileYAML(t, `
name: arrivals
limiter: {name: t, limit: 5, window: 1s}
duration: 1h
traffic: [{name: p, clients: 3, `+tc+`}]
`)
			p := &pl.Populations[0]
			for d := time.Duration(0); d <= 10*time.Second; d += 37 * time.Millisecond {
				got := p.ArrivalAt(p.HitsBy(d))
				if diff := got - (p.Start + d); diff < -1 || diff > 1 {
					t.Errorf("ArrivalAt(HitsBy(%v)) = %v, want %v", d, got, p.Start+d)
				}
			}
		})
	}
}
