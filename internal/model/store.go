package model

import (
	"math"
	"time"
)

// UnknownVersion is the ReadVersion of a write whose writer's read is not
// known (a live driver behind the kv.Store interface, which carries no
// versions).
const UnknownVersion = ^uint64(0)

// AnyDomain is the cache domain of a request that has not used one yet.
const AnyDomain = -1

// ReadResult is what a read returns and when: the value (Found is false for
// a missing key), the version of the write it came from (0 for missing),
// the error if the read failed, and Latency, how long after the call the
// caller learns the result.
type ReadResult struct {
	Value   string
	Found   bool
	Version uint64
	// Domain is the cache domain the read used; pass it to the request's
	// later calls.
	Domain  int
	Err     error
	Latency time.Duration
}

// PendingWrite is a write that a store accepted and that commits when the
// driver calls Commit, Latency after submitting it. It carries everything
// the commit needs, so the store keeps no per-write state but a count.
type PendingWrite struct {
	Key, Value string
	TTL        time.Duration
	// Loc and Domain are where the write came from: the location and the
	// cache domain within it that sees the write at once.
	Loc, Domain int
	// ReadVersion is the version the writer read (0: it read "missing";
	// UnknownVersion: not known).
	ReadVersion uint64

	k *kvKey // the KV store's state of Key, which the write keeps from being swept
	// ackAt is when the redis store's write is answered (its client
	// learns it was acknowledged): what a stale read is judged against.
	ackAt int64
}

// Store is a store the simulator drives operation by operation: kv and
// memory. A read takes effect when it is called and its result reaches the
// caller Latency later; a write is checked when it is submitted and takes
// effect when Commit is called, its latency later. Times are virtual
// durations since the store's start. The engine drives the memory and
// redis stores through halfway instead, which times each operation's effect
// half-way through its latency. Not safe for concurrent use: a
// wall-clock driver serialises calls with a mutex (see the package doc).
type Store interface {
	// Read reads key for a request arriving at location loc. dom is the
	// cache domain the request used before (AnyDomain for its first call);
	// the store keeps to it when its caches are picked per request.
	Read(now time.Duration, loc, dom int, key string) ReadResult
	// Write submits a put of value under key with expirationTtl ttl, from
	// location loc, by a writer that read readVersion. On success it returns
	// the pending write and the latency after which the driver must call
	// Commit; on failure the error and the latency after which the caller
	// learns it (0 for errors raised before anything is sent).
	Write(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64) (PendingWrite, time.Duration, error)
	// Commit makes a pending write take effect at now.
	Commit(now time.Duration, w PendingWrite)
}

// Owned is a store where each key has one owner that runs the read, the
// decision and the write atomically: durable-object (one object per key at a
// location, input gates) and per-location (a linearizable counter per
// location). The simulator routes a request to the owner, then at the owner
// reads, decides and writes in one step, then pays the way back.
type Owned interface {
	// Route returns the owner of key for a request from loc and the one-way
	// latencies there (in) and back (out).
	Route(now time.Duration, loc int, key string) (owner int, in, out time.Duration)
	// Admit is called when the request reaches its owner; an error (e.g. a
	// Durable Object overloaded past its soft limit) refuses it.
	Admit(now time.Duration, owner int, key string) error
	// Get and Put read and write at the owner, instantly.
	Get(now time.Duration, owner int, key string) (value string, found bool)
	Put(now time.Duration, owner int, key, value string, ttl time.Duration) error
}

// entry is one key's state in a central store (kv, memory) or an owner.
type entry struct {
	value string
	// version is the unique id of the committed write that holds value; 0
	// when nothing has been committed.
	version uint64
	// committed is when that write committed; expires is when the key
	// expires (committed + ttl: every put restarts the TTL).
	committed, expires int64
	// pending counts accepted writes not yet committed; the entry is kept
	// while any are in flight.
	pending int32
	// acked counts the writes committed in the key's current life, the
	// increments of a counting limiter (lost.go); 0 unless the store
	// counts them.
	acked int64
	// lastSubmit is the last accepted write's submission (kv global write
	// limit); submitted says there was one.
	lastSubmit int64
	submitted  bool
	// second and inSecond count requests to a Durable Object in the
	// current virtual second (soft limit).
	second, inSecond int64
}

// live returns the version of the value the entry holds at t, or 0 when it
// holds none (never written, or expired).
func (e *entry) live(t int64) uint64 {
	if e.version != 0 && t < e.expires {
		return e.version
	}
	return 0
}

// sweepEvery is how often (virtual time) stores drop expired state, so that
// memory follows live keys and not requests.
const sweepEvery = int64(30 * time.Second)

// after returns t + d (d >= 0), saturating instead of overflowing, so that
// a TTL or cache lifetime near the largest duration means "never".
func after(t, d int64) int64 {
	if s := t + d; s >= t {
		return s
	}
	return math.MaxInt64
}
