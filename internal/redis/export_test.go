package redis

import "time"

// SetClock makes l read the time from now (tests only).
func SetClock(l *Ledger, now func() time.Time) { l.now = now }

// WaitReads waits for the reads of counts near their keys' expiry that l
// started (tests only).
func WaitReads(l *Ledger) { l.reading.Wait() }
