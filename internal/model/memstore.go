package model

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Memory is the linearizable reference store: one map, no caches and no lag.
// Each operation's round trip is drawn from one distribution
// (store.latency); driven by the engine (halfway), an operation takes
// effect half-way through it and answers at its end. Through the Store
// interface, a read takes effect when called and a write when committed.
// It enforces the rules every Workers KV put obeys (key length, expirationTtl >= 60 s) and
// nothing else. Races between a request's read and its write remain, which
// is what it is for. A limiter of the atomic shape has it apply its update
// in one step instead (UpdateLatency, Update, Apply): no race remains.
type Memory struct {
	lat       plan.Dist
	rng       *rand.Rand
	ctr       *measure.KVCounters
	data      map[string]*entry
	version   uint64
	nextSweep int64
	counts    bool // the values are counts: count lost updates (lost.go)
}

// NewMemory returns an empty Memory store whose operations take lat.
func NewMemory(lat plan.Dist, rng *rand.Rand, counters *measure.KVCounters) (*Memory, error) {
	d := lat
	if rng == nil {
		return nil, fmt.Errorf("memory store: no random source")
	}
	return &Memory{lat: d, rng: rng, ctr: counters, data: map[string]*entry{}, nextSweep: sweepEvery}, nil
}

// Read implements Store.
func (m *Memory) Read(now time.Duration, loc, dom int, key string) ReadResult {
	t := int64(now)
	m.tick(t)
	lat := m.lat.Sample(m.rng)
	r := m.readAt(t, key)
	r.Latency = lat
	return r
}

// Draw implements halfway.
func (m *Memory) Draw() time.Duration { return m.lat.Sample(m.rng) }

// ReadHalf implements halfway.
func (m *Memory) ReadHalf(now, lat time.Duration, loc, dom int, key string) ReadResult {
	t := int64(now)
	m.tick(t)
	r := m.readAt(t, key)
	_, r.Latency = half(lat)
	return r
}

// WriteHalf implements halfway: the write commits half-way through its
// round trip.
func (m *Memory) WriteHalf(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64) (PendingWrite, time.Duration, time.Duration, error) {
	w, lat, err := m.Write(now, loc, dom, key, value, ttl, readVersion)
	there, _ := half(lat)
	if err != nil {
		there = 0
	}
	return w, there, lat, err
}

// readAt reads key at t, counting the read, without a latency.
func (m *Memory) readAt(t int64, key string) ReadResult {
	if len(key) > kv.MaxKeyBytes {
		err := kv.NewKeyTooLong("get", key)
		if m.ctr != nil {
			m.ctr.Read(err)
		}
		return ReadResult{Err: err}
	}
	var r ReadResult
	c := m.data[key]
	if c != nil {
		if v := c.live(t); v != 0 {
			r.Value, r.Found, r.Version = c.value, true, v
		}
	}
	if m.ctr != nil {
		m.ctr.Read(nil)
		if r.Found {
			m.ctr.Visibility(time.Duration(t-c.committed), 0, true)
		}
	}
	return r
}

// Write implements Store.
func (m *Memory) Write(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64) (PendingWrite, time.Duration, error) {
	t := int64(now)
	m.tick(t)
	if err := kv.CheckPut(key, ttl); err != nil {
		if m.ctr != nil {
			m.ctr.Write(err)
		}
		return PendingWrite{}, m.lat.Sample(m.rng), err
	}
	if m.ctr != nil {
		m.ctr.Write(nil)
	}
	c := m.data[key]
	if c == nil {
		c = &entry{}
		m.data[key] = c
	}
	c.pending++
	return PendingWrite{Key: key, Value: value, TTL: ttl, Loc: loc, ReadVersion: readVersion}, m.lat.Sample(m.rng), nil
}

// Commit implements Store: last writer wins.
func (m *Memory) Commit(now time.Duration, w PendingWrite) {
	t := int64(now)
	m.tick(t)
	c := m.data[w.Key]
	if c == nil {
		c = &entry{pending: 1}
		m.data[w.Key] = c
	}
	c.pending--
	m.acknowledged(c, t)
	m.version++
	c.value, c.version, c.committed, c.expires = w.Value, m.version, t, after(t, int64(w.TTL))
}

// acknowledged counts a write committed at t to c, settling c's life
// first when it is over (lost.go).
func (m *Memory) acknowledged(c *entry, t int64) {
	if !m.counts {
		return
	}
	if c.live(t) == 0 {
		settleEntry(c, m.ctr)
	}
	c.acked++
}

// CountIncrements makes the store count lost updates: the engine calls it
// for a limiter whose values are counts (lost.go).
func (m *Memory) CountIncrements() { m.counts = true }

// Settle counts the lost updates of every key life still running at now.
func (m *Memory) Settle(now time.Duration) {
	for _, c := range m.data {
		settleEntry(c, m.ctr)
	}
}

// UpdateLatency draws how long an atomic update takes: one operation,
// half-way through which the update is applied (Update, Apply) and at
// whose end its answer is known.
func (m *Memory) UpdateLatency() time.Duration { return m.lat.Sample(m.rng) }

// Update is the first half of an atomic update at now: it reads the first
// n of keys into cur, counting the reads, and returns the first error (a
// key over 512 bytes). The caller decides on cur and, in the same event,
// with nothing between, calls Apply with the write: the update is one
// step at the store.
func (m *Memory) Update(now time.Duration, keys *[2]string, n int, cur *[2]limiter.Read) error {
	t := int64(now)
	m.tick(t)
	for i := 0; i < n; i++ {
		r := m.readAt(t, keys[i])
		if r.Err != nil {
			return r.Err
		}
		cur[i] = limiter.Read{Value: r.Value, Found: r.Found}
	}
	return nil
}

// Apply commits an atomic update's write at now, at once: the second half
// of Update. A key that holds a live value keeps its expiry when
// w.KeepTTL. It obeys the rules Write does (key length, TTL >= 60 s); no
// update is ever lost, since nothing came between its read and its write
// and the store forgets nothing.
func (m *Memory) Apply(now time.Duration, w *limiter.Write) error {
	t := int64(now)
	err := kv.CheckPut(w.Key, w.TTL)
	if m.ctr != nil {
		m.ctr.Write(err)
	}
	if err != nil {
		return err
	}
	c := m.data[w.Key]
	if c == nil {
		c = &entry{}
		m.data[w.Key] = c
	}
	expires := after(t, int64(w.TTL))
	if w.KeepTTL && c.live(t) != 0 {
		expires = c.expires
	}
	m.acknowledged(c, t)
	m.version++
	c.value, c.version, c.committed, c.expires = w.Value, m.version, t, expires
	return nil
}

func (m *Memory) tick(t int64) {
	if t < m.nextSweep {
		return
	}
	m.nextSweep = t + sweepEvery
	for k, c := range m.data {
		if c.live(t) == 0 {
			settleEntry(c, m.ctr)
		}
		if c.pending == 0 && c.live(t) == 0 {
			delete(m.data, k)
		}
	}
}

// Len returns how many keys the store holds, for tests of memory growth.
func (m *Memory) Len() int { return len(m.data) }
