package kv

import (
	"context"
	"time"
)

// Delayed is a Store whose every operation waits a latency before it takes
// effect, as a network would: Delay is called once per operation (from
// many goroutines at once, so it must be safe for concurrent use).
type Delayed struct {
	Store
	Delay func() time.Duration
}

// Get sleeps a latency, then reads.
func (s *Delayed) Get(ctx context.Context, key string) (string, bool, error) {
	if err := Sleep(ctx, s.Delay()); err != nil {
		return "", false, WrapUnavailable("get", key, err)
	}
	return s.Store.Get(ctx, key)
}

// Put sleeps a latency, then writes.
func (s *Delayed) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	if err := Sleep(ctx, s.Delay()); err != nil {
		return WrapUnavailable("put", key, err)
	}
	return s.Store.Put(ctx, key, value, ttl)
}

// Update sleeps a latency, then has the store beneath apply u; it fails
// with ErrNoUpdate when that store cannot (CanUpdate).
func (s *Delayed) Update(ctx context.Context, u *Update) ([2]Value, error) {
	if !CanUpdate(s.Store) {
		return [2]Value{}, ErrNoUpdate
	}
	if err := Sleep(ctx, s.Delay()); err != nil {
		return [2]Value{}, WrapUnavailable("put", u.Keys[0], err)
	}
	return UpdateThrough(ctx, s.Store, u)
}

// CanUpdate implements Wrapper: whether the store beneath applies atomic
// updates.
func (s *Delayed) CanUpdate() bool { return CanUpdate(s.Store) }
