package redis

import (
	"context"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
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
// Neither depends on the order the acknowledgements arrive in. A value
// that is not a whole number (a GCRA timestamp) is ignored. It holds every
// count acknowledged, so its memory grows with the writes of a run.
//
// It also counts, as the model's redis store does, the visibility of each
// successful read of a key written before the read was sent (AddTo):
// fresh when it returned the count last acknowledged before it was sent
// (what the primary holds, with one writer per key at a time), stale
// otherwise. Reading from the primary (NewLedger) every such read is
// fresh, as in the model (the primary is what it holds the truth), and
// one that returns less is a loss, above. Reading from replicas
// (NewReplicaLedger) a read that returns another count is a stale read,
// with how long the count it returned had been outdated (since the write
// acknowledged after that count's last acknowledgement; for a count never
// acknowledged, since the first write), and not a loss: a replica's lag
// says nothing of what the primary holds, so lost updates are counted from
// the acknowledged writes alone (a count acknowledged twice). Those miss
// what a stale write took back that no later write repeats (the highest
// count acknowledged less the count the key is left with); a failover's
// losses are counted only when a write acknowledges a count again. An
// atomic update's read (Update) is a primary read in either: a script
// runs on the primary.
//
// Safe for concurrent use.
type Ledger struct {
	kv.Store
	replica bool
	now     func() time.Time
	mu      sync.Mutex
	keys    map[string]*entry
	lost    int64
	ctr     *measure.KVCounters
}

// entry is what the ledger knows of one key.
type entry struct {
	acked int64           // writes acknowledged
	seen  map[int64]int64 // counts acknowledged and not found lost since -> when (acked then)
	high  int64           // the highest count acknowledged and not found lost
	// hist is every acknowledgement, in order: the count and when.
	hist []ack
}

// ack is an acknowledged write: its count, and when.
type ack struct {
	n  int64
	at time.Time
}

// NewLedger wraps s, whose reads go to the primary.
func NewLedger(s kv.Store) *Ledger {
	return &Ledger{Store: s, now: time.Now, keys: map[string]*entry{}, ctr: measure.NewKVCounters()}
}

// NewReplicaLedger wraps s, whose reads go to replicas.
func NewReplicaLedger(s kv.Store) *Ledger {
	l := NewLedger(s)
	l.replica = true
	return l
}

// Get reads through the wrapped store; the counts acknowledged before the
// read was sent and above what it returns are counted as lost (primary
// reads) or make it a stale read (replica reads).
func (l *Ledger) Get(ctx context.Context, key string) (string, bool, error) {
	r := l.sent(key)
	v, found, err := l.Store.Get(ctx, key)
	if err != nil {
		return v, found, err
	}
	l.returned(key, v, found, r, !l.replica)
	return v, found, nil
}

// read is what the ledger knew of a key when a read of it was sent.
type read struct {
	before, asOf int64     // the highest count, and the acknowledgements
	sentAt       time.Time // when it was sent
}

// sent returns what the ledger knows of key when a read of it is sent.
func (l *Ledger) sent(key string) read {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := read{sentAt: l.now()}
	if e := l.keys[key]; e != nil {
		r.before, r.asOf = e.high, e.acked
	}
	return r
}

// returned notes that read r of key, from the primary or not, returned v
// (found or not).
func (l *Ledger) returned(key, v string, found bool, r read, primary bool) {
	n, ok := int64(0), true
	if found {
		n, ok = count(v)
	}
	if !ok || r.asOf == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.keys[key]
	last := e.hist[r.asOf-1]
	since := r.sentAt.Sub(last.at)
	switch {
	case primary:
		if n < r.before {
			l.missing(e, n, r.before, r.asOf)
		}
		l.ctr.Visibility(since, 0, true)
	case n == last.n:
		l.ctr.Visibility(since, 0, true)
	default:
		l.ctr.Visibility(since, r.sentAt.Sub(e.replaced(n, r.asOf)), false)
	}
}

// replaced returns when a count of n was replaced, among the first asOf
// acknowledgements: by the one after n's last, or the first when n was
// never acknowledged (a key not yet there).
func (e *entry) replaced(n, asOf int64) time.Time {
	for i := asOf - 2; i >= 0; i-- {
		if e.hist[i].n == n {
			return e.hist[i+1].at
		}
	}
	return e.hist[0].at
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
	e.hist = append(e.hist, ack{n: n, at: l.now()})
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
	var r [2]read
	for i := range n {
		r[i] = l.sent(u.Keys[i])
	}
	cur, err := up.Update(ctx, u)
	if err != nil {
		return cur, err
	}
	for i := range n {
		l.returned(u.Keys[i], cur[i].Value, cur[i].Found, r[i], true) // a script runs on the primary
	}
	if w, _ := u.Apply(cur); w.Key != "" {
		l.acknowledged(w.Key, w.Value)
	}
	return cur, nil
}

// AddTo adds the ledger's lost updates and the visibility of its reads to
// k.
func (l *Ledger) AddTo(k *measure.KVCounters) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := *l.ctr
	c.LostUpdates = l.lost
	k.Add(c)
}

// Stale returns the stale reads counted so far.
func (l *Ledger) Stale() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ctr.StaleReads
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
