// Package harness starts real Redis servers on this machine: redis-server
// and redis-sentinel from Debian's packages, each on a free loopback port
// in a directory of its own. Start gives a primary, two replicas and three
// sentinels monitoring the primary, and returns once replication is online
// and every sentinel knows the replicas and the other sentinels;
// StartServer gives one server alone. Stop kills every process (its process
// group, resumed first if paused) and closes every proxy; every wait is
// bounded.
//
// In a Cluster every server sits behind a proxy of its own
// (internal/faultproxy), and everyone reaches it there: the clients, the
// sentinels and the replicas, each from a loopback address of its own
// (bind-source-addr), so that one link can be delayed or cut. The faults
// (a kill, a pause, latency on a replication link, a partition) are in
// faults.go.
//
// The tests use it through internal/redis/redistest, which stops it when
// the test ends; attack -redis-harness starts one for a run.
package harness

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
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/overshoot-dev/overshoot/internal/faultproxy"
)

// MasterName is the name the sentinels monitor the primary under.
const MasterName = "overshoot"

// InstallLine is how to get the binaries on Debian.
const InstallLine = "apt-get install -y redis-server redis-sentinel"

// StartTimeout bounds each wait: a process answering, replication coming
// online, the sentinels finding each other.
const StartTimeout = 20 * time.Second

// DownAfter is the sentinels' down-after-milliseconds: how long the primary
// must be silent before they start a failover. Short, so a failover takes
// seconds.
const DownAfter = 1000 * time.Millisecond

// SentinelSource is the loopback address the sentinels connect from; the
// servers connect from ServerSource(i).
const SentinelSource = "127.0.0.2"

// ServerSource is the loopback address the i-th server of a Cluster (0 the
// primary, then the replicas) connects from.
func ServerSource(i int) string { return fmt.Sprintf("127.0.0.%d", 3+i) }

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

	downAfter time.Duration // the sentinels' down-after-milliseconds

	stops   []func() // run in reverse by Stop
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

// Binaries returns the paths of redis-server and redis-sentinel, or an
// error with the install line.
func Binaries() (server, sentinel string, err error) {
	server, err1 := exec.LookPath("redis-server")
	sentinel, err2 := exec.LookPath("redis-sentinel")
	if err1 != nil || err2 != nil {
		return "", "", errors.New("redis-server or redis-sentinel not found (install the Debian packages: " + InstallLine + ")")
	}
	return server, sentinel, nil
}

// StartServer starts one redis-server with no replicas and no sentinels,
// in a new directory under dir. Kill stops it.
func StartServer(dir string) (*Server, error) {
	server, _, err := Binaries()
	if err != nil {
		return nil, err
	}
	return launch(dir, server, "redis", nil)
}

// Options are what StartWith starts a Cluster with; a zero field takes
// Start's value.
type Options struct {
	// Replicas is the number of replicas, 1 to MaxReplicas (0: 2).
	Replicas int
	// DownAfter is the sentinels' down-after-milliseconds (0: DownAfter).
	DownAfter time.Duration
}

// MaxReplicas bounds Options.Replicas: each server connects from a
// loopback address of its own.
const MaxReplicas = 8

// Start starts, in new directories under dir, a primary, two replicas of it
// and three sentinels monitoring it as MasterName (quorum 2), every server
// behind a proxy of its own, and waits until both replicas are online and
// every sentinel sees two replicas and two other sentinels. On an error it
// stops what it started. Stop it when done.
func Start(dir string) (*Cluster, error) { return StartWith(dir, Options{}) }

// StartWith starts a Cluster as Start does, with o's replicas and
// down-after (a live run's, so that its failover takes what the model's
// store.redis says).
func StartWith(dir string, o Options) (*Cluster, error) {
	if o.Replicas == 0 {
		o.Replicas = 2
	}
	if o.DownAfter == 0 {
		o.DownAfter = DownAfter
	}
	if o.Replicas < 1 || o.Replicas > MaxReplicas {
		return nil, fmt.Errorf("harness: %d replicas: give 1 to %d", o.Replicas, MaxReplicas)
	}
	if o.DownAfter < time.Millisecond {
		return nil, fmt.Errorf("harness: down-after %v: give 1ms or more", o.DownAfter)
	}
	server, sentinel, err := Binaries()
	if err != nil {
		return nil, err
	}
	c := &Cluster{downAfter: o.DownAfter}
	if err := c.start(dir, server, sentinel, o.Replicas); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// start does Start's work, registering each stop as it goes.
func (c *Cluster) start(dir, server, sentinel string, replicas int) error {
	var err error
	if c.Primary, err = c.launchServer(dir, server, "primary", 0); err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(c.Primary.Addr)
	for i := range replicas {
		r, err := c.launchServer(dir, server, fmt.Sprintf("replica%d", i+1), i+1)
		if err != nil {
			return err
		}
		c.Replicas = append(c.Replicas, r)
		if err := do(r, "REPLICAOF", host, port); err != nil {
			return fmt.Errorf("harness: REPLICAOF on %s: %w", r.Name, err)
		}
	}
	if err := waitReplication(c.Primary, len(c.Replicas)); err != nil {
		return err
	}
	for i := range 3 {
		s, err := launch(dir, sentinel, fmt.Sprintf("sentinel%d", i+1), []string{
			"protected-mode no", // the others connect from SentinelSource
			"bind-source-addr " + SentinelSource,
			"sentinel announce-ip 127.0.0.1",
			fmt.Sprintf("sentinel monitor %s %s %s 2", MasterName, host, port),
			fmt.Sprintf("sentinel down-after-milliseconds %s %d", MasterName, c.downAfter.Milliseconds()),
			fmt.Sprintf("sentinel failover-timeout %s 10000", MasterName),
			fmt.Sprintf("sentinel parallel-syncs %s 1", MasterName),
		})
		if err != nil {
			return err
		}
		c.stops = append(c.stops, s.Kill)
		s.source = SentinelSource
		c.Sentinels = append(c.Sentinels, s)
	}
	for _, s := range c.Sentinels {
		if err := waitSentinel(s, len(c.Replicas), len(c.Sentinels)-1); err != nil {
			return err
		}
	}
	return nil
}

// Stop ends the faults' pending undos, closes the proxies and kills every
// process (a paused one resumed first), waiting for each. Stopping twice is
// harmless.
func (c *Cluster) Stop() {
	c.stopUndos()
	for i := len(c.stops) - 1; i >= 0; i-- {
		c.stops[i]()
	}
	c.stops = nil
}

// Servers returns every process of the cluster: the servers, then the
// sentinels.
func (c *Cluster) Servers() []*Server {
	return append(c.servers(), c.Sentinels...)
}

// launchServer starts the i-th redis-server of a cluster, connecting from
// ServerSource(i), puts a proxy in front of it (its jitter seeded with i)
// and makes it announce the proxy's address as its own when it replicates.
func (c *Cluster) launchServer(dir, bin, name string, i int) (*Server, error) {
	// A replica's first sync starts at once, not after diskless sync's
	// default 5 s wait for more replicas.
	s, err := launch(dir, bin, name, []string{"bind-source-addr " + ServerSource(i), "repl-diskless-sync-delay 0"})
	if err != nil {
		return nil, err
	}
	c.stops = append(c.stops, s.Kill)
	s.source = ServerSource(i)
	p, err := faultproxy.Start(s.Direct, uint64(i)+1)
	if err != nil {
		return nil, fmt.Errorf("harness: a proxy for %s: %w", name, err)
	}
	c.stops = append(c.stops, p.Stop)
	s.proxy, s.Addr = p, p.Addr()
	_, port, _ := net.SplitHostPort(s.Addr)
	if err := do(s, "CONFIG", "SET", "replica-announce-ip", "127.0.0.1", "replica-announce-port", port); err != nil {
		return nil, fmt.Errorf("harness: announcing %s's proxy: %w", name, err)
	}
	return s, nil
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
// again on another port, at most three times. On an error the process is
// killed.
func launch(dir, bin, name string, extra []string) (*Server, error) {
	for attempt := 1; ; attempt++ {
		s, err := start(dir, bin, name, extra)
		if err != nil {
			return nil, err
		}
		err = poll(s, func(ctx context.Context, c *goredis.Client) error { return c.Ping(ctx).Err() })
		if err == nil {
			return s, nil
		}
		s.Kill()
		if attempt < 3 && strings.Contains(s.LogTail(20), "Address already in use") {
			continue
		}
		return nil, fmt.Errorf("harness: %s at %s did not answer PING: %w; its log:\n%s", name, s.Addr, err, s.LogTail(20))
	}
}

// start runs bin on a free loopback port with a config of its own in a new
// directory under dir.
func start(parent, bin, name string, extra []string) (*Server, error) {
	dir, err := os.MkdirTemp(parent, name+"-")
	if err != nil {
		return nil, fmt.Errorf("harness: a directory for %s: %w", name, err)
	}
	port, err := pickPort()
	if err != nil {
		return nil, err
	}
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
		return nil, fmt.Errorf("harness: writing %s: %w", path, err)
	}
	cmd := exec.Command(bin, path)
	cmd.Dir = dir
	// Its own process group, so that Kill reaches its children too; and
	// killed if this process dies without Stop (a second Ctrl-C, a crash).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("harness: starting %s %s: %w", bin, path, err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s := &Server{Addr: addr, Direct: addr, Dir: dir, Name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	return s, nil
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

// Pid returns the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

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

// Cleaner is what Client needs of a test: a way to close the client at its
// end (testing.TB has it).
type Cleaner interface{ Cleanup(func()) }

// Client returns a go-redis client on the server, closed at t's cleanup.
func (s *Server) Client(t Cleaner) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr, DialTimeout: time.Second, ReadTimeout: 2 * time.Second,
		WriteTimeout: 2 * time.Second, MaxRetries: -1, DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// pickPort is freePort; a test replaces it to make a port be taken.
var pickPort = freePort

// freePort returns a loopback port nothing listens on just now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("harness: no free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitFor polls ok every 50 ms until it returns nil, for at most
// StartTimeout, and says what it last said, with s's log.
func waitFor(s *Server, what string, ok func(context.Context, *goredis.Client) error) error {
	if err := poll(s, ok); err != nil {
		return fmt.Errorf("harness: %s at %s not reached: %w; its log:\n%s", what, s.Addr, err, s.LogTail(20))
	}
	return nil
}

// quiet turns go-redis's own logging off, once: its pool logs every refused
// dial while a server starts.
var quiet sync.Once

// poll calls ok on a client of s every 50 ms until it returns nil, for at
// most StartTimeout, and returns what it last said, or that s exited.
func poll(s *Server, ok func(context.Context, *goredis.Client) error) error {
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
func waitReplication(primary *Server, n int) error {
	return waitFor(primary, fmt.Sprintf("%d replicas online", n), func(ctx context.Context, c *goredis.Client) error {
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
func waitSentinel(s *Server, replicas, others int) error {
	return waitFor(s, "the sentinel knowing the replicas and the other sentinels", func(ctx context.Context, c *goredis.Client) error {
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
