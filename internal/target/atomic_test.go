package target

import (
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
)

// hidden is a store without atomic updates.
type hidden struct{ kv.Store }

// TestHandlerAtomic runs the atomic shape through the built-in target on
// the memory store: the same responses as read-then-write (TestHandlerSequence),
// the counter incremented by denied requests too (INCR). A store without
// atomic updates is refused by New.
func TestHandlerAtomic(t *testing.T) {
	now := time.Unix(1000, 500e6)
	clock := func() time.Time { return now }
	mem := kv.NewMemory(kv.MemoryOptions{Now: clock})
	l, err := limiter.New(limiter.Config{Name: "t", Limit: 3, Window: 10 * time.Second, Update: limiter.Atomic})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Limiter: l, Store: mem, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		code      int
		ratelimit string
	}{{200, `"default";r=2;t=10`}, {200, `"default";r=1;t=10`}, {200, `"default";r=0;t=10`}, {429, `"default";r=0;t=10`}, {429, `"default";r=0;t=10`}} {
		w := get(h, map[string]string{"X-Anon-Token": "tok", "X-Forwarded-For": "10.0.0.1"})
		if w.Code != want.code || w.Header().Get("RateLimit") != want.ratelimit {
			t.Errorf("request %d: %d %q, want %d %q", i, w.Code, w.Header().Get("RateLimit"), want.code, want.ratelimit)
		}
	}
	if v, _, _ := mem.Get(t.Context(), "rl:t:tok:10.0.0.1:100"); v != "5" {
		t.Errorf("counter %q after 5 requests, want 5 (every request increments)", v)
	}
	if _, err := New(Config{Limiter: l, Store: hidden{mem}, Now: clock}); err == nil || !strings.Contains(err.Error(), "use limiter.update read-then-write") {
		t.Errorf("New on a store without atomic updates: %v, want it refused", err)
	}
}
