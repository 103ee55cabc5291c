package kv

import (
	"context"
	"sync"
	"time"
)

// Memory is a linearizable in-memory store: the reference where only races
// between concurrent requests matter, with none of Workers KV's lag. It still
// enforces the published rules (TTL >= 60 s, keys <= 512 bytes, and on request
// one write per second per key), and can sleep on every operation so that
// concurrent requests really overlap between their read and their write.
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
	// Latency is slept before each operation takes effect, so that a read
	// and the write that follows it are separated as over a network.
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

// wait sleeps the configured latency, or returns early when ctx ends.
func (m *Memory) wait(ctx context.Context) error { return Sleep(ctx, m.opts.Latency) }

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
	if err := m.wait(ctx); err != nil {
		return "", false, WrapUnavailable("get", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok || !m.opts.Now().Before(e.expires) {
		return "", false, nil
	}
	return e.value, true, nil
}

// Put stores value under key until ttl from now; every put restarts the TTL.
func (m *Memory) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	if err := CheckPut(key, ttl); err != nil {
		return err
	}
	if err := m.wait(ctx); err != nil {
		return WrapUnavailable("put", key, err)
	}
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

// Len returns the number of keys held, expired or not, for tests of growth.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}
