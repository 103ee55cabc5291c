package scenario

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
)

// The redis store's read modes (store.redis.read).
const (
	RedisReadPrimary = "primary"
	RedisReadReplica = "replica"
)

// The orders in which the redis store's host takes up waiting work
// (store.redis.order).
const (
	// RedisOrderRandom: the host's cores take up what waits in no fixed
	// order, as a host whose cores the servers share with their clients
	// does (the kernel's scheduler across processes, Go's run queues): a
	// piece of work waits a uniform share of what is ahead of it. The
	// default, written as "" in a scenario.
	RedisOrderRandom = "random"
	// RedisOrderFIFO: work is taken up in the order it arrives, as one
	// Redis thread alone on its host serves its commands.
	RedisOrderFIFO = "fifo"
)

// The fault kinds (faults.*.kind).
const (
	// FaultKillPrimary kills the primary (SIGKILL): the sentinels promote a
	// replica after down_after and the failover.
	FaultKillPrimary = "kill-primary"
	// FaultPause stops a node (SIGSTOP) for a while: it answers nothing,
	// and a paused replica applies no writes until it resumes.
	FaultPause = "pause"
	// FaultLinkLatency adds latency and jitter to a replica's replication
	// link.
	FaultLinkLatency = "link-latency"
	// FaultPartition cuts the primary off from its replicas and the
	// sentinels (not from the clients that still reach it).
	FaultPartition = "partition"
)

// FaultKinds lists every fault kind, for validation and docs.
var FaultKinds = []string{FaultKillPrimary, FaultPause, FaultLinkLatency, FaultPartition}

// The fault targets other than replica-N (faults.*.target).
const (
	FaultTargetPrimary  = "primary"
	FaultTargetReplicas = "replicas"
	// FaultTargetReplicaPrefix starts a target naming one replica,
	// replica-1 to replica-N.
	FaultTargetReplicaPrefix = "replica-"
)

// Redis defaults (docs/facts.md, "Redis"). Each says whether Redis
// publishes it or it is an assumption.
const (
	// DefaultRedisReplicas: the Sentinel documentation's smallest sound
	// deployment has a primary and two replicas (choice).
	DefaultRedisReplicas = 2
	// MaxRedisReplicas bounds store.redis.replicas.
	MaxRedisReplicas = 64
	// MaxRedisThreads bounds store.redis.threads.
	MaxRedisThreads = 1024
	// DefaultRedisTimeout is the client's bound on a command: the live
	// store's (internal/redis.DefaultTimeout), a choice.
	DefaultRedisTimeout = 2 * time.Second
	// DefaultRedisDownAfter is Sentinel's down-after-milliseconds: 30000 in
	// the example sentinel.conf and sentinel.c's default when unset
	// (published).
	DefaultRedisDownAfter = 30 * time.Second
)

// DefaultRedisReplicationLag is the time a write takes to reach a replica.
// Redis publishes no figure, only that replication is asynchronous (the
// replica acknowledges every second); assumed lognormal median 1 ms, p99
// 10 ms, a replica in the same network.
func DefaultRedisReplicationLag() Latency { return Lognormal(time.Millisecond, 10*time.Millisecond) }

// DefaultRedisLatency is a command's round trip to a server. Assumed
// lognormal median 500 us, p99 2 ms: a server in the same network (Redis's
// latency documentation: sub-millisecond on a LAN, more under load).
func DefaultRedisLatency() Latency { return Lognormal(500*time.Microsecond, 2*time.Millisecond) }

// RedisServiceStart is where -calibrate starts store.redis.service and
// store.redis.request_service when a scenario sets none (by default
// nothing waits for the host's thread): lognormal median 10 us, p99 50 us, about what one Redis thread
// takes per GET or SET on loopback (Redis's benchmark page: about 110,000
// SETs and 81,000 GETs a second from 50 clients).
func RedisServiceStart() Latency { return Lognormal(10*time.Microsecond, 50*time.Microsecond) }

// DefaultRedisFailover is the time from down_after to the promoted
// replica named by the sentinels, Sentinel's own steps (sentinel.c, redis
// 7.0): subjectively down at a timer tick (the timer runs 10 to 19 times
// a second), objectively down and a leader elected on the other
// sentinels' replies at the next ticks (the random delay of up to a
// second only spaces retries; the leader goes on once elected), REPLICAOF
// NO ONE to the replica chosen, and the promotion seen in that replica's
// INFO, which a sentinel sends every second to the replicas of a primary
// objectively down: about a second and a few ticks, lognormal median
// 1.2 s, p99 1.4 s. Measured on the harness's loopback cluster: 1.18 to
// 1.27 s over 11 failovers.
func DefaultRedisFailover() Latency { return Lognormal(1200*time.Millisecond, 1400*time.Millisecond) }

// DefaultRedisReconnect is the time a client takes after the promotion to
// reach the new primary. go-redis's failover client asks its sentinel
// for the primary's address on every dial, and a client of a dead primary
// dials for every command, so it reaches the new one at its first command
// after its sentinel names it: the leader does so at the promotion
// (get-master-addr-by-name answers the promoted replica from then on),
// the others at +switch-master, measured 50 to 100 ms later on the
// harness. Lognormal median 50 ms, p99 150 ms.
func DefaultRedisReconnect() Latency { return Lognormal(50*time.Millisecond, 150*time.Millisecond) }

// DefaultRedis returns the redis store's defaults.
func DefaultRedis() Redis {
	return Redis{Replicas: DefaultRedisReplicas, Read: RedisReadPrimary, ReplicationLag: DefaultRedisReplicationLag(),
		Latency: DefaultRedisLatency(), Timeout: Duration(DefaultRedisTimeout), DownAfter: Duration(DefaultRedisDownAfter),
		Failover: DefaultRedisFailover(), Reconnect: DefaultRedisReconnect()}
}

// setRedisDefaults fills store.redis: a scenario on store.kind redis gets
// the section; one on another kind keeps it absent unless the file gives
// it, so that its canonical form and hash are unchanged. Faults that hit
// the primary by nature target it when no target is given.
func (s *Scenario) setRedisDefaults() {
	st := &s.Store
	if st.Redis == nil && st.Kind == KindRedis {
		st.Redis = &Redis{}
	}
	if r := st.Redis; r != nil {
		d := DefaultRedis()
		if r.Replicas == 0 && !s.given("store.redis.replicas") {
			r.Replicas = d.Replicas
		}
		if r.Read == "" {
			r.Read = d.Read
		}
		fillLatency(&r.ReplicationLag, d.ReplicationLag)
		fillLatency(&r.Latency, d.Latency)
		if r.Timeout == 0 && !s.given("store.redis.timeout") {
			r.Timeout = d.Timeout
		}
		if r.DownAfter == 0 && !s.given("store.redis.down_after") {
			r.DownAfter = d.DownAfter
		}
		fillLatency(&r.Failover, d.Failover)
		fillLatency(&r.Reconnect, d.Reconnect)
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.Target == "" && (f.Kind == FaultKillPrimary || f.Kind == FaultPartition) {
			f.Target = FaultTargetPrimary
		}
	}
}

// redisTable lists the redis store's defaults for DefaultTable.
func redisTable() []DefaultEntry {
	d := DefaultRedis()
	const facts = "facts file (docs/facts.md), Redis"
	return []DefaultEntry{
		{"store.redis.replicas", fmt.Sprint(d.Replicas), "choice: Sentinel's documented smallest sound setup, a primary and two replicas"},
		{"store.redis.read", d.Read, "choice: reads at the primary, go-redis's default"},
		{"store.redis.replication_lag", d.ReplicationLag.String(), "assumption: replication is asynchronous (" + facts + "), its lag unpublished"},
		{"store.redis.latency", d.Latency.String(), "assumption: a server in the same network"},
		{"store.redis.service", "none", "assumption: a command never waits for a server's thread (one Redis thread serves about 100,000 GETs or SETs a second, Redis's benchmark page); set it, or calibrate it, where the host is saturated"},
		{"store.redis.request_service", "none", "assumption: a request's own work (the client's, the target's) does not wait for the thread of store.redis.service; calibrate it where they share a host"},
		{"store.redis.order", RedisOrderRandom, "assumption: the host's cores take up waiting work (store.redis.service, request_service) in no fixed order, as where the servers share the host with their clients (docs/validation.md, \"Real Redis\"); fifo for one Redis thread alone on its host"},
		{"store.redis.threads", "1", "choice: one thread, Redis's own (its commands run one at a time); the host's cores where the clients share it"},
		{"store.redis.wait", "0 (no WAIT)", "choice: rate limiters on Redis do not WAIT"},
		{"store.redis.wait_timeout", "0s (WAIT blocks)", facts + ": WAIT's timeout 0 blocks until enough replicas acknowledge"},
		{"store.redis.timeout", d.Timeout.String(), "choice: the live redis store's command timeout"},
		{"store.redis.down_after", d.DownAfter.String(), facts + ": down-after-milliseconds 30000 in the example sentinel.conf"},
		{"store.redis.failover", d.Failover.String(), "mechanism published in sentinel.c (the promotion seen at the replica's INFO, every second while the primary is objectively down, after a few timer ticks), its ticks measured on loopback"},
		{"store.redis.reconnect", d.Reconnect.String(), "mechanism published in go-redis's sentinel.go (each dial asks a sentinel; the leader names the promoted replica first, the others at +switch-master), the delay measured on loopback"},
		{"faults", "none", "choice: no faults"},
	}
}

// validateRedis checks store.redis, when present.
func (s *Scenario) validateRedis() error {
	r := s.Store.Redis
	if r == nil {
		return nil
	}
	if r.Replicas < 0 || r.Replicas > MaxRedisReplicas {
		return errAt("store.redis.replicas", "%d is out of range: give 0 to %d", r.Replicas, MaxRedisReplicas)
	}
	switch r.Read {
	case RedisReadPrimary:
	case RedisReadReplica:
		if r.Replicas == 0 {
			return errAt("store.redis.read", "is replica but store.redis.replicas is 0: give replicas, or read: primary")
		}
	default:
		return errAt("store.redis.read", "%q is unknown: use primary or replica", r.Read)
	}
	switch r.Order {
	case "", RedisOrderRandom, RedisOrderFIFO:
	default:
		return errAt("store.redis.order", "%q is unknown: use random or fifo", r.Order)
	}
	for _, c := range []NamedLatency{{"store.redis.replication_lag", r.ReplicationLag}, {"store.redis.latency", r.Latency},
		{"store.redis.failover", r.Failover}, {"store.redis.reconnect", r.Reconnect}} {
		if err := latency(c.Path, c.Latency); err != nil {
			return err
		}
	}
	for _, c := range []NamedLatency{{"store.redis.service", r.Service}, {"store.redis.request_service", r.RequestService}} {
		if c.Latency.IsZero() {
			continue
		}
		if err := latency(c.Path, c.Latency); err != nil {
			return err
		}
	}
	if r.Threads < 0 || r.Threads > MaxRedisThreads {
		return errAt("store.redis.threads", "%d is out of range: give 1 to %d, the host's cores that serve store.redis.service (0: 1)", r.Threads, MaxRedisThreads)
	}
	if r.Wait < 0 || r.Wait > r.Replicas {
		return errAt("store.redis.wait", "%d is out of range: give 0 (no WAIT) to store.redis.replicas (%d)", r.Wait, r.Replicas)
	}
	if r.Wait > 0 && limiter.Update(s.Limiter.Update) == limiter.Atomic {
		return errAt("store.redis.wait", "%d with limiter.update atomic: the model's redis store does not WAIT after a script; set wait: 0, or use read-then-write", r.Wait)
	}
	if r.WaitTimeout < 0 {
		return errAt("store.redis.wait_timeout", "%v is negative: give 0 (WAIT blocks) or more", r.WaitTimeout)
	}
	if r.Timeout <= 0 {
		return errAt("store.redis.timeout", "must be above 0, e.g. 2s")
	}
	if r.DownAfter <= 0 {
		return errAt("store.redis.down_after", "must be above 0, e.g. 30s (down-after-milliseconds 30000)")
	}
	return nil
}

// validateFaults checks the faults schedule: only on store.kind redis, each
// fault inside the run, of a known kind, on a target that kind can hit.
func (s *Scenario) validateFaults(add func(error)) {
	if len(s.Faults) == 0 {
		return
	}
	if s.Store.Kind != KindRedis {
		add(errAt("faults", "are given but store.kind is %s: only store.kind redis models faults; set store.kind: redis, or remove faults", s.Store.Kind))
		return
	}
	for i, f := range s.Faults {
		add(s.validateFault(fmt.Sprintf("faults.%d", i), f))
	}
}

// validateFault checks one fault at path p.
func (s *Scenario) validateFault(p string, f Fault) error {
	if f.At < 0 || f.At >= s.Duration {
		return errAt(p+".at", "%v is outside the run: give 0 to under the duration (%v)", f.At, s.Duration)
	}
	if f.For < 0 {
		return errAt(p+".for", "%v is negative: give 0 (to the end of the run) or more", f.For)
	}
	targets := map[string][]string{FaultKillPrimary: {FaultTargetPrimary}, FaultPause: {FaultTargetPrimary, "replica-N", FaultTargetReplicas},
		FaultLinkLatency: {"replica-N", FaultTargetReplicas}, FaultPartition: {FaultTargetPrimary}}
	allowed, ok := targets[f.Kind]
	if !ok {
		return errAt(p+".kind", "%q is unknown: use one of %s", f.Kind, strings.Join(FaultKinds, ", "))
	}
	if err := s.faultTarget(p+".target", f, allowed); err != nil {
		return err
	}
	if f.Kind == FaultKillPrimary && f.For != 0 {
		return errAt(p+".for", "is %v but a killed primary does not come back: remove for, or use kind: pause", f.For)
	}
	if f.Kind != FaultLinkLatency {
		if f.Latency != 0 || f.Jitter != 0 {
			return errAt(p+".latency", "latency and jitter are set but kind is %s: they apply to link-latency only", f.Kind)
		}
		return nil
	}
	if f.Latency < 0 || f.Jitter < 0 {
		return errAt(p+".latency", "latency %v and jitter %v must not be negative", f.Latency, f.Jitter)
	}
	if f.Latency == 0 && f.Jitter == 0 {
		return errAt(p+".latency", "is missing: link-latency needs latency (and optionally jitter), e.g. latency: 200ms")
	}
	return nil
}

// faultTarget checks a fault's target: one of the kinds of target allowed
// (primary, replica-N, replicas), and a replica the store has.
func (s *Scenario) faultTarget(path string, f Fault, allowed []string) error {
	replicas := 0
	if s.Store.Redis != nil {
		replicas = s.Store.Redis.Replicas
	}
	kind := f.Target
	if i, ok := ReplicaTarget(f.Target); ok {
		kind = "replica-N"
		if i >= replicas {
			return errAt(path, "%q names no replica: the store has %d (store.redis.replicas), replica-1 to replica-%d", f.Target, replicas, replicas)
		}
	}
	if !slices.Contains(allowed, kind) {
		return errAt(path, "%q is not a target of %s: give %s", f.Target, f.Kind, strings.Join(allowed, " or "))
	}
	if kind == FaultTargetReplicas && replicas == 0 {
		return errAt(path, "is replicas but store.redis.replicas is 0: give replicas, or another target")
	}
	return nil
}

// ReplicaTarget returns the replica a fault's target names, 0-based, and
// whether it names one (replica-N).
func ReplicaTarget(target string) (int, bool) {
	n, ok := strings.CutPrefix(target, FaultTargetReplicaPrefix)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || i > math.MaxInt32 || strconv.Itoa(i) != n {
		return 0, false
	}
	return i - 1, true
}
