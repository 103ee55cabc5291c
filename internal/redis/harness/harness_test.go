package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// TestStartPortTaken makes the first port a server is given one that
// another process holds: the server fails to bind, and StartServer starts
// it again on another port.
func TestStartPortTaken(t *testing.T) {
	if _, _, err := Binaries(); err != nil {
		t.Skip(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	taken := busy.Addr().(*net.TCPAddr).Port
	calls := 0
	pickPort = func() (int, error) {
		calls++
		if calls == 1 {
			return taken, nil
		}
		return freePort()
	}
	defer func() { pickPort = freePort }()
	s, err := StartServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	if calls != 2 || s.Addr == busy.Addr().String() {
		t.Errorf("%d ports picked, server at %s (the taken one is %s): want a second port", calls, s.Addr, busy.Addr())
	}
}

// TestServersDieWithAttack starts a server from a child process that then
// exits without stopping it (as attack does on a second Ctrl-C): the
// server must not outlive it.
func TestServersDieWithAttack(t *testing.T) {
	if os.Getenv("HARNESS_CHILD_DIR") != "" {
		s, err := StartServer(os.Getenv("HARNESS_CHILD_DIR"))
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		fmt.Println(s.Pid())
		os.Exit(0)
	}
	if _, _, err := Binaries(); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServersDieWithAttack$")
	cmd.Env = append(os.Environ(), "HARNESS_CHILD_DIR="+t.TempDir())
	out, err := cmd.Output()
	pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || perr != nil {
		t.Fatalf("the child: %v, printed %q", err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("the server (process %d) outlived the process that started it by 5s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStartWith starts a cluster of one replica whose sentinels wait 2 s
// before a failover, as a scenario's store.redis can ask, and checks that
// the sentinels see one replica and that down-after; bad options are
// refused before anything starts.
func TestStartWith(t *testing.T) {
	for _, o := range []Options{{Replicas: MaxReplicas + 1}, {Replicas: -1}, {DownAfter: time.Microsecond}} {
		if _, err := StartWith(t.TempDir(), o); err == nil {
			t.Errorf("StartWith(%+v) started", o)
		}
	}
	if _, _, err := Binaries(); err != nil {
		t.Skip(err)
	}
	c, err := StartWith(t.TempDir(), Options{Replicas: 1, DownAfter: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if len(c.Replicas) != 1 {
		t.Errorf("%d replicas, want 1", len(c.Replicas))
	}
	sc := goredis.NewClient(&goredis.Options{Addr: c.Sentinels[0].Addr, DisableIdentity: true})
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := SentinelMaster(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	if m["down-after-milliseconds"] != "2000" || m["num-slaves"] != "1" {
		t.Errorf("the sentinel sees down-after %s ms and %s replicas, want 2000 and 1", m["down-after-milliseconds"], m["num-slaves"])
	}
}
