package model

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestRedisAtomicMatchesMemory: the atomic shape on the redis store with
// no lag, no faults and reads at the primary gives the memory store's
// summary byte for byte, and, under 8 requests in flight, never more than
// the limit in a window.
func TestRedisAtomicMatchesMemory(t *testing.T) {
	lat := scenario.Lognormal(msec, 5*msec)
	run := func(kind string) measure.Summary {
		sc := atomicScenario("fixed-window", "atomic", 5, 10*time.Second, lat, 25*time.Second, closedLoop(bot("bot"), 8, scenario.Constant(0)))
		sc.Trials = 3
		if kind == scenario.KindRedis {
			sc.Store = scenario.Store{Kind: kind, Redis: &scenario.Redis{Replicas: 2, Read: scenario.RedisReadPrimary, ReplicationLag: ms(0),
				Latency: lat, Timeout: dur(time.Second), DownAfter: dur(time.Second), Failover: ms(1), Reconnect: ms(1)}}
		}
		s, err := Run(planOf(t, sc), Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	m, r := run(scenario.KindMemory), run(scenario.KindRedis)
	if r.Overshoot.MaxAllowed != 5 || r.KV.LostUpdates != 0 || r.Totals.Requests == 0 {
		t.Errorf("atomic on redis: at most %d a window, %d lost updates, %d requests; want 5, 0, some", r.Overshoot.MaxAllowed, r.KV.LostUpdates, r.Totals.Requests)
	}
	for _, s := range []*measure.Summary{&m, &r} {
		s.Limiter.Store, s.Scenario, s.Cost = "", measure.ScenarioRef{}, measure.Cost{}
	}
	mj, _ := json.Marshal(m)
	rj, _ := json.Marshal(r)
	if string(mj) != string(rj) {
		t.Errorf("atomic on redis without lag or faults differs from memory:\nmemory %s\nredis  %s", mj, rj)
	}
}

// TestRedisAtomicFailover: two increments by the script at the primary,
// the second not yet at the replica when the primary is killed; after the
// promotion the count the clients read is 1, and one update is lost. In
// the gap an update is refused.
func TestRedisAtomicFailover(t *testing.T) {
	s, ctr := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Replicas = 1 }),
		plan.Fault{At: 105 * msec, Kind: plan.KillPrimary, Target: plan.TargetPrimary})
	keys := [2]string{"k"}
	incr := func(at time.Duration) (string, error) {
		var cur [2]limiter.Read
		if err := s.Update(at, &keys, 1, &cur); err != nil {
			return "", err
		}
		n := "1"
		if cur[0].Found {
			c, _ := strconv.Atoi(cur[0].Value)
			n = strconv.Itoa(c + 1)
		}
		return n, s.Apply(at, &limiter.Write{Key: "k", Value: n, TTL: time.Minute, KeepTTL: true})
	}
	if v, err := incr(0); err != nil || v != "1" {
		t.Fatalf("first update: %q, %v", v, err)
	}
	if v, err := incr(100 * msec); err != nil || v != "2" { // at the replica at 110 ms: after the kill
		t.Fatalf("second update: %q, %v", v, err)
	}
	if _, err := incr(time.Second); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("an update in the gap: %v, want EOF", err)
	}
	if v, err := incr(1800 * msec); err != nil || v != "2" {
		t.Errorf("after the failover: %q, %v; want the replica's 1 incremented", v, err)
	}
	s.Settle(1900 * msec) // three increments acknowledged, a count of 2
	if ctr.LostUpdates != 1 || s.Failovers() != 1 {
		t.Errorf("lost %d, failovers %d; want 1 and 1", ctr.LostUpdates, s.Failovers())
	}
	// KeepTTL: the key expires a minute after its first write, at 60 s,
	// on the promoted replica too.
	if e := s.nodes[1].data["k"]; e == nil || e.expires != int64(time.Minute) {
		t.Errorf("the key's expiry on the new primary: %+v, want 60s", e)
	}
}
