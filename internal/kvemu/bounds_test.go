package kvemu

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestIntegerFieldsRefuseExponents: expiration_ttl and expiration are
// integers; 1e2 and 1e12 are refused, as a fraction is.
func TestIntegerFieldsRefuseExponents(t *testing.T) {
	for _, q := range []string{"expiration_ttl=1e2", "expiration_ttl=6E1", "expiration_ttl=60.0", "expiration_ttl=+60", "expiration=1e12", "expiration=0x7fffffff"} {
		e, _ := newEmu(t, nil)
		r := do(e, put("k", "1", q))
		if r.status != 400 {
			t.Errorf("%s: status %d (%s), want 400", q, r.status, r.body)
			continue
		}
		if _, msg := errorOf(t, r); !strings.Contains(msg, "integer") {
			t.Errorf("%s: %q, want it to ask for an integer", q, msg)
		}
	}
	e, _ := newEmu(t, nil)
	if r := do(e, put("k", "1", "expiration_ttl=100")); r.status != 200 {
		t.Errorf("expiration_ttl=100: %d %s", r.status, r.body)
	}
}

// TestDeletedAndExpiredFreed: a deleted or expired key is kept only as long
// as the per-key write limit needs its last write time (a second), so that
// memory does not grow with every key ever deleted.
func TestDeletedAndExpiredFreed(t *testing.T) {
	e, clk := newEmu(t, nil)
	for i := range 5000 {
		do(e, put(fmt.Sprintf("k%d", i), "1", "expiration_ttl=60"))
		clk.Advance(time.Millisecond)
	}
	clk.Advance(2 * time.Minute) // every one has expired
	for i := range 20_000 {
		do(e, call{method: http.MethodDelete, path: valuesPath(testAccount, testNamespace, fmt.Sprintf("d%d", i)), token: testToken})
		clk.Advance(10 * time.Millisecond)
	}
	e.mu.Lock()
	n := len(e.namespaces[testNamespace])
	e.mu.Unlock()
	if n > 2*minSweep+200 {
		t.Errorf("%d entries held after 5,000 expiries and 20,000 deletes: deleted and expired keys are not freed", n)
	}
	// What the write limit needs is still there: a key deleted just now
	// cannot be written again within the second.
	do(e, call{method: http.MethodDelete, path: valuesPath(testAccount, testNamespace, "x"), token: testToken})
	if r := do(e, put("x", "2", "")); r.status != 429 {
		t.Errorf("a write within a second of a delete: %d, want 429", r.status)
	}
}

// TestSlowBodyTimesOut: a put whose body trickles in is answered 408 once
// BodyTimeout has passed, and its connection is closed, instead of holding
// it for as long as the client likes.
func TestSlowBodyTimesOut(t *testing.T) {
	e, _ := newEmu(t, func(c *Config) { c.BodyTimeout = 300 * time.Millisecond })
	srv := httptest.NewServer(e)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\n", valuesPath(testAccount, testNamespace, "k"), testToken)
	start := time.Now()
	go func() {
		for range 100 {
			if _, err := conn.Write([]byte("1")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within 5 s to a trickling body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || time.Since(start) > 3*time.Second {
		t.Errorf("status %d after %v, want 408 soon after 300ms", resp.StatusCode, time.Since(start))
	}
}
