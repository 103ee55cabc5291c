package plan

import "time"

// The traffic's randomness is counter-based: every random fact of a
// request (where a spreading client arrives, a think time, a Poisson gap)
// is a hash of (seed, trial, population, client, number, fact), so that
// any request's facts can be computed alone, in any order, by either
// driver, on any machine or shard. Nothing is drawn from a shared
// sequence, so two drivers that build the same requests in a different
// order still build the same requests. Store-side randomness (latencies,
// lags, errors) is not traffic: the model draws it from its trial's
// generator, and a live store is live.

// Stream is the traffic randomness of one run: trial Trial of a run with
// seed Seed. A live run is trial 0 of its seed; the model's trials are 0,
// 1, ... of theirs.
type Stream struct{ key uint64 }

// NewStream returns the stream of trial trial of a run with seed seed.
func NewStream(seed uint64, trial int) Stream {
	return Stream{key: mix64(mix64(seed^0x6f76657273686f6f) + uint64(trial)*0x9e3779b97f4a7c15)}
}

// Draws are the random facts of one client's requests in one run. The
// zero Draws is a valid stream of its own (tests use it).
type Draws struct{ key uint64 }

// Client returns the draws of client k (counted within its population) of
// population p.
func (s Stream) Client(p *Population, k int) Draws {
	pk := mix64(s.key + uint64(p.Index+1)*0xbf58476d1ce4e5b9)
	return Draws{key: mix64(pk + uint64(k+1)*0x94d049bb133111eb)}
}

// The facts drawn, each a stream of its own.
const (
	factLocation uint64 = 1 + iota
	factThink
	factArrival
)

// bits returns draw n of the client's fact: 64 well-mixed bits.
func (d Draws) bits(n int64, fact uint64) uint64 {
	return mix64(d.key + uint64(n)*0x9e3779b97f4a7c15 + fact*0xd1b54a32d192ed03)
}

// u returns draw n of the client's fact, uniform in [0, 1).
func (d Draws) u(n int64, fact uint64) float64 { return float64(d.bits(n, fact)>>11) / (1 << 53) }

// mix64 is SplitMix64's finalizer: a bijection of 64-bit words that mixes
// every input bit into every output bit.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// ThinkTime returns think j of a closed-loop client (its j-th pause
// between a response and its next request, from 0) with draws d.
func (p *Population) ThinkTime(d Draws, j int64) time.Duration {
	return p.Think.At(d.bits(j, factThink))
}

// Arrival returns the cumulative intensity of an open-loop client k's
// arrival n (from 0), given arrival n-1's, prev (ignored for n = 0), with
// the client's draws d. At a constant rate the clients are evenly out of
// phase: arrival n of client k is arrival m = n*Clients + k of the
// population, at intensity m/Clients. A Poisson client's arrivals are an
// Exp(1) draw apart, the first an Exp(1) draw after the start (exact for a
// linear ramp too, whose times ArrivalAt finds by inverting the
// cumulative rate).
func (p *Population) Arrival(d Draws, k int, n int64, prev float64) float64 {
	if p.Poisson {
		if n == 0 {
			prev = 0
		}
		return prev + expFrom(d.bits(n, factArrival))
	}
	return float64(n*int64(p.Clients)+int64(k)) / float64(p.Clients)
}
