package attackcmd

import (
	"context"
	"flag"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redis"
	"github.com/overshoot-dev/overshoot/internal/redis/harness"
	"github.com/overshoot-dev/overshoot/internal/redis/redistest"
	"github.com/overshoot-dev/overshoot/internal/scenario"
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
		{"harness on memory", []string{"-store", "memory", "-redis-harness", good}, "-redis-* flags go with -store redis"},
		{"harness and an address", []string{"-store", "redis", "-redis-harness", "-redis-addr", "127.0.0.1:6379", good}, "-redis-harness starts its own servers"},
		{"faults without the harness", []string{"-store", "redis", "-redis-addr", closed, cliScenario(t, redisFaultsYAML)}, "add -redis-harness"},
		{"a fault after the run", []string{"-store", "redis", "-redis-harness", "-set", "live.duration=1s", cliScenario(t, redisFaultsYAML)}, "the fault kill-primary at 1.5s is not before the end of the live run (1s): attack would never apply it"},
		// Unset, -redis-read and -redis-timeout are the scenario's, as the model's.
		{"the scenario reads replicas", []string{"-store", "redis", "-redis-addr", "127.0.0.1:6379", cliScenario(t, redisReadsYAML)}, "the scenario reads from replicas (store.redis.read: replica)"},
		{"another timeout than the scenario's", []string{"-store", "redis", "-redis-addr", closed, "-redis-read", "primary", "-redis-timeout", "200ms", cliScenario(t, redisReadsYAML)},
			"add -set store.redis.timeout=200ms"},
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
	t.Parallel()
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
		// Warmed up on the servers for redisSoak first (back to back, so
		// far more requests than the run's), none of it counted.
		if s.Live == nil || s.Live.SoakSeconds != redisSoak.Seconds() || s.Live.WarmupRequests < 10*s.Totals.Requests || s.KV.Reads > 2*s.Totals.Requests {
			t.Errorf("live %+v, kv reads %d for %d requests: want a soak of %v, many warm-up requests, and none of their reads counted", s.Live, s.KV.Reads, s.Totals.Requests, redisSoak)
		}
		if s.Live == nil || s.Live.StoreHostCores != runtime.NumCPU() {
			t.Errorf("live %+v: want store_host_cores %d, a Redis on loopback sharing the host", s.Live, runtime.NumCPU())
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

// Two callers well under a limit of 1000 a second, for 9 s: every store
// error shows as a fail-open decision.
const redisFailoverYAML = `
name: redis-failover
limiter: {name: t, limit: 1000, window: 1s, error_policy: fail-open}
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 2, think: 20ms}
live: {duration: 9s, max_requests: 100000}
`

// TestRedisStoreAttackFailover kills the primary (SIGKILL) 1.5 s into an
// attack through the sentinels: every store error of the failover is a
// fail-open decision (as many as the KV errors, no request without a
// decision), and after Sentinel promotes a replica the run's writes go to
// it (it holds counters of windows that began after the kill).
func TestRedisStoreAttackFailover(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t)
	old := c.Primary.Addr
	killed := make(chan time.Time, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		c.Primary.Kill()
		killed <- time.Now()
	}()
	out := t.TempDir()
	code, _, stderr := runMain(t, Env{}, "-out", out, "-store", "redis", "-redis-sentinels", strings.Join(c.SentinelAddrs(), ","),
		"-redis-master", redistest.MasterName, "-redis-timeout", "300ms", cliScenario(t, redisFailoverYAML))
	killedAt := <-killed
	if code != cli.ExitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	s, _ := readSummary(t, out)
	kvErrors := s.KV.ReadErrors + s.KV.WriteErrors
	t.Logf("requests %d, fail-open %d, kv read errors %d, write errors %d", s.Totals.Requests, s.Totals.FailOpen, s.KV.ReadErrors, s.KV.WriteErrors)
	if s.Totals.FailOpen == 0 || s.Totals.FailOpen != kvErrors || s.Totals.Errors != 0 {
		t.Errorf("fail-open %d, kv errors %d, request errors %d: want every store error of the failover decided by fail-open, none undecided",
			s.Totals.FailOpen, kvErrors, s.Totals.Errors)
	}
	promoted := c.WaitPrimary(t, old, 10*time.Second)
	var np *redistest.Server
	for _, r := range c.Replicas {
		if r.Addr == promoted {
			np = r
		}
	}
	if np == nil {
		t.Fatalf("the sentinels promoted %s, none of the replicas %v", promoted, c.ReplicaAddrs())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	keys, err := np.Client(t).Keys(ctx, "overshoot:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	after := 0
	for _, k := range keys {
		w, err := strconv.ParseInt(k[strings.LastIndexByte(k, ':')+1:], 10, 64)
		if err == nil && time.UnixMilli(w*1000).After(killedAt) {
			after++
		}
	}
	if after == 0 {
		t.Errorf("the promoted primary %s holds %d counters, none of a window begun after the kill: the store did not follow the failover", promoted, len(keys))
	}
}

// Four callers, each on its own key (one request at a time), well under a
// limit of an hour's window; the replicas' links 300 ms behind from the
// start and the primary killed at 1.5 s.
// redisReadsYAML is a redis scenario that reads from replicas and times
// commands out after 300 ms.
const redisReadsYAML = `
name: redis-reads
limiter: {name: t, limit: 5, window: 1s}
store: {kind: redis, redis: {read: replica, timeout: 300ms}}
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 1}
live: {duration: 1s}
`

const redisFaultsYAML = `
name: redis-faults
limiter: {name: t, limit: 100000000, window: 1h, error_policy: fail-open}
store: {kind: redis, redis: {down_after: 1s}}
duration: 10s
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 4, think: 5ms}
faults:
  - {at: 0s, kind: link-latency, target: replicas, latency: 300ms}
  - {at: 1500ms, kind: kill-primary}
live: {duration: 8s, max_requests: 1000000, warmup: false}
`

// TestRedisHarnessFaults runs attack -store redis -redis-harness on a
// scenario with faults: attack starts the servers, applies the schedule
// from the run's start (it says so, fault by fault), the failover's errors
// are fail-open decisions, and the summary counts the increments the old
// primary acknowledged that the promoted replica never had (the ledger's
// lost updates; TestLostUpdatesFailover checks that count against the
// servers' own state).
func TestRedisHarnessFaults(t *testing.T) {
	if _, _, err := harness.Binaries(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	out := t.TempDir()
	code, stdout, stderr := runMain(t, Env{}, "-out", out, "-store", "redis", "-redis-harness", "-redis-timeout", "300ms", cliScenario(t, redisFaultsYAML))
	if code != cli.ExitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	for _, want := range []string{"attack: fault: link-latency on replicas at ", " (latency 300ms, jitter 0s)\n", "attack: fault: kill-primary on primary at "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q: want %q", stderr, want)
		}
	}
	if strings.Contains(stderr, "not applied") || !strings.Contains(stdout, "started for the run") {
		t.Errorf("stdout %q, stderr %q: want the harness named and every fault applied", stdout, stderr)
	}
	s, _ := readSummary(t, out)
	t.Logf("requests %d, fail-open %d, writes %d, lost updates %d", s.Totals.Requests, s.Totals.FailOpen, s.KV.Writes, s.KV.LostUpdates)
	if s.Totals.FailOpen == 0 || s.Totals.Errors != 0 {
		t.Errorf("fail-open %d, errors %d: want the failover decided by fail-open", s.Totals.FailOpen, s.Totals.Errors)
	}
	if s.KV.LostUpdates == 0 || s.KV.LostUpdates >= s.KV.Writes {
		t.Errorf("lost updates %d of %d writes: want some, with the replicas 300ms behind at the kill", s.KV.LostUpdates, s.KV.Writes)
	}
}

// TestFaultsNotApplied checks that a run whose store attack does not fault
// says that the scenario's faults are not applied.
func TestFaultsNotApplied(t *testing.T) {
	code, _, stderr := runMain(t, Env{}, "-no-report", "-store", "memory", "-duration", "300ms", cliScenario(t, redisFaultsYAML))
	if code != cli.ExitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if !strings.Contains(stderr, "attack: note: the scenario's 2 faults are not applied: attack applies them with -store redis -redis-harness only") {
		t.Errorf("stderr %q: want the faults said not to be applied", stderr)
	}
}

// TestRedisHarnessNotWithServe checks that -serve with -redis-harness is
// refused: there would be no run to time the faults from.
func TestRedisHarnessNotWithServe(t *testing.T) {
	code, _, stderr := runMain(t, Env{}, "-serve", "-store", "redis", "-redis-harness", cliScenario(t, sequentialYAML))
	if code != cli.ExitBadInput || !strings.Contains(stderr, "-redis-harness starts servers for an attack run and faults them during it: not with -serve") {
		t.Errorf("exit %d, stderr %q; want %d and -serve refused", code, stderr, cli.ExitBadInput)
	}
}

// Eight callers on one key (a shared token, no IP), for 2 s.
const redisSharedYAML = `
name: redis-shared
limiter: {name: t, limit: 100000000, window: 1h, error_policy: fail-open}
traffic:
  - name: bot
    identity: {token: shared, ip: none}
    closed_loop: {concurrency: 8}
live: {duration: 2s, max_requests: 1000000, warmup: false}
`

// TestRedisLostUpdatesShared runs eight callers on one key on a real
// server, without faults: the read-then-write race loses updates (two
// callers write the same count, a stale write takes the count back), the
// summary counts them, and the count left on the server is exactly the
// writes acknowledged less the lost updates (docs/summary.md).
func TestRedisLostUpdatesShared(t *testing.T) {
	srv := redistest.StartServer(t)
	out := t.TempDir()
	code, _, stderr := runMain(t, Env{}, "-out", out, "-store", "redis", "-redis-addr", srv.Addr, cliScenario(t, redisSharedYAML))
	if code != cli.ExitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	s, _ := readSummary(t, out)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc := srv.Client(t)
	keys, err := rc.Keys(ctx, "overshoot:*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys on the server %v, %v; want the one counter", keys, err)
	}
	held, err := rc.Get(ctx, keys[0]).Int64()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("requests %d, writes %d, lost updates %d, the count on the server %d", s.Totals.Requests, s.KV.Writes, s.KV.LostUpdates, held)
	if s.KV.LostUpdates == 0 || s.KV.LostUpdates >= s.KV.Writes {
		t.Errorf("lost updates %d of %d writes: want some, from eight callers on one key", s.KV.LostUpdates, s.KV.Writes)
	}
	if notLost := s.KV.Writes - s.KV.WriteErrors - s.KV.LostUpdates; held != notLost {
		t.Errorf("the server counts %d, the summary %d increments acknowledged and not lost: want them equal", held, notLost)
	}
}

// Four callers, each on its own key, with the replication links 50 ms
// behind for the whole run; READ is where the counts are read.
const redisLagYAML = `
name: redis-lag
limiter: {name: t, limit: 100000000, window: 1h, error_policy: fail-open}
store: {kind: redis, redis: {read: READ}}
duration: 3s
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 4, think: 5ms}
faults:
  - {at: 0s, kind: link-latency, target: replicas, latency: 50ms}
live: {duration: 2s, max_requests: 1000000, warmup: false}
`

// TestRedisStaleReadsAttack runs attack -store redis -redis-harness with
// the replicas 50 ms behind: reading from the replicas, the summary counts
// stale reads (redis.Ledger; TestStaleReadsReplicas checks that count
// against the primary) among the reads of written keys, with their
// staleness; reading from the primary, none among as many.
func TestRedisStaleReadsAttack(t *testing.T) {
	if _, _, err := harness.Binaries(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	for _, read := range []string{"replica", "primary"} {
		t.Run(read, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := runMain(t, Env{}, "-out", out, "-store", "redis", "-redis-harness", "-redis-read", read, cliScenario(t, strings.ReplaceAll(redisLagYAML, "READ", read)))
			if code != cli.ExitOK || strings.Contains(stderr, "-redis-read") {
				t.Fatalf("exit %d; stderr: %s", code, stderr)
			}
			s, _ := readSummary(t, out)
			var reads int64
			for _, v := range s.KV.Visibility {
				reads += v.Reads
			}
			t.Logf("%s reads: %d reads of written keys, %d stale (staleness p50 %.1f ms), %d lost", read, reads, s.KV.StaleReads, s.KV.StalenessMs.P50, s.KV.LostUpdates)
			if reads < 100 {
				t.Fatalf("%d reads of written keys in the summary: want the run's", reads)
			}
			if read == "primary" {
				if s.KV.StaleReads != 0 {
					t.Errorf("%d stale reads from the primary, want none", s.KV.StaleReads)
				}
				return
			}
			if s.KV.StaleReads < reads/10 || s.KV.StaleReads > reads || s.KV.StalenessMs.N != s.KV.StaleReads {
				t.Errorf("%d stale reads of %d, staleness of %d: want many, each with its staleness", s.KV.StaleReads, reads, s.KV.StalenessMs.N)
			}
		})
	}
}

// TestRedisReadAgainstScenario checks that a run reading elsewhere than
// its scenario's store.redis.read says so, since simulate compare predicts
// the scenario's reads, and that a run that agrees says nothing.
func TestRedisReadAgainstScenario(t *testing.T) {
	srv := redistest.StartServer(t)
	const note = "attack: note: -redis-read replica reads where the scenario's store.redis.read does not"
	for _, tc := range []struct {
		read string
		want bool
	}{{"primary", true}, {"replica", false}} {
		t.Run(tc.read, func(t *testing.T) {
			sc := cliScenario(t, `
name: redis-read
limiter: {name: t, limit: 5, window: 10s}
store: {kind: redis, redis: {read: `+tc.read+`}}
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 1, think: 20ms}
live: {duration: 200ms, max_requests: 1000, warmup: false}
`)
			code, _, stderr := runMain(t, Env{}, "-out", t.TempDir(), "-store", "redis", "-redis-addr", srv.Addr,
				"-redis-read", "replica", "-redis-replicas", srv.Addr, sc)
			if code != cli.ExitOK {
				t.Fatalf("exit %d; stderr: %s", code, stderr)
			}
			if got := strings.Contains(stderr, note); got != tc.want {
				t.Errorf("store.redis.read %s: note %v, want %v; stderr: %s", tc.read, got, tc.want, stderr)
			}
		})
	}
}

// TestRedisFlagsFromScenario: -redis-read and -redis-timeout left unset
// are the redis scenario's store.redis.read and timeout, the values the
// model runs with; given, they are kept.
func TestRedisFlagsFromScenario(t *testing.T) {
	sc, err := scenario.Parse("s.yaml", []byte(redisReadsYAML))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    []string
		read    string
		timeout time.Duration
	}{
		{nil, redisReadReplica, 300 * time.Millisecond},
		{[]string{"-redis-read", "primary", "-redis-timeout", "1s"}, redisReadPrimary, time.Second},
	} {
		var f redisFlags
		fs := flag.NewFlagSet("attack", flag.ContinueOnError)
		f.register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		given := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
		f.given(given)
		f.fromScenario(pl, io.Discard)
		if cfg := f.config(""); f.read != tc.read || cfg.Timeout != tc.timeout {
			t.Errorf("%v: read %s, timeout %v; want %s, %v", tc.args, f.read, cfg.Timeout, tc.read, tc.timeout)
		}
	}
}

// TestOnLoopback: a Redis shares attack's host when every address it is
// reached at is on loopback.
func TestOnLoopback(t *testing.T) {
	tests := []struct {
		cfg  redis.Config
		want bool
	}{
		{redis.Config{Addr: "127.0.0.1:6379"}, true},
		{redis.Config{Addr: "localhost:6379", Replicas: []string{"[::1]:6380"}}, true},
		{redis.Config{Sentinels: []string{"127.0.0.1:26379", "127.0.0.2:26379"}, MasterName: "m"}, true},
		{redis.Config{Addr: "127.0.0.1:6379", Replicas: []string{"10.0.0.2:6379"}}, false},
		{redis.Config{Addr: "redis.internal:6379"}, false},
		{redis.Config{Addr: "127.0.0.1"}, false}, // no port: not an address
		{redis.Config{}, false},
	}
	for _, tt := range tests {
		if got := onLoopback(tt.cfg); got != tt.want {
			t.Errorf("onLoopback(%+v) = %v, want %v", tt.cfg, got, tt.want)
		}
	}
}
