package attack

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/target"
)

// TestWarmup holds live.warmup to its word: against a target that counts
// the connections it accepts and the tokens it sees, a closed loop of two
// clients with C = 4 each opens its 8 connections in the warm-up, sends
// 8 warm-up requests under a token of their own, and then runs on those
// connections, opening none; the summary counts none of the warm-up
// requests. A closed loop warms up unless told not to (live.warmup
// unset); with warmup: false the run opens its connections itself.
func TestWarmup(t *testing.T) {
	for _, tc := range []struct {
		name, live string
		warm       bool
	}{
		{"warmup", "live: {duration: 300ms, warmup: true}", true},
		{"default", "live: {duration: 300ms}", true},
		{"cold", "live: {duration: 300ms, warmup: false}", false},
	} {
		warm := tc.warm
		t.Run(tc.name, func(t *testing.T) {
			var (
				conns      atomic.Int64
				connsAtRun atomic.Int64
				started    atomic.Bool
				mu         sync.Mutex
				warmups    int
				runReqs    int64
			)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.Header.Get("X-Anon-Token"), "warmup") {
					mu.Lock()
					warmups++
					mu.Unlock()
					if r.Header.Get(HeaderClient) != "" {
						t.Errorf("a warm-up request names a client of the run")
					}
					if r.Header.Get(target.HeaderWarmup) != "1" {
						t.Errorf("a warm-up request does not say it is one (%s)", target.HeaderWarmup)
					}
				} else if r.Header.Get(target.HeaderWarmup) != "" {
					t.Errorf("a request of the run says it is a warm-up")
				} else {
					mu.Lock()
					runReqs++
					mu.Unlock()
					if !started.Swap(true) {
						connsAtRun.Store(conns.Load())
					}
				}
				time.Sleep(2 * time.Millisecond)
				w.Write([]byte("ok")) // a body: an empty answer frees its connection with its headers
			}))
			srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			live := tc.live
			sc := parse(t, `
name: warm
limiter: {name: t, limit: 5, window: 60s}
store: {kind: memory}
traffic:
  - name: bots
    clients: 2
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 4}
`+live+"\n")
			s, err := Run(context.Background(), Options{Plan: livePlan(t, sc), URL: srv.URL, RunID: "r1"})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !warm {
				if warmups != 0 || s.Live.WarmupRequests != 0 || conns.Load() == 0 {
					t.Errorf("without warmup: %d warm-up requests (summary %d), %d connections: want none, and the run's own", warmups, s.Live.WarmupRequests, conns.Load())
				}
				return
			}
			if warmups != 8 || s.Live.WarmupRequests != 8 {
				t.Errorf("warm-up requests: the target saw %d, the summary says %d; want 8 (2 clients x 4 in flight)", warmups, s.Live.WarmupRequests)
			}
			if got := conns.Load(); got != 8 || connsAtRun.Load() != 8 {
				t.Errorf("connections: %d before the run's first request, %d in all; want 8 and 8 (the run reuses the warm-up's)", connsAtRun.Load(), got)
			}
			if runReqs == 0 || s.Live.Status["200"] != runReqs {
				t.Errorf("the summary has %v answers, the target answered %d of the run's requests: want the run's only", s.Live.Status, runReqs)
			}
		})
	}
}

// TestSoak: with Options.Soak the closed loops keep sending warm-up
// requests for that long after opening their connections, on those
// connections, before the run starts: the summary counts them among the
// warm-up requests, says how long it soaked, and counts none in the run;
// with live.warmup: false there is neither warm-up nor soak.
func TestSoak(t *testing.T) {
	for _, tc := range []struct {
		name, live string
		warm       bool
	}{
		{"soak", "live: {duration: 200ms}", true},
		{"cold", "live: {duration: 200ms, warmup: false}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu               sync.Mutex
				warmups, runReqs int64
				lastWarm         time.Time
				firstRun         time.Time
				conns            atomic.Int64
			)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				if r.Header.Get(target.HeaderWarmup) == "1" {
					warmups++
					lastWarm = time.Now()
				} else {
					runReqs++
					if firstRun.IsZero() {
						firstRun = time.Now()
					}
				}
				mu.Unlock()
				time.Sleep(time.Millisecond)
				w.Write([]byte("ok"))
			}))
			srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			sc := parse(t, `
name: soak
limiter: {name: t, limit: 5, window: 60s}
store: {kind: memory}
traffic:
  - name: bots
    clients: 1
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 4}
`+tc.live+"\n")
			began := time.Now()
			s, err := Run(context.Background(), Options{Plan: livePlan(t, sc), URL: srv.URL, RunID: "r1", Soak: 150 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !tc.warm {
				if warmups != 0 || s.Live.WarmupRequests != 0 || s.Live.SoakSeconds != 0 {
					t.Errorf("without warmup: %d warm-up requests (summary %d), soak %gs; want none", warmups, s.Live.WarmupRequests, s.Live.SoakSeconds)
				}
				return
			}
			// 4 slots for 150 ms of 1 ms answers: far more than the 4
			// that open the connections.
			if warmups < 40 || s.Live.WarmupRequests != warmups || s.Live.SoakSeconds != 0.15 {
				t.Errorf("soak: the target saw %d warm-up requests, the summary says %d and %gs; want at least 40, the same, and 0.15 s", warmups, s.Live.WarmupRequests, s.Live.SoakSeconds)
			}
			if d := firstRun.Sub(began); d < 150*time.Millisecond || lastWarm.After(firstRun) {
				t.Errorf("the run's first request came %v after Run began, the last warm-up %v after it: want the run after 150 ms of warm-ups", d, lastWarm.Sub(began))
			}
			if got := conns.Load(); got != 4 {
				t.Errorf("connections: %d, want 4 (the soak and the run reuse the warm-up's)", got)
			}
			if s.Live.Status["200"] != runReqs {
				t.Errorf("the summary has %v answers, the target answered %d of the run's requests: want the run's only", s.Live.Status, runReqs)
			}
		})
	}
}
