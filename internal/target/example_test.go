package target_test

import (
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// The built-in target: the seed's limiter (2 per minute here) over the
// memory store. The third request from one caller is denied, and every
// answer says why in its headers.
func ExampleNew() {
	l, _ := limiter.New(limiter.Config{Name: "roast", Limit: 2, Window: time.Minute})
	now := time.Date(2026, 1, 1, 0, 0, 30, 0, time.UTC)
	h, _ := target.New(target.Config{Limiter: l, Store: kv.NewMemory(kv.MemoryOptions{}), Now: func() time.Time { return now }})
	for range 3 {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-Anon-Token", "tok")
		r.Header.Set("CF-Connecting-IP", "203.0.113.7")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("RateLimit"), w.Header().Get(target.HeaderKey), w.Header().Get(target.HeaderWindow))
	}
	fmt.Println(w0(h))
	// Output:
	// 200 "default";r=1;t=30 tok:203.0.113.7 29453760
	// 200 "default";r=0;t=30 tok:203.0.113.7 29453760
	// 429 "default";r=0;t=30 tok:203.0.113.7 29453760
	// "default";q=2;w=60
}

// w0 returns the target's RateLimit-Policy.
func w0(h *target.Handler) string {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	return w.Header().Get("RateLimit-Policy")
}
