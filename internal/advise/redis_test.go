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

// TestRedisSnippet: the snippet of each Redis design is a scenario's
// limiter and store that compile to that design (its update shape and
// where it reads), and the Worker change says how the count reaches Redis.
func TestRedisSnippet(t *testing.T) {
	pl := compile(t, strings.Replace(redisScenario, "%s", "", 1))
	for _, d := range RedisSpace(pl) {
		r := Result{Design: d, Limit: 7}
		snip := Snippet(r, "60s")
		q := compile(t, "name: s\nduration: 2m\n"+snip+"traffic:\n  - name: bot\n    closed_loop: {concurrency: 1}\n")
		if q.Limiter.Update != d.update() || q.Store.Kind != plan.Redis || q.Store.Redis.ReadReplica != d.ReadReplica ||
			q.Limiter.Algorithm != d.Algorithm || q.Limiter.Policy != d.Policy || q.Limiter.Limit != 7 {
			t.Errorf("%s: the snippet compiles to %s %s on %s (replica reads %v), limit %d:\n%s", d, q.Limiter.Algorithm, q.Limiter.Update,
				q.Store.Kind, q.Store.Redis.ReadReplica, q.Limiter.Limit, snip)
		}
		want := "reading and writing it on the primary"
		switch {
		case d.update() == limiter.Atomic:
			want = "on the primary in one script"
		case d.ReadReplica:
			want = "reading it from a replica"
		}
		if w := WorkerChange(r); !strings.Contains(w, want) {
			t.Errorf("%s: worker change %q lacks %q", d, w, want)
		}
	}
}
