package model

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
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

// planOf compiles a scenario built in a test into a plan, first filling in
// what scenario.SetDefaults would and the test leaves out (the live
// section, the token source, unused store parameters, identity and arrival
// modes), so that tests state only what they are about.
func planOf(tb testing.TB, sc *scenario.Scenario) *plan.Plan {
	tb.Helper()
	pl, err := compileTest(sc)
	if err != nil {
		tb.Fatal(err)
	}
	return pl
}

// compileTest is planOf's compilation, returning the error.
func compileTest(sc *scenario.Scenario) (*plan.Plan, error) {
	c := *sc
	if c.Live.Duration == 0 {
		c.Live = scenario.Live{Duration: dur(10 * time.Second), TimeScale: 1}
	}
	if c.Report.Headline == "" {
		c.Report.Headline = measure.DefaultHeadline
	}
	if c.Limiter.Token == (scenario.Token{}) {
		c.Limiter.Token = scenario.Token{From: "header", Name: "X-Anon-Token"}
	}
	kv := &c.Store.KV
	if kv.CacheTTL == 0 {
		kv.CacheTTL = dur(60 * time.Second)
	}
	kv.CacheDomains = max(kv.CacheDomains, 1)
	if kv.CacheDomainPer == "" {
		kv.CacheDomainPer = "operation"
	}
	if kv.WriteLimit.Scope == "" {
		kv.WriteLimit.Scope = "location"
	}
	kv.Outages = append([]scenario.Outage(nil), kv.Outages...)
	for i := range kv.Outages {
		if kv.Outages[i].Ops == "" {
			kv.Outages[i].Ops = "all"
		}
	}
	for _, l := range []*scenario.Latency{&kv.HotRead, &kv.ColdRead, &kv.Write, &kv.Purge.Lag,
		&c.Store.DurableObject.RTT, &c.Store.DurableObject.Local, &c.Store.Latency} {
		if l.IsZero() {
			*l = scenario.Constant(0)
		}
	}
	if c.Store.DurableObject.Location == "" && len(c.Locations) > 0 {
		c.Store.DurableObject.Location = c.Locations[0].Name
	}
	c.Traffic = append([]scenario.Population(nil), c.Traffic...)
	for i := range c.Traffic {
		p := &c.Traffic[i]
		if p.Identity.Token == "" {
			p.Identity.Token = "per-client"
		}
		if p.Identity.IP == "" {
			p.Identity.IP = "per-client"
		}
		if p.Arrive.Mode == "" {
			p.Arrive.Mode = "one"
		}
		if p.Arrive.Mode == "one" && p.Arrive.Location == "" && len(c.Locations) > 0 {
			p.Arrive.Location = c.Locations[0].Name
		}
		if p.ClosedLoop != nil && p.ClosedLoop.Think.IsZero() {
			cl := *p.ClosedLoop
			cl.Think = scenario.Constant(0)
			p.ClosedLoop = &cl
		}
	}
	return plan.Compile(&c)
}

// kvParamsOf compiles Workers KV parameters p for the named locations, as
// a plan does for a scenario holding them.
func kvParamsOf(tb testing.TB, p scenario.KV, locs ...string) plan.KVParams {
	tb.Helper()
	return planOf(tb, kvScenario(1, time.Minute, p, locs, time.Minute, closedLoop(bot("b"), 1, ms(1)))).Store.KV
}
