package kv

import (
	"context"
	"time"
)

// Delayed is a Store whose every operation takes a round trip, as over a
// network: Delay is called once per operation (from many goroutines at
// once, so it must be safe for concurrent use), and the operation takes
// effect half-way through that latency and returns at its end, the rule of
// the model's memory and redis stores.
type Delayed struct {
	Store
	Delay func() time.Duration
}

// Get sleeps half a latency, reads, and sleeps the rest.
func (s *Delayed) Get(ctx context.Context, key string) (string, bool, error) {
	d := s.Delay()
	if err := Sleep(ctx, d/2); err != nil {
		return "", false, WrapUnavailable("get", key, err)
	}
	v, ok, err := s.Store.Get(ctx, key)
	if berr := Sleep(ctx, d-d/2); berr != nil && err == nil {
		return "", false, WrapUnavailable("get", key, berr)
	}
	return v, ok, err
}

// Put sleeps half a latency, writes, and sleeps the rest. A context that
// ends on the way back returns its error though the write was made.
func (s *Delayed) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	d := s.Delay()
	if err := Sleep(ctx, d/2); err != nil {
		return WrapUnavailable("put", key, err)
	}
	err := s.Store.Put(ctx, key, value, ttl)
	if berr := Sleep(ctx, d-d/2); berr != nil && err == nil {
		return WrapUnavailable("put", key, berr)
	}
	return err
}

// Update sleeps half a latency, has the store beneath apply u, and sleeps
// the rest; it fails with ErrNoUpdate when that store cannot (CanUpdate).
func (s *Delayed) Update(ctx context.Context, u *Update) ([2]Value, error) {
	if !CanUpdate(s.Store) {
		return [2]Value{}, ErrNoUpdate
	}
	d := s.Delay()
	if err := Sleep(ctx, d/2); err != nil {
		return [2]Value{}, WrapUnavailable("put", u.Keys[0], err)
	}
	cur, err := UpdateThrough(ctx, s.Store, u)
	if berr := Sleep(ctx, d-d/2); berr != nil && err == nil {
		return cur, WrapUnavailable("put", u.Keys[0], berr)
	}
	return cur, err
}

// CanUpdate implements Wrapper: whether the store beneath applies atomic
// updates.
func (s *Delayed) CanUpdate() bool { return CanUpdate(s.Store) }
