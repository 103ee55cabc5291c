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
// windows, each write one increment) and counts, by the definitions the
// model's stores use (docs/summary.md):
//
//   - lost updates: per key and window (one life of a key, from its first
//     write until it expires), the writes the store acknowledged less the
//     count the primary holds when the life ends. Settle reads each key's
//     count on the primary when the run is over; a life that ends before
//     (a run longer than the limiter's TTL) is read on the primary
//     expiring before it expires, when an operation of the ledger comes
//     by, and settled at its next write or at Settle. The race (two writers
//     that read one count), a stale write that took the count back, a
//     failover's promoted replica that never saw the increments and an
//     old primary's writes during a partition are all lost updates, and
//     nothing else is: what the count holds is not lost.
//   - stale reads: a successful read of a key written before the read was
//     sent and not expired then (AddTo's visibility) is stale when it missed a write the
//     primary had acknowledged before it was sent: it returned another
//     count than the last acknowledged then, and not one acknowledged
//     since (which a replica applying in order holds only after the
//     others). Reading from the primary (NewLedger) every such read is
//     fresh, as in the model: the primary is what it holds the truth.
//     Reading from replicas (NewReplicaLedger) a stale read is timed from
//     the write acknowledged after the count it returned was last
//     acknowledged (for a count never acknowledged, the first write). An
//     atomic update's read (Update) is a primary read in either: a script
//     runs on the primary.
//
// A value that is not a whole number (a GCRA timestamp) is ignored; do not
// wrap a token bucket's or GCRA's store, whose values are times. It keeps
// every acknowledgement for the stale reads' timing, so its memory grows
// with the writes of a run.
//
// Safe for concurrent use.
type Ledger struct {
	kv.Store
	replica bool
	now     func() time.Time
	mu      sync.Mutex
	keys    map[string]*entry
	lost    int64
	// unsettled counts the lives whose final count was never read (the
	// primary did not answer): their lost updates are not counted.
	unsettled int64
	ctr       *measure.KVCounters
	// nextCheck is when an operation next looks for lives about to end;
	// reading counts the primary reads those started.
	nextCheck time.Time
	reading   sync.WaitGroup
}

// expiring is how long before a key's life ends the ledger reads its
// count on the primary, and how often it looks for such keys.
const expiring = 2 * time.Second

// entry is what the ledger knows of one key.
type entry struct {
	total int64 // writes acknowledged over the run
	life  life
	// hist is every acknowledgement, in order: the count and when.
	hist []ack
}

// life is one life of a key: the writes acknowledged in it, when the
// latest of them set the key to expire, the count the last of them wrote,
// and the count the primary held when it was read near that expiry (held;
// wasRead: it was read; heldAfter: after the life's last acknowledgement,
// and so its final count).
type life struct {
	acked     int64
	expires   time.Time
	last      int64
	held      int64
	wasRead   bool
	heldAfter bool
	reading   bool // a read of held is on its way
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

// Get reads through the wrapped store and judges the read's visibility.
func (l *Ledger) Get(ctx context.Context, key string) (string, bool, error) {
	l.readExpiring()
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
	asOf   int  // the acknowledgements of the key then
	live   bool // a life of the key was running (written, not expired)
	sentAt time.Time
}

// sent returns what the ledger knows of key when a read of it is sent.
func (l *Ledger) sent(key string) read {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := read{sentAt: l.now()}
	if e := l.keys[key]; e != nil {
		r.asOf = len(e.hist)
		r.live = e.life.acked > 0 && r.sentAt.Before(e.life.expires)
	}
	return r
}

// returned notes that read r of key, from the primary or not, returned v
// (found or not): fresh unless it missed a write acknowledged before it
// was sent.
func (l *Ledger) returned(key, v string, found bool, r read, primary bool) {
	n, ok := int64(0), true
	if found {
		n, ok = count(v)
	}
	if !ok || !r.live {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.keys[key]
	last := e.hist[r.asOf-1]
	since := r.sentAt.Sub(last.at)
	if primary || n == last.n || e.ackedFrom(n, r.asOf) {
		l.ctr.Visibility(since, 0, true)
		return
	}
	l.ctr.Visibility(since, r.sentAt.Sub(e.replaced(n, r.asOf)), false)
}

// ackedFrom reports whether a count of n was acknowledged from the
// (from+1)th acknowledgement on: after a read was sent.
func (e *entry) ackedFrom(n int64, from int) bool {
	for _, a := range e.hist[from:] {
		if a.n == n {
			return true
		}
	}
	return false
}

// replaced returns when a count of n was replaced, among the first asOf
// acknowledgements: by the one after n's last, or the first when n was
// never acknowledged (a key not yet there).
func (e *entry) replaced(n int64, asOf int) time.Time {
	for i := asOf - 2; i >= 0; i-- {
		if e.hist[i].n == n {
			return e.hist[i+1].at
		}
	}
	return e.hist[0].at
}

// Put writes through the wrapped store and notes an acknowledged write.
func (l *Ledger) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	l.readExpiring()
	err := l.Store.Put(ctx, key, value, ttl)
	if err != nil {
		return err
	}
	l.acknowledged(key, value, ttl, false)
	return nil
}

// acknowledged notes a write of value under key, with ttl (kept, when
// keep, by a key whose life runs), that the store acknowledged: one
// increment of the key's life, which it settles first when it is over.
func (l *Ledger) acknowledged(key, value string, ttl time.Duration, keep bool) {
	n, ok := count(value)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	e := l.keys[key]
	if e == nil {
		e = &entry{}
		l.keys[key] = e
	}
	if e.life.acked > 0 && !now.Before(e.life.expires) {
		l.settleLife(e)
	}
	if !keep || e.life.acked == 0 {
		e.life.expires = now.Add(ceilSeconds(ttl))
	}
	e.life.acked++
	e.life.last = n
	e.life.heldAfter = false
	e.total++
	e.hist = append(e.hist, ack{n: n, at: now})
}

// ceilSeconds is ttl rounded up to whole seconds, as the store's EX and
// a script's PEXPIRE of whole seconds keep a key.
func ceilSeconds(ttl time.Duration) time.Duration {
	return (ttl + time.Second - 1) / time.Second * time.Second
}

// settleLife counts the lost updates of e's life, over, from the count
// read after its last write; when writes came after the last read (in the
// life's last second, or Settle's read failed), from the count the last of
// them wrote, which is what that read's primary held after it; a life
// never read is unsettled instead, its lost updates not counted. It
// starts a new life. Call with l.mu held.
func (l *Ledger) settleLife(e *entry) {
	lf := &e.life
	switch {
	case lf.heldAfter:
		l.lost += max(0, lf.acked-lf.held)
	case lf.wasRead:
		l.lost += max(0, lf.acked-lf.last)
	default:
		l.unsettled++
	}
	e.life = life{}
}

// readExpiring starts, at most every expiring/2, a read on the primary of
// the count of every life that ends within expiring and has not been read
// since its last write, so that its final count is known when the key is
// gone.
func (l *Ledger) readExpiring() {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Before(l.nextCheck) {
		return
	}
	l.nextCheck = now.Add(expiring / 2) // every life is read at least expiring/2 before it ends
	for key, e := range l.keys {
		lf := &e.life
		if lf.acked == 0 || lf.heldAfter || lf.reading || lf.expires.Sub(now) > expiring || !now.Before(lf.expires) {
			continue
		}
		lf.reading = true
		l.reading.Add(1)
		go l.readHeld(key, e.total)
	}
}

// readHeld reads key's count on the primary for its current life, whose
// writes were total of the run's when the read was asked for.
func (l *Ledger) readHeld(key string, total int64) {
	defer l.reading.Done()
	ctx, cancel := context.WithTimeout(context.Background(), expiring)
	defer cancel()
	v, found, err := l.primaryGet(ctx, key)
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.keys[key]
	e.life.reading = false
	if err != nil || e.total != total {
		return // failed, or written since: read again, or at Settle
	}
	e.life.held, e.life.heldAfter, e.life.wasRead = heldCount(v, found), true, true
}

// primaryGet reads key on the primary: through the wrapped store's
// GetPrimary when it has one, else its Get (a store that reads from the
// primary).
func (l *Ledger) primaryGet(ctx context.Context, key string) (string, bool, error) {
	if p, ok := l.Store.(interface {
		GetPrimary(ctx context.Context, key string) (string, bool, error)
	}); ok {
		return p.GetPrimary(ctx, key)
	}
	return l.Store.Get(ctx, key)
}

// heldCount is the count a read found: 0 for none, or for a value that is
// not a whole number.
func heldCount(v string, found bool) int64 {
	if !found {
		return 0
	}
	n, _ := count(v)
	return n
}

// Settle ends the run's lives: it reads on the primary the count of every
// key whose life is still running (with ctx: call it with the servers still
// up, once the run's requests are answered) and counts their lost updates,
// and those of the lives that ended during the run. A life whose final
// count could not be read is not counted but unsettled (Unsettled);
// Settle returns the first error.
func (l *Ledger) Settle(ctx context.Context) error {
	l.reading.Wait()
	l.mu.Lock()
	now := l.now()
	var running []string
	for key, e := range l.keys {
		switch {
		case e.life.acked == 0:
		case now.Before(e.life.expires):
			running = append(running, key)
		default:
			l.settleLife(e)
		}
	}
	l.mu.Unlock()
	var first error
	for _, key := range running {
		v, found, err := l.primaryGet(ctx, key)
		l.mu.Lock()
		e := l.keys[key]
		if err == nil {
			e.life.held, e.life.heldAfter, e.life.wasRead = heldCount(v, found), true, true
		} else if first == nil {
			first = err
		}
		l.settleLife(e)
		l.mu.Unlock()
	}
	return first
}

// CanUpdate reports whether the wrapped store applies atomic updates.
func (l *Ledger) CanUpdate() bool { return kv.CanUpdate(l.Store) }

// Update applies u through the wrapped store. What the keys held before
// it is a read of each on the primary; the count it wrote (u.Apply, which
// is pure, on the same values) is an acknowledged write, as Put's.
func (l *Ledger) Update(ctx context.Context, u *kv.Update) ([2]kv.Value, error) {
	up, ok := l.Store.(kv.Updater)
	if !ok {
		return [2]kv.Value{}, kv.ErrNoUpdate
	}
	l.readExpiring()
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
		l.acknowledged(w.Key, w.Value, w.TTL, w.KeepTTL)
	}
	return cur, nil
}

// AddTo adds the ledger's lost updates (those Settle counted: call it
// first) and the visibility of its reads to k.
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

// Lost returns the updates lost in the lives settled so far (Settle).
func (l *Ledger) Lost() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// Unsettled returns how many key lives were settled without their final
// count (the primary did not answer): their lost updates are not counted.
func (l *Ledger) Unsettled() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.unsettled
}

// Acked returns, for every key written, how many writes of it were
// acknowledged.
func (l *Ledger) Acked() map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int64, len(l.keys))
	for k, e := range maps.All(l.keys) {
		out[k] = e.total
	}
	return out
}

// count parses a stored count: a whole number, nothing else.
func count(v string) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}
