package attackcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/faults"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redis/harness"
)

// redisHarness is a Redis that attack started for one run (-redis-harness):
// a primary, the scenario's store.redis.replicas and three sentinels
// watching with its store.redis.down_after, on loopback
// (internal/redis/harness), and the scenario's faults, which it applies to
// them from the run's start (internal/faults).
type redisHarness struct {
	c         *harness.Cluster
	dir       string
	faults    []plan.Fault
	runFor    time.Duration
	timeScale float64
	notes     io.Writer

	once     sync.Once // the faults' start
	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan []faults.Applied
}

// startRedisHarness starts the servers in a new temporary directory.
func startRedisHarness(pl *plan.Plan, runFor time.Duration, notes io.Writer) (*redisHarness, error) {
	dir, err := os.MkdirTemp("", "overshoot-redis-")
	if err != nil {
		return nil, fmt.Errorf("-redis-harness: a temporary directory for the servers: %w", err)
	}
	r := pl.Store.Redis // the servers the model's store.redis stands for
	c, err := harness.StartWith(dir, harness.Options{Replicas: r.Replicas, DownAfter: r.DownAfter})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("-redis-harness: %w", err)
	}
	return &redisHarness{c: c, dir: dir, faults: pl.Faults, runFor: runFor, timeScale: pl.TimeScale, notes: notes}, nil
}

// describe says what was started, for the console.
func (h *redisHarness) describe() string {
	s := fmt.Sprintf("started for the run: primary %s, %d replicas, %d sentinels", h.c.Primary.Addr, len(h.c.Replicas), len(h.c.Sentinels))
	if n := len(h.faults); n > 0 {
		s += fmt.Sprintf(", %d faults from the scenario", n)
	}
	return s
}

// started applies the faults from start, until the run's end. Only the
// first call counts.
func (h *redisHarness) started(start time.Time) {
	h.once.Do(func() {
		if len(h.faults) == 0 {
			return
		}
		ctx, cancel := context.WithDeadline(context.Background(), start.Add(h.runFor))
		h.cancel, h.done = cancel, make(chan []faults.Applied, 1)
		go func() { h.done <- faults.Run(ctx, h.faults, start, h.runFor, h.timeScale, h.c.Faults()) }()
	})
}

// stop ends the faults (a kill waiting for its promotion is bounded),
// says what each did, and stops the servers. Stopping twice is harmless.
func (h *redisHarness) stop() {
	h.stopOnce.Do(func() {
		h.once.Do(func() {}) // no faults after this
		if h.done != nil {
			h.cancel()
			for _, a := range <-h.done {
				fmt.Fprintf(h.notes, "attack: fault: %s\n", a)
			}
		}
		h.c.Stop()
		_ = os.RemoveAll(h.dir)
	})
}
