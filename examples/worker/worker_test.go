// Package worker_test checks the example Worker end to end over HTTP. It runs
// only when OVERSHOOT_WORKER_URL names a running Worker, e.g.
//
//	url=$(examples/worker/dev.sh start 8788)
//	OVERSHOOT_WORKER_URL=$url go test ./examples/worker/
//	examples/worker/dev.sh stop 8788
package worker_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// workerURL returns the Worker's URL, or skips the test when none is set.
func workerURL(t *testing.T) string {
	t.Helper()
	raw := os.Getenv("OVERSHOOT_WORKER_URL")
	if raw == "" {
		t.Skip("OVERSHOOT_WORKER_URL not set: start the Worker with examples/worker/dev.sh start and set it to the printed URL")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		t.Fatalf("OVERSHOOT_WORKER_URL=%q is not a URL like http://127.0.0.1:8788", raw)
	}
	return raw
}

type answer struct {
	status    int
	window    string
	remaining int
	limit     int
	windowSec int
	failOpen  bool
}

var (
	policyRE = regexp.MustCompile(`^"([^"]+)";q=(\d+);w=(\d+)$`)
	stateRE  = regexp.MustCompile(`^"([^"]+)";r=(\d+);t=(\d+)$`)
)

// ask sends one request as the caller with token and parses the headers the
// Worker promises.
func ask(t *testing.T, client *http.Client, base, token string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Anon-Token", token)
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("request to the Worker: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 200 or 429", res.StatusCode)
	}
	a := answer{status: res.StatusCode, window: res.Header.Get("X-Overshoot-Window"), failOpen: res.Header.Get("X-Overshoot-Fail-Open") != ""}
	policy := policyRE.FindStringSubmatch(res.Header.Get("RateLimit-Policy"))
	state := stateRE.FindStringSubmatch(res.Header.Get("RateLimit"))
	switch {
	case a.failOpen && res.Header.Get("RateLimit") != "":
		// Not counted: no remaining count may be claimed.
		t.Fatalf("fail-open answer claims RateLimit %q", res.Header.Get("RateLimit"))
	case policy == nil || (!a.failOpen && (state == nil || policy[1] != state[1])):
		t.Fatalf("headers RateLimit-Policy %q and RateLimit %q do not follow the draft syntax with one policy name",
			res.Header.Get("RateLimit-Policy"), res.Header.Get("RateLimit"))
	}
	a.limit, _ = strconv.Atoi(policy[2])
	a.windowSec, _ = strconv.Atoi(policy[3])
	if state != nil {
		a.remaining, _ = strconv.Atoi(state[2])
	}
	if a.window == "" {
		t.Fatal("no X-Overshoot-Window header")
	}
	return a
}

// TestSequentialCallerGetsExactlyLimit sends one caller's requests one after
// another: with no concurrency there is no race, so each window must allow
// exactly the limit, the first ones, and deny the rest.
func TestSequentialCallerGetsExactlyLimit(t *testing.T) {
	base := workerURL(t)
	client := &http.Client{Timeout: 10 * time.Second}
	token := fmt.Sprintf("e2e-seq-%d", time.Now().UnixNano())

	type tally struct{ sent, allowed int }
	windows := map[string]*tally{}
	var order []string
	var limit int
	full := "" // a window that received more than limit requests
	for i := 0; full == "" && i < 200; i++ {
		a := ask(t, client, base, token)
		if a.failOpen {
			t.Fatalf("request %d was let through because KV failed: the local KV must not fail", i)
		}
		limit = a.limit
		w := windows[a.window]
		if w == nil {
			w = &tally{}
			windows[a.window] = w
			order = append(order, a.window)
		}
		w.sent++
		wantAllowed := w.sent <= limit
		if (a.status == http.StatusOK) != wantAllowed {
			t.Fatalf("window %s, request %d: status %d, want allowed=%v (limit %d)", a.window, w.sent, a.status, wantAllowed, limit)
		}
		if wantAllowed {
			w.allowed++
			if a.remaining != limit-w.sent {
				t.Fatalf("window %s, request %d: remaining %d, want %d", a.window, w.sent, a.remaining, limit-w.sent)
			}
		} else if a.remaining != 0 {
			t.Fatalf("window %s: denied with remaining %d, want 0", a.window, a.remaining)
		}
		if w.sent >= limit+3 {
			full = a.window
		}
	}
	if full == "" {
		t.Fatalf("no window received %d requests in 200 tries (windows %v)", limit+3, order)
	}
	if got := windows[full].allowed; got != limit {
		t.Fatalf("window %s allowed %d of %d sequential requests, want exactly the limit %d", full, got, windows[full].sent, limit)
	}
	t.Logf("limit %d: windows %v; window %s allowed exactly %d of %d", limit, order, full, limit, windows[full].sent)

	// Another token is another caller with a count of its own.
	if a := ask(t, client, base, token+"-other"); a.status != http.StatusOK || a.remaining != a.limit-1 {
		t.Fatalf("a fresh token got status %d remaining %d, want 200 and %d", a.status, a.remaining, a.limit-1)
	}
}
