package redistest

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestStart starts the whole cluster, checks that a write on the primary
// reaches both replicas and that the sentinels name the primary, and that
// every process is gone once the subtest that started them has ended.
func TestStart(t *testing.T) {
	var pids []int
	t.Run("cluster", func(t *testing.T) {
		c := Start(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Primary.Client(t).Set(ctx, "k", "v", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		for _, r := range c.Replicas {
			waitFor(t, r, "the primary's write", func(ctx context.Context, rc redisClient) error {
				v, err := rc.Get(ctx, "k").Result()
				if err == nil && v != "v" {
					return errors.New("read " + v)
				}
				return err
			})
		}
		if got := c.WaitPrimary(t, "", 5*time.Second); got != c.Primary.Addr {
			t.Errorf("the sentinels name %s as primary, want %s", got, c.Primary.Addr)
		}
		for _, s := range append(append([]*Server{c.Primary}, c.Replicas...), c.Sentinels...) {
			pids = append(pids, s.Pid())
		}
	})
	if len(pids) != 6 {
		t.Fatalf("%d processes started, want 6", len(pids))
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still there after its test ended (kill 0: %v)", pid, err)
		}
	}
}

// TestStartPortTaken makes the first port a server is given one that
// another process holds: the server fails to bind, and StartServer starts
// it again on another port.
func TestStartPortTaken(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	taken := busy.Addr().(*net.TCPAddr).Port
	calls := 0
	pickPort = func(t testing.TB) int {
		calls++
		if calls == 1 {
			return taken
		}
		return freePort(t)
	}
	defer func() { pickPort = freePort }()
	s := StartServer(t)
	if calls != 2 || s.Addr == busy.Addr().String() {
		t.Errorf("%d ports picked, server at %s (the taken one is %s): want a second port", calls, s.Addr, busy.Addr())
	}
}
