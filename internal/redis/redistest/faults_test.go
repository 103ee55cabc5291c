package redistest

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// ctx returns a context ended after d or at the end of the test.
func ctx(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// TestKillPrimary kills the primary: it is gone, Sentinel promotes a
// replica, which takes writes, and the names follow: primary is the
// promoted one, replica1 the other live one.
func TestKillPrimary(t *testing.T) {
	t.Parallel()
	c := Start(t)
	old, promoted, err := c.KillPrimary(FailoverTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if old != c.Primary || !old.Exited() {
		t.Errorf("killed %s (exited %v), want the primary gone", old.Name, old.Exited())
	}
	if promoted != c.Replicas[0] && promoted != c.Replicas[1] {
		t.Fatalf("promoted %s, want a replica", promoted.Name)
	}
	if err := promoted.Client(t).Set(ctx(t, 5*time.Second), "k", "v", time.Minute).Err(); err != nil {
		t.Errorf("a write to the promoted %s: %v", promoted.Name, err)
	}
	p, err := c.Node(NodePrimary)
	if err != nil || p != promoted {
		t.Errorf("Node(primary) = %v, %v; want %s", p, err, promoted.Name)
	}
	r, err := c.Node("replica-1")
	if err != nil || r == promoted || r == old {
		t.Errorf("Node(replica-1) = %v, %v; want the live replica", r, err)
	}
	if _, err := c.Node("replica-2"); err == nil || !strings.Contains(err.Error(), "1 live replicas") {
		t.Errorf("Node(replica-2) after the kill: %v, want an error saying there is one", err)
	}
}

// TestPause pauses a replica: it does not answer, then answers once
// resumed; a server still paused when its test ends is resumed and killed.
func TestPause(t *testing.T) {
	t.Parallel()
	var pid int
	t.Run("cluster", func(t *testing.T) {
		c := Start(t)
		r := c.Replicas[0]
		rc := r.Client(t)
		if err := c.Pause("replica-1", 0); err != nil {
			t.Fatal(err)
		}
		if err := rc.Ping(ctx(t, 300*time.Millisecond)).Err(); err == nil {
			t.Fatal("a paused replica answered PING")
		}
		if err := r.Resume(); err != nil {
			t.Fatal(err)
		}
		if err := rc.Ping(ctx(t, 2*time.Second)).Err(); err != nil {
			t.Fatalf("after Resume: %v", err)
		}
		if err := c.Pause("replica-1", 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if r.Paused() {
			t.Error("still paused 1s into a pause of 200ms")
		}
		if err := c.Pause("replica-2", 0); err != nil {
			t.Fatal(err)
		}
		pid = c.Replicas[1].Pid()
	})
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the paused replica (process %d) is still there after its test ended (kill 0: %v)", pid, err)
	}
}

// lag writes a new value to the primary and returns how long until each
// replica reads it (at most 3 s).
func lag(t *testing.T, c *Cluster, key string) []time.Duration {
	t.Helper()
	v := time.Now().String()
	start := time.Now()
	if err := c.Primary.Client(t).Set(ctx(t, 2*time.Second), key, v, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	out := make([]time.Duration, len(c.Replicas))
	var rcs []*goredis.Client
	for _, r := range c.Replicas {
		rcs = append(rcs, r.Client(t))
	}
	for seen := 0; seen < len(out); {
		for i, rc := range rcs {
			if out[i] != 0 {
				continue
			}
			if got, _ := rc.Get(ctx(t, time.Second), key).Result(); got == v {
				out[i] = time.Since(start)
				seen++
			}
		}
		if time.Since(start) > 3*time.Second {
			t.Fatalf("not every replica saw the write within 3s: %v", out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return out
}

// TestLinkLatency delays replica1's link: a write reaches it that much
// later, replica2 at once; once the latency's time is over, both at once.
func TestLinkLatency(t *testing.T) {
	t.Parallel()
	c := Start(t)
	// Lower bounds are tight; upper ones leave room for a loaded machine.
	if err := c.LinkLatency("replica-1", 600*time.Millisecond, 50*time.Millisecond, 2500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got := lag(t, c, "delayed")
	if got[0] < 550*time.Millisecond || got[0] > 2*time.Second || got[1] > 400*time.Millisecond {
		t.Errorf("replication lag %v, want replica1 550ms to 2s behind, replica2 under 400ms", got)
	}
	time.Sleep(2600 * time.Millisecond)
	if got := lag(t, c, "healed"); got[0] > 400*time.Millisecond {
		t.Errorf("after the latency's time: lag %v, want under 400ms", got)
	}
	if err := c.LinkLatency(NodePrimary, time.Second, 0, 0); err == nil || !strings.Contains(err.Error(), "name a replica") {
		t.Errorf("link latency on the primary: %v, want refused", err)
	}
	if err := c.LinkLatency("sentinel1", time.Second, 0, 0); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("link latency on sentinel1: %v, want an unknown node", err)
	}
	if err := c.LinkLatency(NodeReplicas, 200*time.Millisecond, 0, 0); err != nil {
		t.Fatal(err)
	}
	if got := lag(t, c, "both"); got[0] < 200*time.Millisecond || got[1] < 200*time.Millisecond {
		t.Errorf("latency on both replicas: lag %v, want both 200ms or more", got)
	}
}

// TestPartition cuts the primary off from its replicas and the sentinels:
// Sentinel promotes a replica; a client that still reaches the old primary
// writes to it, and once the partition heals (10 s on) the old primary
// rejoins as a replica and that write is gone: acknowledged, then lost.
func TestPartition(t *testing.T) {
	t.Parallel()
	c := Start(t)
	oc := c.Primary.Client(t)
	// Long enough for the failover, which takes DownAfter and an election.
	if err := c.Partition(NodePrimary, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := oc.Set(ctx(t, 2*time.Second), "island", "1", time.Minute).Err(); err != nil {
		t.Fatalf("a client writing to the partitioned primary: %v, want it acknowledged", err)
	}
	deadline := time.Now().Add(FailoverTimeout)
	var promoted *Server
	for promoted == nil && time.Now().Before(deadline) {
		if p, err := c.CurrentPrimary(); err == nil && p != c.Primary {
			promoted = p
		}
		time.Sleep(50 * time.Millisecond)
	}
	if promoted == nil {
		t.Fatalf("no failover within %v of the partition", FailoverTimeout)
	}
	if _, err := promoted.Client(t).Get(ctx(t, time.Second), "island").Result(); !errors.Is(err, goredis.Nil) {
		t.Errorf("the promoted %s reads island: %v, want it never to have seen it", promoted.Name, err)
	}
	deadline = time.Now().Add(10*time.Second + FailoverTimeout)
	for {
		role, _ := oc.Do(ctx(t, time.Second), "ROLE").Slice()
		if len(role) > 0 && role[0] == "slave" {
			if _, err := oc.Get(ctx(t, time.Second), "island").Result(); errors.Is(err, goredis.Nil) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the old primary did not rejoin as a replica without the island write within %v (role %v)", FailoverTimeout, role)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
