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

// Get sleeps half a latency, reads, and sleeps the rest. A context that
// ends on either way returns nothing found, with its error.
func (s *Delayed) Get(ctx context.Context, key string) (string, bool, error) {
	var v string
	var ok bool
	var gerr error // the read's own
	err := s.roundTrip(ctx, "get", key, func() error {
		v, ok, gerr = s.Store.Get(ctx, key)
		return gerr
	})
	if err != nil && gerr == nil {
		return "", false, err
	}
	return v, ok, err
}

// Put sleeps half a latency, writes, and sleeps the rest. A context that
// ends on the way back returns its error though the write was made.
func (s *Delayed) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	return s.roundTrip(ctx, "put", key, func() error { return s.Store.Put(ctx, key, value, ttl) })
}

// Update sleeps half a latency, has the store beneath apply u, and sleeps
// the rest; it fails with ErrNoUpdate when that store cannot (CanUpdate).
func (s *Delayed) Update(ctx context.Context, u *Update) ([2]Value, error) {
	if !CanUpdate(s.Store) {
		return [2]Value{}, ErrNoUpdate
	}
	var cur [2]Value
	err := s.roundTrip(ctx, "put", u.Keys[0], func() error {
		var err error
		cur, err = UpdateThrough(ctx, s.Store, u)
		return err
	})
	return cur, err
}

// roundTrip draws one latency, sleeps half of it, runs op (the operation
// at the store beneath), and sleeps the rest: the operation takes effect
// half-way. A context that ends on either way is op's kv.ErrUnavailable
// (a failed op's own error is kept).
func (s *Delayed) roundTrip(ctx context.Context, op, key string, act func() error) error {
	d := s.Delay()
	if err := Sleep(ctx, d/2); err != nil {
		return WrapUnavailable(op, key, err)
	}
	err := act()
	if berr := Sleep(ctx, d-d/2); berr != nil && err == nil {
		return WrapUnavailable(op, key, berr)
	}
	return err
}

// CanUpdate implements Wrapper: whether the store beneath applies atomic
// updates.
func (s *Delayed) CanUpdate() bool { return CanUpdate(s.Store) }
