package plan_test

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
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
		// A pool of 3 tokens: client k's request n sends slot (k+n) mod 3.
		{"token: pool, token_pool: 3", 0, 0, "anon-p1-t0", "10.1.17.112", "anon-p1-t0:10.1.17.112"},
		{"token: pool, token_pool: 3", 2, 4, "anon-p1-t0", "10.1.17.114", "anon-p1-t0:10.1.17.114"},
		{"token: pool, token_pool: 3", 1, 4, "anon-p1-t2", "10.1.17.113", "anon-p1-t2:10.1.17.113"},
		{"token: none", 1, 0, "", "10.1.17.113", "anonymous:10.1.17.113"},
		// A pool of 20 exit addresses, cycled per request.
		{"ip: pool, ip_pool: 20", 0, 0, "anon-p1-c0", "198.18.0.0", "anon-p1-c0:198.18.0.0"},
		{"ip: pool, ip_pool: 20", 0, 21, "anon-p1-c0", "198.18.0.1", "anon-p1-c0:198.18.0.1"},
		{"ip: pool, ip_pool: 20", 3, 19, "anon-p1-c3", "198.18.0.2", "anon-p1-c3:198.18.0.2"},
		{"ip: shared", 7, 3, "anon-p1-c7", "198.18.0.0", "anon-p1-c7:198.18.0.0"},
		{"token: none, ip: none", 0, 0, "", "", "anonymous:unknown"},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s/k%d/n%d", tc.identity, tc.k, tc.n)
		t.Run(name, func(t *testing.T) {
			pl := compileYAML(t, fmt.Sprintf(identityYAML, tc.identity))
			p := &pl.Populations[1]
			tok, ip := p.Token(tc.k, tc.n), p.IP(tc.k, tc.n)
			if tok != tc.token || ip != tc.ip {
				t.Errorf("token %q ip %q, want %q %q", tok, ip, tc.token, tc.ip)
			}
			got := p.Caller(tc.k, tc.n)
			if got != tc.wantCaller {
				t.Errorf("Caller = %q, want %q", got, tc.wantCaller)
			}
			// The limiter reads the same from a request carrying them.
			r, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
			if tok != "" {
				r.Header.Set(limiter.DefaultTokenSource.Name, tok)
			}
			if ip != "" {
				r.Header.Set("CF-Connecting-IP", ip)
			}
			if lc := limiter.KeyTokenIP.Caller(limiter.DefaultTokenSource.Token(r), r.Header); lc != got {
				t.Errorf("the limiter's caller of the request = %q, the plan's = %q", lc, got)
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

// TestArrive: where request n arrives, for each arrival mode: one
// location whatever n; alternate round the locations by the client's
// request number; spread (location weights) and weighted (the
// population's weights) following the weights given a draw u (LocationAt).
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
		{"{mode: spread, per: request}", true, []at{{0, 0, 0}, {0, 0.49, 0}, {5, 0.5, 1}, {0, 0.66, 1}, {0, 0.67, 2}, {0, 0.999, 2}}},
		// Weights a 1, c 3: a for u < 1/4, c after; never b.
		{"{mode: weighted, per: request, weights: [{location: a, weight: 1}, {location: c, weight: 3}]}", true,
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
				got := p.Location(plan.Draws{}, a.n)
				if tc.draws {
					got = p.LocationAt(a.u)
				}
				if got != a.want {
					t.Errorf("request %d (u %g) arrives at %d, want %d", a.n, a.u, got, a.want)
				}
				if isOne && one != a.want {
					t.Errorf("OneLocation = %d, request %d arrives at %d", one, a.n, a.want)
				}
			}
		})
	}
}

// TestSpreadPinsClients: spread per client (the default) puts each client
// at one location for all its requests, the clients together in
// proportion to the weights; per request, one client's requests spread in
// proportion to the weights.
func TestSpreadPinsClients(t *testing.T) {
	count := func(arrive string, clients int, requests int64) (perClient []map[int]int, total [3]int) {
		pl := compileYAML(t, strings.Replace(fmt.Sprintf(arriveYAML, arrive), "clients: 2", fmt.Sprintf("clients: %d", clients), 1))
		p := &pl.Populations[0]
		s := plan.NewStream(7, 0)
		for k := range clients {
			m := map[int]int{}
			for n := range requests {
				l := p.Location(s.Client(p, k), n)
				m[l]++
				total[l]++
			}
			perClient = append(perClient, m)
		}
		return perClient, total
	}
	per, total := count("{mode: spread}", 6000, 4)
	for k, m := range per {
		if len(m) != 1 {
			t.Fatalf("client %d arrives at %d locations, want 1: %v", k, len(m), m)
		}
	}
	// Weights 3:1:2: expect 12,000, 4,000 and 8,000 of 24,000 requests.
	for i, want := range []float64{12000, 4000, 8000} {
		if got := float64(total[i]); math.Abs(got-want) > 0.08*want {
			t.Errorf("per client: location %d got %v requests, want about %v", i, got, want)
		}
	}
	per, _ = count("{mode: spread, per: request}", 1, 6000)
	for i, want := range []float64{3000, 1000, 2000} {
		if got := float64(per[0][i]); math.Abs(got-want) > 0.08*want {
			t.Errorf("per request: location %d got %v of one client's requests, want about %v", i, got, want)
		}
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

// TestRunIP: a run's salt moves every address (RunIP) but keeps which
// requests share one, keeps each a valid IPv4 address, and keeps the
// addresses of two runs apart, for each address mode; salt 0 is IP.
func TestRunIP(t *testing.T) {
	runs := []string{"mbx3k2-r1", "mbx3k2-r2", "mbx3k2-r3", "mbx9zz", "1"}
	for _, identity := range []string{"ip: per-client", "ip: nat, nat_pool: 3", "ip: pool, ip_pool: 20", "ip: shared"} {
		t.Run(identity, func(t *testing.T) {
			p := &compileYAML(t, fmt.Sprintf(identityYAML, identity)).Populations[1]
			owner := map[string]string{} // address -> the run that sent it
			for _, run := range runs {
				salt := plan.RunSalt(run)
				byIP, byRun := map[string]string{}, map[string]string{} // address -> request, under IP and RunIP
				for k := 0; k < 5; k++ {
					for n := int64(0); n < 40; n++ {
						req, ip, rip := fmt.Sprintf("k%d/n%d", k, n), p.IP(k, n), p.RunIP(k, n, salt)
						if p.RunIP(k, n, 0) != ip {
							t.Fatalf("RunIP(%s, salt 0) = %q, IP = %q", req, p.RunIP(k, n, 0), ip)
						}
						if a := net.ParseIP(rip); a == nil || a.To4() == nil {
							t.Fatalf("run %s %s: %q is not an IPv4 address", run, req, rip)
						}
						// Two requests share a salted address exactly when they share the address.
						if first, ok := byIP[ip]; ok != (byRun[rip] != "") || ok && byRun[rip] != first {
							t.Fatalf("run %s %s: address %q (salted %q) shared otherwise than under IP", run, req, ip, rip)
						} else if !ok {
							byIP[ip], byRun[rip] = req, req
						}
						if o, ok := owner[rip]; ok && o != run {
							t.Fatalf("runs %s and %s both send %q", o, run, rip)
						}
						owner[rip] = run
					}
				}
			}
		})
	}
	if plan.RunSalt("") != 0 {
		t.Error("no run id must salt nothing")
	}
}
