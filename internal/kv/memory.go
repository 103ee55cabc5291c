package kv

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Memory is a linearizable in-memory store: the reference where only races
// between concurrent requests matter, with none of Workers KV's lag. It still
// enforces the published rules (TTL >= 60 s, keys <= 512 bytes, and on request
// one write per second per key), and can sleep on every operation so that
// concurrent requests really overlap between their read and their write.
//
// It applies atomic updates (Updater) under its lock.
type Memory struct {
	mu      sync.Mutex
	entries map[string]memEntry
	opts    MemoryOptions
}

type memEntry struct {
	value     string
	expires   time.Time
	lastWrite time.Time
}

// MemoryOptions configure a Memory store. The zero value is a store with no
// latency, no write limit, and the wall clock.
type MemoryOptions struct {
	// Now is the clock TTLs and the write limit are measured on; nil means
	// time.Now. Tests inject a fake one.
	Now func() time.Time
	// Latency is each operation's round trip, so that a read and the write
	// that follows it are separated as over a network: the operation takes
	// effect half-way through it (after Latency/2) and returns at its end.
	Latency time.Duration
	// WriteLimit enforces Workers KV's one write per second per key, failing
	// faster writes with the 429 error.
	WriteLimit bool
}

// NewMemory returns an empty Memory store.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Memory{entries: map[string]memEntry{}, opts: opts}
}

// there sleeps the way there, half the configured latency: an operation
// takes effect half-way through its round trip, as at a server. It
// returns early when ctx ends.
func (m *Memory) there(ctx context.Context) error { return Sleep(ctx, m.opts.Latency/2) }

// back sleeps the way back, the rest of the configured latency, after the
// operation took effect, or returns early when ctx ends.
func (m *Memory) back(ctx context.Context) error {
	return Sleep(ctx, m.opts.Latency-m.opts.Latency/2)
}

// Sleep waits d, as a store's operation takes time, or returns ctx's error
// as soon as ctx ends. A d of 0 or less does not wait. It keeps to d
// within about a tenth of a millisecond (see sleepRest), so that a store
// that sleeps the model's latencies takes what the model says it takes.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	deadline := time.Now().Add(d)
	if coarse := d - timerSlack; coarse > 0 {
		t := time.NewTimer(coarse)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	sleepRest(time.Until(deadline))
	return nil
}

// Get returns the live value under key; an expired key is missing.
func (m *Memory) Get(ctx context.Context, key string) (string, bool, error) {
	if len(key) > MaxKeyBytes {
		return "", false, NewKeyTooLong("get", key)
	}
	if err := m.there(ctx); err != nil {
		return "", false, WrapUnavailable("get", key, err)
	}
	value, found := m.get(key)
	if err := m.back(ctx); err != nil {
		return "", false, WrapUnavailable("get", key, err)
	}
	return value, found, nil
}

// get returns the live value under key, now.
func (m *Memory) get(key string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok || !m.opts.Now().Before(e.expires) {
		return "", false
	}
	return e.value, true
}

// Put stores value under key until ttl from now; every put restarts the TTL.
func (m *Memory) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	if err := CheckPut(key, ttl); err != nil {
		return err
	}
	if err := m.there(ctx); err != nil {
		return WrapUnavailable("put", key, err)
	}
	err := m.put(key, value, ttl)
	if berr := m.back(ctx); berr != nil && err == nil {
		return WrapUnavailable("put", key, berr) // stored, though the caller cannot know
	}
	return err
}

// put stores value under key until ttl from now, or refuses it (the
// write limit).
func (m *Memory) put(key, value string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	e, ok := m.entries[key]
	if m.opts.WriteLimit && ok && now.Sub(e.lastWrite) < time.Second {
		return NewWriteRateLimited(key)
	}
	m.entries[key] = memEntry{value: value, expires: now.Add(ttl), lastWrite: now}
	return nil
}

// Update implements Updater: under the store's lock, it reads u's keys,
// calls u.Apply and stores the write it returns, half-way through the
// store's latency (one round trip, as a script), and returns at its end. The write obeys the rules Put does, except
// the write limit: an atomic update is one operation at the primary.
func (m *Memory) Update(ctx context.Context, u *Update) ([2]Value, error) {
	var cur [2]Value
	if u.NKeys < 1 || u.NKeys > 2 || u.Apply == nil {
		return cur, fmt.Errorf("memory store: an atomic update needs 1 or 2 keys and its Apply, got %d keys", u.NKeys)
	}
	for _, k := range u.Keys[:u.NKeys] {
		if len(k) > MaxKeyBytes {
			return cur, NewKeyTooLong("put", k)
		}
	}
	if err := m.there(ctx); err != nil {
		return cur, WrapUnavailable("put", u.Keys[0], err)
	}
	cur, err := m.update(u)
	if berr := m.back(ctx); berr != nil && err == nil {
		return cur, WrapUnavailable("put", u.Keys[0], berr) // applied, though the caller cannot know
	}
	return cur, err
}

// update applies u under the store's lock, now.
func (m *Memory) update(u *Update) ([2]Value, error) {
	var cur [2]Value
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	for i, k := range u.Keys[:u.NKeys] {
		if e, ok := m.entries[k]; ok && now.Before(e.expires) {
			cur[i] = Value{Value: e.value, Found: true}
		}
	}
	w, _ := u.Apply(cur)
	if w.Key == "" {
		return cur, nil
	}
	if err := CheckPut(w.Key, w.TTL); err != nil {
		return cur, err
	}
	e, live := m.entries[w.Key]
	live = live && now.Before(e.expires)
	expires := now.Add(w.TTL)
	if w.KeepTTL && live {
		expires = e.expires
	}
	m.entries[w.Key] = memEntry{value: w.Value, expires: expires, lastWrite: now}
	return cur, nil
}

// Len returns the number of keys held, expired or not, for tests of growth.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}
