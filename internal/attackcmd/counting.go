package attackcmd

import (
	"context"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// CountingStore wraps a kv.Store and counts the work done through it (reads,
// writes and their errors by kind), so that a live run's summary has the same
// KV section as a simulation's. Safe for concurrent use.
type CountingStore struct {
	kv.Store
	mu sync.Mutex
	c  measure.KVCounters
}

// NewCountingStore wraps s.
func NewCountingStore(s kv.Store) *CountingStore { return &CountingStore{Store: s} }

// Get reads through the wrapped store and counts the read.
func (s *CountingStore) Get(ctx context.Context, key string) (string, bool, error) {
	v, found, err := s.Store.Get(ctx, key)
	s.mu.Lock()
	s.c.Read(err)
	s.mu.Unlock()
	return v, found, err
}

// Put writes through the wrapped store and counts the write.
func (s *CountingStore) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	err := s.Store.Put(ctx, key, value, ttl)
	s.mu.Lock()
	s.c.Write(err)
	s.mu.Unlock()
	return err
}

// Update passes an atomic update on to the wrapped store and counts its
// work: on success a read of each key and, when the update wrote, a write;
// on failure one write error.
func (s *CountingStore) Update(ctx context.Context, u *kv.Update) ([2]kv.Value, error) {
	wrote := false
	counted := *u
	counted.Apply = func(cur [2]kv.Value) (kv.Put, bool) {
		w, allowed := u.Apply(cur)
		wrote = w.Key != ""
		return w, allowed
	}
	cur, err := kv.UpdateThrough(ctx, s.Store, &counted)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.c.Write(err)
		return cur, err
	}
	for range u.NKeys {
		s.c.Read(nil)
	}
	if wrote {
		s.c.Write(nil)
	}
	return cur, nil
}

// CanUpdate implements kv.Wrapper: whether the wrapped store applies
// atomic updates.
func (s *CountingStore) CanUpdate() bool { return kv.CanUpdate(s.Store) }

// AddTo adds the counts so far to k (a Recorder's KV counters).
func (s *CountingStore) AddTo(k *measure.KVCounters) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k.Reads += s.c.Reads
	k.Writes += s.c.Writes
	k.ReadErrors += s.c.ReadErrors
	k.WriteErrors += s.c.WriteErrors
	k.WriteRateLimited += s.c.WriteRateLimited
	k.QuotaErrors += s.c.QuotaErrors
}
