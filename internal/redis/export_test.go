package redis

import "time"

// SetClock makes l read the time from now (tests only).
func SetClock(l *Ledger, now func() time.Time) { l.now = now }
