package attackcmd

import (
	"context"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestCountingStoreUpdate checks that the counting store passes atomic
// updates on (the built-in target's memory and redis stores are counting
// stores) and counts them: a read per key and a write when one was made.
func TestCountingStoreUpdate(t *testing.T) {
	cs := NewCountingStore(kv.NewMemory(kv.MemoryOptions{}))
	if !kv.CanUpdate(cs) {
		t.Fatal("a counting store over memory says it cannot apply updates")
	}
	l, err := limiter.New(limiter.Config{Name: "c", Algorithm: limiter.SlidingWindow, Limit: 1, Window: time.Hour, Update: limiter.Atomic})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	first, second := l.Check(context.Background(), cs, now, "x"), l.Check(context.Background(), cs, now, "x")
	if !first.Allowed || second.Allowed || first.Err != nil || second.Err != nil {
		t.Fatalf("decisions %+v, %+v: want allowed, then denied", first, second)
	}
	var k measure.KVCounters
	cs.AddTo(&k)
	if k.Reads != 4 || k.Writes != 1 {
		t.Errorf("%d reads, %d writes; want 4 (two keys, two updates) and 1 (the denied one writes nothing)", k.Reads, k.Writes)
	}
	if kv.CanUpdate(NewCountingStore(struct{ kv.Store }{kv.NewMemory(kv.MemoryOptions{})})) {
		t.Error("a counting store over a store without updates says it can apply them")
	}
}
