// Package eventual is the live "eventual" kv.Store: the simulator's Workers
// KV model (internal/model) driven by the wall clock. Each operation asks the
// model, under a mutex, what happens at now and how long it takes, then
// really sleeps that latency, so that concurrent requests to the built-in
// target race exactly as simulated ones do. It is the same state machine as
// the simulator's, not a second implementation.
package eventual
