// Package faults applies a scenario's fault schedule (plan.Faults) to a
// live store's real servers on the wall clock: each fault at its time from
// the run's start, for its time, through a Target that knows how to kill,
// pause, delay and cut the servers (the Redis harness,
// internal/redis/redistest). The model applies the same schedule in
// virtual time; this package is the live driver's side.
//
// Times are the run's: At and For are wall time from the start, as the
// live run's duration is. The live time scale divides latencies, so a
// link-latency fault's Latency and Jitter are divided by it, as the store's
// replication lag is (plan.CompileLive).
package faults

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Target is what the schedule acts on. Nodes are named as in a scenario:
// primary (the current primary when the fault starts), replicas, replica-N.
// Each method starts its fault and returns; d is how long it lasts (the
// target undoes it then). KillPrimary returns once a replica is promoted,
// or with an error after a bound of its own.
type Target interface {
	KillPrimary() error
	Pause(node string, d time.Duration) error
	LinkLatency(node string, latency, jitter, d time.Duration) error
	Partition(node string, d time.Duration) error
}

// Applied is what became of one fault.
type Applied struct {
	Fault plan.Fault
	// At is when it was applied, from the run's start (later than
	// Fault.At when a fault before it took time, as a kill waiting for the
	// promotion does).
	At time.Duration
	// Err is the target's error, or why it was not applied.
	Err error
	// Skipped is set when the run ended before the fault was due: it was
	// never applied, and At is unset.
	Skipped bool
}

// String says what was done and when, for the console.
func (a Applied) String() string {
	s := fmt.Sprintf("%s on %s at %v", a.Fault.Kind, a.Fault.Target, a.At.Round(time.Millisecond))
	if a.Skipped {
		s = fmt.Sprintf("%s on %s, due at %v", a.Fault.Kind, a.Fault.Target, a.Fault.At)
	}
	if a.Fault.Kind == plan.LinkLatency {
		s += fmt.Sprintf(" (latency %v, jitter %v)", a.Fault.Latency, a.Fault.Jitter)
	}
	if a.Err != nil {
		s += ": " + a.Err.Error()
	}
	return s
}

// Run applies faults (in order of At, as plan.Faults are) to tg, each at
// start+At, and returns what became of each. A fault with For zero lasts
// to the end of the run (start+runFor); Latency and Jitter are divided by
// timeScale (none when it is not positive). It returns early when ctx ends:
// the faults not yet due are reported as not applied.
func Run(ctx context.Context, faults []plan.Fault, start time.Time, runFor time.Duration, timeScale float64, tg Target) []Applied {
	out := make([]Applied, 0, len(faults))
	for i, f := range faults {
		if wait := time.Until(start.Add(f.At)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				for _, g := range faults[i:] {
					out = append(out, Applied{Fault: g, Skipped: true, Err: errors.New("not applied: the run ended first")})
				}
				return out
			case <-t.C:
			}
		}
		at := time.Since(start)
		out = append(out, Applied{Fault: f, At: at, Err: apply(f, lasts(f, at, runFor), timeScale, tg)})
	}
	return out
}

// lasts is how long f, applied at at, lasts: its For, or to the run's end.
func lasts(f plan.Fault, at, runFor time.Duration) time.Duration {
	if f.For > 0 {
		return f.For
	}
	return max(runFor-at, time.Millisecond)
}

// apply starts f on tg for d.
func apply(f plan.Fault, d time.Duration, timeScale float64, tg Target) error {
	node := f.Target.String()
	switch f.Kind {
	case plan.KillPrimary:
		return tg.KillPrimary()
	case plan.Pause:
		return tg.Pause(node, d)
	case plan.LinkLatency:
		lat, jit := f.Latency, f.Jitter
		if timeScale > 0 {
			lat, jit = time.Duration(float64(lat)/timeScale), time.Duration(float64(jit)/timeScale)
		}
		return tg.LinkLatency(node, lat, jit, d)
	case plan.Partition:
		return tg.Partition(node, d)
	}
	return fmt.Errorf("fault kind %v is unknown to the live runner", f.Kind)
}
