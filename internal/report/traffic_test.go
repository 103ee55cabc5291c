package report

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

func TestDescribeTraffic(t *testing.T) {
	loc := func(n int) []scenario.Location {
		out := make([]scenario.Location, n)
		for i := range out {
			out[i].Name = "loc"
		}
		return out
	}
	one := scenario.Arrive{Mode: "one", Location: "loc0"}
	tests := []struct {
		name string
		sc   scenario.Scenario
		want string
	}{
		{"seed bot", scenario.Scenario{Locations: loc(1), Traffic: []scenario.Population{
			{Name: "bot", Clients: 1, Arrive: one, ClosedLoop: &scenario.ClosedLoop{Concurrency: 1}}}},
			"one client sending requests back to back from one location"},
		{"32 in flight", scenario.Scenario{Locations: loc(1), Traffic: []scenario.Population{
			{Name: "bot", Clients: 1, Arrive: one, ClosedLoop: &scenario.ClosedLoop{Concurrency: 32}}}},
			"32 concurrent requests from one location"},
		{"botnet", scenario.Scenario{Locations: loc(10), Traffic: []scenario.Population{
			{Name: "botnet", Clients: 100, Identity: scenario.Identity{Token: "shared", IP: "nat", NATPool: 4}, Arrive: scenario.Arrive{Mode: "spread"},
				ClosedLoop: &scenario.ClosedLoop{Concurrency: 1, Think: scenario.Latency{Dist: "exponential", Mean: scenario.Duration(time.Second)}}}}},
			"100 clients looping with think time, sharing one token behind 4 addresses, spread over 10 locations"},
		{"two populations", scenario.Scenario{Locations: loc(3), Traffic: []scenario.Population{
			{Name: "bot", Clients: 1, Arrive: scenario.Arrive{Mode: "alternate"}, Identity: scenario.Identity{Token: "rotating", RotateEvery: 5}, Burst: &scenario.Burst{Size: 50}},
			{Name: "users", Clients: 200, Legitimate: true, Arrive: scenario.Arrive{Mode: "spread"}, OpenLoop: &scenario.OpenLoop{Rate: 0.01, Poisson: true}}}},
			"bot: a burst of 50 requests, rotating tokens every 5 requests, alternating between 3 locations; users: 2 requests/s from 200 clients (Poisson), spread over 3 locations"},
		{"scraper", scenario.Scenario{Locations: loc(8), Traffic: []scenario.Population{
			{Name: "scraper", Clients: 4, Identity: scenario.Identity{Token: "pool", TokenPool: 50, IP: "pool", IPPool: 20}, Arrive: scenario.Arrive{Mode: "spread", Per: "request"},
				OpenLoop: &scenario.OpenLoop{Rate: 5}}}},
			"20 requests/s from 4 clients, cycling through 50 tokens through 20 exit addresses, each request at one of 8 locations"},
		{"office", scenario.Scenario{Locations: loc(2), Traffic: []scenario.Population{
			{Name: "office", Clients: 30, Identity: scenario.Identity{Token: "none", IP: "shared"}, Arrive: scenario.Arrive{Mode: "weighted", Per: "client", Weights: []scenario.Weight{{}, {}}},
				OpenLoop: &scenario.OpenLoop{Rate: 0.1}}}},
			"3 requests/s from 30 clients, sending no token from one address, weighted over 2 locations"},
		{"none", scenario.Scenario{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DescribeTraffic(&tc.sc); got != tc.want {
				t.Errorf("DescribeTraffic:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
