// Package model is overshoot's discrete-event simulator: a virtual clock, an
// event queue, the stores a limiter can run on (Workers KV as published,
// Durable Objects, per-location counters, a linearizable memory store,
// Redis with asynchronous replicas and Sentinel failover under a faults
// schedule),
// traffic populations, and trials run in parallel with results independent
// of the core count.
//
// # How a request is simulated
//
// The simulator drives the real decision code of internal/limiter, not a
// copy: a request arrives, the limiter's Plan names the keys to read, each
// read is an event that takes effect at the store when issued and returns
// its latency later, then Decide runs on what was read, and the write it
// asks for is submitted to the store and commits its latency later. At the
// memory and redis stores (halfway) an operation takes effect half-way
// through its latency instead, and answers at its end: a read at half its
// round trip, a write's commit at half its own. The response reaches the
// client at the end of the write's latency, as the seed awaits its put;
// a closed-loop client then thinks and sends again. Any read or write error
// hands the request to the limiter's error policy (Failed). Every request is
// recorded once, with measure.Event, at the moment its decision is made (a
// write error is known at submission, so the decision recorded is final).
// Durable Objects and per-location counters read, decide and write in one
// step at the key's owner (input gates; a linearizable counter), after the
// one-way latency there, and answer after the way back.
//
// A limiter of the atomic shape (limiter.update atomic) makes one call
// instead of its reads and write: on the memory store, the update reaches
// the store half a latency draw after the request is sent and is applied
// then, in one event (the keys' values, the limiter's Update on them, its
// write committed at once), and the response reaches the client at the end
// of the draw;
// on the redis store, the same at the node clients take for the primary
// (a script), the write then replicated like any other; at a Durable
// Object's owner, Update replaces Decide. Workers KV and the
// per-location counters have no atomic update, and a serving side is
// modelled for read-then-write steps only: the model refuses those pairs.
//
// Time is virtual: nanoseconds since the trial's start (scenario.Start on
// the wall clock, which places window boundaries and the 00:00 UTC quota
// reset). Events at one instant run in the order they were scheduled. Each
// trial draws every random number from its own source, TrialRand(seed,
// trial), so a trial's results depend on the seed and its index only, and
// Run pools trials in trial order: the same summary for any number of
// workers.
//
// # The stores as state machines
//
// KV, Memory and Objects take the time as an argument and keep no clock, no
// goroutine and no timer; the rules are in KV's doc. The same code serves a
// wall-clock driver (the live "eventual" store), which must:
//
//   - keep one mutex around every call (the stores are not safe for
//     concurrent use), build the store once with a fixed start time (KVConfig.Start,
//     the wall-clock instant of virtual time 0) and its own *rand.Rand, and
//     pass now = time.Since(start) to every call;
//   - read: under the mutex call r := s.Read(now, loc, dom, key); release
//     the mutex; sleep r.Latency; then return r.Value, r.Found, r.Err. (The
//     read takes effect when called; the sleep is only its duration.) dom is
//     the cache domain the same request used before, AnyDomain for its
//     first call; keep r.Domain for the request's later calls.
//   - write: under the mutex call w, lat, err := s.Write(now, loc, dom, key,
//     value, ttl, version); release; sleep lat; if err != nil return it;
//     else take the mutex again, call s.Commit(time.Since(start), w),
//     release, and only then return nil. (A write takes effect at Commit.
//     The Commit must always follow a successful Write, even when the
//     caller's context is cancelled, or the key keeps a write "in flight"
//     forever.) Pass the Version of the read the writer made, or
//     UnknownVersion when it is not known (kv.Store's Put carries none).
//   - loc is an index into the scenario's locations (LocationIndex).
//   - KVConfig.Counters may point at a measure.KVCounters guarded by the same
//     mutex; KVConfig.TimeScale divides latencies and lags to play faster.
//
// # Measurement
//
// The store calls measure.KVCounters: Read and Write for every operation
// (with its error), Lost with the lost updates of a key's life when it
// ends (the increments acknowledged less the count the key ends with:
// lost.go; a wall-clock driver calls CountIncrements for a counting
// limiter and Settle at the end of its run), and Visibility on every
// successful read of a key holding a live committed value (time since
// that commit, and whether the read returned it).
package model
