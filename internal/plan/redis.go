package plan

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// RedisParams are the redis store's parameters (scenario store.redis),
// compiled: a primary and Replicas asynchronous replicas watched by
// Sentinel.
type RedisParams struct {
	// Replicas is the number of replicas.
	Replicas int
	// ReadReplica sends reads to a replica (one at random per read)
	// instead of the primary.
	ReadReplica bool
	// ReplicationLag is a write's time from its commit at the primary to
	// its application at a replica, drawn per replica per write.
	ReplicationLag Dist
	// Latency is a command's round trip from the client to a server.
	Latency Dist
	// Service is a command's time at the thread that serves it, one
	// command at a time, when Queued (store.redis.service set); without,
	// commands never wait.
	Service Dist
	Queued  bool
	// RequestService is a request's own time at that thread, before its
	// first command, when PerRequest (store.redis.request_service set).
	RequestService Dist
	PerRequest     bool
	// Threads is how many commands (and requests' own work) the host
	// serves at once (store.redis.threads).
	Threads int
	// FIFO takes up waiting work in the order it arrives
	// (store.redis.order: fifo); else in no fixed order (random).
	FIFO bool
	// Wait is WAIT's numreplicas after every write (0: no WAIT), and
	// WaitTimeout its timeout (0: WAIT blocks).
	Wait        int
	WaitTimeout time.Duration
	// Timeout bounds one command at the client.
	Timeout time.Duration
	// DownAfter is Sentinel's down-after-milliseconds.
	DownAfter time.Duration
	// Failover is the election and promotion after DownAfter; Reconnect
	// the client's time to reach the promoted primary.
	Failover, Reconnect Dist
}

// compileRedis compiles store.redis, or its defaults when the scenario
// has none (another store kind: so that a sweep over store.kind and a
// live redis run find them).
func compileRedis(r *scenario.Redis) (RedisParams, error) {
	if r == nil {
		d := scenario.DefaultRedis()
		r = &d
	}
	out := RedisParams{Replicas: r.Replicas, ReadReplica: r.Read == scenario.RedisReadReplica, Wait: r.Wait,
		WaitTimeout: r.WaitTimeout.D(), Timeout: r.Timeout.D(), DownAfter: r.DownAfter.D(), Queued: !r.Service.IsZero() || !r.RequestService.IsZero(),
		PerRequest: !r.RequestService.IsZero(), Threads: max(r.Threads, 1),
		FIFO: r.Order == scenario.RedisOrderFIFO}
	for _, d := range []struct {
		path string
		l    scenario.Latency
		to   *Dist
	}{{"store.redis.replication_lag", r.ReplicationLag, &out.ReplicationLag}, {"store.redis.latency", r.Latency, &out.Latency},
		{"store.redis.service", r.Service, &out.Service},
		{"store.redis.request_service", r.RequestService, &out.RequestService},
		{"store.redis.failover", r.Failover, &out.Failover}, {"store.redis.reconnect", r.Reconnect, &out.Reconnect}} {
		var err error
		if *d.to, err = NewDist(d.l); err != nil {
			return RedisParams{}, fmt.Errorf("%s: %v", d.path, err)
		}
	}
	return out, nil
}

// scaled returns r with its latencies and lags divided by f (the
// time-scale rule); the client's timeouts and Sentinel's down_after are
// settings and keep their values.
func (r RedisParams) scaled(f float64) RedisParams {
	for _, d := range []*Dist{&r.ReplicationLag, &r.Latency, &r.Service, &r.RequestService, &r.Failover, &r.Reconnect} {
		*d = d.DividedBy(f)
	}
	return r
}

// FaultKind is what a fault does (scenario faults.*.kind).
type FaultKind uint8

// The fault kinds.
const (
	// KillPrimary kills the primary: the sentinels promote a replica after
	// DownAfter and the failover; writes the replica had not applied are
	// lost.
	KillPrimary FaultKind = iota + 1
	// Pause stops a node for the fault's For: it answers nothing, and a
	// paused replica applies nothing, until it resumes.
	Pause
	// LinkLatency adds Latency, plus or minus up to Jitter, to the
	// replication lag of the target replicas' writes sent during For.
	LinkLatency
	// Partition cuts the primary off from its replicas and the sentinels
	// for For: clients still reach it and it keeps taking writes, which
	// are lost if a replica is promoted meanwhile (the last failover wins).
	Partition
)

// faultNames are the scenario's names of the kinds, in order.
var faultNames = []string{KillPrimary: scenario.FaultKillPrimary, Pause: scenario.FaultPause,
	LinkLatency: scenario.FaultLinkLatency, Partition: scenario.FaultPartition}

// String returns the kind's scenario name.
func (k FaultKind) String() string {
	if k >= 1 && int(k) < len(faultNames) {
		return faultNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", uint8(k))
}

// FaultTarget is the node a fault hits: a replica's index (0 is
// replica-1), or TargetPrimary or TargetReplicas.
type FaultTarget int

// The targets that are not one replica.
const (
	// TargetPrimary is the current primary when the fault starts.
	TargetPrimary FaultTarget = -1
	// TargetReplicas is every replica.
	TargetReplicas FaultTarget = -2
)

// String returns the target's scenario name: primary, replicas or
// replica-N.
func (t FaultTarget) String() string {
	switch {
	case t == TargetPrimary:
		return scenario.FaultTargetPrimary
	case t == TargetReplicas:
		return scenario.FaultTargetReplicas
	case t >= 0:
		return fmt.Sprintf("%s%d", scenario.FaultTargetReplicaPrefix, int(t)+1)
	}
	return fmt.Sprintf("FaultTarget(%d)", int(t))
}

// Fault is one fault of the schedule, compiled.
type Fault struct {
	// At is when it starts, from the run's start; For how long it lasts
	// (0: to the end of the run).
	At, For time.Duration
	Kind    FaultKind
	Target  FaultTarget
	// Latency and Jitter are what LinkLatency adds to the link.
	Latency, Jitter time.Duration
}

// End returns when the fault ends, for a run of length d.
func (f Fault) End(d time.Duration) time.Duration {
	if f.For == 0 || f.At+f.For > d {
		return d
	}
	return f.At + f.For
}

// compileFaults compiles a validated scenario's faults, sorted by their
// start (faults at one instant keep the file's order).
func compileFaults(faults []scenario.Fault) []Fault {
	var out []Fault
	for _, f := range faults {
		c := Fault{At: f.At.D(), For: f.For.D(), Latency: f.Latency.D(), Jitter: f.Jitter.D(), Target: TargetPrimary}
		c.Kind = FaultKind(slices.Index(faultNames, f.Kind))
		switch i, ok := scenario.ReplicaTarget(f.Target); {
		case ok:
			c.Target = FaultTarget(i)
		case f.Target == scenario.FaultTargetReplicas:
			c.Target = TargetReplicas
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Fault) int { return cmp.Compare(a.At, b.At) })
	return out
}
