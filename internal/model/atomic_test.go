package model

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// atomicScenario is memoryScenario with algorithm alg and update shape u.
func atomicScenario(alg, u string, limit int64, window time.Duration, lat scenario.Latency, length time.Duration, traffic ...scenario.Population) *scenario.Scenario {
	sc := memoryScenario(limit, window, lat, length, traffic...)
	sc.Limiter.Algorithm, sc.Limiter.Update = alg, u
	if alg == "gcra" {
		sc.Limiter.Burst = 2
	}
	return sc
}

// TestAtomicExactDecisions runs one client's requests, one every 600ms
// and none overlapping, through the model's memory store in both shapes
// and, as the live driver does, through limiter.Check on kv.Memory at the
// times the model sent them: every algorithm allows the same requests in
// all three. The fixed window's count is exact: 3 a window of 10s.
func TestAtomicExactDecisions(t *testing.T) {
	for _, alg := range limiter.Algorithms {
		t.Run(string(alg), func(t *testing.T) {
			var allowed [2]int64
			for i, u := range limiter.Updates {
				sc := atomicScenario(string(alg), string(u), 3, 10*time.Second, ms(1), time.Minute, openLoop(bot("user"), 1/0.6))
				pl := planOf(t, sc)
				s, err := Run(pl, Options{Seed: 1, Trials: 1})
				if err != nil {
					t.Fatal(err)
				}
				allowed[i] = s.Totals.Allowed
				if live := liveAllowed(t, pl); live != s.Totals.Allowed {
					t.Errorf("%s: the model allowed %d, the live driver on kv.Memory %d", u, s.Totals.Allowed, live)
				}
				if alg == limiter.FixedWindow && (s.Totals.Allowed != 18 || s.Overshoot.MaxAllowed != 3) {
					t.Errorf("%s: %d allowed, at most %d a window; want 3 in each of 6 windows", u, s.Totals.Allowed, s.Overshoot.MaxAllowed)
				}
				if s.Totals.Denied == 0 {
					t.Errorf("%s: nothing denied", u)
				}
			}
			if allowed[0] != allowed[1] {
				t.Errorf("read-then-write allowed %d, atomic %d: one request at a time, they must agree", allowed[0], allowed[1])
			}
		})
	}
}

// sent is a request the model sent: when, and for which caller.
type sent struct {
	at     int64
	caller string
}

// sentBy runs trial 0 of pl and returns the plan compiled and the
// requests it sent.
func sentBy(t *testing.T, pl *plan.Plan) (*compiled, []sent) {
	t.Helper()
	c, err := compile(pl)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.newTrial(pl.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []sent
	tr.onSend = func(cl *client, _ int32, _ int64, _ int32) { reqs = append(reqs, sent{tr.now, cl.caller}) }
	if _, err := tr.run(context.Background(), -1); err != nil {
		t.Fatal(err)
	}
	return c, reqs
}

// liveAllowed sends the requests of trial 0 of pl, at the times the model
// sends them, through limiter.Check on a kv.Memory whose clock is the
// request's time, and counts those allowed.
func liveAllowed(t *testing.T, pl *plan.Plan) int64 {
	c, reqs := sentBy(t, pl)
	var now time.Time
	store := kv.NewMemory(kv.MemoryOptions{Now: func() time.Time { return now }})
	l := c.lim
	var n int64
	for _, r := range reqs {
		now = pl.Start.Add(time.Duration(r.at))
		if d := l.Check(context.Background(), store, now, r.caller); d.Err != nil {
			t.Fatal(d.Err)
		} else if d.Allowed {
			n++
		}
	}
	return n
}

// TestAtomicNeverOverAdmitsInTheModel: eight requests in flight at once
// on a store with latency. Read-then-write lets more than the limit
// through in a window (reads of the same count); the atomic fixed window
// never does.
func TestAtomicNeverOverAdmitsInTheModel(t *testing.T) {
	for _, u := range limiter.Updates {
		sc := atomicScenario("fixed-window", string(u), 5, 10*time.Second, ms(20), time.Minute, closedLoop(bot("bot"), 8, scenario.Latency{}))
		sc.Trials = 3
		s, err := Run(planOf(t, sc), Options{Seed: 1, Trials: 3})
		if err != nil {
			t.Fatal(err)
		}
		o := s.Overshoot
		switch {
		case u == limiter.Atomic && (o.MaxAllowed != 5 || o.Excess != 0 || s.KV.LostUpdates != 0):
			t.Errorf("atomic: at most %d allowed a window, excess %d, %d lost updates; want exactly the limit 5, none, none", o.MaxAllowed, o.Excess, s.KV.LostUpdates)
		case u == limiter.ReadThenWrite && o.MaxAllowed <= 5:
			t.Errorf("read-then-write: at most %d allowed a window, want more than the limit 5", o.MaxAllowed)
		}
	}
}

// TestAtomicRefusedByTheModel: a plan of the atomic shape on a store the
// model has no atomic update for (Workers KV, as a prediction of a live run
// on another store builds one) is refused, never run read-then-write.
func TestAtomicRefusedByTheModel(t *testing.T) {
	sc := atomicScenario("fixed-window", "atomic", 5, 10*time.Second, ms(1), time.Minute, openLoop(bot("user"), 1))
	pl := planOf(t, sc)
	for _, k := range []plan.StoreKind{plan.KV, plan.PerLocation} {
		if _, err := Run(pl.WithStore(k), Options{Seed: 1, Trials: 1}); err == nil || !strings.Contains(err.Error(), "has no atomic update: use read-then-write") {
			t.Errorf("%s: %v, want the refusal", k, err)
		}
	}
	for _, k := range []plan.StoreKind{plan.Memory, plan.DurableObject, plan.Redis} {
		if _, err := Run(pl.WithStore(k), Options{Seed: 1, Trials: 1}); err != nil {
			t.Errorf("%s: %v, want it run", k, err)
		}
	}
}

// TestGoldenAtomic pins the model's decisions for every algorithm in both
// shapes on one scenario (testdata/atomic.golden.txt: requests, allowed,
// denied, the most allowed in a window, excess and lost updates per run;
// go test -run GoldenAtomic -update rewrites it), and checks what must
// hold whatever the numbers: the atomic shape loses no update, and its
// fixed window never passes the limit, while read-then-write's does.
func TestGoldenAtomic(t *testing.T) {
	var b strings.Builder
	for _, alg := range limiter.Algorithms {
		for _, u := range limiter.Updates {
			bots := closedLoop(bot("bots"), 4, ms(5))
			bots.Clients, bots.Identity = 3, scenario.Identity{Token: "shared", IP: "none"}
			users := openLoop(bot("users"), 2)
			users.Clients, users.Legitimate = 2, true
			sc := atomicScenario(string(alg), string(u), 10, 10*time.Second, ms(2), 30*time.Second, bots, users)
			sc.Trials = 2
			s, err := Run(planOf(t, sc), Options{Seed: 7, Trials: 2})
			if err != nil {
				t.Fatal(err)
			}
			o := s.Overshoot
			fmt.Fprintf(&b, "%s %s: requests %d allowed %d denied %d max_allowed %d excess %d lost_updates %d\n",
				alg, u, s.Totals.Requests, s.Totals.Allowed, s.Totals.Denied, o.MaxAllowed, o.Excess, s.KV.LostUpdates)
			if u == limiter.Atomic && s.KV.LostUpdates != 0 {
				t.Errorf("%s atomic: %d lost updates", alg, s.KV.LostUpdates)
			}
			if alg == limiter.FixedWindow && (u == limiter.Atomic) != (o.Excess == 0) {
				t.Errorf("fixed-window %s: excess %d", u, o.Excess)
			}
		}
	}
	path := filepath.Join("testdata", "atomic.golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/model -run GoldenAtomic -update writes it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the model's decisions differ from %s:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// redisAtomicYAML is a racing botnet on the model's redis store (a primary
// and two replicas, down_after 5 s), FAULTS a schedule.
const redisAtomicYAML = `
name: redis-atomic
trials: 2
start: 2026-01-01T00:00:00Z
duration: 1m
limiter: {limit: 10, window: 10s, update: UPDATE}
store:
  kind: redis
  redis: {latency: {dist: constant, value: 1ms}, down_after: 5s}
FAULTS
traffic:
  - name: bots
    clients: 4
    identity: {token: shared, ip: none}
    closed_loop: {concurrency: 4, think: 10ms}
`

// TestAtomicOnTheRedisModel: on the model's redis store, the race of
// read-then-write lets more than the limit through and loses updates;
// the atomic update (a script at the primary) allows exactly the limit
// and loses none, until a partition: then the deposed primary's counts
// are lost when it rejoins, atomic or not.
func TestAtomicOnTheRedisModel(t *testing.T) {
	for _, tc := range []struct {
		update, faults string
	}{
		{"read-then-write", ""}, {"atomic", ""},
		{"atomic", "faults: [{at: 20s, kind: partition, for: 20s}]"},
	} {
		y := strings.NewReplacer("UPDATE", tc.update, "FAULTS", tc.faults).Replace(redisAtomicYAML)
		sc, err := scenario.Parse("redis-atomic.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Run(planOf(t, sc), Options{Seed: 3, Trials: 2})
		if err != nil {
			t.Fatal(err)
		}
		o, lost := s.Overshoot, s.KV.LostUpdates
		switch {
		case tc.update == "read-then-write" && (o.MaxAllowed <= 10 || lost == 0):
			t.Errorf("read-then-write: at most %d a window, %d lost updates; want the race past 10, updates lost", o.MaxAllowed, lost)
		case tc.update == "atomic" && tc.faults == "" && (o.MaxAllowed != 10 || o.Excess != 0 || lost != 0):
			t.Errorf("atomic: at most %d a window, excess %d, %d lost updates; want exactly 10, 0, 0", o.MaxAllowed, o.Excess, lost)
		case tc.faults != "" && lost == 0:
			t.Errorf("atomic under a partition: no lost update; want the deposed primary's counts lost")
		}
		t.Logf("%s %s: at most %d a window, excess %d, lost updates %d", tc.update, tc.faults, o.MaxAllowed, o.Excess, lost)
	}
}
