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
// windows, each write the count its writer read plus one) read from the
// primary, and counts lost updates: for each key it keeps the counts
// acknowledged, and counts as lost
//
//   - a write acknowledged with a count already acknowledged: two writers
//     read the same count (the read-then-write race), or one took the
//     count back and it was written again;
//   - the acknowledged counts a read finds missing: a read that returns
//     less than the highest count acknowledged before it was sent loses
//     the counts in between that were acknowledged before it was sent. In a failover that is the increments the old
//     primary acknowledged and the promoted replica never saw, as the
//     clients find out when they next read the key (a key not read again
//     is not counted); with one writer per key at a time it is exact.
//
// Neither depends on the order the acknowledgements arrive in. Reads from
// replicas are stale by design: do not wrap them. A value that is not a
// whole number (a GCRA timestamp) is ignored. It holds every count
// acknowledged, so its memory grows with the writes of a run.
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
	acked int64           // writes acknowledged
	seen  map[int64]int64 // counts acknowledged and not found lost since -> when (acked then)
	high  int64           // the highest count acknowledged and not found lost
}

// NewLedger wraps s.
func NewLedger(s kv.Store) *Ledger { return &Ledger{Store: s, keys: map[string]*entry{}} }

// Get reads through the wrapped store; the counts acknowledged before the
// read was sent and above what it returns are counted as lost.
func (l *Ledger) Get(ctx context.Context, key string) (string, bool, error) {
	before, asOf := l.sent(key)
	v, found, err := l.Store.Get(ctx, key)
	if err != nil {
		return v, found, err
	}
	l.returned(key, v, found, before, asOf)
	return v, found, nil
}

// sent returns key's highest count and its acknowledgements when a read
// of it is sent.
func (l *Ledger) sent(key string) (before, asOf int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.keys[key]; e != nil {
		return e.high, e.acked
	}
	return 0, 0
}

// returned notes that a read of key sent when sent said before and asOf
// returned v (found or not).
func (l *Ledger) returned(key, v string, found bool, before, asOf int64) {
	n, ok := int64(0), true
	if found {
		n, ok = count(v)
	}
	if ok && n < before {
		l.mu.Lock()
		l.missing(l.keys[key], n, before, asOf)
		l.mu.Unlock()
	}
}

// missing counts as lost the counts of e in (n, before] acknowledged
// before the read that returned n was sent (the first asOf acks), and
// forgets them; one acknowledged again since may have landed after that
// read and is kept. Call with l.mu held.
func (l *Ledger) missing(e *entry, n, before, asOf int64) {
	kept := n
	for c := n + 1; c <= before; c++ {
		at, ok := e.seen[c]
		switch {
		case ok && at <= asOf:
			delete(e.seen, c)
			l.lost++
		case ok:
			kept = c
		}
	}
	if e.high <= before { // nothing higher was acknowledged meanwhile
		e.high = kept
	}
}

// Put writes through the wrapped store and notes an acknowledged count; a
// count already acknowledged is a lost update.
func (l *Ledger) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	err := l.Store.Put(ctx, key, value, ttl)
	if err != nil {
		return err
	}
	l.acknowledged(key, value)
	return nil
}

// acknowledged notes a write of value under key that the store
// acknowledged; a count already acknowledged is a lost update.
func (l *Ledger) acknowledged(key, value string) {
	n, ok := count(value)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.keys[key]
	if e == nil {
		e = &entry{seen: map[int64]int64{}}
		l.keys[key] = e
	}
	if _, dup := e.seen[n]; dup {
		l.lost++
	}
	e.acked++
	e.seen[n] = e.acked
	e.high = max(e.high, n)
}

// CanUpdate reports whether the wrapped store applies atomic updates.
func (l *Ledger) CanUpdate() bool { return kv.CanUpdate(l.Store) }

// Update applies u through the wrapped store. What the keys held before
// it is a read of each, checked as Get checks one; the count it wrote
// (u.Apply, which is pure, on the same values) is an acknowledged write,
// as Put's.
func (l *Ledger) Update(ctx context.Context, u *kv.Update) ([2]kv.Value, error) {
	up, ok := l.Store.(kv.Updater)
	if !ok {
		return [2]kv.Value{}, kv.ErrNoUpdate
	}
	n := min(u.NKeys, len(u.Keys))
	var before, asOf [2]int64
	for i := range n {
		before[i], asOf[i] = l.sent(u.Keys[i])
	}
	cur, err := up.Update(ctx, u)
	if err != nil {
		return cur, err
	}
	for i := range n {
		l.returned(u.Keys[i], cur[i].Value, cur[i].Found, before[i], asOf[i])
	}
	if w, _ := u.Apply(cur); w.Key != "" {
		l.acknowledged(w.Key, w.Value)
	}
	return cur, nil
}

// Lost returns the updates lost so far.
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
