package target

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
)

func newHandler(t testing.TB, limit int64, window time.Duration, store kv.Store, policy limiter.Policy, now func() time.Time) *Handler {
	t.Helper()
	l, err := limiter.New(limiter.Config{Name: "t", Limit: limit, Window: window, Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Limiter: l, Store: store, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, hdr map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/", nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestHandlerSequence walks one caller through a window of limit 3 at a
// fixed clock: three 200s with remaining 2, 1, 0, then 429s, all with the
// draft RateLimit headers and the exact window and key.
func TestHandlerSequence(t *testing.T) {
	now := time.Unix(1000, 500e6) // window 100 of 10 s, 9.5 s to reset
	h := newHandler(t, 3, 10*time.Second, kv.NewMemory(kv.MemoryOptions{Now: func() time.Time { return now }}), "", func() time.Time { return now })
	tests := []struct {
		code       int
		ratelimit  string
		retryAfter string // the same instant as t, on 429 only
	}{
		{200, `"default";r=2;t=10`, ""},
		{200, `"default";r=1;t=10`, ""},
		{200, `"default";r=0;t=10`, ""},
		{429, `"default";r=0;t=10`, "10"},
		{429, `"default";r=0;t=10`, "10"},
	}
	for i, tc := range tests {
		w := get(h, map[string]string{"X-Anon-Token": "tok", "X-Forwarded-For": " 10.0.0.1 , 10.0.0.2"})
		if w.Code != tc.code {
			t.Errorf("request %d: status %d, want %d", i, w.Code, tc.code)
		}
		if got := w.Header().Get("RateLimit"); got != tc.ratelimit {
			t.Errorf("request %d: RateLimit %q, want %q", i, got, tc.ratelimit)
		}
		if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
			t.Errorf("request %d: Retry-After %q, want %q", i, got, tc.retryAfter)
		}
		if got := w.Header().Get("RateLimit-Policy"); got != `"default";q=3;w=10` {
			t.Errorf("request %d: RateLimit-Policy %q", i, got)
		}
		if got := w.Header().Get(HeaderWindow); got != "100" {
			t.Errorf("request %d: window %q, want 100", i, got)
		}
		if got := w.Header().Get(HeaderKey); got != "tok:10.0.0.1" {
			t.Errorf("request %d: key %q, want tok:10.0.0.1", i, got)
		}
		if w.Header().Get(HeaderFailOpen) != "" {
			t.Errorf("request %d: marked fail-open", i)
		}
	}
}

// failing is a store whose every operation fails.
type failing struct{}

func (failing) Get(context.Context, string) (string, bool, error) {
	return "", false, kv.NewUnavailable("get", "k", "down")
}
func (failing) Put(context.Context, string, string, time.Duration) error {
	return kv.NewUnavailable("put", "k", "down")
}

// TestHandlerErrorPolicy checks that store failures are marked: fail-open
// allows with the fail-open header and claims no remaining count (the
// request was not counted; "r=<limit>" would invite more); fail-closed
// denies with the fail-closed header, nothing remaining, and Retry-After at
// the window's reset.
func TestHandlerErrorPolicy(t *testing.T) {
	now := time.Unix(1000, 500e6) // 19.5 s to the next minute
	tests := []struct {
		policy     limiter.Policy
		code       int
		header     string
		rl         string
		retryAfter string
	}{
		{limiter.FailOpen, 200, HeaderFailOpen, "", ""},
		{limiter.FailClosed, 429, HeaderFailClosed, `"default";r=0;t=20`, "20"},
	}
	for _, tc := range tests {
		h := newHandler(t, 5, time.Minute, failing{}, tc.policy, func() time.Time { return now })
		w := get(h, map[string]string{"X-Anon-Token": "a"})
		if w.Code != tc.code || w.Header().Get(tc.header) != "1" {
			t.Errorf("%s: status %d, %s=%q; want %d and 1", tc.policy, w.Code, tc.header, w.Header().Get(tc.header), tc.code)
		}
		if got := w.Header().Get("RateLimit"); got != tc.rl {
			t.Errorf("%s: RateLimit %q, want %q", tc.policy, got, tc.rl)
		}
		if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
			t.Errorf("%s: Retry-After %q, want %q", tc.policy, got, tc.retryAfter)
		}
		if got := w.Header().Get("RateLimit-Policy"); got != `"default";q=5;w=60` {
			t.Errorf("%s: RateLimit-Policy %q: the policy holds whatever the store did", tc.policy, got)
		}
		if got := w.Header().Get(HeaderKey); got != "a:unknown" {
			t.Errorf("%s: key %q, want a:unknown", tc.policy, got)
		}
	}
}

// locStore records the location each read was made from.
type locStore struct {
	kv.Store
	seen []string
}

func (s *locStore) Get(ctx context.Context, key string) (string, bool, error) {
	s.seen = append(s.seen, kv.LocationFrom(ctx))
	return s.Store.Get(ctx, key)
}

// TestHandlerLocation checks the location header reaches the store.
func TestHandlerLocation(t *testing.T) {
	s := &locStore{Store: kv.NewMemory(kv.MemoryOptions{})}
	h := newHandler(t, 5, time.Minute, s, "", nil)
	get(h, map[string]string{HeaderLocation: "ams"})
	get(h, nil)
	if len(s.seen) != 2 || s.seen[0] != "ams" || s.seen[1] != "" {
		t.Errorf("locations seen by the store = %q, want [ams \"\"]", s.seen)
	}
}

// TestListenLoopback refuses every address other machines could reach.
func TestListenLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"localhost:0", true},
		{"[::1]:0", true},
		{":0", false},
		{"0.0.0.0:0", false},
		{"10.1.2.3:0", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	}
	for _, tc := range tests {
		ln, err := ListenLoopback(tc.addr)
		if ln != nil {
			ln.Close()
		}
		if tc.addr == "[::1]:0" && err != nil && !errors.Is(err, errLoopbackRefused) {
			continue // no IPv6 on this machine
		}
		if (err == nil) != tc.ok {
			t.Errorf("ListenLoopback(%q) error = %v, want ok=%v", tc.addr, err, tc.ok)
		}
	}
}

// TestServer serves over a real loopback socket.
func TestServer(t *testing.T) {
	h := newHandler(t, 1, time.Minute, kv.NewMemory(kv.MemoryOptions{}), "", nil)
	s, err := Start("127.0.0.1:0", h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	codes := []int{}
	for range 2 {
		resp, err := http.Get(s.URL())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	if codes[0] != 200 || codes[1] != 429 {
		t.Errorf("codes = %v, want [200 429]", codes)
	}
	if _, err := Start(s.Addr(), h); err == nil {
		t.Errorf("second Start on %s succeeded; want a port-in-use error", s.Addr())
	}
}

func bare(w http.ResponseWriter, r *http.Request) { w.Write(bodyAllowed) }

// BenchmarkBare is a handler that only answers: the baseline the target's
// overhead is measured against.
func BenchmarkBare(b *testing.B) {
	benchHandler(b, http.HandlerFunc(bare))
}

// BenchmarkTargetMemory is the built-in target over the memory store, with
// a new caller every 100 requests so that both 200s and 429s are served.
func BenchmarkTargetMemory(b *testing.B) {
	benchHandler(b, newHandler(b, 50, time.Minute, kv.NewMemory(kv.MemoryOptions{}), "", nil))
}

func benchHandler(b *testing.B, h http.Handler) {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Anon-Token", "tok")
	r.Header.Set("X-Forwarded-For", "10.0.0.1")
	w := httptest.NewRecorder()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%100 == 0 {
			r.Header.Set("X-Anon-Token", "tok"+string(rune('a'+i/100%26))+string(rune('a'+i/2600%26)))
		}
		clear(w.Header())
		h.ServeHTTP(w, r)
	}
}

// TestServiceTime: every answer states the target's own time for the
// request, which holds the store's latency (here a memory store that
// sleeps 20 ms a read and a write) and nothing of a fake decision clock.
func TestServiceTime(t *testing.T) {
	fake := time.Unix(1000, 0)
	store := kv.NewMemory(kv.MemoryOptions{Latency: 20 * time.Millisecond})
	h := newHandler(t, 1, time.Minute, store, "", func() time.Time { return fake })
	for i, want := range []int{200, 429} {
		w := get(h, map[string]string{"X-Anon-Token": "tok"})
		if w.Code != want {
			t.Fatalf("request %d: status %d, want %d", i, w.Code, want)
		}
		us, err := strconv.ParseInt(w.Header().Get(HeaderService), 10, 64)
		if err != nil {
			t.Fatalf("request %d: %s %q: %v", i, HeaderService, w.Header().Get(HeaderService), err)
		}
		// An allowed request reads and writes (40 ms of sleeps), a denied one reads.
		if min := int64(20000 * (2 - i)); us < min || us > 5_000_000 {
			t.Errorf("request %d: service %d us, want at least %d (its store's sleeps) and not seconds", i, us, min)
		}
	}
}

// countingStore counts the operations that reach a store.
type countingStore struct {
	kv.Store
	ops int
}

func (c *countingStore) Get(ctx context.Context, key string) (string, bool, error) {
	c.ops++
	return c.Store.Get(ctx, key)
}

func (c *countingStore) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	c.ops++
	return c.Store.Put(ctx, key, value, ttl)
}

// TestWarmupSkipsTheLimiter: attack's warm-up requests (X-Overshoot-Warmup:
// 1) are answered 200 with a body and reach neither the limiter nor the
// store, so the store's work is the run's alone, as in the model; any
// other value of the header is an ordinary request.
func TestWarmupSkipsTheLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	st := &countingStore{Store: kv.NewMemory(kv.MemoryOptions{Now: func() time.Time { return now }})}
	h := newHandler(t, 1, 10*time.Second, st, "", func() time.Time { return now })
	caller := map[string]string{"X-Anon-Token": "tok", "X-Forwarded-For": "10.0.0.1"}
	warm := map[string]string{"X-Anon-Token": "tok", "X-Forwarded-For": "10.0.0.1", HeaderWarmup: "1"}
	for i := range 3 {
		w := get(h, warm)
		if w.Code != http.StatusOK || w.Body.Len() == 0 || w.Header().Get(HeaderWindow) != "" {
			t.Errorf("warm-up %d: status %d, body %q, window %q; want 200, a body, no limiter headers", i, w.Code, w.Body, w.Header().Get(HeaderWindow))
		}
	}
	if st.ops != 0 {
		t.Errorf("the warm-ups made %d store operations, want 0", st.ops)
	}
	if w := get(h, caller); w.Code != http.StatusOK || w.Header().Get(HeaderRateLimit) != `"default";r=0;t=10` {
		t.Errorf("first request after the warm-ups: %d %q, want 200 with r=0 (the warm-ups were not counted)", w.Code, w.Header().Get(HeaderRateLimit))
	}
	caller[HeaderWarmup] = "0"
	if w := get(h, caller); w.Code != http.StatusTooManyRequests {
		t.Errorf("X-Overshoot-Warmup: 0 got %d, want 429: an ordinary request", w.Code)
	}
}

// TestWarmupOnTheSoakStore: with Config.Soak, warm-up requests are decided
// by the limiter on that store (the servers without their counting), under
// their own token's key, and answered as warm-ups; the counted store sees
// none of them, and the run's caller starts from a count of its own.
func TestWarmupOnTheSoakStore(t *testing.T) {
	now := time.Unix(1000, 0)
	mem := kv.NewMemory(kv.MemoryOptions{Now: func() time.Time { return now }})
	counted, soaked := &countingStore{Store: mem}, &countingStore{Store: mem}
	lim, err := limiter.New(limiter.Config{Name: "t", Limit: 1, Window: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Limiter: lim, Store: counted, Soak: soaked, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	warm := map[string]string{"X-Anon-Token": "runwarmup", "X-Forwarded-For": "10.0.0.1", HeaderWarmup: "1"}
	for i := range 3 {
		if w := get(h, warm); w.Code != http.StatusOK || w.Body.String() != string(bodyWarmup) {
			t.Errorf("warm-up %d: status %d, body %q; want 200 and the warm-up's body", i, w.Code, w.Body)
		}
	}
	if counted.ops != 0 || soaked.ops < 3 {
		t.Errorf("the warm-ups made %d operations on the counted store and %d on the soak store; want 0 and at least 3", counted.ops, soaked.ops)
	}
	caller := map[string]string{"X-Anon-Token": "tok", "X-Forwarded-For": "10.0.0.1"}
	if w := get(h, caller); w.Code != http.StatusOK {
		t.Errorf("the run's first request after the warm-ups: %d, want 200 (its own key)", w.Code)
	}
}
