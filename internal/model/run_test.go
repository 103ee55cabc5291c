package model

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// richScenario exercises every mechanism at once: three locations, cache
// domains, purges, read-your-writes failures, a global write limit, random
// errors, an outage, and four populations of every kind.
func richScenario() *scenario.Scenario {
	kvp := scenario.KV{CacheTTL: dur(60 * time.Second), HotRead: scenario.Lognormal(2*time.Millisecond, 12*time.Millisecond),
		ColdRead:        scenario.Latency{Dist: scenario.DistEmpirical, Points: []scenario.Quantile{{P: 0.5, Value: dur(20 * time.Millisecond)}, {P: 1, Value: dur(300 * time.Millisecond)}}},
		Write:           scenario.Latency{Dist: scenario.DistExponential, Mean: dur(80 * time.Millisecond)},
		ReadYourWritesP: 0.1, Purge: scenario.Purge{Enabled: true, Lag: scenario.Lognormal(2*time.Second, 20*time.Second)},
		CacheDomains: 3, WriteLimit: scenario.WriteLimit{PerSecond: 1, Scope: "global"},
		ErrorRate: scenario.ErrorRate{Read: 0.001, Write: 0.001},
		Outages:   []scenario.Outage{{Start: dur(30 * time.Second), Duration: dur(5 * time.Second), Location: "ams"}}}
	loops := closedLoop(bot("loops"), 8, scenario.Latency{Dist: scenario.DistUniform, Min: 0, Max: dur(50 * time.Millisecond)})
	loops.Clients = 3
	loops.Arrive = scenario.Arrive{Mode: "spread"}
	open := openLoop(bot("open"), 20)
	open.Clients, open.OpenLoop.Poisson = 5, true
	open.OpenLoop.Ramp = &scenario.Ramp{To: 50, Over: dur(20 * time.Second)}
	open.Identity = scenario.Identity{Token: "rotating", RotateEvery: 7, IP: "nat", NATPool: 2}
	open.Arrive = scenario.Arrive{Mode: "weighted", Weights: []scenario.Weight{{Location: "ams", Weight: 2}, {Location: "sin", Weight: 1}}}
	users := openLoop(bot("users"), 0.5)
	users.Clients, users.Legitimate = 50, true
	users.Identity = scenario.Identity{Token: "per-client", IP: "nat", NATPool: 2}
	bursts := burst(bot("bursts"), 30, 10*time.Second, 25*time.Second)
	bursts.Identity = scenario.Identity{Token: "shared", IP: "none"}
	bursts.Arrive.Mode = "alternate"
	sc := kvScenario(10, 20*time.Second, kvp, []string{"ams", "sin", "iad"}, 60*time.Second, loops, open, users, bursts)
	sc.Trials = 4
	return sc
}

func summaryJSON(t *testing.T, sc *scenario.Scenario, opts Options) []byte {
	t.Helper()
	s, err := Run(planOf(t, sc), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDeterministic: the same scenario and seed give the same summary bytes
// whatever GOMAXPROCS and the number of workers; another seed differs.
func TestDeterministic(t *testing.T) {
	sc := richScenario()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := summaryJSON(t, sc, Options{Seed: 7})
	runtime.GOMAXPROCS(2)
	two := summaryJSON(t, sc, Options{Seed: 7})
	three := summaryJSON(t, sc, Options{Seed: 7, Workers: 3})
	if string(one) != string(two) || string(one) != string(three) {
		t.Errorf("summaries differ between GOMAXPROCS 1, 2 and 3 workers")
	}
	if other := summaryJSON(t, sc, Options{Seed: 8}); string(other) == string(one) {
		t.Error("seeds 7 and 8 gave the same summary")
	}
	var s struct {
		Totals struct {
			Requests, Denied int64
			FailOpen         int64 `json:"fail_open"`
		}
		KV struct {
			LostUpdates      int64 `json:"lost_updates"`
			StaleReads       int64 `json:"stale_reads"`
			WriteRateLimited int64 `json:"write_rate_limited"`
		}
	}
	json.Unmarshal(one, &s)
	// The scenario must exercise what it claims to.
	if s.Totals.Requests == 0 || s.Totals.Denied == 0 || s.Totals.FailOpen == 0 || s.KV.LostUpdates == 0 || s.KV.StaleReads == 0 || s.KV.WriteRateLimited == 0 {
		t.Errorf("rich scenario left a mechanism idle: %+v", s)
	}
}

func TestProgressAndTrials(t *testing.T) {
	sc := richScenario()
	sc.Duration = dur(5 * time.Second)
	var calls, last atomic.Int64
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1, Trials: 5, Progress: func(done, total int) {
		calls.Add(1)
		last.Store(int64(done*100 + total))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 5 || calls.Load() != 5 || last.Load() != 505 {
		t.Errorf("%d trials, %d progress calls, last %d; want 5, 5, 505", len(trials), calls.Load(), last.Load())
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Run(planOf(t, richScenario()), Options{Seed: 1, Context: ctx})
	if err != context.Canceled || s.Complete {
		t.Errorf("cancelled run: err %v, complete %v; want context.Canceled and incomplete", err, s.Complete)
	}
}

func TestStuck(t *testing.T) {
	defer func(n int) { stuckLimit = n }(stuckLimit)
	stuckLimit = 10000
	sc := memoryScenario(5, time.Minute, ms(0), time.Minute, closedLoop(bot("bot"), 1, ms(0)))
	if _, err := Run(planOf(t, sc), Options{}); err == nil || !strings.Contains(err.Error(), "stuck") {
		t.Errorf("zero latency, zero think: err %v, want stuck", err)
	}
}

// TestBadScenarios: every odd input is an error naming what is wrong, never
// a panic: the plan refuses it (through scenario validation) before the
// model runs.
func TestBadScenarios(t *testing.T) {
	cases := []struct {
		name string
		edit func(sc *scenario.Scenario)
		want string
	}{
		{"no duration", func(sc *scenario.Scenario) { sc.Duration = 0 }, "duration"},
		{"limit 0", func(sc *scenario.Scenario) { sc.Limiter.Limit = 0 }, "limit"},
		{"unknown store", func(sc *scenario.Scenario) { sc.Store.Kind = "dynamodb" }, "store.kind"},
		{"no locations", func(sc *scenario.Scenario) { sc.Locations = nil }, "locations"},
		{"no traffic", func(sc *scenario.Scenario) { sc.Traffic = nil }, "traffic"},
		{"two send modes", func(sc *scenario.Scenario) { sc.Traffic[0].Burst = &scenario.Burst{Size: 1} }, "exactly one"},
		{"no clients", func(sc *scenario.Scenario) { sc.Traffic[0].Clients = 0 }, "clients"},
		{"concurrency 0", func(sc *scenario.Scenario) { sc.Traffic[0].ClosedLoop.Concurrency = 0 }, "concurrency"},
		{"unknown token", func(sc *scenario.Scenario) { sc.Traffic[0].Identity.Token = "cookie" }, "identity.token"},
		{"rotate 0", func(sc *scenario.Scenario) { sc.Traffic[0].Identity.Token = "rotating" }, "rotate_every"},
		{"nat 0", func(sc *scenario.Scenario) { sc.Traffic[0].Identity.IP = "nat" }, "nat_pool"},
		{"arrive unknown", func(sc *scenario.Scenario) { sc.Traffic[0].Arrive.Mode = "teleport" }, "arrive.mode"},
		{"bad think", func(sc *scenario.Scenario) { sc.Traffic[0].ClosedLoop.Think = scenario.Latency{Dist: "x"} }, "think"},
		{"negative trials", func(sc *scenario.Scenario) { sc.Trials = -1 }, "trials"},
		{"do location", func(sc *scenario.Scenario) {
			sc.Store.Kind = scenario.KindDurableObject
			sc.Store.DurableObject.Location = "Mars"
		}, "durable_object.location"},
		{"open rate 0", func(sc *scenario.Scenario) {
			sc.Traffic[0].ClosedLoop = nil
			sc.Traffic[0].OpenLoop = &scenario.OpenLoop{}
		}, "rate"},
	}
	if _, err := Run(nil, Options{}); err == nil || !strings.Contains(err.Error(), "no plan") {
		t.Errorf("nil plan: err %v, want one saying there is no plan", err)
	}
	for _, c := range cases {
		sc := memoryScenario(5, time.Minute, ms(1), time.Minute, closedLoop(bot("bot"), 1, ms(0)))
		c.edit(sc)
		_, err := compileTest(sc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

// TestOpenLoopRamp: one client ramping from 1 to 10/s over 10 s, then 10/s.
// Expected arrivals: the ramp's area 10 s x (1+10)/2 /s = 55, then 10/s for
// the last 10 s = 100; constant spacing gives exactly one per unit of
// intensity: arrivals at Λ(s) = 0, 1, ..., 154 (the one at Λ = 155 is at
// exactly 20 s, outside), 155 requests.
func TestOpenLoopRamp(t *testing.T) {
	p := openLoop(bot("bot"), 1)
	p.OpenLoop.Ramp = &scenario.Ramp{To: 10, Over: dur(10 * time.Second)}
	sc := memoryScenario(1e6, time.Hour, ms(1), 20*time.Second+time.Millisecond, p)
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := trials[0].Totals.Requests; n != 155 {
		t.Errorf("requests = %d, want 155", n)
	}
}

// TestPlanWithoutNanoClock: a run whose instants do not all fit in Unix
// nanoseconds plans each request from a time.Time (trial.planFor), keeping
// a new callerWindow whenever the plan's keys or window change; forced on
// library scenarios that cross windows and rotate callers, it gives the
// trial the plans on Unix nanoseconds give, so the same results.
func TestPlanWithoutNanoClock(t *testing.T) {
	for _, name := range []string{"default", "botnet", "window-boundary", "rotating-cookie", "store-comparison"} {
		t.Run(name, func(t *testing.T) {
			var sets []string
			switch name {
			case "default", "window-boundary": // they cross a window's end after a minute or more
			case "store-comparison": // a store at the key's owner (atOwner)
				sets = append(sets, "duration=70s", "store.kind=durable-object", "limiter.window=10s")
			default:
				sets = append(sets, "duration=20s")
			}
			c, err := compile(libraryPlan(t, name, sets...))
			if err != nil {
				t.Fatal(err)
			}
			if !c.nanoClock {
				t.Fatal("the scenario's instants are beyond Unix nanoseconds")
			}
			want, _, err := c.runTrial(context.Background(), 7, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.nanoClock = false
			got, _, err := c.runTrial(context.Background(), 7, 0)
			if err != nil {
				t.Fatal(err)
			}
			var keyWindows int64
			for _, n := range want.Hist {
				keyWindows += n
			}
			if want.Totals.Requests == 0 || keyWindows < 2 {
				t.Fatalf("%d requests, %d key-windows: the trial tests too little", want.Totals.Requests, keyWindows)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("planned from time.Time: %+v\nfrom Unix nanoseconds: %+v", got.Totals, want.Totals)
			}
		})
	}
}
