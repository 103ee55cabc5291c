package model

import (
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// epoch is a trial start on a day boundary (and so on every window
// boundary that divides a day).
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(n float64) scenario.Latency {
	return scenario.Constant(time.Duration(n * float64(time.Millisecond)))
}

func dur(d time.Duration) scenario.Duration { return scenario.Duration(d) }

// memoryScenario is one location, a memory store with latency lat, a fixed
// window of limit per window, and the given traffic.
func memoryScenario(limit int64, window time.Duration, lat scenario.Latency, length time.Duration, traffic ...scenario.Population) *scenario.Scenario {
	return &scenario.Scenario{
		Name: "oracle", Trials: 1, Duration: dur(length), Start: epoch,
		Limiter:   scenario.Limiter{Name: "roast", Algorithm: "fixed-window", Limit: limit, Window: dur(window), ErrorPolicy: "fail-open"},
		Store:     scenario.Store{Kind: scenario.KindMemory, Latency: lat},
		Locations: []scenario.Location{{Name: "here", Weight: 1}},
		Traffic:   traffic,
	}
}

// kvParams is a KV with constant latencies, no purge, no write limit, no
// quotas: every mechanism off unless a test turns it on.
func kvParams(hot, cold, write float64) scenario.KV {
	return scenario.KV{CacheTTL: dur(60 * time.Second), HotRead: ms(hot), ColdRead: ms(cold), Write: ms(write), CacheDomains: 1}
}

func kvScenario(limit int64, window time.Duration, p scenario.KV, locs []string, length time.Duration, traffic ...scenario.Population) *scenario.Scenario {
	sc := memoryScenario(limit, window, scenario.Latency{}, length, traffic...)
	sc.Store = scenario.Store{Kind: scenario.KindKV, KV: p}
	sc.Locations = nil
	for _, l := range locs {
		sc.Locations = append(sc.Locations, scenario.Location{Name: l, Weight: 1})
	}
	return sc
}

// bot is one client with its own token and address.
func bot(name string) scenario.Population {
	return scenario.Population{Name: name, Clients: 1,
		Identity: scenario.Identity{Token: "per-client", IP: "per-client"}, Arrive: scenario.Arrive{Mode: "one"}}
}

func closedLoop(p scenario.Population, conc int, think scenario.Latency) scenario.Population {
	p.ClosedLoop = &scenario.ClosedLoop{Concurrency: conc, Think: think}
	return p
}

func openLoop(p scenario.Population, perSecond float64) scenario.Population {
	p.OpenLoop = &scenario.OpenLoop{Rate: scenario.Rate(perSecond)}
	return p
}

func burst(p scenario.Population, size int, at, every time.Duration) scenario.Population {
	p.Burst = &scenario.Burst{Size: size, At: dur(at), Every: dur(every)}
	return p
}
