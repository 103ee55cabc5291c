package model

import (
	"strconv"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// Lost updates, as docs/summary.md defines them for every store and both
// drivers: per key and window (one life of a key, from its first write
// until it expires), the increments the store acknowledged less the count
// the key ends its life with, at the store's authoritative copy (the
// memory store's map, KV's central store, Redis's primary). Each write of
// a counting limiter (fixed and sliding window, read-then-write or
// atomic) is one increment, so what is missing from the count is what the
// store lost: two writers that read the same count, a stale write that
// took the count back, a failover's promoted replica that never saw the
// increments, an old primary's writes during a partition. A token bucket's
// or GCRA's values are times, not counts: nothing is counted for them.
//
// A store counts a life's acknowledged writes (writes committed, or lost
// on their way at a failover) and settles the life when the key is found
// dead (a later write starts a new life, or the sweep drops it) and, for
// the lives still running, when the trial ends (Settle).

// incrementCounter is a store that counts lost updates as increments
// acknowledged and missing from the count, once the engine says the
// limiter's values are counts (CountIncrements), and settles the lives
// still running at the trial's end (Settle).
type incrementCounter interface {
	CountIncrements()
	Settle(now time.Duration)
}

var (
	_ incrementCounter = (*Memory)(nil)
	_ incrementCounter = (*KV)(nil)
	_ incrementCounter = (*Redis)(nil)
)

// lostOf returns the increments of a life with acked acknowledged writes
// that the count it ends with (value; found false: no count, 0) lacks.
// A value that is not a whole number counts as 0, as the limiter reads it.
func lostOf(acked int64, value string, found bool) int64 {
	var held int64
	if found {
		held, _ = strconv.ParseInt(value, 10, 64)
	}
	return max(0, acked-held)
}

// settleEntry counts into ctr (when set) the lost updates of e's life,
// if it has acknowledged writes, and starts the count of a new one.
func settleEntry(e *entry, ctr *measure.KVCounters) {
	if e.acked == 0 {
		return
	}
	if ctr != nil {
		ctr.Lost(lostOf(e.acked, e.value, e.version != 0))
	}
	e.acked = 0
}
