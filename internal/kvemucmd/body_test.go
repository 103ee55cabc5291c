package kvemucmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

// TestSlowBodyTimesOut: the command's server, with its request log in
// front of the emulator, answers a trickling put body 408 after
// -body-timeout.
func TestSlowBodyTimesOut(t *testing.T) {
	c, err := parseFlags([]string{"-addr", "127.0.0.1:0", "-account", "acct", "-namespace", "ns", "-token", "tok", "-body-timeout", "300ms"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	emu, err := kvemu.New(kvemu.Config{AccountID: c.account, Token: c.token, Namespaces: c.namespaces, BodyTimeout: c.bodyTimeout})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, c, emu, io.Discard, io.Discard, func(base string) {
			defer cancel()
			conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(base, kvemu.Prefix), "http://"))
			if err != nil {
				t.Errorf("dial: %v", err)
				return
			}
			defer conn.Close()
			fmt.Fprintf(conn, "PUT %saccounts/acct/storage/kv/namespaces/ns/values/k HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Length: 100\r\n\r\n1", kvemu.Prefix)
			start := time.Now()
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Errorf("no answer to a stalled body: %v", err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout || time.Since(start) > 3*time.Second {
				t.Errorf("status %d after %v, want 408 after about 300ms", resp.StatusCode, time.Since(start))
			}
		})
	}()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
