package limiter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// Check is the live driver: it reads the plan's keys from store, decides, and
// performs the write before answering, as the seed awaits its put. Any store
// error, on a read or on the write, hands the decision to the error policy.
// A limiter of the atomic shape has the store apply Update instead (see
// CheckAtomic); a store that cannot (CanRun) fails every request with that
// error, which the error policy decides: refuse such a pair before running.
func (l *Limiter) Check(ctx context.Context, store kv.Store, now time.Time, caller string) Decision {
	if l.atomic {
		return l.CheckAtomic(ctx, store, now, caller)
	}
	p := l.Plan(now, caller)
	var got [2]Read
	for i := 0; i < p.NKeys; i++ {
		v, found, err := store.Get(ctx, p.Keys[i])
		if err != nil {
			return l.Failed(p, err)
		}
		got[i] = Read{Value: v, Found: found}
	}
	d := l.Decide(p, got)
	if d.Write.Key == "" {
		return d
	}
	if err := store.Put(ctx, d.Write.Key, d.Write.Value, d.Write.TTL); err != nil {
		return l.Failed(p, err)
	}
	return d
}

// ErrNoAtomicUpdate is the fault of an atomic limiter on a store that
// cannot apply its update (CanRun).
var ErrNoAtomicUpdate = errors.New("limiter update atomic: the store cannot apply an atomic update")

// CanRun returns nil when the limiter can run on store: always for
// read-then-write, and for the atomic shape when the store applies atomic
// updates (kv.CanUpdate). Otherwise the error says what to use instead.
func (l *Limiter) CanRun(store kv.Store) error {
	if !l.atomic || kv.CanUpdate(store) {
		return nil
	}
	return fmt.Errorf("%w (Workers KV has none): use limiter.update read-then-write, or a store that has one (memory, redis)", ErrNoAtomicUpdate)
}

// CheckAtomic is the live driver of the atomic shape: the store applies
// the limiter's Update to the plan's keys in one step, and the decision is
// Update's on the values the store says the keys held. A store error, or a
// store that cannot apply updates, hands the decision to the error policy.
func (l *Limiter) CheckAtomic(ctx context.Context, store kv.Store, now time.Time, caller string) Decision {
	p := l.Plan(now, caller)
	up, ok := store.(kv.Updater)
	if !ok || !kv.CanUpdate(store) {
		return l.Failed(p, l.CanRun(store))
	}
	u := l.KVUpdate(p)
	cur, err := up.Update(ctx, &u)
	if err != nil {
		return l.Failed(p, err)
	}
	return l.Update(p, reads(cur))
}

// KVUpdate returns the atomic update of plan p as a store applies it: its
// keys, Update as a pure function of their values, and the script name and
// arguments a store that runs scripts needs (ScriptArgs).
func (l *Limiter) KVUpdate(p Plan) kv.Update {
	u := kv.Update{Keys: p.Keys, NKeys: p.NKeys, Script: string(l.cfg.Algorithm), Args: l.ScriptArgs(p)}
	u.Apply = func(cur [2]kv.Value) (kv.Put, bool) {
		d := l.Update(p, reads(cur))
		w := d.Write
		return kv.Put{Key: w.Key, Value: w.Value, TTL: w.TTL, KeepTTL: w.KeepTTL}, d.Allowed
	}
	return u
}

// The arguments of a script's update, by index in ScriptArgs.
const (
	ArgLimit     = iota // the limit
	ArgWindow           // the window, nanoseconds
	ArgInto             // how far into its window the plan is, nanoseconds
	ArgNow              // the plan's instant, Unix microseconds
	ArgTTL              // the TTL of a new counter, milliseconds
	ArgInterval         // token-bucket, gcra: the emission interval, microseconds
	ArgTolerance        // token-bucket, gcra: how far ahead of now TAT may be, microseconds
	NArgs
)

// ScriptArgs are the arguments of plan p's update for a store that runs it
// as a script, all integers, indexed by the Arg constants.
func (l *Limiter) ScriptArgs(p Plan) []int64 {
	ttl := l.ttl
	if l.cfg.Algorithm == SlidingWindow {
		ttl = l.slidingTTL
	}
	a := make([]int64, NArgs)
	a[ArgLimit], a[ArgWindow], a[ArgInto] = l.cfg.Limit, int64(l.cfg.Window), int64(p.Into)
	a[ArgNow] = l.windowStartMilli(p.Window)*1000 + int64(p.Into/time.Microsecond)
	a[ArgTTL], a[ArgInterval], a[ArgTolerance] = ttl.Milliseconds(), l.interval, l.tolerance
	return a
}

// reads converts a store's values to the limiter's reads.
func reads(cur [2]kv.Value) [2]Read {
	return [2]Read{{Value: cur[0].Value, Found: cur[0].Found}, {Value: cur[1].Value, Found: cur[1].Found}}
}
