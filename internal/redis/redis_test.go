package redis_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/redis"
	"github.com/overshoot-dev/overshoot/internal/redis/redistest"
)

// newStore opens a store for cfg, closed when the test ends.
func newStore(t *testing.T, cfg redis.Config) *redis.Store {
	t.Helper()
	s, err := redis.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestConfigErrors checks that every bad configuration is refused before
// any connection, with a message that says what to give.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  redis.Config
		want string
	}{
		{"nothing", redis.Config{}, "no server"},
		{"both", redis.Config{Addr: "127.0.0.1:1", Sentinels: []string{"127.0.0.1:2"}, MasterName: "m"}, "one or the other"},
		{"no master name", redis.Config{Sentinels: []string{"127.0.0.1:2"}}, "master name"},
		{"replica reads without replicas", redis.Config{Addr: "127.0.0.1:1", ReadReplicas: true}, "replicas' host:port"},
		{"replicas without replica reads", redis.Config{Addr: "127.0.0.1:1", Replicas: []string{"127.0.0.1:2"}}, "without replica reads"},
		{"replicas with sentinels", redis.Config{Sentinels: []string{"127.0.0.1:2"}, MasterName: "m", ReadReplicas: true, Replicas: []string{"127.0.0.1:3"}}, "sentinels name the replicas"},
		{"no port", redis.Config{Addr: "localhost"}, `"localhost" is not host:port`},
		{"bad sentinel", redis.Config{Sentinels: []string{"127.0.0.1:1", "x"}, MasterName: "m"}, `"x" is not host:port`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := redis.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// contract checks the kv.Store contract on s: a missing key, a put read
// back, a TTL under a second refused, and the TTL the server holds. ttlOf
// returns the server's own PTTL of the stored key.
func contract(t *testing.T, s kv.Store, readBack func(key string) (string, bool), ttlOf func(key string) time.Duration) {
	ctx := ctxFor(t, 10*time.Second)
	if v, found, err := s.Get(ctx, "missing"); err != nil || found || v != "" {
		t.Errorf("Get(missing) = %q, %v, %v; want not found and no error", v, found, err)
	}
	if err := s.Put(ctx, "k", "7", 90*time.Second); err != nil {
		t.Fatal(err)
	}
	if v, found := readBack("k"); !found || v != "7" {
		t.Errorf("read back %q, %v; want 7", v, found)
	}
	if got := ttlOf("k"); got <= 89*time.Second || got > 90*time.Second {
		t.Errorf("TTL on the server %v, want just under 90s", got)
	}
	if err := s.Put(ctx, "half", "1", 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := ttlOf("half"); got <= 1500*time.Millisecond || got > 2*time.Second {
		t.Errorf("TTL of 1.5s on the server %v, want it rounded up to 2s (EX takes seconds)", got)
	}
	err := s.Put(ctx, "short", "1", 999*time.Millisecond)
	if !errors.Is(err, kv.ErrInvalidTTL) {
		t.Errorf("Put with TTL 999ms: %v, want kv.ErrInvalidTTL", err)
	}
}

// TestStoreSingleServer runs the contract on one real server, checks that a
// key expires when its TTL says, and that prefixes keep two runs apart.
func TestStoreSingleServer(t *testing.T) {
	t.Parallel()
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	ctx := ctxFor(t, 20*time.Second)
	s := newStore(t, redis.Config{Addr: srv.Addr, Prefix: "run1:"})
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	contract(t, s, func(key string) (string, bool) {
		v, err := rc.Get(ctx, "run1:"+key).Result()
		return v, err == nil
	}, func(key string) time.Duration { return rc.PTTL(ctx, "run1:"+key).Val() })

	t.Run("expires", func(t *testing.T) {
		if err := s.Put(ctx, "brief", "1", time.Second); err != nil {
			t.Fatal(err)
		}
		if _, found, err := s.Get(ctx, "brief"); !found || err != nil {
			t.Fatalf("just written: found %v, %v", found, err)
		}
		time.Sleep(1100 * time.Millisecond)
		if _, found, err := s.Get(ctx, "brief"); found || err != nil {
			t.Errorf("after its 1s TTL: found %v, %v; want gone", found, err)
		}
	})
	t.Run("prefixes keep runs apart", func(t *testing.T) {
		other := newStore(t, redis.Config{Addr: srv.Addr, Prefix: "run2:"})
		if _, found, err := other.Get(ctx, "k"); found || err != nil {
			t.Errorf("run2 sees run1's key: found %v, %v", found, err)
		}
	})
}

// TestStoreUnavailable checks that a server that is not there, and one
// that never answers, give kv.ErrUnavailable within the timeout, which the
// limiter's error policy then decides on.
func TestStoreUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 64)
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held <- c // accepted, never answered
		}
	}()
	defer func() {
		silent.Close()
		for {
			select {
			case c := <-held:
				c.Close()
			default:
				return
			}
		}
	}()

	for _, tc := range []struct {
		name, addr, want string
	}{
		{"refused", closed, "connection refused"},
		{"silent", silent.Addr().String(), "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, redis.Config{Addr: tc.addr, Timeout: 200 * time.Millisecond})
			ctx := ctxFor(t, 5*time.Second)
			start := time.Now()
			_, _, gerr := s.Get(ctx, "k")
			perr := s.Put(ctx, "k", "1", time.Minute)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("a get and a put took %v with a 200ms timeout", took)
			}
			for _, err := range []error{gerr, perr} {
				if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want kv.ErrUnavailable saying %q", err, tc.want)
				}
			}
			if !strings.HasPrefix(gerr.Error(), "KV GET failed: redis: ") || !strings.HasPrefix(perr.Error(), "KV PUT failed: redis: ") {
				t.Errorf("messages %q, %q: want the KV contract's shape", gerr, perr)
			}
			lim, _ := limiter.New(limiter.Config{Name: "t", Limit: 5, Window: time.Minute, Policy: limiter.FailClosed})
			if d := lim.Check(ctx, s, time.Now(), "c"); !d.FailClosed || d.Allowed || !errors.Is(d.Err, kv.ErrUnavailable) {
				t.Errorf("fail-closed decision %+v, want denied by the policy on the store's error", d)
			}
			if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "preflight") {
				t.Errorf("Check: %v, want a preflight error", err)
			}
		})
	}
}

// TestStoreSentinel runs the contract through the sentinels, and shows a
// stale read from a replica: with the replication links cut (CLIENT KILL
// TYPE replica on the primary, which the replicas redo within about a
// second), a write to the primary is not yet on the replica the next read
// goes to, which then catches up.
func TestStoreSentinel(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t)
	pc := c.Primary.Client(t)
	ctx := ctxFor(t, 60*time.Second)

	t.Run("contract through sentinels", func(t *testing.T) {
		s := newStore(t, redis.Config{Sentinels: c.SentinelAddrs(), MasterName: redistest.MasterName})
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
		contract(t, s, func(key string) (string, bool) {
			v, err := pc.Get(ctx, key).Result()
			return v, err == nil
		}, func(key string) time.Duration { return pc.PTTL(ctx, key).Val() })
	})

	for _, tc := range []struct {
		name string
		cfg  redis.Config
	}{
		{"replicas through sentinels", redis.Config{Sentinels: c.SentinelAddrs(), MasterName: redistest.MasterName, ReadReplicas: true}},
		{"replicas given", redis.Config{Addr: c.Primary.Addr, Replicas: c.ReplicaAddrs(), ReadReplicas: true}},
	} {
		t.Run("stale read from "+tc.name, func(t *testing.T) {
			s := newStore(t, tc.cfg)
			key := "stale-" + strings.ReplaceAll(tc.name, " ", "-")
			if err := s.Put(ctx, key, "old", time.Minute); err != nil {
				t.Fatal(err)
			}
			eventually(t, s, key, "old")
			stale := false
			for i := 0; i < 10 && !stale; i++ {
				if err := pc.Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err(); err != nil {
					t.Fatal(err)
				}
				v := fmt.Sprint("new", i)
				if err := s.Put(ctx, key, v, time.Minute); err != nil {
					t.Fatal(err)
				}
				got, _, err := s.Get(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				stale = got != v
				if stale {
					t.Logf("attempt %d: wrote %q to the primary, the replica read %q", i+1, v, got)
				}
				eventually(t, s, key, v)
			}
			if !stale {
				t.Error("no read from a replica was stale in 10 tries with the replication links cut")
			}
		})
	}
}

// eventually waits (at most 10 s) until every read of key through s gives want.
func eventually(t *testing.T, s *redis.Store, key, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for ok := 0; ok < 4; {
		if time.Now().After(deadline) {
			t.Fatalf("reads of %s never settled on %q", key, want)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		v, _, err := s.Get(ctx, key)
		cancel()
		if err == nil && v == want {
			ok++
		} else {
			ok = 0
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestStoreFailover kills the primary (SIGKILL) under a fail-open limiter
// that reads and writes through the sentinels: the decisions while no
// primary answers are the error policy's, on kv.ErrUnavailable; Sentinel
// promotes a replica; the store follows it, and its writes land on the new
// primary, which also holds what was written before the kill.
func TestStoreFailover(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t)
	ctx := ctxFor(t, 60*time.Second)
	s := newStore(t, redis.Config{Sentinels: c.SentinelAddrs(), MasterName: redistest.MasterName, Timeout: 300 * time.Millisecond})
	if err := s.Put(ctx, "before", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Primary.Client(t).Do(ctx, "WAIT", 2, 2000).Int(); err != nil || n != 2 {
		t.Fatalf("WAIT 2: %d replicas acknowledged, %v", n, err)
	}
	lim, err := limiter.New(limiter.Config{Name: "t", Limit: 1 << 40, Window: time.Minute})
	if err != nil {
		t.Fatal(err)
	}

	old := c.Primary.Addr
	c.Primary.Kill()
	failed, okAfter := 0, 0
	deadline := time.Now().Add(30 * time.Second)
	for okAfter < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("no recovery within 30s of the kill: %d decisions by the error policy, %d good ones after", failed, okAfter)
		}
		d := lim.Check(ctx, s, time.Now(), "caller")
		switch {
		case d.Err == nil:
			if failed > 0 {
				okAfter++
			}
		case d.FailOpen && d.Allowed && errors.Is(d.Err, kv.ErrUnavailable):
			failed++
			okAfter = 0
		default:
			t.Fatalf("decision %+v: want a good one or fail-open on kv.ErrUnavailable", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if failed == 0 {
		t.Fatal("no decision went to the error policy while the primary was dead")
	}
	promoted := c.WaitPrimary(t, old, 5*time.Second)
	t.Logf("%d decisions by the error policy; %s promoted in place of %s", failed, promoted, old)
	var np *redistest.Server
	for _, r := range c.Replicas {
		if r.Addr == promoted {
			np = r
		}
	}
	if np == nil {
		t.Fatalf("the sentinels promoted %s, which is none of the replicas %v", promoted, c.ReplicaAddrs())
	}
	if err := s.Put(ctx, "after", "2", time.Minute); err != nil {
		t.Fatal(err)
	}
	nc := np.Client(t)
	for key, want := range map[string]string{"before": "1", "after": "2"} {
		if v, err := nc.Get(ctx, key).Result(); err != nil || v != want {
			t.Errorf("the new primary holds %s = %q, %v; want %q", key, v, err, want)
		}
	}
}
