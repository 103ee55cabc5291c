package attackcmd

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
)

// TestMainPolicyContradicts: a target whose RateLimit-Policy states a
// window of 1 ms, against the scenario's 10 s, and does not name each
// response's window, would make every response ambiguous: the policy is
// reported and not used (exit 2, nothing written). Asked for on purpose
// (-set limiter.window=1ms), the run counts nothing, and that is a failure
// (exit 1) saying why, not "no requests were made" and exit 0.
func TestMainPolicyContradicts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit-Policy", `"default";q=1;w=0.001`)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	file := cliScenario(t, `
name: tiny-window
limiter: {name: t, limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 2}
live: {duration: 300ms}
`)
	out := t.TempDir()
	code, stdout, stderr := runMain(t, Env{}, "-url", srv.URL, "-out", out, file)
	if code != cli.ExitBadInput || !strings.Contains(stderr, "RateLimit-Policy says 1 per 1ms, the scenario 5 per 10s (limiter.window): a window under 100ms (20 clock margins of 5ms)") || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q: want %d and the policy reported", code, stdout, stderr, cli.ExitBadInput)
	}
	if fs := files(t, out); len(fs) > 0 {
		t.Errorf("written: %v", fs)
	}

	code, stdout, stderr = runMain(t, Env{}, "-url", srv.URL, "-out", out, "-set", "limiter.limit=1", "-set", "limiter.window=1ms", file)
	if code != cli.ExitFailure || !strings.Contains(stderr, "the run measured nothing: all") || !strings.Contains(stderr, "ambiguous") {
		t.Errorf("exit %d, stderr %q: want %d and the run said to have measured nothing", code, stderr, cli.ExitFailure)
	}
	if strings.Contains(stdout, "no requests were made") || !strings.Contains(stdout, "none of the") {
		t.Errorf("stdout %q: want the responses said to be uncounted, not \"no requests were made\"", stdout)
	}
	s, _ := readSummary(t, out)
	if s.Totals.Requests != 0 || s.Live.Ambiguous == 0 {
		t.Errorf("totals %+v, ambiguous %d: want what was measured written (nothing counted, all ambiguous)", s.Totals, s.Live.Ambiguous)
	}
}
