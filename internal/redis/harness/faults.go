package harness

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/overshoot-dev/overshoot/internal/faultproxy"
)

// The faults a Cluster takes, on its real processes and through its
// proxies. They name servers as a schedule does: NodePrimary is whichever
// server the sentinels name as primary when the fault starts, "replica-N"
// the N-th live server other than it, in the order they were started, and
// NodeReplicas every live server other than it. They
// return errors, so that a fault runner may call them from a goroutine of
// its own; what they leave undone at the end (a pause, a latency, a
// partition) ends with Stop, which kills the servers.

// The names of nodes in a fault other than "replica-N" (as a scenario's
// faults.*.target).
const (
	NodePrimary  = "primary"
	NodeReplicas = "replicas"
)

// FailoverTimeout bounds KillPrimary's wait for Sentinel to promote a
// replica: DownAfter, then an election and the promotion (a schedule's
// kill waits a cluster's own down-after more).
const FailoverTimeout = 15 * time.Second

// servers returns the primary and the replicas, in start order.
func (c *Cluster) servers() []*Server { return append([]*Server{c.Primary}, c.Replicas...) }

// CurrentPrimary returns the server the sentinels name as primary now (the
// first sentinel that answers).
func (c *Cluster) CurrentPrimary() (*Server, error) {
	addr, err := c.primaryAddr()
	if err != nil {
		return nil, err
	}
	for _, s := range c.servers() {
		if s.Addr == addr {
			return s, nil
		}
	}
	return nil, fmt.Errorf("harness: the sentinels name %s as primary, none of the cluster's servers", addr)
}

// primaryAddr asks the sentinels, in turn, for the primary's address.
func (c *Cluster) primaryAddr() (string, error) {
	var last error
	for _, s := range c.Sentinels {
		sc := goredis.NewClient(&goredis.Options{Addr: s.Addr, DialTimeout: time.Second, ReadTimeout: time.Second,
			WriteTimeout: time.Second, MaxRetries: -1, DisableIdentity: true})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		addr, err := sc.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName).StringSlice()
		cancel()
		_ = sc.Close()
		if err == nil && len(addr) == 2 {
			return net.JoinHostPort(addr[0], addr[1]), nil
		}
		last = err
	}
	return "", fmt.Errorf("harness: no sentinel named the primary: %v", last)
}

// Node returns the one server a fault names: NodePrimary or "replica-N".
func (c *Cluster) Node(name string) (*Server, error) {
	if name == NodeReplicas {
		return nil, fmt.Errorf("harness: node %q is several: name %s or replica-N", name, NodePrimary)
	}
	ss, err := c.Nodes(name)
	if err != nil {
		return nil, err
	}
	return ss[0], nil
}

// Nodes returns the servers a fault names: NodePrimary, NodeReplicas or
// "replica-N".
func (c *Cluster) Nodes(name string) ([]*Server, error) {
	p, err := c.CurrentPrimary()
	if err != nil {
		return nil, err
	}
	if name == NodePrimary {
		return []*Server{p}, nil
	}
	var replicas []*Server
	for _, s := range c.servers() {
		if s != p && !s.Exited() {
			replicas = append(replicas, s)
		}
	}
	if name == NodeReplicas {
		return replicas, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "replica-"))
	if !strings.HasPrefix(name, "replica-") || err != nil || n < 1 {
		return nil, fmt.Errorf("harness: node %q is unknown: use %s, %s or replica-N (N from 1)", name, NodePrimary, NodeReplicas)
	}
	if n > len(replicas) {
		return nil, fmt.Errorf("harness: node %q: there are %d live replicas", name, len(replicas))
	}
	return replicas[n-1 : n], nil
}

// KillPrimary kills the current primary (SIGKILL, its links cut with it)
// and waits, at most within, until the sentinels name another server: the
// promoted replica, which it returns with the old primary.
func (c *Cluster) KillPrimary(within time.Duration) (old, promoted *Server, err error) {
	old, err = c.CurrentPrimary()
	if err != nil {
		return nil, nil, err
	}
	old.Kill()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if p, err := c.CurrentPrimary(); err == nil && p != old {
			return old, p, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return old, nil, fmt.Errorf("harness: no replica promoted within %v of killing the primary %s", within, old.Name)
}

// Pause stops the server's processes (SIGSTOP) until Resume.
func (s *Server) Pause() error {
	if s.Exited() {
		return fmt.Errorf("harness: pausing %s: it has exited", s.Name)
	}
	s.paused.Store(true)
	return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGSTOP)
}

// Resume continues a paused server (SIGCONT); resuming one not paused is
// harmless.
func (s *Server) Resume() error {
	if !s.paused.Swap(false) || s.Exited() {
		return nil
	}
	return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT)
}

// Paused reports whether the server is paused.
func (s *Server) Paused() bool { return s.paused.Load() }

// Pause pauses the servers name names for d (zero: until Stop).
func (c *Cluster) Pause(name string, d time.Duration) error {
	ss, err := c.Nodes(name)
	if err != nil {
		return err
	}
	for _, s := range ss {
		if err := s.Pause(); err != nil {
			return err
		}
		c.after(d, func() { _ = s.Resume() })
	}
	return nil
}

// LinkLatency delays the replication links between the replicas name
// names and the current primary by latency plus or minus up to jitter
// (uniform), each way (the primary's stream of writes, the replica's
// acknowledgements), for d (zero: until Stop).
func (c *Cluster) LinkLatency(name string, latency, jitter, d time.Duration) error {
	if name == NodePrimary {
		return fmt.Errorf("harness: link latency on %q: name a replica, whose link to the primary is delayed", name)
	}
	rs, err := c.Nodes(name)
	if err != nil {
		return err
	}
	p, err := c.CurrentPrimary()
	if err != nil {
		return err
	}
	for _, r := range rs {
		set := func(l, j time.Duration) {
			p.proxy.SetDelay(r.source, faultproxy.Down, l, j)
			p.proxy.SetDelay(r.source, faultproxy.Up, l, j)
		}
		set(latency, jitter)
		c.after(d, func() { set(0, 0) })
	}
	return nil
}

// Partition cuts the server name names off from the other servers and the
// sentinels for d (zero: until Stop), both ways; the clients still
// reach it, as they would on its side of a partition. Sentinel then fails
// over a partitioned primary, which keeps taking the clients' writes until
// they follow the failover, and loses them when it rejoins as a replica.
func (c *Cluster) Partition(name string, d time.Duration) error {
	s, err := c.Node(name)
	if err != nil {
		return err
	}
	cut := func(on bool) {
		for _, o := range c.servers() {
			if o == s {
				continue
			}
			for _, link := range []struct {
				p    *faultproxy.Proxy
				from string
			}{{s.proxy, o.source}, {o.proxy, s.source}} {
				if on {
					link.p.Cut(link.from)
				} else {
					link.p.Heal(link.from)
				}
			}
		}
		if on {
			s.proxy.Cut(SentinelSource)
		} else {
			s.proxy.Heal(SentinelSource)
		}
	}
	cut(true)
	c.after(d, func() { cut(false) })
	return nil
}

// after runs undo after d, unless Stop comes first; d zero leaves it to
// Stop, which kills the servers.
func (c *Cluster) after(d time.Duration, undo func()) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.timers = append(c.timers, time.AfterFunc(d, undo))
}

// stopUndos stops the faults' pending undos, first thing in Stop.
func (c *Cluster) stopUndos() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for _, t := range c.timers {
		t.Stop()
	}
}

// Faults returns the cluster as the target of a fault schedule
// (internal/faults.Run).
func (c *Cluster) Faults() FaultTarget { return FaultTarget{c} }

// FaultTarget is a Cluster as a schedule's target: its KillPrimary waits at
// most the cluster's down-after plus FailoverTimeout for the promotion.
type FaultTarget struct{ *Cluster }

// KillPrimary kills the current primary and waits for the promotion.
func (f FaultTarget) KillPrimary() error {
	_, _, err := f.Cluster.KillPrimary(f.downAfter + FailoverTimeout)
	return err
}

// TB is what WaitPrimary needs of a test (testing.TB has it).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// WaitPrimary waits until the sentinels report a primary other than old
// (an address; "" for any), and returns its address: the end of a
// failover. It fails t after within.
func (c *Cluster) WaitPrimary(t TB, old string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	var last string
	for time.Now().Before(deadline) {
		if addr, err := c.primaryAddr(); err == nil {
			last = addr
			if addr != old {
				return addr
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("harness: no failover from %s within %v (the sentinels still say %s)", old, within, last)
	return ""
}
