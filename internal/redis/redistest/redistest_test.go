package redistest

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// TestStart starts the whole cluster, checks that a write on the primary
// reaches both replicas and that the sentinels name the primary, and that
// every process is gone once the subtest that started them has ended.
func TestStart(t *testing.T) {
	t.Parallel()
	var pids []int
	t.Run("cluster", func(t *testing.T) {
		c := Start(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Primary.Client(t).Set(ctx, "k", "v", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		for _, r := range c.Replicas {
			rc := r.Client(t)
			for v := ""; v != "v"; v, _ = rc.Get(ctx, "k").Result() {
				if ctx.Err() != nil {
					t.Fatalf("%s never read the primary's write", r.Name)
				}
				time.Sleep(20 * time.Millisecond)
			}
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
