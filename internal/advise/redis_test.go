package advise

import (
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// redisScenario is one client on a redis store; a case adds to store.redis.
const redisScenario = `
name: r
trials: 2
duration: 2m
limiter: {limit: 5, window: 60s}
store: {kind: redis, redis: {%s}}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 98ms}
`

// TestRedisSpace: the Redis designs are those the model can run: no
// atomic design with WAIT, no replica reads without a replica; each of
// them compiles in the model (no refusal at run time).
func TestRedisSpace(t *testing.T) {
	tests := []struct {
		name, redis          string
		atomic, replicaReads bool
	}{
		{"defaults", "", true, true},
		{"wait", "wait: 1", false, true},
		{"no replica", "replicas: 0", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := compile(t, strings.Replace(redisScenario, "%s", tc.redis, 1))
			var atomic, replica bool
			space := RedisSpace(pl)
			for _, d := range space {
				atomic = atomic || d.Update == limiter.Atomic
				replica = replica || d.ReadReplica
				q := variant(pl, d, 5)
				if _, err := model.RunTrials(q, model.Options{Seed: 1, Trials: 1, Only: func(int) bool { return false }}); err != nil {
					t.Errorf("%s: the model refuses it: %v", d, err)
				}
			}
			if atomic != tc.atomic || replica != tc.replicaReads {
				t.Errorf("atomic designs %v, replica reads %v; want %v, %v", atomic, replica, tc.atomic, tc.replicaReads)
			}
			if n := len(Space(pl)) - len(space); n != 3*5*2 {
				t.Errorf("%d non-Redis designs, want 30", n)
			}
		})
	}
}

// TestVariantFaults: the scenario's faults go with the Redis designs only,
// and a Redis design's reads go where it says.
func TestVariantFaults(t *testing.T) {
	pl := compile(t, strings.Replace(redisScenario, "%s", "", 1)+"faults: [{at: 30s, kind: kill-primary}]\n")
	rep := Design{Algorithm: limiter.FixedWindow, Store: plan.Redis, StoreName: "redis", ReadReplica: true, Policy: limiter.FailClosed}
	if q := variant(pl, rep, 5); len(q.Faults) != 1 || !q.Store.Redis.ReadReplica || q.Limiter.Update != limiter.ReadThenWrite {
		t.Errorf("redis variant: %d faults, replica reads %v, update %s; want 1, true, read-then-write", len(q.Faults), q.Store.Redis.ReadReplica, q.Limiter.Update)
	}
	do := Design{Algorithm: limiter.FixedWindow, Store: plan.DurableObject, StoreName: "durable-object", Policy: limiter.FailClosed}
	if q := variant(pl, do, 5); len(q.Faults) != 0 {
		t.Errorf("durable-object variant keeps %d faults, want none", len(q.Faults))
	}
	notes := Notes(pl, []Design{rep, do})
	if len(notes) != 1 || !strings.Contains(notes[0], "apply to the Redis designs only") {
		t.Errorf("notes %q", notes)
	}
	if notes := Notes(pl, []Design{rep}); len(notes) != 0 {
		t.Errorf("Redis designs alone on the scenario's redis: notes %q, want none", notes)
	}
}
