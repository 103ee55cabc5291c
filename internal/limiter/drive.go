package limiter

import (
	"context"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// Check is the live driver: it reads the plan's keys from store, decides, and
// performs the write before answering, as the seed awaits its put. Any store
// error, on a read or on the write, hands the decision to the error policy.
func (l *Limiter) Check(ctx context.Context, store kv.Store, now time.Time, caller string) Decision {
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
