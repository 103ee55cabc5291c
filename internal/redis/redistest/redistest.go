// Package redistest starts real Redis servers for tests: redis-server and
// redis-sentinel from Debian's packages, each on a free loopback port in a
// temporary directory of its own. Start gives a primary, two replicas and
// three sentinels monitoring the primary, and returns once replication is
// online and every sentinel knows the replicas and the other sentinels;
// StartServer gives one server alone. Every process is stopped when the test
// ends, pass or fail (t.Cleanup kills its process group), and every wait is
// bounded.
//
// In a Cluster every server sits behind a proxy of its own
// (internal/faultproxy), and everyone reaches it there: the clients, the
// sentinels and the replicas, each from a loopback address of its own
// (bind-source-addr), so that faults.go can delay or cut one link. The
// faults themselves (a kill, a pause, latency on a replication link, a
// partition) are in faults.go.
//
// A test on a machine without the binaries skips and prints the install
// line; with OVERSHOOT_REQUIRE_REDIS=1 (CI) it fails instead.
//
// It is imported by tests only.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/overshoot-dev/overshoot/internal/faultproxy"
)

// MasterName is the name the sentinels monitor the primary under.
const MasterName = "overshoot"

// InstallLine is how to get the binaries on Debian.
const InstallLine = "apt-get install -y redis-server redis-sentinel"

// EnvRequire makes a missing binary a failure instead of a skip.
const EnvRequire = "OVERSHOOT_REQUIRE_REDIS"

// StartTimeout bounds each wait: a process answering, replication coming
// online, the sentinels finding each other.
const StartTimeout = 20 * time.Second

// DownAfter is the sentinels' down-after-milliseconds: how long the primary
// must be silent before they start a failover. Short, so a failover test
// takes seconds.
const DownAfter = 1000 * time.Millisecond

// Server is one redis-server or redis-sentinel process.
type Server struct {
	// Addr is the loopback host:port to reach it at: in a Cluster its
	// proxy's, which every client and server uses; else its own.
	Addr string
	// Direct is the host:port the process itself listens on.
	Direct string
	// Dir is its working directory (config, log).
	Dir string
	// Name says which it is: primary, replica1, sentinel1, ...
	Name string

	source string            // the address it connects from ("" for the default)
	proxy  *faultproxy.Proxy // in front of it, in a Cluster
	paused atomic.Bool
	cmd    *exec.Cmd
	done   chan struct{}
}

// Cluster is a primary, its replicas and the sentinels that monitor it.
type Cluster struct {
	// Primary and Replicas are the servers as started; after a failover
	// CurrentPrimary says which is primary.
	Primary   *Server
	Replicas  []*Server
	Sentinels []*Server

	mu      sync.Mutex
	timers  []*time.Timer // the faults' undos (faults.go)
	stopped bool
}

// SentinelAddrs returns the sentinels' addresses.
func (c *Cluster) SentinelAddrs() []string {
	var out []string
	for _, s := range c.Sentinels {
		out = append(out, s.Addr)
	}
	return out
}

// ReplicaAddrs returns the replicas' addresses.
func (c *Cluster) ReplicaAddrs() []string {
	var out []string
	for _, s := range c.Replicas {
		out = append(out, s.Addr)
	}
	return out
}

// binaries returns the paths of redis-server and redis-sentinel, or skips
// (fails under OVERSHOOT_REQUIRE_REDIS=1) when one is missing.
func binaries(t testing.TB) (server, sentinel string) {
	t.Helper()
	server, err1 := exec.LookPath("redis-server")
	sentinel, err2 := exec.LookPath("redis-sentinel")
	if err1 == nil && err2 == nil {
		return server, sentinel
	}
	msg := "redis-server or redis-sentinel not found (install the Debian packages: " + InstallLine + ")"
	if os.Getenv(EnvRequire) == "1" {
		t.Fatal(msg + "; " + EnvRequire + "=1 requires them")
	}
	t.Skip(msg)
	return "", ""
}

// StartServer starts one redis-server with no replicas and no sentinels.
func StartServer(t testing.TB) *Server {
	t.Helper()
	server, _ := binaries(t)
	return launch(t, server, "redis", nil)
}

// SentinelSource is the loopback address the sentinels connect from; the
// servers connect from ServerSource(i).
const SentinelSource = "127.0.0.2"

// ServerSource is the loopback address the i-th server of a Cluster (0 the
// primary, then the replicas) connects from.
func ServerSource(i int) string { return fmt.Sprintf("127.0.0.%d", 3+i) }

// Start starts a primary, two replicas of it and three sentinels monitoring
// it as MasterName (quorum 2), every server behind a proxy of its own, and
// waits until both replicas are online and every sentinel sees two
// replicas and two other sentinels.
func Start(t testing.TB) *Cluster {
	t.Helper()
	server, sentinel := binaries(t)
	c := &Cluster{Primary: launchServer(t, server, "primary", 0)}
	for i := range 2 {
		r := launchServer(t, server, fmt.Sprintf("replica%d", i+1), i+1)
		host, port, _ := net.SplitHostPort(c.Primary.Addr)
		if err := do(r, "REPLICAOF", host, port); err != nil {
			t.Fatalf("redistest: REPLICAOF on %s: %v", r.Name, err)
		}
		c.Replicas = append(c.Replicas, r)
	}
	waitReplication(t, c.Primary, len(c.Replicas))
	host, port, _ := net.SplitHostPort(c.Primary.Addr)
	for i := range 3 {
		s := launch(t, sentinel, fmt.Sprintf("sentinel%d", i+1), []string{
			"protected-mode no", // the others connect from SentinelSource
			"bind-source-addr " + SentinelSource,
			"sentinel announce-ip 127.0.0.1",
			fmt.Sprintf("sentinel monitor %s %s %s 2", MasterName, host, port),
			fmt.Sprintf("sentinel down-after-milliseconds %s %d", MasterName, DownAfter.Milliseconds()),
			fmt.Sprintf("sentinel failover-timeout %s 10000", MasterName),
			fmt.Sprintf("sentinel parallel-syncs %s 1", MasterName),
		})
		s.source = SentinelSource
		c.Sentinels = append(c.Sentinels, s)
	}
	for _, s := range c.Sentinels {
		waitSentinel(t, s, len(c.Replicas), len(c.Sentinels)-1)
	}
	t.Cleanup(c.stop) // before the kills
	return c
}

// launchServer starts the i-th redis-server of a cluster, connecting from
// ServerSource(i), puts a proxy in front of it (its jitter seeded with i,
// stopped when the test ends) and makes it announce the proxy's address as
// its own when it replicates.
func launchServer(t testing.TB, bin, name string, i int) *Server {
	t.Helper()
	// A replica's first sync starts at once, not after diskless sync's
	// default 5 s wait for more replicas.
	s := launch(t, bin, name, []string{"bind-source-addr " + ServerSource(i), "repl-diskless-sync-delay 0"})
	s.source = ServerSource(i)
	p, err := faultproxy.Start(s.Direct, uint64(i)+1)
	if err != nil {
		t.Fatalf("redistest: a proxy for %s: %v", name, err)
	}
	t.Cleanup(p.Stop)
	s.proxy, s.Addr = p, p.Addr()
	_, port, _ := net.SplitHostPort(s.Addr)
	if err := do(s, "CONFIG", "SET", "replica-announce-ip", "127.0.0.1", "replica-announce-port", port); err != nil {
		t.Fatalf("redistest: announcing %s's proxy: %v", name, err)
	}
	return s
}

// do runs one command on s's own port, bounded by a second.
func do(s *Server, args ...any) error {
	c := goredis.NewClient(&goredis.Options{Addr: s.Direct, DialTimeout: time.Second, ReadTimeout: time.Second,
		WriteTimeout: time.Second, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Do(ctx, args...).Err()
}

// launch starts bin (start) and waits until it answers PING. A port that
// another process took between freePort and the server's bind is tried
// again on another port, at most three times.
func launch(t testing.TB, bin, name string, extra []string) *Server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s := start(t, bin, name, extra)
		err := poll(s, func(ctx context.Context, c redisClient) error { return c.Ping(ctx).Err() })
		if err == nil {
			return s
		}
		if attempt < 3 && s.Exited() && strings.Contains(s.LogTail(20), "Address already in use") {
			continue
		}
		t.Fatalf("redistest: %s at %s did not answer PING: %v; its log:\n%s", name, s.Addr, err, s.LogTail(20))
	}
}

// start runs bin on a free loopback port with a config of its own in a new
// temporary directory, and registers its kill.
func start(t testing.TB, bin, name string, extra []string) *Server {
	t.Helper()
	dir := t.TempDir()
	port := pickPort(t)
	conf := []string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"dir " + dir,
		"logfile " + filepath.Join(dir, "log"),
		"daemonize no",
		`save ""`,
		"appendonly no",
	}
	conf = append(conf, extra...)
	path := filepath.Join(dir, name+".conf")
	if err := os.WriteFile(path, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatalf("redistest: writing %s: %v", path, err)
	}
	cmd := exec.Command(bin, path)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("redistest: starting %s %s: %v", bin, path, err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s := &Server{Addr: addr, Direct: addr, Dir: dir, Name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		s.Kill()
		if t.Failed() {
			t.Logf("redistest: %s at %s, last lines of its log:\n%s", name, s.Addr, s.LogTail(20))
		}
	})
	return s
}

// Kill sends SIGKILL to the server's process group (resumed first if
// paused) and waits (at most StartTimeout) until it has exited. Its proxy's
// links are cut first, as a host's go down with it: bytes they were still
// delaying are never delivered. Killing a server twice is harmless.
func (s *Server) Kill() {
	if s.proxy != nil {
		s.proxy.Cut("")
	}
	if s.cmd.Process != nil {
		if s.paused.Swap(false) {
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT)
		}
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	select {
	case <-s.done:
	case <-time.After(StartTimeout):
	}
}

// Exited reports whether the process has ended.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string {
	f, err := os.Open(filepath.Join(s.Dir, "log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// Client returns a go-redis client on the server, closed when the test ends.
func (s *Server) Client(t testing.TB) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr, DialTimeout: time.Second, ReadTimeout: 2 * time.Second,
		WriteTimeout: 2 * time.Second, MaxRetries: -1, DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// pickPort is freePort; a test replaces it to make a port be taken.
var pickPort = freePort

// freePort returns a loopback port nothing listens on just now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: no free loopback port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls ok every 50 ms until it returns nil, for at most
// StartTimeout, and fails the test with what it last said.
func waitFor(t testing.TB, s *Server, what string, ok func(context.Context, redisClient) error) {
	t.Helper()
	if err := poll(s, ok); err != nil {
		t.Fatalf("redistest: %s at %s not reached: %v; its log:\n%s", what, s.Addr, err, s.LogTail(20))
	}
}

// quiet turns go-redis's own logging off, once: its pool logs every refused
// dial while a server starts.
var quiet sync.Once

// poll calls ok on a client of s every 50 ms until it returns nil, for at
// most StartTimeout, and returns what it last said, or that s exited.
func poll(s *Server, ok func(context.Context, redisClient) error) error {
	quiet.Do(func() { goredis.SetLogger(&logging.VoidLogger{}) }) // a refused dial is expected here
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr, DialTimeout: time.Second, ReadTimeout: time.Second,
		WriteTimeout: time.Second, MaxRetries: -1, DialerRetries: 1, DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(StartTimeout)
	last := errors.New("not tried")
	for time.Now().Before(deadline) {
		if s.Exited() {
			return errors.New("the process exited")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		last = ok(ctx, c)
		cancel()
		if last == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not within %v: %w", StartTimeout, last)
}

// waitReplication waits until the primary has n replicas online.
func waitReplication(t testing.TB, primary *Server, n int) {
	t.Helper()
	waitFor(t, primary, fmt.Sprintf("%d replicas online", n), func(ctx context.Context, c redisClient) error {
		info, err := c.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if got := strings.Count(info, "state=online"); got < n {
			return fmt.Errorf("%d of %d replicas online", got, n)
		}
		return nil
	})
}

// waitSentinel waits until the sentinel sees the primary with n replicas
// and others other sentinels.
func waitSentinel(t testing.TB, s *Server, replicas, others int) {
	t.Helper()
	waitFor(t, s, "the sentinel knowing the replicas and the other sentinels", func(ctx context.Context, c redisClient) error {
		m, err := SentinelMaster(ctx, c)
		if err != nil {
			return err
		}
		if m["num-slaves"] != strconv.Itoa(replicas) || m["num-other-sentinels"] != strconv.Itoa(others) {
			return fmt.Errorf("sees %s replicas and %s other sentinels", m["num-slaves"], m["num-other-sentinels"])
		}
		return nil
	})
}

// SentinelMaster returns SENTINEL MASTER MasterName as field -> value.
func SentinelMaster(ctx context.Context, c *goredis.Client) (map[string]string, error) {
	v, err := c.Do(ctx, "SENTINEL", "MASTER", MasterName).Result()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	switch v := v.(type) {
	case map[any]any:
		for k, val := range v {
			out[fmt.Sprint(k)] = fmt.Sprint(val)
		}
	case []any:
		for i := 0; i+1 < len(v); i += 2 {
			out[fmt.Sprint(v[i])] = fmt.Sprint(v[i+1])
		}
	default:
		return nil, errors.New("SENTINEL MASTER answered " + fmt.Sprintf("%T", v))
	}
	return out, nil
}

// WaitPrimary waits until the sentinel s reports a primary other than old,
// and returns its address: the end of a failover.
func (c *Cluster) WaitPrimary(t testing.TB, old string, within time.Duration) string {
	t.Helper()
	sc := c.Sentinels[0].Client(t)
	deadline := time.Now().Add(within)
	var last string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		addr, err := sc.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName).StringSlice()
		cancel()
		if err == nil && len(addr) == 2 {
			last = net.JoinHostPort(addr[0], addr[1])
			if last != old {
				return last
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("redistest: no failover from %s within %v (the sentinels still say %s)", old, within, last)
	return ""
}

// Pid returns the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// redisClient is the client the waits poll with.
type redisClient = *goredis.Client
