package model

import (
	"net/http"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// callersOf runs a scenario's traffic for n requests per client, in order,
// and returns each client's callers.
func callersOf(t *testing.T, traffic []scenario.Population, n int) [][]string {
	t.Helper()
	sc := memoryScenario(5, time.Minute, ms(1), time.Minute, traffic...)
	c, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	clients := newClients(c.pops, c.nClients)
	out := make([][]string, len(clients))
	for ci := range clients {
		for k := 0; k < n; k++ {
			cl := &clients[ci]
			cl.nextCaller(&c.pops[cl.pop], int32(ci))
			out[ci] = append(out[ci], cl.caller)
		}
	}
	return out
}

func TestIdentity(t *testing.T) {
	pop := func(name string, clients int, id scenario.Identity) scenario.Population {
		p := burst(bot(name), 1, 0, 0)
		p.Clients, p.Identity = clients, id
		return p
	}
	cases := []struct {
		name    string
		traffic []scenario.Population
		n       int
		want    [][]string
	}{
		{"per-client token and ip", []scenario.Population{pop("a", 2, scenario.Identity{Token: "per-client", IP: "per-client"})}, 2,
			[][]string{{"anon-p0-c0:10.0.0.0", "anon-p0-c0:10.0.0.0"}, {"anon-p0-c1:10.0.0.1", "anon-p0-c1:10.0.0.1"}}},
		{"ips numbered across populations", []scenario.Population{pop("a", 1, scenario.Identity{}), pop("b", 1, scenario.Identity{})}, 1,
			[][]string{{"anon-p0-c0:10.0.0.0"}, {"anon-p1-c0:10.0.0.1"}}},
		{"shared token, no ip", []scenario.Population{pop("a", 2, scenario.Identity{Token: "shared", IP: "none"})}, 1,
			[][]string{{"anon-p0:unknown"}, {"anon-p0:unknown"}}},
		{"nat pool of 2 over 3 clients", []scenario.Population{pop("a", 3, scenario.Identity{Token: "shared", IP: "nat", NATPool: 2})}, 1,
			[][]string{{"anon-p0:100.64.0.0"}, {"anon-p0:100.64.0.1"}, {"anon-p0:100.64.0.0"}}},
		{"rotating every 2", []scenario.Population{pop("a", 1, scenario.Identity{Token: "rotating", RotateEvery: 2, IP: "none"})}, 5,
			[][]string{{"anon-p0-c0-r0:unknown", "anon-p0-c0-r0:unknown", "anon-p0-c0-r1:unknown", "anon-p0-c0-r1:unknown", "anon-p0-c0-r2:unknown"}}},
	}
	for _, c := range cases {
		got := callersOf(t, c.traffic, c.n)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d clients, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i := range got {
			for k := range c.want[i] {
				if got[i][k] != c.want[i][k] {
					t.Errorf("%s: client %d request %d caller %q, want %q", c.name, i, k, got[i][k], c.want[i][k])
				}
			}
		}
	}
}

// TestIdentityMatchesLimiterCaller checks that a simulated caller is what
// limiter.Caller makes of a request with that token and address (and of one
// with no address header: "unknown").
func TestIdentityMatchesLimiterCaller(t *testing.T) {
	p := population{token: tokenPerClient, ip: ipPerClient, firstIPs: 70000}
	ip := clientIP(&p, 5)
	h := http.Header{}
	h.Set("CF-Connecting-IP", ip)
	if got, want := clientToken(&p, 3, 5, 0)+":"+ip, limiter.Caller(clientToken(&p, 3, 5, 0), h); got != want {
		t.Errorf("caller %q, limiter.Caller %q", got, want)
	}
	if ip != "10.1.17.117" { // 70005 = 1<<16 + 17<<8 + 117
		t.Errorf("ip of client 70005 = %s, want 10.1.17.117", ip)
	}
	p.ip = ipNone
	if got, want := clientToken(&p, 0, 0, 0)+":"+clientIP(&p, 0), limiter.Caller(clientToken(&p, 0, 0, 0), http.Header{}); got != want {
		t.Errorf("caller %q, limiter.Caller %q", got, want)
	}
}

// TestArriveModes checks location choice: alternate is round robin per
// client; weighted follows the weights (3:1 over 40 000 requests).
func TestArriveModes(t *testing.T) {
	locs := []scenario.Location{{Name: "a", Weight: 1}, {Name: "b", Weight: 1}, {Name: "c", Weight: 1}}
	var p population
	if err := compileArrive(&p, scenario.Arrive{Mode: "alternate"}, locs, "t"); err != nil {
		t.Fatal(err)
	}
	var c client
	r := TrialRand(1, 0)
	for i := 0; i < 7; i++ {
		if l := p.pickLocation(&c, r); l != i%3 {
			t.Fatalf("alternate request %d at %d, want %d", i, l, i%3)
		}
	}
	p = population{}
	if err := compileArrive(&p, scenario.Arrive{Mode: "weighted", Weights: []scenario.Weight{{Location: "c", Weight: 3}, {Location: "a", Weight: 1}}}, locs, "t"); err != nil {
		t.Fatal(err)
	}
	n := map[int]int{}
	for i := 0; i < 40000; i++ {
		n[p.pickLocation(&c, r)]++
	}
	if n[1] != 0 || n[2] < 29400 || n[2] > 30600 {
		t.Errorf("weighted 3:1 over c, a gave %v", n)
	}
	if err := compileArrive(&p, scenario.Arrive{Mode: "one", Location: "nowhere"}, locs, "t"); err == nil {
		t.Error("unknown location accepted")
	}
}
