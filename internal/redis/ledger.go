package redis

import (
	"context"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// Ledger wraps a store whose values are counts (a counting limiter's
// windows) read from the primary, and counts the increments the store
// acknowledged that later went missing: for each key, the highest count a
// write was acknowledged with; a later read that returns less adds the
// difference to Lost and starts again from what it read.
//
// In a failover that is the increments the old primary acknowledged and
// the promoted replica never saw, as the clients find out when they next
// read the key (a key not read again is not counted). With one writer per
// key at a time it is exact; with concurrent writers of one key it also
// counts a stale write that took the count back (a lost update of the
// read-then-write race), though not two writers that wrote the same
// count. Reads from replicas are stale by design: do not wrap them. A
// value that is not a whole number (a GCRA timestamp) is ignored.
//
// Safe for concurrent use.
type Ledger struct {
	kv.Store
	mu   sync.Mutex
	keys map[string]*entry
	lost int64
}

// entry is what the ledger knows of one key.
type entry struct {
	acked int64 // writes acknowledged
	high  int64 // the highest count acknowledged since the last loss
}

// NewLedger wraps s.
func NewLedger(s kv.Store) *Ledger { return &Ledger{Store: s, keys: map[string]*entry{}} }

// Get reads through the wrapped store; a count below the key's highest
// acknowledged one is counted as lost.
func (l *Ledger) Get(ctx context.Context, key string) (string, bool, error) {
	v, found, err := l.Store.Get(ctx, key)
	if err != nil {
		return v, found, err
	}
	n, ok := int64(0), true
	if found {
		n, ok = count(v)
	}
	if ok {
		l.mu.Lock()
		if e := l.keys[key]; e != nil && n < e.high {
			l.lost += e.high - n
			e.high = n
		}
		l.mu.Unlock()
	}
	return v, found, nil
}

// Put writes through the wrapped store and notes an acknowledged count.
func (l *Ledger) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	err := l.Store.Put(ctx, key, value, ttl)
	if err != nil {
		return err
	}
	if n, ok := count(value); ok {
		l.mu.Lock()
		e := l.keys[key]
		if e == nil {
			e = &entry{}
			l.keys[key] = e
		}
		e.acked++
		e.high = max(e.high, n)
		l.mu.Unlock()
	}
	return nil
}

// Lost returns the increments lost so far.
func (l *Ledger) Lost() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// Acked returns, for every key written, how many writes of it were
// acknowledged.
func (l *Ledger) Acked() map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int64, len(l.keys))
	for k, e := range maps.All(l.keys) {
		out[k] = e.acked
	}
	return out
}

// count parses a stored count: a whole number, nothing else.
func count(v string) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}
