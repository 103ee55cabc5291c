package attackcmd

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
)

// dialectServer is a fixed-window limiter (limit per window, windows
// aligned to the Unix epoch, keyed by the anonymous token) that states its
// limits in one dialect's header fields and denies with status deny. It
// counts what it decided, for the test to compare with what attack read.
type dialectServer struct {
	limit   int64
	window  time.Duration
	deny    int
	dialect func(h http.Header, limit, remaining int64, reset time.Duration)

	mu      sync.Mutex
	counts  map[string]int64 // "key@window" -> requests
	allowed int64
	denied  int64
}

func (d *dialectServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	win := now.UnixMilli() / d.window.Milliseconds()
	reset := time.UnixMilli((win + 1) * d.window.Milliseconds()).Sub(now)
	d.mu.Lock()
	k := r.Header.Get("X-Anon-Token") + "@" + strconv.FormatInt(win, 10)
	d.counts[k]++
	n := d.counts[k]
	ok := n <= d.limit
	if ok {
		d.allowed++
	} else {
		d.denied++
	}
	d.mu.Unlock()
	d.dialect(w.Header(), d.limit, max(d.limit-n, 0), reset)
	if !ok {
		w.WriteHeader(d.deny)
	}
	w.Write([]byte("ok\n"))
}

// secs is a reset in whole seconds, rounded up, as servers send it.
func secs(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// TestMainDialects attacks limiters that state their limits in each
// dialect, some denying with 503: attack reads the limit and window where
// the fields state them, reads every decision (no response counted as an
// error) and counts what the server counted.
func TestMainDialects(t *testing.T) {
	t.Parallel()
	x := func(h http.Header, limit, rem int64, reset time.Duration) {
		h.Set("X-RateLimit-Limit", strconv.FormatInt(limit, 10))
		h.Set("X-RateLimit-Remaining", strconv.FormatInt(rem, 10))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(reset).Unix()+1, 10))
	}
	tests := []struct {
		name    string
		dialect func(h http.Header, limit, remaining int64, reset time.Duration)
		deny    int
		flags   []string
		// What attack must count against: the target's limit and window
		// where its fields state both, else the scenario's (7 per 1s).
		limit  int64
		window string
		note   string // on stderr
		read   string // on stdout, what the preflight's answer stated
		code   int
	}{
		{"draft 6 with a policy", func(h http.Header, limit, rem int64, reset time.Duration) {
			h.Set("RateLimit-Policy", strconv.FormatInt(limit, 10)+";w=0.5")
			h.Set("RateLimit-Limit", strconv.FormatInt(limit, 10))
			h.Set("RateLimit-Remaining", strconv.FormatInt(rem, 10))
			h.Set("RateLimit-Reset", secs(reset))
		}, 429, nil, 5, "500ms", "RateLimit-Policy says 5 per 500ms", "it states 5 per 500ms in RateLimit-Policy", cli.ExitOK},
		{"draft 7", func(h http.Header, limit, rem int64, reset time.Duration) {
			h.Set("RateLimit-Policy", strconv.FormatInt(limit, 10)+";w=0.5")
			h.Set("RateLimit", "limit="+strconv.FormatInt(limit, 10)+", remaining="+strconv.FormatInt(rem, 10)+", reset="+secs(reset))
		}, 429, nil, 5, "500ms", "RateLimit-Policy says 5 per 500ms", "it states 5 per 500ms in RateLimit-Policy", cli.ExitOK},
		{"Envoy, denying with 503 named by -deny-status", func(h http.Header, limit, rem int64, reset time.Duration) {
			l := strconv.FormatInt(limit, 10)
			h.Set("X-RateLimit-Limit", l+", "+l+`;w=0.5;name="per-token"`)
			h.Set("X-RateLimit-Remaining", strconv.FormatInt(rem, 10))
			h.Set("X-RateLimit-Reset", secs(reset))
		}, 503, []string{"-deny-status", "429,503"}, 5, "500ms", "X-RateLimit-Limit says 5 per 500ms", "it states 5 per 500ms in X-RateLimit-Limit", cli.ExitOK},
		{"GitHub style: no window stated", x, 429, nil, 7, "1s", "X-RateLimit-Limit says 5 and states no window", "it states a limit of 5 in X-RateLimit-Limit, no window", cli.ExitOK},
		{"a 503 whose fields say nothing remains is a denial", x, 503, nil, 7, "1s", "X-RateLimit-Limit says 5", "X-RateLimit-Limit", cli.ExitOK},
		{"a 503 that says nothing is no decision", func(http.Header, int64, int64, time.Duration) {}, 503, nil, 7, "1s", "did not measure the limiter", "it sends no rate-limit fields: decisions from statuses alone", cli.ExitFailure},
	}
	// The scenario says 7 per 1s; every server limits to 5 per 500ms.
	file := cliScenario(t, strings.Replace(strings.Replace(strings.Replace(sequentialYAML, "limit: 5", "limit: 7", 1), "500ms", "1s", 1), "1600ms", "1100ms", 1))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &dialectServer{limit: 5, window: 500 * time.Millisecond, deny: tc.deny, dialect: tc.dialect, counts: map[string]int64{}}
			srv := httptest.NewServer(d)
			defer srv.Close()
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, append(append([]string{"-url", srv.URL + "/", "-out", out}, tc.flags...), file)...)
			if code != tc.code || !strings.Contains(stderr, tc.note) || !strings.Contains(stdout, tc.read) {
				t.Fatalf("exit %d, want %d; stderr %q, want it to say %q; stdout %q, want it to say %q", code, tc.code, stderr, tc.note, stdout, tc.read)
			}
			s, _ := readSummary(t, out)
			if s.Limiter.Limit != tc.limit || s.Limiter.Window != tc.window {
				t.Errorf("counted against %d per %s, want %d per %s", s.Limiter.Limit, s.Limiter.Window, tc.limit, tc.window)
			}
			d.mu.Lock()
			// The preflight and the warm-up's requests (a key of their
			// own, so allowed) are not the run's.
			allowed, denied := d.allowed-1-s.Live.WarmupRequests, d.denied
			d.mu.Unlock()
			st := s.Live.Status
			if st["200"] != allowed || st[strconv.Itoa(tc.deny)] != denied || denied == 0 {
				t.Errorf("statuses %v; the server allowed %d and denied %d (with %d)", st, allowed, denied, tc.deny)
			}
			decided := s.Totals.Allowed + s.Totals.Denied + s.Live.Ambiguous
			if tc.code == cli.ExitOK && (s.Totals.Errors != 0 || decided != allowed+denied) {
				t.Errorf("%d errors, %d decisions (%d ambiguous), want every one of the server's %d read as a decision",
					s.Totals.Errors, decided, s.Live.Ambiguous, allowed+denied)
			}
		})
	}
}

// TestPreflightDenyStatus: the preflight accepts a first answer of a
// denial status named by -deny-status, or of any status whose fields say
// nothing remains, and rejects another, naming the flag.
func TestPreflightDenyStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	file := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "200ms", 1))
	code, _, stderr := runMain(t, Env{}, "-url", srv.URL+"/", "-no-report", file)
	if code != cli.ExitBadInput || !strings.Contains(stderr, "not 2xx or 429") || !strings.Contains(stderr, "-deny-status") {
		t.Errorf("without -deny-status: exit %d, stderr %q; want 2 and a message naming 429 and -deny-status", code, stderr)
	}
	code, _, stderr = runMain(t, Env{}, "-url", srv.URL+"/", "-no-report", "-deny-status", "503", file)
	if code != cli.ExitOK {
		t.Errorf("with -deny-status 503: exit %d, stderr %q; want 0 (every request denied)", code, stderr)
	}
	// A 503 that says nothing remains is a denial without the flag.
	said := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer said.Close()
	if code, _, stderr := runMain(t, Env{}, "-url", said.URL+"/", "-no-report", file); code != cli.ExitOK {
		t.Errorf("a 503 saying nothing remains: exit %d, stderr %q; want 0 (every request denied)", code, stderr)
	}
	code, _, stderr = runMain(t, Env{}, "-url", srv.URL+"/", "-no-report", "-deny-status", "200", file)
	if code != cli.ExitBadInput || !strings.Contains(stderr, "200 is a success") {
		t.Errorf("-deny-status 200: exit %d, stderr %q; want 2 and why", code, stderr)
	}
}
