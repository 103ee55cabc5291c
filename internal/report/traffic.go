package report

import (
	"fmt"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// DescribeTraffic phrases a scenario's traffic for the headline (pass it as
// Options.Traffic), e.g. "32 concurrent requests from one location" or
// "100 clients looping with think time, sharing one token behind 4
// addresses, spread over 10 locations". summary.json does not carry the
// traffic's shape, so the driver that loaded the scenario calls this.
func DescribeTraffic(sc *scenario.Scenario) string {
	if sc == nil || len(sc.Traffic) == 0 {
		return ""
	}
	var parts []string
	for _, p := range sc.Traffic {
		d := describePopulation(p, len(sc.Locations))
		if len(sc.Traffic) > 1 && p.Name != "" {
			d = p.Name + ": " + d
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

func describePopulation(p scenario.Population, locations int) string {
	n := max(p.Clients, 1)
	var b strings.Builder
	switch {
	case p.ClosedLoop != nil:
		c := max(p.ClosedLoop.Concurrency, 1)
		think := !zeroLatency(p.ClosedLoop.Think)
		switch {
		case n == 1 && c == 1 && think:
			b.WriteString("one client looping with think time")
		case n == 1 && c == 1:
			b.WriteString("one client sending requests back to back")
		case c == 1:
			fmt.Fprintf(&b, "%s clients looping", count(int64(n)))
			if think {
				b.WriteString(" with think time")
			}
		default:
			fmt.Fprintf(&b, "%s concurrent requests", count(int64(n*c)))
			if n > 1 {
				fmt.Fprintf(&b, " from %s clients", count(int64(n)))
			}
		}
	case p.OpenLoop != nil:
		rate := p.OpenLoop.Rate.PerSecond() * float64(n)
		fmt.Fprintf(&b, "%s requests/s", num(rate))
		if n > 1 {
			fmt.Fprintf(&b, " from %s clients", count(int64(n)))
		}
		if p.OpenLoop.Poisson {
			b.WriteString(" (Poisson)")
		}
		if r := p.OpenLoop.Ramp; r != nil {
			fmt.Fprintf(&b, " ramping to %s/s", num(r.To.PerSecond()*float64(n)))
		}
	case p.Burst != nil:
		size := int64(max(p.Burst.Size, 1)) * int64(n)
		if p.Burst.Every > 0 {
			fmt.Fprintf(&b, "bursts of %s requests every %s", count(size), duration(p.Burst.Every.D().Seconds()))
		} else {
			fmt.Fprintf(&b, "a burst of %s requests", count(size))
		}
	default:
		fmt.Fprintf(&b, "%s clients", count(int64(n)))
	}
	describeIdentity(&b, p.Identity, n)
	perRequest := p.Arrive.Per == "request"
	switch p.Arrive.Mode {
	case "", "one":
		b.WriteString(" from one location")
	case "spread":
		switch {
		case locations <= 1:
			b.WriteString(" from one location")
		case perRequest:
			fmt.Fprintf(&b, ", each request at one of %d locations", locations)
		default:
			fmt.Fprintf(&b, ", spread over %d locations", locations)
		}
	case "weighted":
		if perRequest {
			fmt.Fprintf(&b, ", each request at one of %d weighted locations", max(len(p.Arrive.Weights), 1))
		} else {
			fmt.Fprintf(&b, ", weighted over %d locations", max(len(p.Arrive.Weights), 1))
		}
	case "alternate":
		fmt.Fprintf(&b, ", alternating between %d locations", max(locations, 1))
	default:
		b.WriteString(", arriving " + p.Arrive.Mode)
	}
	return b.String()
}

// describeIdentity phrases what n clients send: said only when it is not
// a token and an address per client.
func describeIdentity(b *strings.Builder, id scenario.Identity, n int) {
	switch id.Token {
	case "shared":
		if n > 1 {
			b.WriteString(", sharing one token")
		}
	case "rotating":
		if id.RotateEvery > 0 {
			fmt.Fprintf(b, ", rotating tokens every %s requests", count(int64(id.RotateEvery)))
		} else {
			b.WriteString(", rotating tokens")
		}
	case "pool":
		fmt.Fprintf(b, ", cycling through %s tokens", count(int64(id.TokenPool)))
	case "none":
		b.WriteString(", sending no token")
	}
	switch id.IP {
	case "nat":
		if id.NATPool > 0 {
			fmt.Fprintf(b, " behind %s addresses", count(int64(id.NATPool)))
		}
	case "pool":
		fmt.Fprintf(b, " through %s exit addresses", count(int64(id.IPPool)))
	case "shared":
		if n > 1 {
			b.WriteString(" from one address")
		}
	case "none":
		b.WriteString(" with no address")
	}
}

// zeroLatency reports whether a latency is "none": unset, or constant 0.
func zeroLatency(l scenario.Latency) bool {
	switch l.Dist {
	case "":
		return l.Value == 0 && l.Mean == 0 && l.Median == 0 && l.Max == 0 && len(l.Points) == 0
	case "constant":
		return l.Value == 0
	}
	return false
}
