package model

import (
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
)

// The atomic update on the redis store (limiter.update atomic): one Lua
// script a request, as internal/redis runs it. It is sent as a write is,
// to the node clients take for the primary, and refused or timed out as a
// write would be; after its latency it is applied at that node in one
// event: the keys' values there, the limiter's Update on them, and its
// write committed as a write's commit is (replicated with lags, lost at a
// failover when the promoted replica had not applied it). No update
// replaces a count it did not see, so only failovers lose them.

var _ atomicStore = (*Redis)(nil)

// SendUpdate implements atomicStore.
func (s *Redis) SendUpdate(now time.Duration, loc int, key string) (int, time.Duration, error) {
	t := s.advance(int64(now))
	n := s.client
	lat, err := s.reach(n, t, s.p.Latency.Sample(s.rng), "put", key)
	if err == nil && !s.nodes[n].isPrimary {
		err = kv.NewUnavailable("put", key, "redis: READONLY You can't write against a read only replica")
	}
	if err != nil && s.ctr != nil {
		s.ctr.Write(err)
	}
	return n, lat, err
}

// ReadUpdate implements atomicStore: the script's GETs at node.
func (s *Redis) ReadUpdate(now time.Duration, node int, keys *[2]string, n int, cur *[2]limiter.Read, versions *[2]uint64) error {
	t := s.advance(int64(now))
	for i := 0; i < n; i++ {
		e := s.nodes[node].data[keys[i]]
		cur[i], versions[i] = limiter.Read{}, 0
		if v := e.live(t); v != 0 {
			cur[i], versions[i] = limiter.Read{Value: e.value, Found: true}, v
		}
		if s.ctr != nil {
			s.ctr.Read(nil)
		}
	}
	return nil
}

// ApplyUpdate implements atomicStore: the script's write at node, which
// keeps a live key's expiry when w.KeepTTL (EXPIRE on the first INCR).
func (s *Redis) ApplyUpdate(now time.Duration, node int, w *limiter.Write, readVersion uint64) error {
	t := s.advance(int64(now))
	ttl := w.TTL
	if e := s.nodes[node].data[w.Key]; w.KeepTTL && e.live(t) != 0 {
		ttl = time.Duration(e.expires - t)
	}
	if ttl < time.Millisecond {
		err := kv.NewInvalidTTL(w.Key, ttl)
		if s.ctr != nil {
			s.ctr.Write(err)
		}
		return err
	}
	if s.ctr != nil {
		s.ctr.Write(nil)
	}
	s.commit(t, PendingWrite{Key: w.Key, Value: w.Value, TTL: ttl, Domain: node, ReadVersion: readVersion}, nil)
	return nil
}
