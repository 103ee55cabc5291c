package attackcmd

import (
	"context"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestCountingStore checks reads, writes and write errors are counted.
func TestCountingStore(t *testing.T) {
	s := NewCountingStore(kv.NewMemory(kv.MemoryOptions{WriteLimit: true}))
	l, err := limiter.New(limiter.Config{Name: "roast", Algorithm: limiter.FixedWindow, Limit: 5, Window: time.Minute, Policy: limiter.FailOpen})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for range 3 {
		l.Check(context.Background(), s, now, "a:ip")
	}
	var c measure.KVCounters
	s.AddTo(&c)
	// Three reads; three writes, the 2nd and 3rd within a second: 429.
	if c.Reads != 3 || c.Writes != 3 || c.WriteErrors != 2 || c.WriteRateLimited != 2 {
		t.Errorf("counters = %+v, want 3 reads, 3 writes, 2 write errors (429)", c)
	}
}
