package attackcmd

import (
	"os"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
)

// TestWorkerURL attacks the example Worker (examples/worker) running under
// wrangler dev, whose URL CI passes in OVERSHOOT_WORKER_URL (.ci/run starts
// it); skipped without it. The run must adopt the Worker's RateLimit-Policy,
// attribute every response by the Worker's window header (nothing
// ambiguous), and find at least the limit allowed per caller and window;
// with 4 requests in flight per caller it usually finds more (the race on
// KV, measured live).
func TestWorkerURL(t *testing.T) {
	url := os.Getenv("OVERSHOOT_WORKER_URL")
	if url == "" {
		t.Skip("OVERSHOOT_WORKER_URL is not set: start the Worker with examples/worker/dev.sh start")
	}
	out := t.TempDir()
	code, _, stderr := runMain(t, Env{}, "-url", url, "-duration", "2s", "-out", out,
		"-set", "traffic.bot.clients=3", "-set", "traffic.bot.closed_loop.concurrency=4")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s, _ := readSummary(t, out)
	if s.Limiter.Store != "url" || s.Limiter.Limit <= 0 || s.Live.URL != url {
		t.Errorf("limiter %+v, url %q", s.Limiter, s.Live.URL)
	}
	if s.Totals.Requests == 0 || s.Totals.Errors != 0 || s.Live.Ambiguous != 0 {
		t.Errorf("totals %+v, ambiguous %d: want requests, no errors, nothing ambiguous", s.Totals, s.Live.Ambiguous)
	}
	if s.Overshoot.MaxAllowed < s.Limiter.Limit || s.Overshoot.KeyWindows < 3 {
		t.Errorf("overshoot %+v: want 3 callers each allowed at least the limit %d", s.Overshoot, s.Limiter.Limit)
	}
	t.Logf("example Worker under wrangler dev: most allowed %d of limit %d (ratio %.2f) over %d key-windows",
		s.Overshoot.MaxAllowed, s.Limiter.Limit, s.Overshoot.Ratio.Max, s.Overshoot.KeyWindows)
}
