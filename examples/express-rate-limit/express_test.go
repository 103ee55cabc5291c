// Package expressratelimit_test attacks a real rate-limiting library,
// express with express-rate-limit from npm, once per header dialect it
// speaks (standardHeaders 'draft-6', 'draft-7', 'draft-8', and
// legacyHeaders), and checks that attack reads every decision, the limit
// and the window from its header fields.
//
// It needs node (OVERSHOOT_NODE, else node on the PATH) and the packages
// (package-lock.json pins them):
//
//	npm ci --prefix examples/express-rate-limit
//	go test ./examples/express-rate-limit/
//
// Without them it skips, saying what to install; with
// OVERSHOOT_REQUIRE_EXPRESS=1 (as in .ci/run) it fails instead.
package expressratelimit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/attackcmd"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// installPackages is the command that installs the npm packages.
const installPackages = "npm ci --prefix examples/express-rate-limit"

// The servers' limit and window, and the scenario attack runs: it says
// 7 per 2s, so that a limit and window read from the headers show.
const (
	serverLimit  = 5
	serverWindow = time.Second
	scenarioYAML = `
name: express
limiter: {name: t, limit: 7, window: 2s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
live: {duration: 2200ms, max_requests: 20000}
`
)

// findNode returns the node binary: OVERSHOOT_NODE (.ci/run sets it to the
// node 22 that examples/worker/dev.sh installs), else node on the PATH.
// When there is none it says why and what to do; wrong is true when
// OVERSHOOT_NODE names no executable, which fails the test whatever else.
func findNode() (node, missing string, wrong bool) {
	if p := os.Getenv("OVERSHOOT_NODE"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", "OVERSHOOT_NODE=" + p + " is not an executable (" + err.Error() + "): point it at a node binary", true
		}
		return p, "", false
	}
	if p, err := exec.LookPath("node"); err == nil {
		return p, "", false
	}
	return "", "node is not on the PATH and OVERSHOOT_NODE is not set: " +
		"`examples/worker/dev.sh node-path` installs node 22 and prints the path to set OVERSHOOT_NODE to, " +
		"then run " + installPackages, false
}

// nodeAndPackages returns the node binary, or skips the test saying what
// to install; it fails instead with OVERSHOOT_REQUIRE_EXPRESS=1 (as in
// .ci/run).
func nodeAndPackages(t *testing.T) string {
	t.Helper()
	node, missing, wrong := findNode()
	if missing == "" {
		for _, pkg := range []string{"express", "express-rate-limit"} {
			if _, err := os.Stat(filepath.Join("node_modules", pkg, "package.json")); err != nil {
				missing = "the npm package " + pkg + " is not installed in examples/express-rate-limit: run " + installPackages
				break
			}
		}
	}
	switch {
	case missing == "":
		return node
	case wrong:
		t.Fatal(missing)
	case os.Getenv("OVERSHOOT_REQUIRE_EXPRESS") == "1":
		t.Fatalf("%s (OVERSHOOT_REQUIRE_EXPRESS=1 requires it)", missing)
	default:
		t.Skip(missing)
	}
	return ""
}

// server is one express server under test.
type server struct {
	url string
}

// start runs server.js with the headers setting on a free loopback port
// and stops it when the test ends, passed or failed.
func start(t *testing.T, node, headers string) server {
	t.Helper()
	cmd := exec.Command(node, "server.js", headers, strconv.Itoa(serverLimit), strconv.FormatInt(serverWindow.Milliseconds(), 10))
	stdin, err := cmd.StdinPipe() // server.js exits when it closes
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s server.js: %v", node, err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-lines:
		u, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
		if !ok {
			t.Fatalf("server.js %s printed %q, not its address; stderr: %s", headers, line, stderr.String())
		}
		return server{url: u}
	case <-time.After(20 * time.Second):
		t.Fatalf("server.js %s did not listen within 20s; stderr: %s", headers, stderr.String())
	}
	return server{}
}

// counts returns what the server decided.
func (s server) counts(t *testing.T) (allowed, denied int64) {
	t.Helper()
	resp, err := http.Get(s.url + "counts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct{ Allowed, Denied int64 }
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&c); err != nil {
		t.Fatalf("GET /counts: %v", err)
	}
	return c.Allowed, c.Denied
}

// ask sends one request as token and returns its status and what attack
// reads of its headers.
func (s server) ask(t *testing.T, token string) (int, attack.Limits) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.url, nil)
	req.Header.Set("X-Anon-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return resp.StatusCode, attack.ReadLimits(resp.Header, time.Now())
}

// The dialects express-rate-limit speaks: the fields each sets, and
// whether they state the window (the legacy ones state only the limit,
// and the reset as a Unix time in whole seconds).
var dialects = []struct {
	headers string
	source  string // the field the limit is read from
	window  time.Duration
}{
	{"draft-6", "RateLimit-Policy", serverWindow},
	{"draft-7", "RateLimit-Policy", serverWindow},
	{"draft-8", "RateLimit-Policy", serverWindow},
	{"legacy", "X-RateLimit-Limit", 0},
}

// TestReadsEveryDialect: each response's limit, window, remaining and
// reset, as attack reads them, are what the library sent, allowed and
// denied.
func TestReadsEveryDialect(t *testing.T) {
	node := nodeAndPackages(t)
	for _, d := range dialects {
		t.Run(d.headers, func(t *testing.T) {
			srv := start(t, node, d.headers)
			for i := range serverLimit + 2 {
				code, l := srv.ask(t, "reader")
				wantCode, wantLeft := http.StatusOK, int64(serverLimit-1-i)
				if i >= serverLimit {
					wantCode, wantLeft = http.StatusTooManyRequests, 0
				}
				// A reset in whole seconds, rounded up; the legacy Unix
				// time rounds up to a second boundary besides.
				maxReset := serverWindow + time.Second
				if code != wantCode || l.Limit != serverLimit || l.Window != d.window || l.Source != d.source ||
					!l.HasRemaining || l.Remaining != wantLeft || !l.HasReset || l.Reset <= 0 || l.Reset > maxReset {
					t.Errorf("request %d: status %d, read %+v; want %d, %d per %v from %s, %d remaining, a reset in (0, %v]",
						i+1, code, l, wantCode, serverLimit, d.window, d.source, wantLeft, maxReset)
				}
			}
		})
	}
}

// TestAttackExpressRateLimit runs attack -url against each server: every
// response is read as a decision (none counted as an error), attack counts
// what the server counted, and it counts against the server's limit and
// window where the fields state both (the scenario's 7 per 2s otherwise,
// with a note naming the limit the server stated).
func TestAttackExpressRateLimit(t *testing.T) {
	node := nodeAndPackages(t)
	file := filepath.Join(t.TempDir(), "express.yaml")
	if err := os.WriteFile(file, []byte(scenarioYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range dialects {
		t.Run(d.headers, func(t *testing.T) {
			srv := start(t, node, d.headers)
			var stdout, stderr bytes.Buffer
			code := attackcmd.Main([]string{"-url", srv.url, "-no-report", "-json", file},
				attackcmd.Env{Stdout: &stdout, Stderr: &stderr, Exit: func(c int) { t.Errorf("Exit(%d)", c) }})
			if code != cli.ExitOK {
				t.Fatalf("attack exit %d: %s", code, stderr.String())
			}
			var s measure.Summary
			if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
				t.Fatalf("summary: %v", err)
			}
			limit, window, note := int64(serverLimit), "1s", "the target's RateLimit-Policy says 5 per 1s"
			if d.window == 0 {
				limit, window, note = 7, "2s", "the target's X-RateLimit-Limit says 5 and states no window"
			}
			if s.Limiter.Limit != limit || s.Limiter.Window != window || !strings.Contains(stderr.String(), note) {
				t.Errorf("counted against %d per %s, stderr %q; want %d per %s and the note %q",
					s.Limiter.Limit, s.Limiter.Window, stderr.String(), limit, window, note)
			}
			allowed, denied := srv.counts(t)
			allowed -= 1 + s.Live.WarmupRequests // the preflight and the warm-up (a key of its own, so allowed)
			t.Logf("the server allowed %d and denied %d; attack counted %d allowed, %d denied, %d ambiguous",
				allowed, denied, s.Totals.Allowed, s.Totals.Denied, s.Live.Ambiguous)
			st := s.Live.Status
			decided := s.Totals.Allowed + s.Totals.Denied + s.Live.Ambiguous
			if st["200"] != allowed || st["429"] != denied || s.Totals.Errors != 0 || decided != allowed+denied || denied == 0 {
				t.Errorf("statuses %v, %d errors, %d decisions (%d ambiguous); the server allowed %d and denied %d: want every one read",
					st, s.Totals.Errors, decided, s.Live.Ambiguous, allowed, denied)
			}
		})
	}
}
