package model

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// timedMemory is a Memory that logs when the engine's operations take
// effect at it.
type timedMemory struct {
	*Memory
	log *[]string
}

func (m timedMemory) ReadHalf(now, lat time.Duration, loc, dom int, key string) ReadResult {
	*m.log = append(*m.log, fmt.Sprintf("%v read", now))
	return m.Memory.ReadHalf(now, lat, loc, dom, key)
}

func (m timedMemory) Commit(now time.Duration, w PendingWrite) {
	*m.log = append(*m.log, fmt.Sprintf("%v commit", now))
	m.Memory.Commit(now, w)
}

func (m timedMemory) Update(now time.Duration, keys *[2]string, n int, cur *[2]limiter.Read) error {
	*m.log = append(*m.log, fmt.Sprintf("%v update", now))
	return m.Memory.Update(now, keys, n, cur)
}

// TestHalfwayTranscript runs one closed-loop client with no think time on
// the memory store, 4 ms per operation, and logs when each operation
// takes effect: a request sent at t0 reads at t0+2ms (half its read's
// round trip), decides at t0+4ms, commits at t0+6ms (half its write's)
// and completes at t0+8ms, when the client sends again. An atomic update
// applies at t0+2ms and completes at t0+4ms.
func TestHalfwayTranscript(t *testing.T) {
	for _, tt := range []struct {
		update limiter.Update
		want   []string
	}{
		{limiter.ReadThenWrite, []string{"0s send", "2ms read", "6ms commit", "8ms send", "10ms read", "14ms commit", "16ms send", "18ms read"}},
		{limiter.Atomic, []string{"0s send", "2ms update", "4ms send", "6ms update", "8ms send", "10ms update", "12ms send", "14ms update", "16ms send", "18ms update"}},
	} {
		t.Run(string(tt.update), func(t *testing.T) {
			sc := atomicScenario("fixed-window", string(tt.update), 1000, time.Hour, ms(4), 19*time.Millisecond, closedLoop(bot("bot"), 1, scenario.Latency{}))
			c, err := compile(planOf(t, sc))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := c.newTrial(1, 0)
			if err != nil {
				t.Fatal(err)
			}
			var log []string
			m := timedMemory{Memory: tr.store.(*Memory), log: &log}
			tr.store, tr.hw = m, m
			if tr.mem != nil {
				tr.mem = m
			}
			tr.onSend = func(*client, int32, int64, int32) {
				log = append(log, fmt.Sprintf("%v send", time.Duration(tr.now)))
			}
			if _, err := tr.run(context.Background(), -1); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(log, tt.want) {
				t.Errorf("transcript\n%q\nwant\n%q", log, tt.want)
			}
		})
	}
}
