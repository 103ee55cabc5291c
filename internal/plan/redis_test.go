package plan

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestCompileRedis checks the redis store's compiled parameters and
// faults: sorted by start, typed kinds and targets, and the live
// time-scale dividing latencies and lags but not the settings.
func TestCompileRedis(t *testing.T) {
	sc, err := scenario.Parse("x.yaml", []byte(`limiter: {limit: 5, window: 1m}
duration: 2m
store: {kind: redis, redis: {read: replica, replication_lag: 10ms, latency: 2ms, wait: 1, wait_timeout: 50ms, down_after: 5s, failover: 1s, reconnect: 100ms}}
live: {time_scale: 10}
faults:
  - {at: 60s, kind: kill-primary}
  - {at: 10s, kind: link-latency, target: replica-2, for: 5s, latency: 200ms, jitter: 20ms}
  - {at: 10s, kind: pause, target: replicas, for: 1s}
traffic: [{name: a, closed_loop: {}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Store.Redis
	if p.Store.Kind != Redis || r.Replicas != 2 || !r.ReadReplica || r.Wait != 1 || r.WaitTimeout != 50*time.Millisecond ||
		r.Timeout != scenario.DefaultRedisTimeout || r.DownAfter != 5*time.Second {
		t.Errorf("store = %v, redis %+v", p.Store.Kind, r)
	}
	want := []Fault{
		{At: 10 * time.Second, For: 5 * time.Second, Kind: LinkLatency, Target: 1, Latency: 200 * time.Millisecond, Jitter: 20 * time.Millisecond},
		{At: 10 * time.Second, For: time.Second, Kind: Pause, Target: TargetReplicas},
		{At: 60 * time.Second, Kind: KillPrimary, Target: TargetPrimary},
	}
	if len(p.Faults) != len(want) {
		t.Fatalf("faults = %+v, want %+v", p.Faults, want)
	}
	for i := range want {
		if p.Faults[i] != want[i] {
			t.Errorf("fault %d = %+v, want %+v", i, p.Faults[i], want[i])
		}
	}
	if got := p.Faults[0].Target.String() + " " + p.Faults[1].Target.String() + " " + p.Faults[2].Kind.String(); got != "replica-2 replicas kill-primary" {
		t.Errorf("names = %q", got)
	}
	if end := p.Faults[2].End(p.Duration); end != p.Duration {
		t.Errorf("kill's end = %v, want the run's end %v", end, p.Duration)
	}
	lp, err := CompileLive(sc)
	if err != nil {
		t.Fatal(err)
	}
	lr := lp.Store.Redis
	if lr.ReplicationLag.Sample(nil) != time.Millisecond || lr.Latency.Sample(nil) != 200*time.Microsecond || lr.DownAfter != 5*time.Second || lr.Timeout != r.Timeout {
		t.Errorf("live redis = lag %v latency %v down_after %v timeout %v, want lag and latency / 10, settings kept",
			lr.ReplicationLag.Sample(nil), lr.Latency.Sample(nil), lr.DownAfter, lr.Timeout)
	}
	if m, ok := LiveRedis.Models(); !ok || m != Redis {
		t.Errorf("LiveRedis.Models() = %v, %v; want redis", m, ok)
	}
	if k, err := ParseStoreKind("redis"); err != nil || k != Redis || k.String() != "redis" {
		t.Errorf("ParseStoreKind(redis) = %v, %v", k, err)
	}
}
