package faultproxy

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// echo starts a loopback server that writes back every line it reads, and
// returns its address; it is closed when the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

// start starts a proxy to target, stopped when the test ends.
func start(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := Start(target, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// dial connects to the proxy, closed when the test ends.
func dial(t *testing.T, p *Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	return dialFrom(t, p, "127.0.0.1")
}

// dialFrom connects to the proxy from the loopback address src.
func dialFrom(t *testing.T, p *Proxy, src string) (net.Conn, *bufio.Reader) {
	t.Helper()
	d := net.Dialer{Timeout: time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c, err := d.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// roundTrip sends a line and reads it back, within limit; it returns how
// long that took, or an error.
func roundTrip(c net.Conn, r *bufio.Reader, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	_ = c.SetDeadline(start.Add(limit))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return 0, err
	}
	line, err := r.ReadString('\n')
	if err == nil && line != "ping\n" {
		err = io.ErrUnexpectedEOF
	}
	return time.Since(start), err
}

// TestDelay checks that each direction's latency is added once, and only to
// its own direction's bytes.
func TestDelay(t *testing.T) {
	target := echo(t)
	tests := []struct {
		name     string
		up, down time.Duration
		min      time.Duration
	}{
		{"none", 0, 0, 0},
		{"up", 150 * time.Millisecond, 0, 150 * time.Millisecond},
		{"down", 0, 150 * time.Millisecond, 150 * time.Millisecond},
		{"both", 100 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, target)
			p.SetDelay("", Up, tc.up, 0)
			p.SetDelay("", Down, tc.down, 0)
			c, r := dial(t, p)
			took, err := roundTrip(c, r, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			// Only the lower bound is tight: the machine may be loaded.
			if took < tc.min || took > tc.min+700*time.Millisecond {
				t.Errorf("round trip %v, want %v to %v", took, tc.min, tc.min+700*time.Millisecond)
			}
		})
	}
}

// TestJitterSeeded checks that the jitter's draws stay in [latency-jitter,
// latency+jitter), spread over both sides, and that one seed gives the same
// draws.
func TestJitterSeeded(t *testing.T) {
	target := echo(t)
	draws := func(seed uint64) []time.Duration {
		p, err := Start(target, seed)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		p.SetDelay("", Down, 60*time.Millisecond, 50*time.Millisecond)
		var out []time.Duration
		for range 20 {
			d := p.draw("127.0.0.1", Down)
			if d < 9*time.Millisecond || d > 110*time.Millisecond {
				t.Errorf("a draw of %v, want it in [10ms, 110ms)", d)
			}
			out = append(out, d)
		}
		return out
	}
	a, b, c := draws(7), draws(7), draws(8)
	below := 0
	for _, d := range a {
		if d < 60*time.Millisecond {
			below++
		}
	}
	if below < 3 || below > 17 {
		t.Errorf("%d of 20 draws under the latency, want them on both sides: %v", below, a)
	}
	same := func(x, y []time.Duration) int {
		n := 0
		for i := range x {
			if x[i] == y[i] {
				n++
			}
		}
		return n
	}
	if n := same(a, b); n != 20 {
		t.Errorf("seed 7 twice: %d of 20 draws alike, want all", n)
	}
	if n := same(a, c); n > 10 {
		t.Errorf("seeds 7 and 8: %d of 20 draws alike, want different draws", n)
	}
}

// TestCutHeal checks that a cut stalls an open connection (nothing comes
// back), refuses a new one, and that Heal delivers what was held.
func TestCutHeal(t *testing.T) {
	p := start(t, echo(t))
	c, r := dial(t, p)
	if _, err := roundTrip(c, r, time.Second); err != nil {
		t.Fatal(err)
	}
	p.Cut("")
	if _, err := roundTrip(c, r, 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("a round trip through a cut link: %v, want a timeout", err)
	}
	nc, nr := dial(t, p)
	if _, err := roundTrip(nc, nr, time.Second); err == nil {
		t.Error("a new connection through a cut link answered, want it refused")
	}
	p.Heal("")
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if line, err := r.ReadString('\n'); err != nil || line != "ping\n" {
		t.Fatalf("after Heal: %q, %v; want the held ping", line, err)
	}
	if _, err := roundTrip(c, r, time.Second); err != nil {
		t.Errorf("after Heal: %v", err)
	}
}

// TestStop checks that Stop closes open connections (stalled ones, and
// ones with a chunk delayed an hour, too) and the listener, and returns.
func TestStop(t *testing.T) {
	p := start(t, echo(t))
	c, r := dial(t, p)
	if _, err := roundTrip(c, r, time.Second); err != nil {
		t.Fatal(err)
	}
	d, dr := dial(t, p)
	p.SetDelay("", Down, time.Hour, 0)
	_, _ = d.Write([]byte("delayed an hour\n"))
	p.Cut("")
	_, _ = c.Write([]byte("held\n"))
	time.Sleep(50 * time.Millisecond) // both read by the proxy
	done := make(chan struct{})
	go func() { p.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Stop did not return within 2s")
	}
	for _, cr := range []struct {
		c net.Conn
		r *bufio.Reader
	}{{c, r}, {d, dr}} {
		_ = cr.c.SetDeadline(time.Now().Add(time.Second))
		if _, err := cr.r.ReadString('\n'); err == nil || strings.Contains(err.Error(), "timeout") {
			t.Errorf("reading after Stop: %v, want the connection closed (EOF or reset)", err)
		}
	}
	if c, err := net.DialTimeout("tcp", p.Addr(), 200*time.Millisecond); err == nil {
		c.Close()
		t.Error("the proxy still accepts connections after Stop")
	}
}

// TestLoopbackOnly checks that a target off loopback, or not host:port, is
// refused.
func TestLoopbackOnly(t *testing.T) {
	for _, target := range []string{"10.0.0.1:6379", "example.com:6379", "127.0.0.1", ""} {
		if _, err := Start(target, 1); err == nil || !strings.Contains(err.Error(), "not a loopback host:port") {
			t.Errorf("Start(%q): %v, want refused", target, err)
		}
	}
}

// TestPerSource checks that a delay and a cut for one source address leave
// the connections from another alone, and that a source without a delay of
// its own gets every source's.
func TestPerSource(t *testing.T) {
	p := start(t, echo(t))
	p.SetDelay("", Down, 100*time.Millisecond, 0)
	p.SetDelay("127.0.0.2", Down, time.Second, 0)
	a, ar := dialFrom(t, p, "127.0.0.1")
	b, br := dialFrom(t, p, "127.0.0.2")
	for _, tc := range []struct {
		name     string
		c        net.Conn
		r        *bufio.Reader
		min, max time.Duration
	}{
		{"every source's delay", a, ar, 100 * time.Millisecond, 900 * time.Millisecond},
		{"its own delay", b, br, time.Second, 1900 * time.Millisecond},
	} {
		took, err := roundTrip(tc.c, tc.r, 3*time.Second)
		if err != nil || took < tc.min || took > tc.max {
			t.Errorf("%s: round trip %v, %v; want %v to %v", tc.name, took, err, tc.min, tc.max)
		}
	}
	p.Cut("127.0.0.2")
	if _, err := roundTrip(a, ar, 2*time.Second); err != nil {
		t.Errorf("127.0.0.1 with 127.0.0.2 cut: %v, want it through", err)
	}
	if _, err := roundTrip(b, br, 500*time.Millisecond); err == nil {
		t.Error("127.0.0.2 cut: its round trip went through")
	}
	nc, nr := dialFrom(t, p, "127.0.0.2")
	if _, err := roundTrip(nc, nr, time.Second); err == nil {
		t.Error("a new connection from 127.0.0.2, cut, answered")
	}
}
