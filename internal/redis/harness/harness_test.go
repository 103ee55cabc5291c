package harness

import (
	"net"
	"testing"
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
