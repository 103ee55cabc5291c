package plantest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// Generate returns generated scenario i: a random but valid scenario that
// covers every traffic option (several populations; tokens per client,
// rotating, pooled, shared or none; addresses per client, behind a NAT,
// pooled, shared or none; a limiter keyed by token and IP, IP or token;
// arrival at one location, spread or weighted per client or per request,
// alternating; closed loops with each think-time distribution, constant
// and Poisson open loops with and without ramps, bursts with and without
// a period and a spread; starts and durations). The same i always gives
// the same scenario.
func Generate(i uint64) *scenario.Scenario {
	r := rand.New(rand.NewPCG(i, 0x706c616e74657374))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	nLocs := 1 + r.IntN(5)
	fmt.Fprintf(&b, "name: generated-%d\nseed: %d\nduration: 60s\n", i, r.Uint64()>>1)
	fmt.Fprintf(&b, "limiter: {name: g, limit: %d, window: %ds, key: %s}\n", 1+r.IntN(50), 1+r.IntN(60), pick("token-ip", "ip", "token"))
	b.WriteString("locations:\n")
	for l := range nLocs {
		fmt.Fprintf(&b, "  - {name: l%d, weight: %d}\n", l, 1+r.IntN(4))
	}
	b.WriteString("traffic:\n")
	for p := range 1 + r.IntN(3) {
		clients := 1 + r.IntN(20)
		fmt.Fprintf(&b, "  - name: p%d\n    clients: %d\n", p, clients)
		b.WriteString("    identity: {" + genIdentity(r, pick) + "}\n")
		b.WriteString("    arrive: {" + genArrive(r, pick, nLocs) + "}\n")
		b.WriteString(genSend(r, pick))
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "    start: %ds\n", r.IntN(20))
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "    duration: %ds\n", 1+r.IntN(40))
		}
	}
	sc, err := scenario.Parse(fmt.Sprintf("generated-%d.yaml", i), []byte(b.String()))
	if err != nil {
		panic(fmt.Sprintf("plantest.Generate(%d) wrote an invalid scenario: %v\n%s", i, err, b.String()))
	}
	return sc
}

func genIdentity(r *rand.Rand, pick func(...string) string) string {
	var parts []string
	switch t := pick("per-client", "rotating", "pool", "shared", "none"); t {
	case "rotating":
		parts = append(parts, fmt.Sprintf("token: rotating, rotate_every: %d", 1+r.IntN(5)))
	case "pool":
		parts = append(parts, fmt.Sprintf("token: pool, token_pool: %d", 1+r.IntN(7)))
	default:
		parts = append(parts, "token: "+t)
	}
	switch ip := pick("per-client", "nat", "pool", "shared", "none"); ip {
	case "nat":
		parts = append(parts, fmt.Sprintf("ip: nat, nat_pool: %d", 1+r.IntN(4)))
	case "pool":
		parts = append(parts, fmt.Sprintf("ip: pool, ip_pool: %d", 1+r.IntN(5)))
	default:
		parts = append(parts, "ip: "+ip)
	}
	return strings.Join(parts, ", ")
}

func genArrive(r *rand.Rand, pick func(...string) string, nLocs int) string {
	switch m := pick("one", "spread", "weighted", "alternate"); m {
	case "one":
		return fmt.Sprintf("mode: one, location: l%d", r.IntN(nLocs))
	case "spread":
		return "mode: spread, per: " + pick("client", "request")
	case "weighted":
		var ws []string
		for l := range nLocs {
			if r.IntN(2) == 0 || l == nLocs-1 && len(ws) == 0 {
				ws = append(ws, fmt.Sprintf("{location: l%d, weight: %d}", l, 1+r.IntN(5)))
			}
		}
		return "mode: weighted, per: " + pick("client", "request") + ", weights: [" + strings.Join(ws, ", ") + "]"
	default:
		return "mode: " + m
	}
}

func genSend(r *rand.Rand, pick func(...string) string) string {
	switch r.IntN(3) {
	case 0:
		think := pick("0s", "25ms", "{dist: uniform, min: 1ms, max: 40ms}", "{dist: exponential, mean: 30ms}",
			"{dist: lognormal, median: 20ms, p99: 200ms}", "{dist: empirical, quantiles: [{p: 0.1, value: 1ms}, {p: 0.9, value: 50ms}, {p: 1, value: 80ms}]}")
		return fmt.Sprintf("    closed_loop: {concurrency: %d, think: %s}\n", 1+r.IntN(3), think)
	case 1:
		s := fmt.Sprintf("    open_loop:\n      rate: %d/%s\n      poisson: %v\n", 1+r.IntN(20), pick("s", "10s", "m"), r.IntN(2) == 0)
		if r.IntN(3) == 0 {
			s += fmt.Sprintf("      ramp: {to: %d/s, over: %ds}\n", 1+r.IntN(30), 1+r.IntN(30))
		}
		return s
	}
	every := 0
	if r.IntN(2) == 0 {
		every = 1 + r.IntN(20)
	}
	spread := 0
	if r.IntN(2) == 0 {
		spread = r.IntN(1000)
		if every > 0 {
			spread = min(spread, every*1000)
		}
	}
	return fmt.Sprintf("    burst: {size: %d, at: %ds, every: %ds, spread: %dms}\n", 1+r.IntN(12), r.IntN(10), every, spread)
}

// Describe names a generated scenario's traffic in one line, for a
// failure's message.
func Describe(sc *scenario.Scenario) string {
	var parts []string
	for _, p := range sc.Traffic {
		send := "closed"
		switch {
		case p.OpenLoop != nil && p.OpenLoop.Poisson:
			send = "poisson"
		case p.OpenLoop != nil:
			send = "open"
		case p.Burst != nil:
			send = "burst"
		}
		parts = append(parts, fmt.Sprintf("%s: %d clients %s token %s ip %s arrive %s/%s", p.Name, p.Clients, send,
			p.Identity.Token, p.Identity.IP, p.Arrive.Mode, p.Arrive.Per))
	}
	return fmt.Sprintf("key %s, %d locations; %s", sc.Limiter.Key, len(sc.Locations), strings.Join(parts, "; "))
}
