package attackcmd

import (
	"bytes"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/redis/harness"
)

// One caller, one replica, three short runs.
const redisRepeatYAML = `
name: redis-repeat
limiter: {name: t, limit: 100000000, window: 1h, error_policy: fail-open}
store: {kind: redis, redis: {replicas: 1}}
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 1, think: 5ms}
live: {duration: 300ms, max_requests: 1000000, warmup: false}
`

// dirsAtRuns is a stderr that, at each "attack: run N of M" line, counts
// the harness's directories under root: a cluster's directory goes when
// it has stopped (redisHarness.stop).
type dirsAtRuns struct {
	t    *testing.T
	root string
	mu   sync.Mutex
	buf  bytes.Buffer
	seen []int // directories at each run's start
}

func (d *dirsAtRuns) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if bytes.Contains(p, []byte("attack: run ")) {
		d.seen = append(d.seen, d.count())
	}
	return d.buf.Write(p)
}

func (d *dirsAtRuns) count() int {
	m, err := filepath.Glob(filepath.Join(d.root, "overshoot-redis-*"))
	if err != nil {
		d.t.Error(err)
	}
	return len(m)
}

// TestRedisHarnessRepeatStopsEach runs attack -repeat 3 -redis-harness:
// each run has a cluster of its own, and each cluster stops when its run
// ends, so that only one is up at a time, not all of them until the end.
func TestRedisHarnessRepeatStopsEach(t *testing.T) {
	if _, _, err := harness.Binaries(); err != nil {
		t.Skip(err)
	}
	root := t.TempDir()
	t.Setenv("TMPDIR", root) // where the harness makes its directories
	stderr := &dirsAtRuns{t: t, root: root}
	var stdout bytes.Buffer
	env := Env{Stdout: &stdout, Stderr: stderr, Exit: func(code int) { t.Errorf("Exit(%d) called", code) }}
	code := Main([]string{"-no-report", "-store", "redis", "-redis-harness", "-repeat", "3", cliScenario(t, redisRepeatYAML)}, env)
	if code != cli.ExitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr.buf.String())
	}
	if want := []int{1, 1, 1}; !slices.Equal(stderr.seen, want) {
		t.Errorf("clusters up as each run started: %v, want %v (its own only, the run before's stopped)", stderr.seen, want)
	}
	if n := stderr.count(); n != 0 {
		t.Errorf("%d clusters left after the series, want none", n)
	}
}
