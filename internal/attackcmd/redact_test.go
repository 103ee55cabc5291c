package attackcmd

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// secretURL puts a user, a password and an API key into base (a loopback
// target's URL).
func secretURL(base string) string {
	return strings.Replace(strings.TrimSuffix(base, "/"), "http://", "http://alice:pa55word@", 1) + "/?api_key=S3CRET-value&mode=x"
}

// noSecrets fails the test when what holds any part of secretURL's secrets.
func noSecrets(t *testing.T, where, what string) {
	t.Helper()
	for _, s := range []string{"alice", "pa55word", "S3CRET-value"} {
		if strings.Contains(what, s) {
			i := strings.Index(what, s)
			t.Errorf("%s holds the secret %q: ...%s...", where, s, what[max(0, i-80):min(len(what), i+40)])
		}
	}
}

// TestMainURLSecretsRedacted attacks a -url carrying userinfo and an API key
// and checks that no secret reaches the terminal, summary.json, the reports
// or the results file (whose errors quote the URL), while the target's host
// and the query's keys are still there.
func TestMainURLSecretsRedacted(t *testing.T) {
	sc := parse(t, sequentialYAML)
	good, _ := serve(t, sc, kv.NewMemory(kv.MemoryOptions{}))
	var n atomic.Int64
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			panic(http.ErrAbortHandler) // the client sees EOF, and its error quotes the URL
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer flaky.Close()
	file := cliScenario(t, sequentialYAML)
	for _, base := range []string{good, flaky.URL} {
		out := t.TempDir()
		u := secretURL(base)
		// No warm-up: the flaky target would fail it (the case below).
		_, stdout, stderr := runMain(t, Env{}, "-url", u, "-duration", "600ms", "-set", "live.warmup=false", "-out", out, file)
		noSecrets(t, "stdout", stdout)
		noSecrets(t, "stderr", stderr)
		s, _ := readSummary(t, out)
		want := strings.Replace(strings.TrimSuffix(base, "/"), "http://", "http://REDACTED@", 1) + "/?api_key=REDACTED&mode=REDACTED"
		if s.Live == nil || s.Live.URL != want {
			t.Errorf("live.url %+v, want %q", s.Live, want)
		}
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not name the target as %q:\n%s", want, stdout)
		}
		for _, f := range files(t, out) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			noSecrets(t, f, string(b))
		}
	}
	// A warm-up that no answer came back to says so without the secrets
	// (the flaky target aborts its second request, the warm-up's).
	n.Store(0)
	code, stdout, stderr := runMain(t, Env{}, "-url", secretURL(flaky.URL), "-duration", "600ms", "-out", t.TempDir(), file)
	if code == 0 || !strings.Contains(stderr, "live.warmup") || !strings.Contains(stderr, "api_key=REDACTED") {
		t.Errorf("exit %d, stderr %q: want the warm-up's failure, the target named with its key redacted", code, stderr)
	}
	noSecrets(t, "warm-up stderr", stderr+stdout)
	// The preflight's refusal names the target without its secrets.
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	code, stdout, stderr = runMain(t, Env{}, "-url", secretURL(notFound.URL), "-out", t.TempDir(), file)
	if code != 2 || !strings.Contains(stderr, "api_key=REDACTED") {
		t.Errorf("exit %d, stderr %q: want 2 and the target named with its key redacted", code, stderr)
	}
	noSecrets(t, "preflight stderr", stderr+stdout)
	code, _, stderr = runMain(t, Env{}, "-url", secretURL("http://"+closedPort(t)), "-out", t.TempDir(), file)
	if code != 2 {
		t.Errorf("exit %d on a closed port, want 2", code)
	}
	noSecrets(t, "unreachable stderr", stderr)
}

// TestShardSecretsRedacted runs a one-shard attack at a -url with secrets and
// merges it: neither the shard's files nor the merge's hold them.
func TestShardSecretsRedacted(t *testing.T) {
	good, _ := serve(t, parse(t, sequentialYAML), kv.NewMemory(kv.MemoryOptions{}))
	file := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "300ms", 1))
	shards, out := t.TempDir(), t.TempDir()
	start := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	code, stdout, stderr := runMain(t, Env{}, "-url", secretURL(good), "-shard", "0/1", "-start-at", start, "-run-id", "r1", "-out", shards, file)
	if code != 0 {
		t.Fatalf("shard: exit %d: %s", code, stderr)
	}
	code, stdout2, stderr2 := runMain(t, Env{}, "-merge", "-out", out, shards)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr2)
	}
	noSecrets(t, "output", stdout+stderr+stdout2+stderr2)
	for _, f := range append(files(t, shards), files(t, out)...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		noSecrets(t, f, string(b))
	}
	if s, _ := readSummary(t, out); !strings.Contains(s.Live.URL, "api_key=REDACTED") {
		t.Errorf("merged live.url %q", s.Live.URL)
	}
}

// TestPreflightStatusEscaped: a target whose status line carries terminal
// escape sequences is refused with its status shown as text.
func TestPreflightStatusEscaped(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				io.WriteString(c, "HTTP/1.1 503 Down\x1b[2J\x1b]0;owned\x07\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
	code, stdout, stderr := runMain(t, Env{}, "-url", "http://"+ln.Addr().String()+"/", "-out", t.TempDir(), cliScenario(t, sequentialYAML))
	if code != 2 || !strings.Contains(stderr, `503 Down\x1b[2J`) {
		t.Errorf("exit %d, stderr %q: want 2 and the status as text", code, stderr)
	}
	if strings.ContainsAny(stdout+stderr, "\x1b\x07") {
		t.Errorf("control characters reached the terminal: %q", stdout+stderr)
	}
}

// TestShardBannerEscapesName: a shard's banner shows a scenario name's
// escape sequences as text.
func TestShardBannerEscapesName(t *testing.T) {
	good, _ := serve(t, parse(t, sequentialYAML), kv.NewMemory(kv.MemoryOptions{}))
	file := cliScenario(t, strings.Replace(strings.Replace(sequentialYAML, "1600ms", "200ms", 1), "name: seq", "name: \"seq\\e[2J\"", 1))
	start := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	code, stdout, stderr := runMain(t, Env{}, "-url", good, "-shard", "0/1", "-start-at", start, "-run-id", "r", "-out", t.TempDir(), file)
	if code != 0 || strings.ContainsRune(stdout+stderr, 0x1b) || !strings.Contains(stdout, `seq\x1b[2J`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
