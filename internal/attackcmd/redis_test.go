package attackcmd

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/redis/redistest"
)

// TestRedisFlags checks that the -redis-* flags are refused where they do
// not fit, before anything starts.
func TestRedisFlags(t *testing.T) {
	good := cliScenario(t, sequentialYAML)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"redis flag on memory", []string{"-store", "memory", "-redis-addr", "127.0.0.1:6379", good}, "-redis-* flags go with -store redis"},
		{"no address", []string{"-store", "redis", good}, "-store redis needs -redis-addr"},
		{"with url", []string{"-store", "redis", "-redis-addr", "127.0.0.1:6379", "-url", "http://127.0.0.1:1/", good}, "give one or the other"},
		{"both", []string{"-store", "redis", "-redis-addr", "127.0.0.1:6379", "-redis-sentinels", "127.0.0.1:26379", "-redis-master", "m", good}, "both a server address and sentinels"},
		{"no master", []string{"-store", "redis", "-redis-sentinels", "127.0.0.1:26379", good}, "master name"},
		{"master without sentinels", []string{"-store", "redis", "-redis-addr", "127.0.0.1:6379", "-redis-master", "m", good}, "-redis-master goes with -redis-sentinels"},
		{"bad read", []string{"-store", "redis", "-redis-addr", "127.0.0.1:6379", "-redis-read", "nearest", good}, `-redis-read "nearest" is unknown`},
		{"replica read without replicas", []string{"-store", "redis", "-redis-addr", "127.0.0.1:6379", "-redis-read", "replica", good}, "replicas' host:port"},
		{"bad address", []string{"-store", "redis", "-redis-addr", "localhost", good}, `"localhost" is not host:port`},
		{"bad timeout", []string{"-store", "redis", "-redis-addr", "127.0.0.1:6379", "-redis-timeout", "0s", good}, "-redis-timeout 0s must be positive"},
		{"nobody there", []string{"-store", "redis", "-redis-addr", closed, "-redis-timeout", "200ms", good}, "redis store preflight on redis " + closed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runMain(t, Env{}, append([]string{"-out", t.TempDir()}, tc.args...)...)
			if code != cli.ExitBadInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, cli.ExitBadInput, tc.want)
			}
		})
	}
}

// TestRedisStoreAttack runs attack.Main with -store redis on real servers:
// one sequential caller on the primary gets exactly the limit in a full
// window, and its counters are in Redis under the run's prefix; the same
// through the sentinels with replica reads runs without errors.
func TestRedisStoreAttack(t *testing.T) {
	c := redistest.Start(t)
	pc := c.Primary.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sc := cliScenario(t, cfSequentialYAML)

	t.Run("sequential caller gets exactly the limit", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := runMain(t, Env{}, "-out", out, "-store", "redis", "-redis-addr", c.Primary.Addr, sc)
		if code != cli.ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		s, _ := readSummary(t, out)
		if s.Limiter.Store != string(StoreRedis) || !strings.Contains(stdout, "redis "+c.Primary.Addr) {
			t.Errorf("store %q, stdout %q: want redis at %s named", s.Limiter.Store, stdout, c.Primary.Addr)
		}
		if s.Totals.Requests < 8 || s.Totals.Errors != 0 || s.Totals.FailOpen != 0 {
			t.Fatalf("totals %+v: want >= 8 requests, no errors, no fail-open", s.Totals)
		}
		// A 2.5 s run over 2 s windows has one window of at least 1.25 s:
		// 150 ms apart, that is more than 5 requests, of which exactly 5 pass.
		if o := s.Overshoot; o.MaxAllowed != 5 || o.OverLimit != 0 {
			t.Errorf("most allowed in a window %d, windows over the limit %d; want exactly 5 and none over", o.MaxAllowed, o.OverLimit)
		}
		if s.KV.Writes == 0 || s.KV.Reads < s.Totals.Requests {
			t.Errorf("kv %+v: want a read per request and writes", s.KV)
		}
		keys, err := pc.Keys(ctx, "overshoot:*").Result()
		if err != nil || len(keys) == 0 {
			t.Errorf("keys under overshoot:* on the primary: %v, %v; want the run's counters", keys, err)
		}
	})

	t.Run("through sentinels, reading replicas", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := runMain(t, Env{}, "-out", out, "-store", "redis", "-redis-sentinels", strings.Join(c.SentinelAddrs(), ","),
			"-redis-master", redistest.MasterName, "-redis-read", "replica", sc)
		if code != cli.ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		s, _ := readSummary(t, out)
		if !strings.Contains(stdout, "reads from its replicas") {
			t.Errorf("stdout %q: want the replica reads named", stdout)
		}
		if s.Totals.Requests < 8 || s.Totals.Errors != 0 || s.Totals.FailOpen != 0 || s.Overshoot.MaxAllowed < 5 {
			t.Errorf("totals %+v, most allowed %d: want >= 8 requests, no errors, the limit of 5 reached", s.Totals, s.Overshoot.MaxAllowed)
		}
	})
}
