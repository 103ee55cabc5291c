// Package fakeclock is a settable clock for tests of code that takes its
// time from a func() time.Time, as the stores and the emulator do.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is a clock that moves only when told to. It is safe for concurrent
// use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock set to t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
